package dialect

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/valyala/fastjson"

	"github.com/hookexec/hookexec/core/event"
	"github.com/hookexec/hookexec/core/payload"
	"github.com/hookexec/hookexec/core/vocab"
)

// Cline is Cline's hooks as the binary runs them (cline 3.0.65, @cline/core 0.0.86; its
// docs, docs.cline.bot/features/hooks/hook-reference, differ where noted in
// docs/agents/cline.md): one file per hook, named after its event (TaskStart, TaskResume,
// TaskCancel, TaskComplete, TaskError, PreToolUse, PostToolUse, UserPromptSubmit, PreCompact,
// SessionShutdown; any case; no extension or one of ClineExtensions), in ~/Documents/Cline/Hooks,
// ~/.cline/hooks ($CLINE_DIR/hooks), <project>/.clinerules/hooks or <project>/.cline/hooks.
// The file need not be executable: Cline runs its shebang's interpreter, or picks one by
// extension, else bash (ClineArgv). A hook sees {clineVersion, hookName (Cline's internal
// name: tool_call, tool_result, agent_start, …), timestamp, taskId, sessionContext,
// workspaceRoots, workspaceInfo, userId, agent_id, parent_agent_id, <event>: {...}} and
// answers with JSON on stdout (the last "HOOK_CONTROL\t" line, else all of it). Its exit
// code is never read. Only PreToolUse and PostToolUse answers are read (the other events
// run detached); PreToolUse hooks have no matcher and Cline gives them 120 s.
var Cline = &Dialect{
	Name:     vocab.Cline,
	Unit:     time.Second,
	Timeout:  120 * time.Second,
	Envelope: payload.Claude,
	Script:   true,
	Detect: func(path string, v *fastjson.Value) bool {
		_, ok := ClineEvent(filepath.Base(path))
		return v == nil && ok && (inDir(path, "hooks") || inDir(path, "Hooks") || inDir(path, "hookexec-hooks"))
	},
	Load:     loadCline,
	Stdin:    clineStdin,
	Answer:   clineAnswer,
	OwnEvent: func(get func(string) string) string { return clineEventOf[get("hookName")] },
}

// clineEventOf is the hook file's event of each of Cline's internal names.
var clineEventOf = func() map[string]string {
	m := map[string]string{}
	for file, internal := range clineHookNames {
		m[internal] = file
	}
	return m
}()

// ClineExtensions are the file extensions Cline accepts on a hook file ("" is none).
var ClineExtensions = []string{"", ".sh", ".bash", ".zsh", ".js", ".mjs", ".cjs", ".ts", ".mts", ".cts", ".py", ".ps1"}

// ClineEvent is the event a file name makes a Cline hook of, as Cline spells it: the name
// without an accepted extension, compared without case.
func ClineEvent(name string) (string, bool) {
	ext := strings.ToLower(filepath.Ext(name))
	known := false
	for _, e := range ClineExtensions {
		known = known || e == ext
	}
	if !known {
		return "", false
	}
	base := strings.TrimSpace(strings.TrimSuffix(name, filepath.Ext(name)))
	for _, e := range vocab.Events(vocab.Cline) {
		if strings.EqualFold(e.Name, base) {
			return e.Name, true
		}
	}
	return "", false
}

// ClineArgv is how Cline runs a hook file: its shebang's interpreter (through "env" to the
// program it names; sh, bash, zsh and python by name), else an interpreter for its
// extension, else bash.
func ClineArgv(path string) []string {
	if shebang := readShebang(path); len(shebang) > 0 {
		return append(clineInterpreter(shebang), path)
	}
	switch strings.ToLower(filepath.Ext(path)) {
	case ".js", ".mjs", ".cjs":
		return []string{"node", path}
	case ".ts", ".mts", ".cts":
		return []string{"bun", "run", path}
	case ".py":
		return []string{"python3", path}
	case ".ps1":
		return []string{"pwsh", "-File", path}
	}
	return []string{"bash", path}
}

// clineInterpreter is Cline's reading of a shebang's words.
func clineInterpreter(words []string) []string {
	if len(words) == 0 {
		return words
	}
	switch filepath.Base(words[0]) {
	case "env":
		if rest := clineInterpreter(words[1:]); len(rest) > 0 {
			return rest
		}
		return words
	case "bash", "sh", "zsh", "python3", "python":
		return append([]string{filepath.Base(words[0])}, words[1:]...)
	}
	return words
}

