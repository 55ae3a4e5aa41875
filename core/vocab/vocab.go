// Package vocab is the canonical tool and event vocabulary: how each coding agent spells
// its tools and its hook events, mapped onto Claude Code's names, which are canonical.
//
// Matchers consult it so that one guard written for one agent selects the same calls in
// the others ("Bash" also selects Gemini's run_shell_command, Codex's shell, Cursor's
// Shell, Copilot's bash, Cline's execute_command), and the dialects of package dialect use
// it to spell a canonical fire the way their hooks expect.
//
// It is a table and nothing else: it does not read configuration or payloads. Names are
// compared exactly (case matters, as in every agent's own matcher). A spelling that two
// agents use for different tools would make the mapping ambiguous; the table has none,
// and a test keeps it so. What cannot be mapped is listed in Unmapped.
package vocab

import (
	"maps"
	"slices"
)

// Agent names, as the agents' commands (and hookexec's profiles) are named.
const (
	Claude    = "claude"
	CliAgent  = "cli-agent"
	Mycode    = "mycode"
	Autohand  = "autohand"
	AutoAgent = "autoagent"
	Iteratr   = "iteratr"
	Gemini    = "gemini"
	Codex     = "codex"
	Cursor    = "cursor"
	Copilot   = "copilot"
	Windsurf  = "windsurf"
	Qwen      = "qwen"
	Factory   = "factory"
	Kiro      = "kiro"
	Cline     = "cline"
	// Crush (charmbracelet/crush) and Antigravity CLI (agy, Google): dialects read from
	// their own source and documentation; neither runs here (docs/agents/crush.md,
	// docs/agents/antigravity.md).
	Crush       = "crush"
	Antigravity = "antigravity"
	// Augment's auggie CLI (@augmentcode/auggie): live against a fake of Augment's backend
	// (tests/live/auggie, docs/agents/auggie.md).
	Auggie = "auggie"
	// opencode (opencode-ai) and its fork Kilo Code run no command hooks: hookexec reaches
	// them through a plugin (docs/agents/opencode.md). Kilo names its tools as opencode.
	Opencode = "opencode"
)

// Agents lists every agent of the table, Claude Code first, then the seeds, then the rest.
var Agents = []string{Claude, CliAgent, Mycode, Autohand, AutoAgent, Iteratr, Gemini, Codex, Cursor, Copilot, Windsurf, Qwen, Factory, Kiro, Cline, Crush, Antigravity, Auggie, Opencode}

// Canonical tool names (Claude Code's).
const (
	Bash         = "Bash"
	PowerShell   = "PowerShell"
	Read         = "Read"
	Write        = "Write"
	Edit         = "Edit"
	MultiEdit    = "MultiEdit"
	NotebookEdit = "NotebookEdit"
	Glob         = "Glob"
	Grep         = "Grep"
	LS           = "LS"
	WebFetch     = "WebFetch"
	WebSearch    = "WebSearch"
	Task         = "Task"
	TodoWrite    = "TodoWrite"
)

