//go:build hookexec_norego

package engine

// regoBuilt says this build leaves Rego out (-tags hookexec_norego; policy_rego.go).
const regoBuilt = false
