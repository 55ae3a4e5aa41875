package adapt

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/valyala/fastjson"

	"github.com/hookexec/hookexec/core/event"
	"github.com/hookexec/hookexec/core/payload"
	"github.com/hookexec/hookexec/core/vocab"
)

// call is one hook call of the running agent, read into canonical words.
type call struct {
	spelled string // the event as the running agent spells it
	event   string // the canonical event
	tool    string // the canonical tool, "" for none
	cwd     string
	payload []byte // Claude Code's payload of it (hook_event_name, tool_name, tool_input, ...)
}

// read turns the running agent's hook payload into a canonical one. spelled is the event
// when the payload does not name it (Copilot CLI's camelCase payloads); "" reads it from
// the payload.
func read(to, spelled string, raw []byte) (call, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var p map[string]any
	if err := dec.Decode(&p); err != nil || p == nil {
		return call{}, fmt.Errorf("hookexec: adapt: the payload is not a JSON object")
	}
	switch to {
	case vocab.Cursor:
		return readCursor(spelled, p)
	case vocab.Copilot:
		return readCopilot(spelled, p)
	case vocab.Windsurf:
		return readWindsurf(spelled, p)
	case vocab.Crush:
		return readCrush(p)
	case vocab.Antigravity:
		return readAntigravity(spelled, p)
	case vocab.Cline:
		return readCline(spelled, p)
	case vocab.Auggie:
		return readAuggie(spelled, p)
	}
	return readClaude(spelled, raw)
}

// readClaude reads the payload of an agent that spells it as Claude Code does (Claude
// Code, Codex, Gemini CLI, Qwen Code): the event and the tool in canonical words, every
// other field as it was, in its order.
func readClaude(spelled string, raw []byte) (call, error) {
	parsed, err := payload.Parse(raw) // nesting past fastjson's 300 levels too
	if err != nil {
		return call{}, fmt.Errorf("hookexec: adapt: the payload is not a JSON object: %w", err)
	}
	defer parsed.Release()
	doc := parsed.Root()
	name := string(doc.GetStringBytes("hook_event_name"))
	if spelled != "" && name != "" && spelled != name {
		return call{}, fmt.Errorf("hookexec: adapt: the payload is for %q, not %q", name, spelled)
	}
	if name == "" {
		name = spelled
	}
	ev := event.Lookup(name)
	if name == "" || !ev.Known {
		return call{}, fmt.Errorf("hookexec: adapt: the payload's hook_event_name %q is no event hookexec knows", name)
	}
	var a fastjson.Arena
	doc.Set("hook_event_name", a.NewString(ev.Name))
	tool := string(doc.GetStringBytes("tool_name"))
	if c := vocab.Tool(tool); c != "" {
		tool = c
		doc.Set("tool_name", a.NewString(tool))
	}
	return call{spelled: name, event: ev.Name, tool: tool, cwd: string(doc.GetStringBytes("cwd")),
		payload: payload.AppendJSON(nil, doc)}, nil // not MarshalTo: it quotes strings it has read Go-style
}

// eventOf resolves the running agent's spelling of the event: the flag's, else the
// payload's field.
func eventOf(agent, spelled, field string, p map[string]any) (vocab.Event, error) {
	name := str(p, field)
	switch {
	case spelled != "" && name != "" && spelled != name:
		return vocab.Event{}, fmt.Errorf("hookexec: adapt: the payload is for %q, not %q", name, spelled)
	case name == "":
		name = spelled
	}
	if name == "" {
		return vocab.Event{}, fmt.Errorf("hookexec: adapt: the payload does not name its event (%s): say --event", field)
	}
	e, ok := vocab.EventOf(agent, name)
	if !ok {
		return vocab.Event{}, fmt.Errorf("hookexec: adapt: %q is no %s event hookexec maps", name, agent)
	}
	return e, nil
}