func readShebang(path string) []string {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	line, _ := bufio.NewReader(f).ReadString('\n')
	rest, ok := strings.CutPrefix(strings.TrimSpace(line), "#!")
	if !ok {
		return nil
	}
	return strings.Fields(rest)
}

func loadCline(p *Reader, _ []byte, _ *fastjson.Value) error {
	name := filepath.Base(p.source)
	spelled, ok := ClineEvent(name)
	if !ok {
		return fmt.Errorf("not a Cline hook: the file name must be one of %s (no extension, or one of %s)", strings.Join(eventNames(vocab.Cline), ", "), strings.Join(ClineExtensions[1:], " "))
	}
	e, _ := vocab.EventOf(vocab.Cline, spelled)
	h := Hook{Event: e.Canonical, Spelling: spelled, Type: "command", Name: "cline-" + name, Args: ClineArgv(p.source)}
	p.add(&h, "", event.Lookup(h.Event), "")
	return nil
}

// clineDetached are the events whose hooks Cline starts and does not wait for (hookexec
// runs them in the foreground, so that they finish before the fire returns): their stdout
// is never read (TaskStart and TaskResume wait only with the SDK's blockingRunStartHooks,
// which the CLI does not set).
var clineDetached = map[string]bool{
	"TaskStart": true, "TaskResume": true, "TaskCancel": true, "TaskComplete": true, "TaskError": true,
	"UserPromptSubmit": true, "SessionShutdown": true,
}

// clineHookNames are Cline's internal names, which a hook sees as hookName.
var clineHookNames = map[string]string{
	"TaskStart": "agent_start", "TaskResume": "agent_resume", "TaskCancel": "agent_abort",
	"TaskComplete": "agent_end", "TaskError": "agent_error", "PreToolUse": "tool_call",
	"PostToolUse": "tool_result", "UserPromptSubmit": "prompt_submit", "SessionShutdown": "session_shutdown",
}

// clineEventKey is the field of Cline's input that holds an event's own data.
func clineEventKey(name string) string { return strings.ToLower(name[:1]) + name[1:] }

// clineParameters is Cline's preToolUse.parameters: every value a string (others as JSON).
func clineParameters(input object) object {
	out := object{}
	for k, v := range input {
		out[k] = jsonText(v)
	}
	return out
}

// clineStdin is Cline's hook input. A payload Cline sent itself (it has hookName) is passed
// on as it is; another host's is rendered in Cline's shape.
func clineStdin(f Fire) []byte {
	if f.Payload != nil && f.Payload.Get("hookName") != nil {
		return append(payload.AppendJSON(nil, f.Payload), '\n')
	}
	p := decode(f.Payload)
	session := firstStr(p, "taskId", "session_id")
	if session == "" {
		session = f.Frame.SessionID
	}
	out := object{
		"clineVersion":    "",
		"hookName":        clineHookNames[f.Event],
		"timestamp":       isoTime(f.Frame.Time),
		"taskId":          session,
		"sessionContext":  object{"rootSessionId": session},
		"workspaceRoots":  []any{f.Frame.Cwd},
		"workspaceInfo":   object{"rootPath": f.Frame.Cwd, "hint": filepath.Base(f.Frame.Cwd)},
		"userId":          "unknown",
		"agent_id":        session,
		"parent_agent_id": nil,
	}
	tool := spellTool(vocab.Cline, str(p, "tool_name"))
	input := obj(p, "tool_input")
	switch f.Event {
	case "PreToolUse":
		out["tool_call"] = object{"id": p["tool_use_id"], "name": tool, "input": input}
		out["preToolUse"] = object{"toolName": tool, "parameters": clineParameters(input)}
	case "PostToolUse":
		out["tool_result"] = object{"id": p["tool_use_id"], "name": tool, "input": input, "output": p["tool_response"], "error": p["error"]}
		out["postToolUse"] = object{"toolName": tool, "parameters": clineParameters(input), "result": jsonText(p["tool_response"]),
			"success": p["error"] == nil, "executionTimeMs": p["duration_ms"]}
	case "UserPromptSubmit":
		out["userPromptSubmit"] = object{"prompt": p["prompt"], "attachments": []any{}}
	case "TaskStart":
		out["taskStart"] = object{"taskMetadata": object{}}
	case "TaskResume":
		out["taskResume"] = object{"taskMetadata": object{}, "previousState": object{}}
	case "TaskComplete":
		out["taskComplete"] = object{"taskMetadata": object{}}
	case "TaskCancel":
		out["reason"] = p["reason"]
		out["taskCancel"] = object{"taskMetadata": object{}}
	case "TaskError":
		out["error"] = object{"message": firstStr(p, "error")}
	case "SessionShutdown":
		out["reason"] = p["reason"]
	default:
		out[clineEventKey(f.Event)] = p
	}
	return encode(out)
}

