package native

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"

	"github.com/hookexec/hookexec/core/engine"
)

// Plugin is where an agent that runs no command hooks, only JavaScript plugins (opencode,
// Kilo Code), loads the plugin install writes, and where hookexec keeps that agent's hooks.
type Plugin struct {
	// Path is the plugin file of a scope: a directory the agent scans for plugins.
	Path func(s Scope, dir string) string
}

// opencodeFiles are hookexec's hooks files of opencode (or Kilo: dir names it): the
// project's <dir>/hooks.json, the user's ~/.config/<name>/hooks.json. The agent has no
// settings file of hooks (Settings is ""): every hook in them is hookexec's to run.
func opencodeFiles(project, user string) func(Scope, string) []File {
	return func(s Scope, dir string) []File {
		d := filepath.Join(dir, project)
		if s == User {
			d = filepath.Join(dir, ".config", user)
		}
		return []File{{Managed: filepath.Join(d, "hooks.json")}}
	}
}

// opencodePlugin is where opencode (Kilo) loads a plugin file from: {plugin,plugins}/*.js
// of the project's .opencode (.kilo) and of ~/.config/opencode (~/.config/kilo), as opencode
// 1.18.33's bundle globs them.
func opencodePlugin(project, user string) *Plugin {
	return &Plugin{Path: func(s Scope, dir string) string {
		d := filepath.Join(dir, project)
		if s == User {
			d = filepath.Join(dir, ".config", user)
		}
		return filepath.Join(d, "plugin", "hookexec.js")
	}}
}

// opencodeAnswer is the dispatcher's answer to hookexec's opencode plugin (core/install's
// opencode.js), which turns it into what the plugin API can do: exit 2 with the reason on
// stderr for a block (the plugin throws it before a tool call, so opencode refuses the call
// and the model reads the reason; after a call it is appended to the tool's output), else
// exit 0 with one JSON object: decision ("allow", "ask", "deny" or absent), reason,
// updatedInput (the new arguments), additionalContext and systemMessage (appended to the
// tool's output), continue false with stopReason (the plugin refuses the call: a plugin
// cannot end opencode's turn). Nothing to say is exit 0 with no output.
func opencodeAnswer(r *engine.Result) Answer {
	if r.Blocked {
		return Answer{ExitCode: 2, Stderr: []byte(orText(r.Reason, "blocked by hook") + "\n")}
	}
	out := map[string]any{}
	if r.Decision != "" && r.Decision != "none" {
		out["decision"] = r.Decision
		if r.Reason != "" {
			out["reason"] = r.Reason
		}
	} else if r.Reason != "" {
		out["reason"] = r.Reason // a feedback event's reason: the tool already ran
	}
	if r.UpdatedInput != nil && string(r.UpdatedInput) != "null" {
		out["updatedInput"] = r.UpdatedInput
	}
	if r.AdditionalContext != "" {
		out["additionalContext"] = r.AdditionalContext
	}
	if r.SystemMessage != "" {
		out["systemMessage"] = r.SystemMessage
	}
	if !r.Continue {
		out["continue"] = false
		out["stopReason"] = r.StopReason
	}
	if len(out) == 0 {
		return Answer{}
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(out); err != nil {
		return Answer{ExitCode: 2, Stderr: []byte("hookexec: encoding the answer: " + strings.TrimSpace(err.Error()) + "\n")}
	}
	return Answer{Stdout: buf.Bytes()}
}