// tools maps, per agent, each tool spelling to the canonical tool. Sources: Claude Code's
// tools reference; seed 001 (autohand) and cli-agent's examples; gemini-cli
// docs/tools/*.md; codex-rs core/src/tools (shell, exec_command, apply_patch); Cursor's
// hooks reference (preToolUse tool_name); Copilot CLI's hooks reference (toolName);
// qwen-code packages/core/src/tools; Factory's tools reference; Kiro CLI's built-in
// tools; Cline's tools reference (src/shared/tools.ts); Crush's internal/agent/tools
// (v0.90); Antigravity's hooks reference ("the step type, lowercased": run_command,
// view_file; the file tools as agy 1.0.5 reported them, write_to_file and edit_file).
var tools = map[string]map[string]string{
	Claude: {
		"Bash": Bash, "PowerShell": PowerShell, "Read": Read, "Write": Write, "Edit": Edit,
		"MultiEdit": MultiEdit, "NotebookEdit": NotebookEdit, "Glob": Glob, "Grep": Grep, "LS": LS,
		"WebFetch": WebFetch, "WebSearch": WebSearch, "Task": Task, "Agent": Task, "TodoWrite": TodoWrite,
	},
	CliAgent: {"bash_execute": Bash, "read_file": Read, "write_file": Write, "edit_file": Edit},
	Autohand: {"run_command": Bash, "read_file": Read, "write_file": Write, "edit_file": Edit, "search": Grep, "list_directory": LS},
	Gemini: {
		"run_shell_command": Bash, "read_file": Read, "read_many_files": Read, "write_file": Write,
		"replace": Edit, "glob": Glob, "search_file_content": Grep, "grep_search": Grep,
		"list_directory": LS, "web_fetch": WebFetch, "google_web_search": WebSearch, "write_todos": TodoWrite,
	},
	// Codex's model calls shell, exec_command or local_shell, but its hooks see every shell
	// call as "Bash" (0.169: tests/live/codex): that is its spelling in payloads.
	Codex: {"Bash": Bash, "shell": Bash, "exec_command": Bash, "local_shell": Bash, "apply_patch": Edit, "update_plan": TodoWrite, "web_search": WebSearch},
	Cursor: {
		"Shell": Bash, "Read": Read, "Write": Write, "Grep": Grep, "Glob": Glob, "LS": LS,
		"Task": Task, "WebFetch": WebFetch, "WebSearch": WebSearch, "TodoWrite": TodoWrite,
	},
	Copilot: {
		"bash": Bash, "powershell": PowerShell, "view": Read, "create": Write, "edit": Edit,
		"glob": Glob, "grep": Grep, "web_fetch": WebFetch, "task": Task,
	},
	Qwen: {
		"run_shell_command": Bash, "read_file": Read, "read_many_files": Read, "write_file": Write,
		"edit": Edit, "glob": Glob, "grep_search": Grep, "list_directory": LS, "web_fetch": WebFetch,
		"web_search": WebSearch, "todo_write": TodoWrite, "task": Task,
	},
	Factory: {
		"Execute": Bash, "Read": Read, "Create": Write, "Edit": Edit, "MultiEdit": MultiEdit,
		"ApplyPatch": Edit, "Glob": Glob, "Grep": Grep, "LS": LS, "FetchUrl": WebFetch,
		"WebSearch": WebSearch, "Task": Task, "TodoWrite": TodoWrite,
	},
	Kiro: {"execute_bash": Bash, "executeBash": Bash, "fs_read": Read, "fsRead": Read, "fs_write": Write, "fsWrite": Write, "grep": Grep, "glob": Glob, "web_fetch": WebFetch, "web_search": WebSearch},
	Cline: {
		"execute_command": Bash, "read_file": Read, "write_to_file": Write, "replace_in_file": Edit,
		"search_files": Grep, "list_files": LS, "web_fetch": WebFetch, "new_task": Task,
		// The CLI 3.x tools (@cline/core 0.0.86, sent as tool_call.name by cline 3.0.65).
		"run_commands": Bash, "read_files": Read, "editor": Edit, "search_codebase": Grep,
		"fetch_web_content": WebFetch, "spawn_agent": Task,
	},
	Crush: {
		"bash": Bash, "view": Read, "write": Write, "edit": Edit, "multiedit": MultiEdit,
		"glob": Glob, "grep": Grep, "ls": LS, "fetch": WebFetch, "web_fetch": WebFetch,
		"web_search": WebSearch, "agent": Task, "todos": TodoWrite,
	},
	// auggie 0.36.0's tool_definitions (tests/live/auggie): the names its hooks see.
	Auggie: {
		"launch-process": Bash, "view": Read, "save-file": Write, "str-replace-editor": Edit,
		"apply_patch": Edit, "web-fetch": WebFetch,
	},
	// opencode 1.18.33's tool ids (the "tool" of tool.execute.before), from its bundle.
	Opencode: {
		"bash": Bash, "read": Read, "write": Write, "edit": Edit, "multiedit": MultiEdit, "patch": Edit,
		"apply_patch": Edit, "glob": Glob, "grep": Grep, "list": LS, "webfetch": WebFetch,
		"websearch": WebSearch, "task": Task, "todowrite": TodoWrite,
	},
	Antigravity: {
		"run_command": Bash, "view_file": Read, "write_to_file": Write, "edit_file": Edit,
		"grep_search": Grep, "list_directory": LS, "find": Glob, "read_url_content": WebFetch,
		"search_web": WebSearch, "invoke_subagent": Task,
	},
}

