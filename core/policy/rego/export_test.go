package rego

// ParseInput is parseInput, for the differential tests against OPA's own reader.
var ParseInput = parseInput
