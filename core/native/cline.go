package native

import (
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/hookexec/hookexec/core/dialect"
	"github.com/hookexec/hookexec/core/engine"
	"github.com/hookexec/hookexec/core/vocab"
)

// clineAnswer answers in Cline's words as cline 3.0.65 reads them (core/dialect/cline.go):
// exit 0 always (Cline never reads the exit code) and one JSON object on stdout.
//
// A PreToolUse block refuses that call only: {"overrideInput": null, "contextModification":
// reason}. Cline hands the tool a null input, which no Cline tool accepts, so the call
// fails ("Invalid input") without running, the reason reaches the model as hook context
// and the run goes on. Cline's own {"cancel": true} would end the whole run: it is used
// only where the fire stops the agent (continue: false). A PostToolUse block (the tool
// already ran) is its reason as context. The answers of the other events are never read by
// Cline (it runs those hooks detached); they carry the context anyway.
func clineAnswer(spelled string, r *engine.Result) Answer {
	out := map[string]any{}
	ctx := r.AdditionalContext
	if !r.Continue {
		out["cancel"] = true
		out["errorMessage"] = orText(r.StopReason, orText(r.Reason, "stopped by hook"))
		return jsonAnswer(out)
	}
	pre := r.Event == "PreToolUse"
	switch {
	case pre && (r.Blocked || r.Decision == "ask"):
		// Cline's file hooks cannot ask: an ask is refused too (fail closed). A Cline hook's
		// own refusal (overrideInput null) has its context as the reason: the model gets
		// that context as the hook gave it, as Cline shows it without hookexec.
		out["overrideInput"] = nil
		if reason := orText(r.Reason, "blocked by hook"); !strings.Contains(ctx, reason) {
			ctx = joinText("Blocked by hook: "+reason, ctx)
		}
	case pre && len(r.UpdatedInput) > 0 && string(r.UpdatedInput) != "null":
		out["overrideInput"] = r.UpdatedInput
	case r.Blocked && r.Reason != "":
		ctx = joinText(r.Reason, ctx)
	}
	if ctx != "" {
		out["contextModification"] = ctx
	}
	return jsonAnswer(out)
}

func joinText(a, b string) string {
	if strings.TrimSpace(b) == "" {
		return a
	}
	return a + "\n" + b
}

// Script describes an agent whose hooks are files named after their events in hook
// directories (Cline). Install moves each such file of a directory into ManagedDir beside
// it, unchanged (a rename: same bytes, mode and times), and writes one dispatcher file
// per event there instead; uninstall moves them back.
type Script struct {
	// Dirs are the hook directories the agent reads for a scope (dir is the project or the
	// home), in the order they are listed.
	Dirs func(s Scope, dir string) []string
	// Event is the event a file name makes a hook of, as the agent spells it ("" when none).
	Event func(name string) string
}

// ManagedDir is where install moves the hooks of the hook directory d: a subdirectory,
// which the agent does not read (Cline runs the regular files of d only).
func (*Script) ManagedDir(d string) string { return filepath.Join(d, "hookexec-hooks") }

// clineScript: Cline 3.0.65 reads ~/Documents/Cline/Hooks and ~/.cline/hooks (the user's;
// $CLINE_DIR/hooks when set, which install does not follow), <project>/.clinerules/hooks
// and <project>/.cline/hooks.
var clineScript = &Script{
	Dirs: func(s Scope, dir string) []string {
		if s == User {
			return []string{filepath.Join(dir, "Documents", "Cline", "Hooks"), filepath.Join(dir, ".cline", "hooks")}
		}
		return []string{filepath.Join(dir, ".clinerules", "hooks"), filepath.Join(dir, ".cline", "hooks")}
	},
	Event: func(name string) string { e, _ := dialect.ClineEvent(name); return e },
}

// clineFiles are the hook files install moved for a scope: every regular file of a
// hookexec-hooks directory whose name Cline reads as an event, in path order (as Cline
// orders its hooks). They are listed when asked, so a file moved there later counts.
func clineFiles(s Scope, dir string) []File {
	var out []File
	for _, d := range clineScript.Dirs(s, dir) {
		md := clineScript.ManagedDir(d)
		entries, err := os.ReadDir(md)
		if err != nil {
			continue
		}
		for _, e := range entries {
			if e.Type().IsRegular() && clineScript.Event(e.Name()) != "" {
				out = append(out, File{Managed: filepath.Join(md, e.Name())})
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Managed < out[j].Managed })
	return out
}

// clineEvent is the canonical event of a Cline payload: its hookName (tool_call, ...)
// names the hook file's event (PreToolUse, ...).
func clineEvent(get func(string) string) string {
	spelled := dialect.Cline.OwnEvent(get)
	if e, ok := vocab.EventOf(vocab.Cline, spelled); ok {
		return e.Canonical
	}
	return ""
}