// Unmapped lists tools of some agents that have no canonical counterpart, with why. A
// guard on them must be written in their agent's own spelling.
var Unmapped = map[string]string{
	"Cursor Delete":                     "Claude Code has no delete tool (deletions go through Bash)",
	"Copilot read_bash/write_bash":      "interactive shell sessions; no canonical counterpart",
	"Gemini save_memory":                "memory tools differ in meaning across agents",
	"Cline browser_action":              "no browser tool in Claude Code",
	"Cline use_mcp_tool":                "the MCP server and tool are in the input, not the name; matched as mcp__<server>__<tool> only when the host spells it so",
	"Cline ask_followup_question":       "conversation steps, not tools, elsewhere",
	"Cline attempt_completion":          "conversation steps, not tools, elsewhere",
	"Kiro use_aws":                      "no AWS tool elsewhere",
	"Codex view_image":                  "no image tool elsewhere",
	"Windsurf (every tool)":             "Windsurf names actions by event (pre_run_command, pre_write_code, ...), not by tool: see Events",
	"Kiro IDE toolTypes read/write/...": "categories, not tools: read, write, shell, web map to Read, Write|Edit, Bash, WebFetch|WebSearch",
	"Crush mcp_<server>_<tool>":         "Crush joins the MCP server and tool with one underscore, which both may contain: a guard on MCP tools must be written as Crush spells them",
	"Crush lsp_* and job_*":             "language-server and background-job tools; no canonical counterpart",
	"Auggie remove-files, codebase-retrieval and the process and task tools": "no canonical counterpart (deleting files, Augment's context engine, kill-/read-/write-/list-processes, the task list)",
	"Antigravity browser_* and others":                                       "browser, notebook and code-review steps; no canonical counterpart",
}

// byName maps every spelling of every agent to its canonical tool. Built once; the
// table test checks that no spelling means two tools.
var byName = func() map[string]string {
	m := map[string]string{}
	for _, agent := range Agents {
		for name, canon := range tools[agent] {
			m[name] = canon
		}
	}
	return m
}()

// Tool returns the canonical name of a tool as any agent spells it, or "" for a name the
// table does not know (MCP tools, custom tools).
func Tool(name string) string { return byName[name] }

// Spell returns how agent spells the canonical tool, or "" when it has no such tool (or
// the agent is unknown). When an agent has several spellings, the first in sorted order
// that is not an alias is returned (Gemini's read_file, not read_many_files).
func Spell(agent, canonical string) string { return spellings[agent][canonical] }

// spellings is Spell's table, built once: matchers consult it on every miss.
var spellings = func() map[string]map[string]string {
	out := map[string]map[string]string{}
	for agent, names := range tools {
		m := map[string]string{}
		for _, n := range slices.Sorted(maps.Keys(names)) {
			canon := names[n]
			switch {
			case names[canon] == canon:
				m[canon] = canon
			case preferred[agent][canon] != "":
				m[canon] = preferred[agent][canon]
			case m[canon] == "":
				m[canon] = n
			}
		}
		out[agent] = m
	}
	return out
}()

// preferred names the spelling Spell returns where an agent has several for one tool: the
// one the real agent puts in its hook payloads' tool_name (the live suites record them:
// Gemini CLI 0.61 and Qwen Code 0.24 send run_shell_command, Codex 0.169 sends Bash).
var preferred = map[string]map[string]string{
	Gemini:   {Read: "read_file", Grep: "grep_search"},
	Qwen:     {Read: "read_file"},
	Codex:    {Bash: "Bash", Edit: "apply_patch"},
	Kiro:     {Bash: "execute_bash", Read: "fs_read", Write: "fs_write"},
	Factory:  {Edit: "Edit"},
	Crush:    {WebFetch: "fetch"},
	Auggie:   {Edit: "str-replace-editor"},
	Opencode: {Edit: "edit"},
	Claude:   {Task: "Task"},
	// Cline CLI 3.0.65 sends the 3.x names; the extension's older names stay readable.
	Cline: {Bash: "run_commands", Read: "read_files", Edit: "editor", Grep: "search_codebase", WebFetch: "fetch_web_content", Task: "spawn_agent"},
}

// SpellingsOf returns every spelling agent has for the canonical tool, the preferred one
// (Spell) first, then the others in sorted order; nil when it has none. The slice is
// shared: callers must not modify it.
func SpellingsOf(agent, canonical string) []string { return allSpellings[agent][canonical] }

var allSpellings = func() map[string]map[string][]string {
	out := map[string]map[string][]string{}
	for agent, names := range tools {
		m := map[string][]string{}
		for canon, first := range spellings[agent] {
			m[canon] = []string{first}
		}
		for _, n := range slices.Sorted(maps.Keys(names)) {
			if canon := names[n]; n != spellings[agent][canon] {
				m[canon] = append(m[canon], n)
			}
		}
		out[agent] = m
	}
	return out
}()