// readCursor reads Cursor's payload (cursor.com/docs/agent/hooks): conversation_id,
// workspace_roots and each event's own fields.
func readCursor(spelled string, p map[string]any) (call, error) {
	e, err := eventOf(vocab.Cursor, spelled, "hook_event_name", p)
	if err != nil {
		return call{}, err
	}
	out := rest(p, "hook_event_name", "conversation_id", "workspace_roots", "command", "output", "duration",
		"tool_name", "tool_input", "result_json", "tool_output", "error_message", "file_path", "edits", "loop_count")
	out["session_id"] = str(p, "conversation_id")
	if out["cwd"] == nil || out["cwd"] == "" {
		if roots, ok := p["workspace_roots"].([]any); ok && len(roots) > 0 {
			out["cwd"] = roots[0]
		}
	}
	switch e.Name {
	case "beforeShellExecution", "afterShellExecution":
		out["tool_name"], out["tool_input"] = vocab.Bash, map[string]any{"command": p["command"]}
		if e.Name == "afterShellExecution" {
			out["tool_response"] = map[string]any{"stdout": p["output"]}
			out["duration_ms"] = p["duration"]
		}
	case "beforeMCPExecution", "afterMCPExecution":
		out["tool_name"], out["tool_input"] = mcpTool("", str(p, "tool_name")), jsonValue(p["tool_input"])
		if e.Name == "afterMCPExecution" {
			out["tool_response"] = jsonValue(p["result_json"])
			out["duration_ms"] = p["duration"]
		}
	case "beforeReadFile":
		out["tool_name"], out["tool_input"] = vocab.Read, map[string]any{"file_path": p["file_path"]}
	case "afterFileEdit":
		out["tool_name"], out["tool_input"] = editInput(p["file_path"], p["edits"])
	case "stop", "subagentStop":
		n, _ := p["loop_count"].(json.Number)
		out["stop_hook_active"] = n != "" && n != "0"
	case "preToolUse", "postToolUse", "postToolUseFailure":
		tool := str(p, "tool_name")
		if name, ok := strings.CutPrefix(tool, "MCP:"); ok {
			tool = mcpTool("", name)
		} else if c := vocab.Tool(tool); c != "" {
			tool = c
		}
		out["tool_name"], out["tool_input"] = tool, jsonValue(p["tool_input"])
		if e.Name == "postToolUse" {
			out["tool_response"] = jsonValue(p["tool_output"])
		}
		if e.Name == "postToolUseFailure" {
			out["error"] = p["error_message"]
		}
	}
	return finish(e, out)
}

// readCopilot reads GitHub Copilot CLI's payload (docs.github.com, cli-hooks-reference)
// in either spelling: camelCase events' camelCase fields (toolName, toolArgs as a JSON
// string, sessionId; no event name: --event says it), PascalCase events' snake_case ones.
func readCopilot(spelled string, p map[string]any) (call, error) {
	e, err := eventOf(vocab.Copilot, spelled, "hook_event_name", p)
	if err != nil {
		return call{}, err
	}
	if e.Name[0] >= 'A' && e.Name[0] <= 'Z' { // the VS Code compatible snake_case payload
		out := rest(p, "hook_event_name")
		if c := vocab.Tool(str(p, "tool_name")); c != "" {
			out["tool_name"] = c
		}
		if s, ok := p["tool_input"].(string); ok {
			out["tool_input"] = jsonValue(s)
		}
		return finish(e, out)
	}
	out := rest(p, "sessionId", "toolName", "toolArgs", "toolInput", "toolResult", "initialPrompt", "error", "timestamp",
		"hookName", "transcriptPath", "permissionSuggestions")
	out["session_id"] = str(p, "sessionId")
	if t := str(p, "transcriptPath"); t != "" {
		out["transcript_path"] = t
	}
	if s, ok := p["permissionSuggestions"]; ok {
		out["permission_suggestions"] = s
	}
	if tool := str(p, "toolName"); tool != "" {
		if c := vocab.Tool(tool); c != "" {
			tool = c
		}
		// toolArgs: an object from 1.0.102, a JSON string per the reference; permissionRequest
		// sends toolInput.
		args, ok := p["toolArgs"]
		if !ok {
			args = p["toolInput"]
		}
		out["tool_name"], out["tool_input"] = tool, jsonValue(args)
	}
	if r, ok := p["toolResult"].(map[string]any); ok {
		out["tool_response"] = jsonValue(r["textResultForLlm"])
		if str(r, "resultType") == "failure" {
			out["error"] = r["textResultForLlm"]
		}
	}
	if v, ok := p["initialPrompt"]; ok {
		out["initial_prompt"] = v
	}
	if er, ok := p["error"].(map[string]any); ok {
		out["error"], out["error_code"] = er["message"], er["name"]
	}
	return finish(e, out)
}

