package facts

# Each fact by itself, for the table test.
project_root := hookexec.project_root()

resolve_path := hookexec.resolve_path(input.tool_input.file_path)

inside_project := hookexec.inside_project(input.tool_input.file_path)

is_symlink := hookexec.is_symlink(input.tool_input.file_path)

git_branch := hookexec.git.branch()

git_dirty := hookexec.git.dirty()

commands := hookexec.commands()

command_known := hookexec.command_known()

event := hookexec.event()

matcher := hookexec.matcher()

# A guard: no write outside the project, and no rm -rf of a path outside it, trusting only
# a line whose commands are all known.
deny if {
	input.tool_name in {"Write", "Edit"}
	not hookexec.inside_project(input.tool_input.file_path)
}

deny if {
	input.tool_name == "Bash"
	not hookexec.command_known()
}

deny if {
	input.tool_name == "Bash"
	some words in hookexec.commands()
	words[0] == "rm"
	some path in array.slice(words, 1, count(words))
	not startswith(path, "-")
	not hookexec.inside_project(path)
}

default deny := false

# Asks for no fact: evaluates with no project at all.
no_facts := {"decision": "block"} if input.tool_name == "Bash"
