// Package event names the lifecycle events a host fires, their aliases across the seed
// dialects, which payload field a matcher is tested against, and whether a hook may block.
//
// It does not decide anything about a fire; it is the table the other packages consult.
package event

import (
	"sort"
	"strings"
)

// Info describes one canonical event.
type Info struct {
	Name string // canonical (Claude Code) name
	// Subject lists the payload fields a matcher is tested against, first present wins.
	// Empty means the event takes no matcher.
	Subject []string
	// SubjectBase: the matcher sees the last path element of the subject (FileChanged
	// matches the changed file's basename).
	SubjectBase bool
	// NarrowNames: only letters, digits, "_" and "|" make a matcher exact names; "-", " "
	// and "," put it on the regex path (FileChanged and StopFailure).
	NarrowNames bool
	// CanBlock reports whether a hook can stop what the event announces.
	CanBlock bool
	// Feedback marks events whose "block" is feedback to the model (the action already ran).
	Feedback bool
	// ExitIgnored: the exit code means nothing (exit 2 is not even an error), and with
	// OutputIgnored the output is not read either (StopFailure, InstructionsLoaded).
	ExitIgnored   bool
	OutputIgnored bool
	// ModelTags: a "[1m]"/"[2m]" tag ending a matcher alternative is dropped before
	// matching (the model-switch events match the resolved model id, which has none).
	ModelTags bool
	// ContinueIgnored: "continue": false and stopReason neither block nor stop anything
	// (Claude Code 2.1.330's PreModelSwitch switches and goes on).
	ContinueIgnored bool
	// AskBlocks: the action cannot wait for an answer nor take another input, so a hook's
	// "ask" or "defer" and a changed input block it (Claude Code 2.1.332's
	// PreSkillShellCommand: a skill's shell command runs while the skill loads).
	AskBlocks bool
	// AnyNonZeroBlocks: every non-zero exit and every failure blocks (WorktreeCreate).
	AnyNonZeroBlocks bool
	// DecisionObject: JSON decides only through hookSpecificOutput.decision.behavior
	// (PermissionRequest).
	DecisionObject bool
	// Unblockable lists subjects for which the event cannot be blocked (ConfigChange of
	// policy_settings).
	Unblockable []string
	// Tool marks the tool events, the only ones on which an "if" rule is evaluated.
	Tool bool
	// Known is false for names outside the table (AutoAgent's open-ended Pre*/Post* events).
	Known bool
}

// TakesMatcher reports whether a matcher is meaningful for the event.
func (i Info) TakesMatcher() bool { return len(i.Subject) > 0 || !i.Known }

var tool = []string{"tool_name"}

// table holds Claude Code's 31 events as its hooks reference (v2.1.218) describes them,
// 2.1.330's model-switch events and 2.1.332's PreSkillShellCommand as the binaries have them:
// matcher subject, and whether and how exit code 2 blocks ("exit code 2 behavior per
// event"); then the events only the other dialects have.
var table = []Info{
	{Name: "SessionStart", Subject: []string{"source", "session_type"}},
	{Name: "Setup", Subject: []string{"trigger"}},
	{Name: "UserPromptSubmit", CanBlock: true},
	{Name: "UserPromptExpansion", Subject: []string{"command_name"}, CanBlock: true},
	{Name: "PreToolUse", Subject: tool, CanBlock: true, Tool: true},
	{Name: "PermissionRequest", Subject: tool, CanBlock: true, DecisionObject: true, Tool: true},
	{Name: "PermissionDenied", Subject: tool, ExitIgnored: true, Tool: true},
	{Name: "PostToolUse", Subject: tool, Feedback: true, Tool: true},
	{Name: "PostToolUseFailure", Subject: tool, Feedback: true, Tool: true},
	{Name: "PostToolBatch", CanBlock: true},
	{Name: "Notification", Subject: []string{"notification_type"}},
	{Name: "MessageDisplay"},
	{Name: "SubagentStart", Subject: []string{"agent_type"}},
	{Name: "SubagentStop", Subject: []string{"agent_type", "subagent_type"}, CanBlock: true},
	{Name: "TaskCreated", CanBlock: true},
	{Name: "TaskCompleted", CanBlock: true},
	{Name: "Stop", CanBlock: true},
	{Name: "StopFailure", Subject: []string{"error"}, NarrowNames: true, ExitIgnored: true, OutputIgnored: true},
	{Name: "TeammateIdle", CanBlock: true},
	// Claude Code 2.1.330 discards InstructionsLoaded output too (systemMessage, continue).
	{Name: "InstructionsLoaded", Subject: []string{"load_reason"}, ExitIgnored: true, OutputIgnored: true},
	{Name: "ConfigChange", Subject: []string{"source"}, CanBlock: true, Unblockable: []string{"policy_settings"}},
	{Name: "CwdChanged"},
	{Name: "DirectoryAdded", Subject: []string{"source"}},
	{Name: "FileChanged", Subject: []string{"file_path"}, SubjectBase: true, NarrowNames: true},
	{Name: "WorktreeCreate", CanBlock: true, AnyNonZeroBlocks: true},
	{Name: "WorktreeRemove"},
	{Name: "PreCompact", Subject: []string{"trigger"}, CanBlock: true},
	{Name: "PostCompact", Subject: []string{"trigger"}},
	{Name: "Elicitation", Subject: []string{"mcp_server_name"}, CanBlock: true},
	{Name: "ElicitationResult", Subject: []string{"mcp_server_name"}, CanBlock: true},
	{Name: "SessionEnd", Subject: []string{"reason", "session_end_reason"}},
	// Claude Code 2.1.330's model switch (/model, the model picker, an SDK set_model): the
	// matcher sees the resolved to_model id. A PreModelSwitch exit 2, decision "block" or
	// permissionDecision "deny" cancels the switch ("ask" asks the user, a headless session
	// refuses; continue:false is ignored); PostModelSwitch only adds context.
	{Name: "PreModelSwitch", Subject: []string{"to_model"}, ModelTags: true, CanBlock: true, ContinueIgnored: true},
	{Name: "PostModelSwitch", Subject: []string{"to_model"}, ModelTags: true},
	// Claude Code 2.1.332's PreSkillShellCommand (read from its binary): before each shell
	// command a skill's text runs as it loads (a "!`cmd`" line), with PreToolUse's payload
	// (tool_name the shell tool, tool_input.command) and command_name, command_source and
	// invoked_by; the matcher sees tool_name. Exit 2, decision "block" or permissionDecision
	// "deny" keep the command from running (the skill reads "[not run: blocked by hook: …]");
	// "ask", "defer" and an updatedInput block too.
	{Name: "PreSkillShellCommand", Subject: tool, CanBlock: true, AskBlocks: true},
	// The seed dialects' own events.
	{Name: "SessionError", Subject: []string{"error_code"}},
	{Name: "FileModified", Subject: []string{"change_type"}},
	{Name: "PreIteration"},
	{Name: "PostIteration"},
	{Name: "TaskComplete"},
	// Gemini CLI's model events: a BeforeModel or AfterModel hook can deny the request or
	// response (the turn ends); BeforeToolSelection only narrows the tools on offer.
	{Name: "BeforeModel", CanBlock: true},
	{Name: "AfterModel", CanBlock: true},
	{Name: "BeforeToolSelection"},
	// Qwen Code's: a session removed from the session list.
	{Name: "SessionDelete"},
}