// ToolsOf returns agent's spelling → canonical table (a copy), nil for an unknown agent.
func ToolsOf(agent string) map[string]string {
	if t := tools[agent]; t != nil {
		return maps.Clone(t)
	}
	return nil
}

// Spellings returns the other names a matcher written for agent should also be tested
// against for subject: the canonical name and agent's own spelling of it, each only when
// it differs from subject. Nil when subject is not in the table.
func Spellings(agent, subject string) []string {
	canon := byName[subject]
	if canon == "" {
		return nil
	}
	var out []string
	if canon != subject {
		out = append(out, canon)
	}
	if s := Spell(agent, canon); s != "" && s != subject && s != canon {
		out = append(out, s)
	}
	return out
}

// Event is one hook event as an agent spells it, and what it is canonically: the canonical
// event, and for agents that name an event after the kind of tool (Cursor's
// beforeShellExecution, Windsurf's pre_run_command) the canonical tool matcher it implies.
type Event struct {
	Name      string // as the agent spells it
	Canonical string // canonical (Claude Code) event name
	// Tools is the matcher the event implies, in canonical names ("Bash",
	// "Edit|Write|MultiEdit|NotebookEdit", "mcp__.*"); "" when the event is not tool-specific.
	Tools string
}

const (
	fileEdits = "Edit|Write|MultiEdit|NotebookEdit"
	mcpTools  = "mcp__.*"
)

