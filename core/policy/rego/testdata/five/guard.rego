package guard

# The five common guards as one decision: the first that applies answers.

pre(decision, reason) := {"hookSpecificOutput": {
	"hookEventName": "PreToolUse",
	"permissionDecision": decision,
	"permissionDecisionReason": reason,
}}

bash := input.tool_name == "Bash"

commands := hookexec.commands() if bash

writes if input.tool_name in {"Write", "Edit", "MultiEdit"}

# 1. Never pipe a download into a shell.
decision := pre("deny", "no curl | sh") if {
	bash
	regex.match(`(curl|wget)\b[^|]*\|\s*(sudo\s+)?(ba|z|da)?sh\b`, input.tool_input.command)
}

# 2. No rm -rf outside the project.
else := pre("deny", "rm -rf outside the project") if {
	some words in commands
	words[0] == "rm"
	flag(words, `^-[a-zA-Z]*[rR]`, "--recursive")
	flag(words, `^-[a-zA-Z]*f`, "--force")
	some path in array.slice(words, 1, count(words))
	not startswith(path, "-")
	not hookexec.inside_project(path)
}

# A line hookexec cannot read fully ($CMD, eval, a pipe into a shell) may run anything.
else := pre("ask", "cannot tell what this line runs") if {
	bash
	not hookexec.command_known()
}

# 3. Ask before pushing to main.
else := pre("ask", "pushing to main") if {
	some words in commands
	array.slice(words, 0, 2) == ["git", "push"]
	pushes_main(words)
}

# 4. No writes to .env files.
else := pre("deny", "no writes to .env files") if {
	writes
	regex.match(`(^|/)\.env(\.[^/]*)?$`, hookexec.resolve_path(input.tool_input.file_path))
}

# 5. No writes outside the project (after symbolic links).
else := pre("deny", "writes stay inside the project") if {
	writes
	not hookexec.inside_project(input.tool_input.file_path)
}

# A short flag by pattern (-rf, -r -f) or its long form.
flag(words, short, _) if {
	some w in words
	regex.match(short, w)
}

flag(words, _, long) if long in words

# main named on the line, or no refspec while main is checked out.
pushes_main(words) if "main" in words

pushes_main(words) if {
	count([w | some w in array.slice(words, 2, count(words)); not startswith(w, "-")]) < 2
	hookexec.git.branch() == "main"
}
