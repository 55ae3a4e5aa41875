package dialect

import (
	"strings"
	"time"

	"github.com/valyala/fastjson"

	"github.com/hookexec/hookexec/core/payload"
	"github.com/hookexec/hookexec/core/vocab"
)

// Windsurf is Windsurf's Cascade hooks.json (docs.windsurf.com/windsurf/cascade/hooks), at
// system (/etc/windsurf/hooks.json), user (~/.codeium/windsurf/hooks.json) and workspace
// (.windsurf/hooks.json) level, all merged and run in that order: {"hooks":
// {"pre_run_command": [{"command", "powershell", "show_output", "working_directory"}]}}.
// Events are named after the action (pre_read_code, post_write_code, pre_run_command,
// pre_mcp_tool_use, pre_user_prompt, post_cascade_response), which become tool events with
// that tool as matcher. Hooks see {agent_action_name, trajectory_id, execution_id,
// timestamp, tool_info}. Only the exit code answers: 2 blocks a pre-hook (stderr is the
// reason); output is never read as JSON, and post-hooks cannot block. Windsurf documents
// no timeout; hookexec gives each hook 60 s.
var Windsurf = &Dialect{
	Name:       vocab.Windsurf,
	Unit:       time.Second,
	Timeout:    60 * time.Second,
	Envelope:   payload.Claude,
	Sequential: true,
	Detect: func(path string, v *fastjson.Value) bool {
		return v != nil && objectHooks(v) && (inDir(path, ".windsurf") || inDir(path, "windsurf") ||
			hasEventOf(v, vocab.Windsurf, "pre_run_command", "post_run_command", "pre_write_code", "post_write_code", "pre_read_code", "post_read_code", "pre_user_prompt", "post_cascade_response", "pre_mcp_tool_use", "post_mcp_tool_use"))
	},
	Load:   loadWindsurf,
	Stdin:  windsurfStdin,
	Answer: windsurfAnswer,
}

// windsurfKeys: Windsurf's handler fields, and hookexec's "type": "policy" with its fields.
var windsurfKeys = keySet(append([]string{"command", "powershell", "show_output", "working_directory", "name", "type"}, policyKeys...)...)

func loadWindsurf(p *Reader, _ []byte, v *fastjson.Value) error {
	p.loadEventLists(v, vocab.Windsurf, keySet("hooks"), func(where string, item *fastjson.Value, h *Hook) {
		h.Name = p.optStr(where, "name", item)
		p.unknownKeys(where, item, windsurfKeys)
		h.Command = p.optStr(where, "command", item)
		if ps := p.optStr(where, "powershell", item); h.Command == "" && ps != "" {
			h.Command, h.Shell = ps, "powershell"
		}
		if t := p.optStr(where, "type", item); t != "" {
			h.Type = t
		}
		if h.Type != "command" && h.Type != "policy" {
			p.disable(h, where, "unknown type %q (Windsurf runs commands; hookexec adds policy)", h.Type)
		}
		p.policyFields(where, where, item, h)
		h.Cwd = p.optStr(where, "working_directory", item)
		if b := item.Get("show_output"); b != nil {
			p.boolean(where, "show_output", b) // display only: the output is in the result either way
		}
		p.requireCommand(h, where)
	})
	return nil
}

// windsurfStdin is Windsurf's envelope with each action's tool_info.
func windsurfStdin(f Fire) []byte {
	p := decode(f.Payload)
	session := firstStr(p, "trajectory_id", "session_id")
	if session == "" {
		session = f.Frame.SessionID
	}
	input := obj(p, "tool_input")
	info := object{}
	switch strings.TrimPrefix(strings.TrimPrefix(f.Event, "pre_"), "post_") {
	case "run_command":
		info["command_line"] = input["command"]
		info["cwd"] = firstStr(p, "cwd")
		if info["cwd"] == "" {
			info["cwd"] = f.Frame.Cwd
		}
		if strings.HasPrefix(f.Event, "post_") {
			info["output"] = toolOutput(p)
		}
	case "read_code":
		info["file_path"] = filePathOf(input)
	case "write_code":
		info["file_path"] = filePathOf(input)
		info["edits"] = edits(input)
	case "mcp_tool_use":
		server, tool, _ := mcpParts(str(p, "tool_name"))
		info["mcp_server_name"], info["mcp_tool_name"], info["mcp_tool_arguments"] = server, tool, input
		if strings.HasPrefix(f.Event, "post_") {
			info["mcp_result"] = jsonText(p["tool_response"])
		}
	case "user_prompt":
		info["user_prompt"] = p["prompt"]
	case "cascade_response":
		info["response"] = firstStr(p, "last_assistant_message", "response")
	default:
		info = p
	}
	return encode(object{
		"agent_action_name": f.Event,
		"trajectory_id":     session,
		"execution_id":      firstStr(p, "tool_use_id", "execution_id"),
		"timestamp":         isoTime(f.Frame.Time),
		"tool_info":         info,
	})
}

// windsurfAnswer: only the exit code counts. Exit 2 blocks a pre-hook; on a post-hook it
// is an error like any other non-zero exit, since Windsurf post-hooks cannot block.
func windsurfAnswer(event string, exit int, _ []byte) (int, []byte) {
	if exit == 2 && strings.HasPrefix(event, "post_") {
		return 1, nil
	}
	return exit, nil
}
