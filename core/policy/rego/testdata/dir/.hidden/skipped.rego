package hidden
not rego at all (