// readAuggie reads auggie's payload (core/dialect/auggie.go): Claude Code's shape with
// conversation_id for session_id, workspace_roots for cwd, user_prompt for prompt, the
// prompt's event spelled PromptSubmit and auggie's tool names.
func readAuggie(spelled string, p map[string]any) (call, error) {
	e, err := eventOf(vocab.Auggie, spelled, "hook_event_name", p)
	if err != nil {
		return call{}, err
	}
	out := rest(p, "hook_event_name", "conversation_id", "workspace_roots", "user_prompt")
	out["session_id"] = str(p, "conversation_id")
	if roots, ok := p["workspace_roots"].([]any); ok && len(roots) > 0 {
		out["cwd"] = roots[0]
	}
	if u, ok := p["user_prompt"]; ok {
		out["prompt"] = u
	}
	if tool := str(p, "tool_name"); tool != "" {
		if c := vocab.Tool(tool); c != "" {
			out["tool_name"] = c
		}
	}
	return finish(e, out)
}

// readCrush reads Crush's payload ({event, session_id, cwd, tool_name, tool_input}; its
// docs/hooks/README.md): PreToolUse, the only event Crush has.
func readCrush(p map[string]any) (call, error) {
	e, ok := vocab.EventOf(vocab.Crush, "PreToolUse")
	if ev := str(p, "event"); ev != "" && !strings.EqualFold(strings.ReplaceAll(ev, "_", ""), "pretooluse") || !ok {
		return call{}, fmt.Errorf("hookexec: adapt: Crush has no event %q", ev)
	}
	out := rest(p, "event")
	tool := str(p, "tool_name")
	if c := vocab.Tool(tool); c != "" {
		tool = c
	}
	out["tool_name"] = tool
	return finish(e, out)
}

// readAntigravity reads Antigravity CLI's camelCase payload (its hooks reference):
// conversationId, workspacePaths, transcriptPath, and on tool events toolCall {name, args}
// with the arguments in PascalCase; the event is not in it (--event says it).
func readAntigravity(spelled string, p map[string]any) (call, error) {
	if spelled == "" {
		return call{}, fmt.Errorf("hookexec: adapt: an Antigravity payload does not name its event: say --event")
	}
	e, ok := vocab.EventOf(vocab.Antigravity, spelled)
	if !ok {
		return call{}, fmt.Errorf("hookexec: adapt: unknown Antigravity event %q", spelled)
	}
	out := rest(p, "conversationId", "workspacePaths", "transcriptPath", "toolCall", "stepIdx")
	out["session_id"] = str(p, "conversationId")
	if t := str(p, "transcriptPath"); t != "" {
		out["transcript_path"] = t
	}
	if ws, ok := p["workspacePaths"].([]any); ok && len(ws) > 0 {
		if cwd, ok := ws[0].(string); ok {
			out["cwd"] = cwd
		}
	}
	if tc, ok := p["toolCall"].(map[string]any); ok {
		tool := str(tc, "name")
		args, _ := tc["args"].(map[string]any)
		in := vocab.CanonicalArgs(vocab.Antigravity, tool, args)
		if c := vocab.Tool(tool); c != "" {
			tool = c
		}
		out["tool_name"], out["tool_input"] = tool, in
	}
	return finish(e, out)
}

