package dialect

import (
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

// Cline is Cline's hooks (docs.cline.bot/features/hooks/hook-reference): one executable
// file per hook, named exactly after its event (TaskStart, TaskResume, TaskCancel,
// TaskComplete, PreToolUse, PostToolUse, UserPromptSubmit, PreCompact, no extension), in
// .clinerules/hooks/ of the project or ~/Documents/Cline/Hooks/. The file is the hook: it
// runs directly (it must be executable), sees {clineVersion, hookName, timestamp, taskId,
// workspaceRoots, userId, <event>: {...}} and answers {"cancel", "contextModification",
// "errorMessage"}. It has no matcher (a PreToolUse hook sees every tool and decides itself)
// and Cline gives it 30 s. The model fits: each file becomes one hook of its event.
var Cline = &Dialect{
	Name:     vocab.Cline,
	Unit:     time.Second,
	Timeout:  30 * time.Second,
	Envelope: payload.Claude,
	Script:   true,
	Detect: func(path string, v *fastjson.Value) bool {
		_, ok := vocab.EventOf(vocab.Cline, filepath.Base(path))
		return v == nil && ok && inDir(path, "hooks") || v == nil && ok && inDir(path, "Hooks")
	},
	Load:   loadCline,
	Stdin:  clineStdin,
	Answer: clineAnswer,
}

func loadCline(p *Reader, _ []byte, _ *fastjson.Value) error {
	name := filepath.Base(p.source)
	e, ok := vocab.EventOf(vocab.Cline, name)
	if !ok {
		return fmt.Errorf("not a Cline hook: the file name must be one of %s", strings.Join(eventNames(vocab.Cline), ", "))
	}
	h := Hook{Event: e.Canonical, Spelling: name, Type: "command", Name: "cline-" + name, Args: []string{p.source}}
	if fi, err := os.Stat(p.source); err == nil && fi.Mode().Perm()&0o111 == 0 {
		p.disable(&h, h.Name, "%s is not executable; Cline runs only executable hook files (chmod +x)", p.source)
	}
	p.add(&h, "", event.Lookup(h.Event), "")
	return nil
}

// clineEventKey is the field of Cline's input that holds an event's own data.
func clineEventKey(name string) string { return strings.ToLower(name[:1]) + name[1:] }

// clineStdin is Cline's hook input.
func clineStdin(f Fire) []byte {
	p := decode(f.Payload)
	session := firstStr(p, "taskId", "session_id")
	if session == "" {
		session = f.Frame.SessionID
	}
	data := object{}
	switch f.Event {
	case "PreToolUse", "PostToolUse":
		data["toolName"] = spellTool(vocab.Cline, str(p, "tool_name"))
		data["parameters"] = obj(p, "tool_input")
		if f.Event == "PostToolUse" {
			data["result"] = jsonText(p["tool_response"])
			data["success"] = p["error"] == nil
			data["executionTimeMs"] = p["duration_ms"]
		}
	case "UserPromptSubmit":
		data["prompt"] = p["prompt"]
		data["attachments"] = []any{}
	case "TaskStart", "TaskResume", "TaskCancel", "TaskComplete":
		data["taskMetadata"] = object{"taskId": session, "ulid": session, "initialTask": p["prompt"]}
	default:
		data = p
	}
	return encode(object{
		"clineVersion":         "",
		"hookName":             f.Event,
		"timestamp":            itoa(millis(f.Frame.Time)),
		"taskId":               session,
		"workspaceRoots":       []any{f.Frame.Cwd},
		"userId":               "",
		clineEventKey(f.Event): data,
	})
}

// clineAnswer: cancel true blocks with errorMessage as the reason; contextModification is
// context for the model.
func clineAnswer(_ string, exit int, stdout []byte) (int, []byte) {
	m := parseAnswer(stdout)
	if m == nil {
		return exit, malformed(stdout)
	}
	out := object{}
	if c, _ := m["cancel"].(bool); c {
		reason := str(m, "errorMessage")
		if reason == "" {
			reason = "cancelled by Cline hook"
		}
		out["decision"], out["reason"] = "block", reason
	}
	if ctx := str(m, "contextModification"); ctx != "" {
		out["additionalContext"] = ctx
	}
	return exit, canonicalAnswer(out)
}
