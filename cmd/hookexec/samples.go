package main

import (
	"path/filepath"
	"strings"

	"github.com/hookexec/hookexec/core/engine"
	"github.com/hookexec/hookexec/core/event"
)

// samplePayload builds a realistic payload for event (canonical name), as an agent would
// send it, for `hookexec test`. tool names the tool of tool events.
func samplePayload(ev, tool, project string) map[string]any {
	p := map[string]any{"session_id": "hookexec-test", "cwd": project}
	file := filepath.Join(project, "src", "example.py")
	switch ev {
	case "PreToolUse", "PermissionRequest":
		p["tool_name"], p["tool_input"] = tool, toolInput(tool, file)
	case "PostToolUse":
		p["tool_name"], p["tool_input"] = tool, toolInput(tool, file)
		p["tool_response"] = map[string]any{"success": true, "output": "ok"}
	case "PostToolUseFailure":
		p["tool_name"], p["tool_input"] = tool, toolInput(tool, file)
		p["error"] = "command exited with status 1"
	case "UserPromptSubmit":
		p["prompt"] = "Add input validation to the signup form"
	case "Notification":
		p["notification_type"], p["message"] = "idle_prompt", "Claude is waiting for your input"
	case "Stop":
		p["stop_hook_active"] = false
	case "SubagentStop":
		p["agent_type"], p["stop_hook_active"] = "general-purpose", false
	case "SessionStart":
		p["source"] = "startup"
	case "SessionEnd":
		p["reason"] = "exit"
	case "SessionError":
		p["error_code"], p["error"] = "rate_limit", "429 Too Many Requests"
	case "PreCompact":
		p["trigger"], p["custom_instructions"] = "manual", ""
	case "FileModified":
		p["change_type"], p["file_path"] = "modified", file
	case "PreIteration", "PostIteration":
		p["session"], p["iteration"] = "hookexec-test", 1
	case "TaskComplete":
		p["session"], p["task_id"], p["task_content"] = "hookexec-test", "TAS-1", "Write the README"
	default:
		// AutoAgent's lifecycle events (seed 000) carry the issue being worked on.
		p["issueNumber"], p["issueTitle"] = 1, "Implement user authentication"
		p["issueFile"] = "issues/1-implement-user-authentication.md"
	}
	return p
}

func toolInput(tool, file string) map[string]any {
	// mcp__server__tool, server:tool and builtin:tool name the tool last.
	bare := tool
	if i := strings.LastIndex(bare, "__"); i >= 0 && strings.HasPrefix(bare, "mcp__") {
		bare = bare[i+2:]
	}
	if i := strings.LastIndexByte(bare, ':'); i >= 0 {
		bare = bare[i+1:]
	}
	switch strings.ToLower(bare) {
	case "bash", "bash_execute", "run_command", "shell", "execute_command":
		return map[string]any{"command": "ls -la"}
	case "write", "write_file", "create_file":
		return map[string]any{"file_path": file, "content": "print('hello')\n"}
	case "edit", "multiedit", "replace_in_file", "edit_file":
		return map[string]any{"file_path": file, "old_string": "hello", "new_string": "world"}
	case "read", "read_file":
		return map[string]any{"file_path": file}
	case "glob", "grep", "search_files":
		return map[string]any{"pattern": "*.py"}
	case "webfetch", "fetch":
		return map[string]any{"url": "https://example.com"}
	}
	return map[string]any{}
}

// defaultTool picks the tool for a sample: the first plain tool name a configured matcher
// of the event names, so that `hookexec test PreToolUse` exercises a real hook; else Bash.
func defaultTool(rep *engine.ConfigReport, ev string) string {
	canonical := event.Canonical(ev)
	for _, h := range rep.Hooks {
		if h.Event != canonical || !h.Enabled {
			continue
		}
		for _, name := range strings.FieldsFunc(h.Matcher, func(r rune) bool { return r == '|' || r == ',' }) {
			name = strings.TrimSpace(name)
			if name != "" && strings.IndexFunc(name, func(r rune) bool {
				return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-' || r == ':')
			}) < 0 {
				return name
			}
		}
	}
	return "Bash"
}