// readWindsurf reads Windsurf's payload (docs.windsurf.com/windsurf/cascade/hooks):
// {agent_action_name, trajectory_id, execution_id, timestamp, tool_info}.
func readWindsurf(spelled string, p map[string]any) (call, error) {
	e, err := eventOf(vocab.Windsurf, spelled, "agent_action_name", p)
	if err != nil {
		return call{}, err
	}
	info, _ := p["tool_info"].(map[string]any)
	if info == nil {
		info = map[string]any{}
	}
	out := map[string]any{"session_id": str(p, "trajectory_id"), "tool_use_id": str(p, "execution_id")}
	if c := str(info, "cwd"); c != "" {
		out["cwd"] = c
	}
	post := strings.HasPrefix(e.Name, "post_")
	switch strings.TrimPrefix(strings.TrimPrefix(e.Name, "pre_"), "post_") {
	case "run_command":
		out["tool_name"], out["tool_input"] = vocab.Bash, map[string]any{"command": info["command_line"]}
		if post {
			out["tool_response"] = map[string]any{"stdout": info["output"]}
		}
	case "read_code":
		out["tool_name"], out["tool_input"] = vocab.Read, map[string]any{"file_path": info["file_path"]}
	case "write_code":
		out["tool_name"], out["tool_input"] = editInput(info["file_path"], info["edits"])
	case "mcp_tool_use":
		out["tool_name"] = mcpTool(str(info, "mcp_server_name"), str(info, "mcp_tool_name"))
		out["tool_input"] = jsonValue(info["mcp_tool_arguments"])
		if post {
			out["tool_response"] = jsonValue(info["mcp_result"])
		}
	case "user_prompt":
		out["prompt"] = info["user_prompt"]
	case "cascade_response":
		out["last_assistant_message"] = info["response"]
		out["stop_hook_active"] = false
	}
	return finish(e, out)
}

func finish(e vocab.Event, out map[string]any) (call, error) {
	ev := event.Lookup(e.Canonical)
	if !ev.Known {
		return call{}, fmt.Errorf("hookexec: adapt: %q maps to %q, which hookexec does not know", e.Name, e.Canonical)
	}
	out["hook_event_name"] = ev.Name
	payload, err := ordered(out)
	if err != nil {
		return call{}, fmt.Errorf("hookexec: adapt: %w", err)
	}
	tool, _ := out["tool_name"].(string)
	cwd, _ := out["cwd"].(string)
	return call{spelled: e.Name, event: ev.Name, tool: tool, cwd: cwd, payload: payload}, nil
}

// claudeOrder is the order of Claude Code's payload fields: a command that reads its
// payload as text finds them where Claude Code puts them.
var claudeOrder = []string{"session_id", "transcript_path", "cwd", "permission_mode", "hook_event_name",
	"tool_name", "tool_input", "tool_use_id", "tool_response", "error", "prompt", "stop_hook_active"}

