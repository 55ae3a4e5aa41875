# The benchmark's rule, as the peers' comparison writes it: deny rm -rf in a Bash call.
package rmrf

decision := {"hookSpecificOutput": {
	"hookEventName": "PreToolUse",
	"permissionDecision": "deny",
	"permissionDecisionReason": "rm -rf is not allowed",
}} if {
	input.tool_name == "Bash"
	regex.match(`\brm\s+-[a-zA-Z]*(rf|fr)\b`, input.tool_input.command)
}
