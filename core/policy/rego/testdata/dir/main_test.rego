package dir_test

# Skipped by the loader: *_test.rego modules are opa test's. This one does not parse,
# so loading it would fail the directory.
test_broken if {