// ordered encodes the payload with Claude Code's fields in its order, then the rest sorted.
func ordered(m map[string]any) ([]byte, error) {
	keys := make([]string, 0, len(m))
	for _, k := range claudeOrder {
		if _, ok := m[k]; ok {
			keys = append(keys, k)
		}
	}
	var others []string
	for k := range m {
		if !slices.Contains(claudeOrder, k) {
			others = append(others, k)
		}
	}
	slices.Sort(others)
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range append(keys, others...) {
		if i > 0 {
			b.WriteByte(',')
		}
		kb, _ := json.Marshal(k)
		v, err := json.Marshal(m[k])
		if err != nil {
			return nil, err
		}
		b.Write(kb)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// rest copies p without the keys named.
func rest(p map[string]any, drop ...string) map[string]any {
	out := make(map[string]any, len(p))
	for k, v := range p {
		out[k] = v
	}
	for _, k := range drop {
		delete(out, k)
	}
	return out
}

// editInput is a file edit (file_path and old_string/new_string pairs, as Cursor and
// Windsurf give it) as a canonical tool call: one pair is an Edit, several a MultiEdit,
// none a Write.
func editInput(path, edits any) (string, map[string]any) {
	list, _ := edits.([]any)
	switch len(list) {
	case 0:
		return vocab.Write, map[string]any{"file_path": path}
	case 1:
		in := map[string]any{"file_path": path}
		if m, ok := list[0].(map[string]any); ok {
			in["old_string"], in["new_string"] = m["old_string"], m["new_string"]
		}
		return vocab.Edit, in
	}
	return vocab.MultiEdit, map[string]any{"file_path": path, "edits": list}
}

// mcpTool is an MCP tool's canonical name, mcp__<server>__<tool>; the server is "unknown"
// where the payload does not name it (Cursor's).
func mcpTool(server, tool string) string {
	if strings.HasPrefix(tool, "mcp__") {
		return tool
	}
	if server == "" {
		server = "unknown"
	}
	return "mcp__" + server + "__" + tool
}

// jsonValue is v, or the JSON value a string holds (Cursor's and Copilot's tool inputs and
// results are JSON text); a string that is not JSON stays a string.
func jsonValue(v any) any {
	s, ok := v.(string)
	if !ok {
		return v
	}
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var out any
	if err := dec.Decode(&out); err != nil || dec.More() {
		return s
	}
	return out
}

func str(p map[string]any, k string) string {
	s, _ := p[k].(string)
	return s
}

// Canonical reads one hook payload of agent to (cursor, copilot, windsurf, or an agent
// spelling it as Claude Code does) for the event it spells as spelled ("" when the payload
// names it) and returns the canonical event and Claude Code's payload of it: what a host
// fires hookexec's engine with for that agent's call.
func Canonical(to, spelled string, raw []byte) (string, []byte, error) {
	c, err := read(to, spelled, raw)
	if err != nil {
		return "", nil, err
	}
	return c.event, c.payload, nil
}

// clineEvents are Cline's internal event names (its payloads' hookName) as its hook files
// spell them (cline 3.0.65).
var clineEvents = map[string]string{
	"agent_start": "TaskStart", "agent_resume": "TaskResume", "agent_abort": "TaskCancel",
	"agent_end": "TaskComplete", "agent_error": "TaskError", "tool_call": "PreToolUse",
	"tool_result": "PostToolUse", "prompt_submit": "UserPromptSubmit", "session_shutdown": "SessionShutdown",
}

// readCline reads Cline's payload (core/dialect/cline.go): hookName, taskId, workspaceRoots
// and tool_call {id, name, input} or tool_result {…, output, error}. run_commands' commands
// are Bash's one command, one per line; editor is an Edit (a Write without old_text).
func readCline(spelled string, p map[string]any) (call, error) {
	if name, ok := clineEvents[str(p, "hookName")]; ok {
		p = rest(p)
		p["hookName"] = name
	}
	e, err := eventOf(vocab.Cline, spelled, "hookName", p)
	if err != nil {
		return call{}, err
	}
	out := rest(p, "hookName", "taskId", "workspaceRoots", "tool_call", "tool_result", "preToolUse", "postToolUse",
		"userPromptSubmit", "taskStart", "taskResume", "taskComplete", "taskCancel")
	out["session_id"] = str(p, "taskId")
	if roots, ok := p["workspaceRoots"].([]any); ok && len(roots) > 0 {
		out["cwd"] = roots[0]
	}
	tc, _ := p["tool_call"].(map[string]any)
	if tr, ok := p["tool_result"].(map[string]any); ok {
		tc = tr
		out["tool_response"] = jsonValue(tr["output"])
		if tr["error"] != nil {
			out["error"] = tr["error"]
		}
	}
	if tc != nil {
		name, input := clineTool(str(tc, "name"), tc["input"])
		out["tool_name"], out["tool_input"], out["tool_use_id"] = name, input, tc["id"]
	}
	if up, ok := p["userPromptSubmit"].(map[string]any); ok {
		out["prompt"] = up["prompt"]
	}
	return finish(e, out)
}

// clineTool is a Cline tool call in canonical words.
func clineTool(name string, input any) (string, any) {
	in, _ := input.(map[string]any)
	switch name {
	case "run_commands":
		var lines []string
		switch c := in["commands"].(type) {
		case []any:
			for _, x := range c {
				if s, ok := x.(string); ok {
					lines = append(lines, s)
				} else if m, ok := x.(map[string]any); ok {
					lines = append(lines, str(m, "command"))
				}
			}
		case string:
			lines = append(lines, c)
		}
		if s := str(in, "command"); s != "" {
			lines = append(lines, s)
		}
		out := rest(in)
		out["command"] = strings.Join(lines, "\n")
		return vocab.Bash, out
	case "editor":
		out := rest(in)
		out["file_path"], out["new_string"] = in["path"], in["new_text"]
		if old, ok := in["old_text"].(string); ok && old != "" {
			out["old_string"] = old
			return vocab.Edit, out
		}
		out["content"] = in["new_text"]
		return vocab.Write, out
	}
	if c := vocab.Tool(name); c != "" {
		return c, input
	}
	return name, input
}