// events lists, per agent, its hook events in its own spelling. Sources are named in the
// comments; events an agent has that nothing canonical matches are in UnmappedEvents.
var events = map[string][]Event{
	// cursor.com/docs/agent/hooks (hooks.json version 1).
	Cursor: {
		{"sessionStart", "SessionStart", ""}, {"sessionEnd", "SessionEnd", ""},
		{"preToolUse", "PreToolUse", ""}, {"postToolUse", "PostToolUse", ""}, {"postToolUseFailure", "PostToolUseFailure", ""},
		{"subagentStart", "SubagentStart", ""}, {"subagentStop", "SubagentStop", ""},
		{"beforeShellExecution", "PreToolUse", Bash}, {"afterShellExecution", "PostToolUse", Bash},
		{"beforeMCPExecution", "PreToolUse", mcpTools}, {"afterMCPExecution", "PostToolUse", mcpTools},
		{"beforeReadFile", "PreToolUse", Read}, {"afterFileEdit", "PostToolUse", fileEdits},
		{"beforeSubmitPrompt", "UserPromptSubmit", ""}, {"preCompact", "PreCompact", ""}, {"stop", "Stop", ""},
	},
	// docs.github.com/en/copilot/reference/copilot-cli-reference/cli-hooks-reference: the
	// camelCase spelling, and the PascalCase (VS Code compatible) one of the same events.
	Copilot: {
		{"sessionStart", "SessionStart", ""}, {"sessionEnd", "SessionEnd", ""},
		{"userPromptSubmitted", "UserPromptSubmit", ""}, {"preToolUse", "PreToolUse", ""},
		{"postToolUse", "PostToolUse", ""}, {"errorOccurred", "SessionError", ""},
		{"agentStop", "Stop", ""}, {"subagentStop", "SubagentStop", ""},
		{"notification", "Notification", ""}, {"permissionRequest", "PermissionRequest", ""},
		{"postToolUseFailure", "PostToolUseFailure", ""}, {"preCompact", "PreCompact", ""},
		{"SessionStart", "SessionStart", ""}, {"SessionEnd", "SessionEnd", ""},
		{"UserPromptSubmit", "UserPromptSubmit", ""}, {"PreToolUse", "PreToolUse", ""},
		{"PostToolUse", "PostToolUse", ""}, {"PreCompact", "PreCompact", ""},
		{"SubagentStart", "SubagentStart", ""}, {"SubagentStop", "SubagentStop", ""}, {"Stop", "Stop", ""},
	},
	// docs.windsurf.com/windsurf/cascade/hooks.
	Windsurf: {
		{"pre_read_code", "PreToolUse", Read}, {"post_read_code", "PostToolUse", Read},
		{"pre_write_code", "PreToolUse", fileEdits}, {"post_write_code", "PostToolUse", fileEdits},
		{"pre_run_command", "PreToolUse", Bash}, {"post_run_command", "PostToolUse", Bash},
		{"pre_mcp_tool_use", "PreToolUse", mcpTools}, {"post_mcp_tool_use", "PostToolUse", mcpTools},
		{"pre_user_prompt", "UserPromptSubmit", ""}, {"post_cascade_response", "Stop", ""},
	},
	// kiro.dev/docs/hooks/types (IDE triggers) and kiro.dev/docs/cli/hooks (CLI events).
	Kiro: {
		{"promptSubmit", "UserPromptSubmit", ""}, {"agentStop", "Stop", ""},
		{"preToolUse", "PreToolUse", ""}, {"postToolUse", "PostToolUse", ""},
		{"fileEdited", "FileChanged", ""}, {"fileCreated", "FileChanged", ""}, {"fileDeleted", "FileChanged", ""},
		{"agentSpawn", "SessionStart", ""}, {"userPromptSubmit", "UserPromptSubmit", ""}, {"stop", "Stop", ""},
	},
	// docs.cline.bot/features/hooks/hook-reference: the file names of the hooks; TaskError
	// and SessionShutdown are in the binary's list only (@cline/core 0.0.86, cline 3.0.65).
	Cline: {
		{"TaskStart", "SessionStart", ""}, {"TaskResume", "SessionStart", ""}, {"TaskCancel", "SessionEnd", ""},
		{"TaskComplete", "Stop", ""}, {"PreToolUse", "PreToolUse", ""}, {"PostToolUse", "PostToolUse", ""},
		{"UserPromptSubmit", "UserPromptSubmit", ""}, {"PreCompact", "PreCompact", ""},
		{"TaskError", "StopFailure", ""}, {"SessionShutdown", "SessionEnd", ""},
	},
	// Crush's docs/hooks/README.md (v0.90): PreToolUse only, the name matched case-insensitively
	// and snake-cased (pre_tool_use); dialect.Crush reads those spellings as this one.
	Crush: claudeNames("PreToolUse"),
	// Antigravity's hooks reference (hooks.json, as the Antigravity harness embeds it):
	// PreInvocation and PostInvocation, around every model call, are in UnmappedEvents.
	Antigravity: {
		{"SessionStart", "SessionStart", ""}, {"PreToolUse", "PreToolUse", ""},
		{"PostToolUse", "PostToolUse", ""}, {"Stop", "Stop", ""},
	},
	// auggie 0.36.0's settings schema (tests/live/auggie): Claude Code's names, except the
	// prompt's event, PromptSubmit.
	Auggie: append(claudeNames("PreToolUse", "PostToolUse", "Stop", "SessionStart", "SessionEnd", "Notification"),
		Event{"PromptSubmit", "UserPromptSubmit", ""}),
	// docs.factory.ai/reference/hooks-reference: Claude Code's names.
	Factory: claudeNames("PreToolUse", "PostToolUse", "Notification", "UserPromptSubmit", "Stop",
		"SubagentStop", "PreCompact", "SessionStart", "SessionEnd"),
	// geminicli.com/docs/hooks/reference.
	Gemini: {
		{"BeforeTool", "PreToolUse", ""}, {"AfterTool", "PostToolUse", ""},
		{"BeforeAgent", "UserPromptSubmit", ""}, {"AfterAgent", "Stop", ""},
		{"SessionStart", "SessionStart", ""}, {"SessionEnd", "SessionEnd", ""},
		{"PreCompress", "PreCompact", ""}, {"Notification", "Notification", ""},
	},
	// developers.openai.com/codex/hooks: Claude Code's names.
	Codex: claudeNames("SessionStart", "UserPromptSubmit", "PreToolUse", "PermissionRequest",
		"PostToolUse", "Stop", "SubagentStart", "SubagentStop", "PreCompact", "PostCompact", "SessionEnd", "Notification"),
	// qwenlm.github.io/qwen-code-docs hooks: Claude Code's names; and the rest of the
	// events Qwen Code 0.24.4's binary fires (packages/core/src/hooks/types.ts
	// HookEventName; PostToolBatch, MessageDisplay and InstructionsLoaded seen live).
	Qwen: append(claudeNames("PreToolUse", "PostToolUse", "PostToolUseFailure", "PermissionRequest", "UserPromptSubmit",
		"Notification", "Stop", "SubagentStart", "SubagentStop", "PreCompact", "SessionStart", "SessionEnd",
		"PostToolBatch", "UserPromptExpansion", "MessageDisplay", "PostCompact", "PermissionDenied", "StopFailure",
		"InstructionsLoaded", "SessionDelete"),
		Event{"TodoCreated", "TaskCreated", ""}, Event{"TodoCompleted", "TaskCompleted", ""}),
}

