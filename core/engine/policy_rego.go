//go:build !hookexec_norego

package engine

// Rego policies are linked into every build of the engine, so the CLI, its daemon and
// libhookexec (capi) evaluate them; building with -tags hookexec_norego leaves OPA out
// (about 15 MB of a stripped libhookexec.so: docs/architecture.md), and a configuration
// with a Rego policy then fails to load with policy.Compile's error saying so.
import _ "github.com/hookexec/hookexec/core/policy/rego"

// regoBuilt says this build links Rego (policy_norego.go: it does not).
const regoBuilt = true
