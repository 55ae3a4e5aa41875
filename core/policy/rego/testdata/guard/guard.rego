# The five common guards as one decision (docs/policy.md, ## Rego); the rules' conditions
# are disjoint, so at most one answers.
package guard

tool_command := input.tool_input.command if input.tool_name == "Bash"

rm_rf if regex.match(`(^|[;&|]\s*)rm\s+(-[a-zA-Z]*r[a-zA-Z]*f|-[a-zA-Z]*f[a-zA-Z]*r)\b`, tool_command)

push_main if regex.match(`^git\s+push\b.*\bmain\b`, tool_command)

pre(decision, reason) := {"hookSpecificOutput": {
	"hookEventName": "PreToolUse",
	"permissionDecision": decision,
	"permissionDecisionReason": reason,
}}

decision := pre("deny", "rm -rf is not allowed here") if rm_rf

decision := pre("ask", "pushing to main") if push_main

decision := pre("allow", "read-only git") if regex.match(`^git\s+(status|log|diff)\b`, tool_command)

decision := {"hookSpecificOutput": {
	"hookEventName": "PreToolUse",
	"permissionDecision": "allow",
	"updatedInput": object.union(input.tool_input, {"command": concat(" ", ["pnpm", substring(tool_command, 4, -1)])}),
}} if startswith(tool_command, "npm ")

decision := {"hookSpecificOutput": {
	"hookEventName": "UserPromptSubmit",
	"additionalContext": "the project uses pnpm",
}} if {
	input.hook_event_name == "UserPromptSubmit"
	contains(input.prompt, "install")
}

# A bool query: true applies the hook's decision and reason.
default deny_env := false

deny_env if endswith(input.tool_input.file_path, ".env")

# Not an answer: a string.
name := "guard"

# Two complete rules that both apply to "conflict": OPA's eval_conflict_error.
clash := {"a": 1} if input.prompt == "conflict"

clash := {"b": 2} if input.prompt == "conflict"

# A builtin's error (to_number of a word) fails the evaluation under strict builtin errors.
strict := {"n": to_number(input.prompt)}

# Long enough that only cancellation ends it (10^9 iterations).
slow := count({x | some a in numbers.range(1, 1000); some b in numbers.range(1, 1000); some c in numbers.range(1, 1000); x := a + b + c})

facts := {
	"event": hookexec.event(),
	"matcher": hookexec.matcher(),
	"root": hookexec.project_root(),
}