// ClaudeCodeEvents is how many events of the table are Claude Code's.
const ClaudeCodeEvents = 34

var aliases = map[string]string{
	"pre-tool":           "PreToolUse",
	"BeforeTool":         "PreToolUse",
	"post-tool":          "PostToolUse",
	"AfterTool":          "PostToolUse",
	"permission-request": "PermissionRequest",
	"pre-prompt":         "UserPromptSubmit",
	"notification":       "Notification",
	"stop":               "Stop",
	"post-response":      "Stop",
	"subagent-stop":      "SubagentStop",
	"session-start":      "SessionStart",
	"session_start":      "SessionStart",
	"session-end":        "SessionEnd",
	"session_end":        "SessionEnd",
	"session-error":      "SessionError",
	"on_error":           "SessionError",
	"PreCompress":        "PreCompact",
	"file-modified":      "FileModified",
	"pre_iteration":      "PreIteration",
	"post_iteration":     "PostIteration",
	"on_task_complete":   "TaskComplete",
	// Gemini CLI: a turn starts with the user's prompt and ends with the agent's answer.
	"BeforeAgent": "UserPromptSubmit",
	"AfterAgent":  "Stop",
	// Augment's auggie: the prompt's event (its hooks see it so spelled).
	"PromptSubmit": "UserPromptSubmit",
	// Qwen Code's todo events are Claude Code's task events.
	"TodoCreated":   "TaskCreated",
	"TodoCompleted": "TaskCompleted",
}

var byName = func() map[string]Info {
	m := make(map[string]Info, len(table)+len(aliases))
	for _, in := range table {
		in.Known = true
		m[in.Name] = in
	}
	for a, c := range aliases {
		m[a] = m[c]
	}
	return m
}()

// Lookup returns the event's info, normalising aliases. Unknown names are open-ended
// events: they take a matcher against nothing and can block only when named Pre*/Before*.
func Lookup(name string) Info {
	if in, ok := byName[name]; ok {
		return in
	}
	return Info{
		Name:     name,
		CanBlock: strings.HasPrefix(name, "Pre") || strings.HasPrefix(name, "Before"),
	}
}

// SubjectOf reduces a subject value as the event's matchers see it.
func (i Info) SubjectOf(v string) string {
	if i.SubjectBase && v != "" {
		if j := strings.LastIndexByte(v, '/'); j >= 0 && j < len(v)-1 {
			return v[j+1:]
		}
	}
	return v
}

// Blocks reports whether the event can be blocked for this subject.
func (i Info) Blocks(subject string) bool {
	if !i.CanBlock {
		return false
	}
	for _, s := range i.Unblockable {
		if s == subject {
			return false
		}
	}
	return true
}

// Canonical returns the canonical spelling of name (itself when not an alias).
func Canonical(name string) string { return Lookup(name).Name }

// Names returns every canonical event name and alias, sorted.
func Names() []string {
	out := make([]string, 0, len(byName))
	for n := range byName {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Suggest returns the known name closest to an unknown one, or "" when nothing is close.
// It powers "did you mean" warnings for misspelt events.
func Suggest(name string) string {
	if in, ok := byName[name]; ok {
		return in.Name // a known name is never "corrected" into another one
	}
	best, bestD := "", max(3, len(name)/4+1) // accept distance < bestD
	lower := strings.ToLower(name)
	for n := range byName {
		d := distance(lower, strings.ToLower(n))
		if d < bestD || (d == bestD && best != "" && n < best) {
			best, bestD = n, d
		}
	}
	if best == "" {
		return ""
	}
	return Canonical(best)
}

// LooksOpenEnded reports whether an unknown name follows the Pre*/Post*/Before*/After*
// convention of open-ended dialects (AutoAgent), which are accepted without a warning.
func LooksOpenEnded(name string) bool {
	for _, p := range []string{"Pre", "Post", "Before", "After"} {
		if len(name) > len(p) && strings.HasPrefix(name, p) && name[len(p)] >= 'A' && name[len(p)] <= 'Z' {
			return true
		}
	}
	return false
}

// distance is the Levenshtein distance between a and b.
func distance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