// clineContextLimit is where Cline cuts a hook's context (it appends a note).
const clineContextLimit = 50000

// clineAnswer reads a hook's answer as Cline does. The exit code is never read (exit 2
// blocks nothing). Stdout is the last "HOOK_CONTROL\t" line, else all of it; JSON that does
// not parse is no answer (Cline logs it and goes on: fail open). Each field is read on its
// own and one of the wrong type is ignored (file hooks are not checked against Cline's
// schema: @cline/core's yl, not WV). The answers of detached events are never read.
//
//   - cancel: true ends the whole run, before the tool (PreToolUse) or after it
//     (PostToolUse); the reason is errorMessage, else context/contextModification.
//   - context, else contextModification, else errorMessage (without cancel) is context for
//     the model (cut at 50,000 characters).
//   - overrideInput (PreToolUse) replaces the tool's input; null, which no Cline tool
//     accepts, makes the call fail without running: hookexec reads it as a block of that
//     call only (the run goes on), with the context as its reason.
func clineAnswer(ev string, exit int, stdout []byte) (int, []byte) {
	// Without an answer a failed hook is a failure hookexec reports, never a block: exit 2
	// becomes 1. With one, Cline reads it whatever the exit code.
	failed := exit
	if failed == 2 {
		failed = 1
	}
	if clineDetached[ev] {
		return failed, nil
	}
	m := clineControl(stdout)
	if m == nil {
		return failed, nil
	}
	ctx, isStr := m["context"].(string)
	if !isStr {
		ctx, _ = m["contextModification"].(string)
	}
	errMsg := str(m, "errorMessage")
	if strings.TrimSpace(errMsg) == "" {
		errMsg = ""
	}
	out := object{}
	if c, _ := m["cancel"].(bool); c {
		reason := errMsg
		if reason == "" {
			reason = ctx
		}
		if reason == "" {
			reason = "cancelled by a Cline hook"
		}
		out["continue"], out["stopReason"] = false, reason
		if ev == "PreToolUse" {
			out["decision"], out["reason"] = "block", reason
		}
		return 0, canonicalAnswer(out)
	}
	if ctx == "" {
		ctx = errMsg
	}
	if len(ctx) > clineContextLimit {
		ctx = ctx[:clineContextLimit] + fmt.Sprintf("\n[hook context truncated: exceeded %d characters]", clineContextLimit)
	}
	if strings.TrimSpace(ctx) != "" {
		out["additionalContext"] = ctx
	}
	if ov, ok := m["overrideInput"]; ok && ev == "PreToolUse" {
		if input, isObj := ov.(object); isObj {
			out["hookSpecificOutput"] = object{"hookEventName": "PreToolUse", "updatedInput": input}
		} else {
			reason := strings.TrimSpace(ctx)
			if reason == "" {
				reason = "a Cline hook replaced the tool's input with one no tool accepts"
			}
			out["decision"], out["reason"] = "block", reason
		}
	}
	if len(out) == 0 {
		return failed, nil // nothing Cline acts on: the exit code is all there is
	}
	return 0, canonicalAnswer(out)
}

// clineControl is the JSON object of a hook's stdout as Cline picks it; nil for none.
func clineControl(stdout []byte) object {
	text := bytes.TrimSpace(stdout)
	if len(text) == 0 {
		return nil
	}
	var last []byte
	for _, line := range bytes.Split(text, []byte("\n")) {
		if rest, ok := bytes.CutPrefix(bytes.TrimSpace(line), []byte("HOOK_CONTROL\t")); ok {
			last = rest
		}
	}
	if last != nil {
		text = last
	}
	var m object
	if json.Unmarshal(text, &m) != nil {
		return nil
	}
	return m
}