func claudeNames(names ...string) []Event {
	out := make([]Event, len(names))
	for i, n := range names {
		out[i] = Event{n, n, ""}
	}
	return out
}

// UnmappedEvents lists agents' events with no canonical counterpart, with why. Their hooks
// are read, reported, and never run: no canonical fire reaches them.
var UnmappedEvents = map[string]string{
	"cursor afterAgentResponse":                      "the agent's reply text; no canonical event carries it",
	"cursor afterAgentThought":                       "a thinking block; no canonical event carries it",
	"cursor beforeTabFileRead":                       "Tab completions are not agent tool calls",
	"cursor afterTabFileEdit":                        "Tab completions are not agent tool calls",
	"windsurf post_cascade_response_with_transcript": "a transcript file path; no canonical event carries it",
	"windsurf post_setup_worktree":                   "runs after Windsurf made the worktree; WorktreeCreate asks the hook to make it",
	"kiro userTriggered":                             "a button in the IDE, not an event of the agent loop",
	"gemini BeforeModel":                             "model requests are not hook events elsewhere",
	"gemini AfterModel":                              "model responses are not hook events elsewhere",
	"gemini BeforeToolSelection":                     "tool selection is not a hook event elsewhere",
	"antigravity PreInvocation":                      "runs before every model call; model requests are not hook events elsewhere",
	"antigravity PostInvocation":                     "runs after every model call's tool calls; no canonical event carries it",
}

// Events returns agent's hook events in its spelling (a copy), nil for an unknown agent.
func Events(agent string) []Event { return slices.Clone(events[agent]) }

// EventOf resolves agent's spelling of an event; ok is false when the agent has no such event.
func EventOf(agent, name string) (Event, bool) {
	for _, e := range events[agent] {
		if e.Name == name {
			return e, true
		}
	}
	return Event{}, false
}

// EventName spells a canonical event (with the canonical tool the fire is about, "" when
// none) the way agent names it: the tool-specific event when the agent has one for the
// tool, else its generic one. ok is false when the agent has no such event.
func EventName(agent, canonical, tool string) (string, bool) {
	generic := ""
	for _, e := range events[agent] {
		if e.Canonical != canonical {
			continue
		}
		if e.Tools == "" {
			if generic == "" {
				generic = e.Name
			}
			continue
		}
		if tool != "" && impliesTool(e.Tools, tool) {
			return e.Name, true
		}
	}
	return generic, generic != ""
}

// impliesTool reports whether an event's implied matcher covers the canonical tool.
func impliesTool(matcher, tool string) bool {
	if matcher == mcpTools {
		return len(tool) > 5 && tool[:5] == "mcp__"
	}
	for _, t := range splitBar(matcher) {
		if t == tool {
			return true
		}
	}
	return false
}

func splitBar(s string) []string {
	var out []string
	start := 0
	for i := 0; i <= len(s); i++ {
		if i == len(s) || s[i] == '|' {
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return out
}

// args names, per agent and tool (as the agent spells it), the canonical tool-input fields
// the agent's tool calls otherwise: Antigravity's arguments are PascalCase (its hooks
// reference shows run_command's CommandLine).
var args = map[string]map[string]map[string]string{
	Antigravity: {
		"run_command":   {"command": "CommandLine", "cwd": "Cwd"},
		"view_file":     {"file_path": "AbsolutePath"},
		"write_to_file": {"file_path": "TargetFile", "content": "CodeContent"},
	},
}

// SpellArgs returns a copy of a canonical tool input with its fields named as agent's tool
// (in the agent's spelling) names them; other fields, and other tools' inputs, as they are.
func SpellArgs(agent, tool string, in map[string]any) map[string]any {
	names := args[agent][tool]
	out := make(map[string]any, len(in))
	for k, v := range in {
		if n, ok := names[k]; ok {
			k = n
		}
		out[k] = v
	}
	return out
}

// CanonicalArgs is SpellArgs' inverse: a copy of agent's tool arguments with the fields
// named canonically. tool "" reads the names of any of the agent's tools (an answer that
// patches arguments does not say which tool it is for; no two tools use a name for two
// fields).
func CanonicalArgs(agent, tool string, in map[string]any) map[string]any {
	out := make(map[string]any, len(in))
	for k, v := range in {
		for t, names := range args[agent] {
			if tool != "" && t != tool {
				continue
			}
			for canon, n := range names {
				if n == k {
					k = canon
				}
			}
		}
		out[k] = v
	}
	return out
}
