// Package decide turns what one hook did (exit code, stdout, stderr, failure) into a
// Verdict, and the verdicts of one fire into a single Summary.
//
// Reading follows SPEC §7: exit 0 is success (stdout that starts with '{' is JSON), exit 2
// blocks events that can block and JSON cannot turn that into allow, any other exit is a
// non-blocking error unless stdout is JSON with known fields. Aggregation depends only on the
// verdicts and their config order, never on which hook finished first.
//
// It does not run anything and does not know where hooks came from.
package decide

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/valyala/fastjson"

	"github.com/hookexec/hookexec/core/event"
)

// Decision is what hooks asked for, ordered by strength: a stronger one wins.
type Decision uint8

const (
	None Decision = iota
	Allow
	Ask
	// Defer: the host should pause at this tool call and resume it later (Claude Code's
	// PreToolUse "defer"); it outranks ask and yields only to deny.
	Defer
	Deny
)

func (d Decision) String() string {
	return [...]string{"none", "allow", "ask", "defer", "deny"}[d]
}

// Input is what a hook did.
type Input struct {
	Event    event.Info
	ExitCode int
	Stdout   []byte
	Stderr   []byte
	// Failure says why the hook did not finish normally (timeout, spawn error, crash); ""
	// when it exited by itself.
	Failure    string
	FailClosed bool
	// Blocking makes any non-zero exit (and any failure) block, for events that can block:
	// the "blocking" flag of mycode and AutoAgent.
	Blocking bool
	// Refused: the hook was not run because a value could not be passed to it as data
	// (Failure says which and why). A value must never decide whether a guard runs, so
	// this blocks on every event that can block, whatever FailClosed says.
	Refused bool
	// DecisionObjects: on events decided by an object (PermissionRequest), the top-level
	// decision fields are ignored (Claude Code's dialect).
	DecisionObjects bool
	// ContinueAfterTool: on PreToolUse, continue:false lets the tool run and only stops the
	// agent afterwards (Claude Code's dialect); otherwise it blocks the tool.
	ContinueAfterTool bool
	// NestedContext: only hookSpecificOutput.additionalContext is context; a top-level
	// additionalContext (autohand's spelling) is ignored with a warning, as Claude Code
	// 2.1.330 ignores it (live: thirdparty_python_claude).
	NestedContext bool
	// ClaudeSchema reads the output as Claude Code 2.1.330 does (its hook output schema,
	// checked live by the legacy_* vectors): JSON whose top-level fields do not match the
	// schema (a decision other than "approve" or "block", a field of the wrong type) is a
	// hook error and nothing in it counts; fields outside it (a top-level permissionDecision,
	// updatedInput, modified_args, feedback) are ignored; a reason counts only beside a
	// decision; and on exit 2 the reason is the JSON's only when the JSON itself blocks,
	// else stderr.
	ClaudeSchema bool
	// Vocabulary is the agent whose words the hook answers in (zero: Claude Code's).
	Vocabulary Vocabulary
	// ContextLimit caps a Codex hook's additional context, in approximate tokens
	// (additionalContextLimit); 0 is Codex's default.
	ContextLimit int
}

// Verdict is one hook's reading. Continue defaults to true.
type Verdict struct {
	Decision          Decision
	Blocked           bool
	Reason            string
	Continue          bool
	StopReason        string
	UpdatedInput      []byte // a JSON object that replaces the tool input
	ModifiedArgs      []byte // a JSON object merged into the tool input (cli-agent)
	AdditionalContext string
	SystemMessage     string
	// WorktreePath is the directory a WorktreeCreate hook created (its last stdout line).
	WorktreePath string
	Output       []byte // stdout as compact JSON when it parsed, else nil
	Error        string
	Warnings     []string
	Claude       // Claude Code's event-specific output fields (output.go)
	// stated is what the output's decision fields said, before continue:false turned it
	// into a block (Claude Code's exit 2 takes the JSON's reason only for the former).
	stated Decision
}

// Read interprets one hook's outcome.
func Read(in Input) Verdict {
	v := Verdict{Continue: true}
	if in.Failure != "" {
		v.Error = in.Failure
		switch {
		case in.Event.AnyNonZeroBlocks:
			v.block(in.Event, "hook failed: "+in.Failure)
		case in.Refused && in.Event.CanBlock:
			v.block(in.Event, "hook not run, so the action is blocked: "+in.Failure)
		case in.FailClosed && in.Event.CanBlock:
			v.block(in.Event, "hook failed and fail_closed is set: "+in.Failure)
		case in.Blocking && in.Event.CanBlock:
			v.block(in.Event, "blocking hook failed: "+in.Failure)
		}
		return v
	}
	if in.Event.OutputIgnored {
		return v // StopFailure, InstructionsLoaded: output and exit code mean nothing
	}
	switch in.Vocabulary {
	case Gemini:
		return readGemini(in)
	case Codex:
		return readCodex(in, in.ContextLimit)
	}
	stdout := bytes.TrimSpace(in.Stdout)
	if !utf8.Valid(stdout) {
		// Raw JSON from the output (output, updated_input) reaches the result as is: make it
		// valid UTF-8 as encoding/json does strings, or the host could not decode the result.
		stdout = bytes.ToValidUTF8(stdout, []byte("\uFFFD"))
	}
	var doc *fastjson.Value
	if len(stdout) > 0 && stdout[0] == '{' {
		var err error
		if doc, err = fastjson.ParseBytes(stdout); err == nil && !json.Valid(stdout) {
			// fastjson lets raw control characters through in strings; JSON (and Claude
			// Code's JSON.parse) does not, and the output is passed on as raw JSON.
			err = strictJSON(stdout)
		}
		if err != nil {
			doc = nil
			msg := fmt.Sprintf("stdout starts with '{' but is not valid JSON: %v", err)
			if in.FailClosed && in.Event.CanBlock {
				v.Error = msg
				v.block(in.Event, "hook output unparseable and fail_closed is set")
				return v
			}
			if in.Vocabulary == ClaudeCode && in.ExitCode == 0 {
				// Claude Code 2.1.330: output that starts with '{' is JSON; when it does not
				// parse, the hook is a non-blocking error and its text goes nowhere.
				v.Error = msg
			} else {
				v.Warnings = append(v.Warnings, msg)
			}
		} else {
			v.Output = doc.MarshalTo(nil)
			if in.ClaudeSchema {
				if err := claudeSchema(doc); err != nil {
					doc = nil
					msg := "output does not match Claude Code's hook output schema (" + err.Error() + "), so nothing in it counts"
					if in.FailClosed && in.Event.CanBlock {
						v.Error = msg
						v.block(in.Event, "hook output invalid and fail_closed is set")
						return v
					}
					if in.ExitCode == 0 {
						v.Error = msg
					} else {
						v.Warnings = append(v.Warnings, msg)
					}
				}
			}
		}
	}
	switch {
	case in.Event.AnyNonZeroBlocks:
		worktree(&v, in, doc)
	case in.Event.ExitIgnored && in.ExitCode != 0:
		// The exit code is ignored (InstructionsLoaded, PermissionDenied): not an error.
	case in.ExitCode == 2 && in.DecisionObjects && in.Event.DecisionObject:
		// Claude Code 2.1.330: exit 2 does not deny a PermissionRequest; only the JSON
		// decision object decides, and without one the host's own default applies.
		if doc != nil {
			v.apply(in, doc)
		}
		if v.Decision == None {
			v.Error = fmt.Sprintf("exit status 2 does not decide %s (hookSpecificOutput.decision does)", in.Event.Name)
			if s := strings.TrimSpace(string(in.Stderr)); s != "" {
				v.Error += ": " + firstLine(s)
			}
		}
	case in.ExitCode == 2:
		var reason string
		if in.Vocabulary == Qwen {
			// Qwen Code reads stderr on exit 2; JSON there is the hook's answer.
			doc = jsonObject(strings.TrimSpace(strings.ToValidUTF8(string(in.Stderr), "\uFFFD")))
			if doc != nil {
				v.Output = doc.MarshalTo(nil)
			}
		}
		if doc != nil {
			v.apply(in, doc)
			if !in.ClaudeSchema || v.stated == Deny {
				reason = v.Reason
			}
		}
		if reason == "" {
			reason = strings.TrimSpace(string(in.Stderr))
		}
		if reason == "" {
			reason = "blocked by hook (exit status 2)"
		}
		v.Reason = ""
		if in.Event.CanBlock || in.Event.Feedback {
			// Exit 2 is the hook's last word: a JSON "allow" beside it does not count.
			v.block(in.Event, reason)
		} else {
			v.Decision = None
			v.Error = fmt.Sprintf("exit status 2 on %s, which cannot block: %s", in.Event.Name, reason)
		}
	case in.ExitCode == 0:
		switch {
		case doc != nil:
			v.apply(in, doc)
		case len(stdout) > 0 && stdout[0] != '{' && takesTextContext(in.Event.Name):
			v.AdditionalContext = string(stdout)
		case len(stdout) > 0 && in.Vocabulary == Qwen && stdout[0] != '{':
			v.SystemMessage = string(stdout) // Qwen Code shows other events' text to the user
		}
	default:
		switch {
		case doc != nil && hasKnownField(doc):
			v.apply(in, doc)
		case in.Blocking && (in.Event.CanBlock || in.Event.Feedback):
			reason := strings.TrimSpace(string(in.Stderr))
			if reason == "" {
				reason = strings.TrimSpace(string(in.Stdout))
			}
			if reason == "" {
				reason = fmt.Sprintf("blocking hook exited with status %d", in.ExitCode)
			}
			v.block(in.Event, reason)
		default:
			v.Error = fmt.Sprintf("exit status %d", in.ExitCode)
			if s := strings.TrimSpace(string(in.Stderr)); s != "" {
				v.Error += ": " + firstLine(s)
			}
			if in.Vocabulary == Qwen && doc == nil {
				if text := qwenText(stdout, in.Stderr); text != "" {
					v.SystemMessage = "Warning: " + text
				}
			}
		}
	}
	if in.Vocabulary == Qwen && in.Event.Name == "PreToolUse" && v.UpdatedInput != nil {
		// Qwen Code applies updatedInput from PermissionRequest hooks only (firePreToolUseHook
		// reads decisions and context, never the input).
		v.UpdatedInput = nil
		v.Warnings = append(v.Warnings, "Qwen Code ignores updatedInput on PreToolUse (only PermissionRequest hooks rewrite the input); ignored")
	}
	return v
}

// worktree reads a WorktreeCreate hook: any non-zero exit fails the creation, and success
// must name the directory, as the last non-empty stdout line (ANSI escapes removed) or
// hookSpecificOutput.worktreePath.
func worktree(v *Verdict, in Input, doc *fastjson.Value) {
	if in.ExitCode != 0 {
		reason := strings.TrimSpace(string(in.Stderr))
		if reason == "" {
			reason = fmt.Sprintf("exit status %d", in.ExitCode)
		}
		v.block(in.Event, reason)
		return
	}
	if doc != nil {
		v.apply(in, doc)
		if hs := doc.Get("hookSpecificOutput"); hs != nil {
			v.WorktreePath = string(hs.GetStringBytes("worktreePath"))
		}
	} else {
		lines := strings.Split(ansi.ReplaceAllString(string(in.Stdout), ""), "\n")
		for i := len(lines) - 1; i >= 0 && v.WorktreePath == ""; i-- {
			v.WorktreePath = strings.TrimSpace(lines[i])
		}
	}
	if v.WorktreePath == "" && !v.Blocked {
		v.block(in.Event, "the hook printed no worktree path")
	}
}

var ansi = regexp.MustCompile(`\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(\x07|\x1b\\)`)

// block records a block; for events whose action already ran it is feedback instead.
func (v *Verdict) block(ev event.Info, reason string) {
	if ev.CanBlock {
		v.Decision, v.Blocked = Deny, true
	} else {
		v.Decision = None
	}
	v.Reason = reason
}

func takesTextContext(ev string) bool { return ev == "UserPromptSubmit" || ev == "SessionStart" }

var knownFields = []string{"continue", "stopReason", "systemMessage", "suppressOutput", "decision",
	"reason", "hookSpecificOutput", "permissionDecision", "permissionDecisionReason", "modified_args", "feedback", "updatedInput", "additionalContext",
	"terminalSequence"}

func hasKnownField(doc *fastjson.Value) bool {
	for _, k := range knownFields {
		if doc.Exists(k) {
			return true
		}
	}
	return false
}

// apply reads the JSON output fields into v. Wrong types are warnings.
func (v *Verdict) apply(in Input, doc *fastjson.Value) {
	ev := in.Event
	str := func(parent *fastjson.Value, key, path string) (string, bool) {
		x := parent.Get(key)
		if x == nil || x.Type() == fastjson.TypeNull {
			return "", false
		}
		if x.Type() != fastjson.TypeString {
			v.Warnings = append(v.Warnings, fmt.Sprintf("output field %s is %s, want a string; ignored", path, x.Type()))
			return "", false
		}
		return string(x.GetStringBytes()), true
	}
	object := func(parent *fastjson.Value, key, path string) []byte {
		x := parent.Get(key)
		if x == nil || x.Type() == fastjson.TypeNull {
			return nil
		}
		if x.Type() != fastjson.TypeObject {
			v.Warnings = append(v.Warnings, fmt.Sprintf("output field %s is %s, want an object; ignored", path, x.Type()))
			return nil
		}
		return x.MarshalTo(nil)
	}

	continueIgnored := ev.ContinueIgnored || in.ClaudeSchema && claudeIgnoresContinue[ev.Name]
	if c := doc.Get("continue"); c != nil {
		switch c.Type() {
		case fastjson.TypeFalse:
			if continueIgnored {
				v.Warnings = append(v.Warnings, "continue:false is ignored on "+ev.Name+" (Claude Code neither blocks nor stops)")
				break
			}
			v.Continue = false
		case fastjson.TypeTrue:
		default:
			v.Warnings = append(v.Warnings, fmt.Sprintf("output field continue is %s, want true or false; ignored", c.Type()))
		}
	}
	if !continueIgnored {
		v.StopReason, _ = str(doc, "stopReason", "stopReason")
	}
	v.SystemMessage, _ = str(doc, "systemMessage", "systemMessage")
	reason, _ := str(doc, "reason", "reason")
	decision := None
	strict := ev.DecisionObject && in.DecisionObjects
	if strict && (doc.Exists("decision") || doc.Exists("permissionDecision")) {
		v.Warnings = append(v.Warnings, ev.Name+" is decided by hookSpecificOutput.decision.behavior; the top-level decision is ignored")
	}
	if d, ok := str(doc, "decision", "decision"); ok && !strict {
		decision = v.parseDecision(d, "decision")
	}
	if d, ok := str(doc, "permissionDecision", "permissionDecision"); ok && in.ClaudeSchema {
		v.Warnings = append(v.Warnings, "permissionDecision at the top level of the output is ignored (Claude Code reads hookSpecificOutput.permissionDecision)")
	} else if ok && !strict {
		v.Warnings = append(v.Warnings, "permissionDecision at the top level of the output belongs in hookSpecificOutput; honoured")
		decision = max(decision, v.parseDecision(d, "permissionDecision"))
		if r, ok := str(doc, "permissionDecisionReason", "permissionDecisionReason"); ok && reason == "" {
			reason = r
		}
	}
	if hs := doc.Get("hookSpecificOutput"); hs != nil {
		if hs.Type() != fastjson.TypeObject {
			v.Warnings = append(v.Warnings, fmt.Sprintf("output field hookSpecificOutput is %s, want an object; ignored", hs.Type()))
		} else {
			if d, ok := str(hs, "permissionDecision", "hookSpecificOutput.permissionDecision"); ok && !strict {
				decision = max(decision, v.parseDecision(d, "hookSpecificOutput.permissionDecision"))
			}
			if r, ok := str(hs, "permissionDecisionReason", "hookSpecificOutput.permissionDecisionReason"); ok {
				reason = r
			}
			v.UpdatedInput = object(hs, "updatedInput", "hookSpecificOutput.updatedInput")
			v.AdditionalContext, _ = str(hs, "additionalContext", "hookSpecificOutput.additionalContext")
			if d, r, ok := v.readClaude(hs, str, object); ok {
				decision = max(decision, d)
				if r != "" {
					reason = r
				}
			}
		}
	}
	if t, ok := str(doc, "terminalSequence", "terminalSequence"); ok {
		if err := checkTerminalSequence(t); err != nil {
			v.Warnings = append(v.Warnings, "output field terminalSequence ignored: "+err.Error())
		} else {
			v.TerminalSequence = t
		}
	}
	// autohand puts these at the top level; Claude Code's schema has no such field.
	if v.UpdatedInput == nil && !in.ClaudeSchema {
		v.UpdatedInput = object(doc, "updatedInput", "updatedInput")
	}
	if top, ok := str(doc, "additionalContext", "additionalContext"); ok && in.NestedContext {
		v.Warnings = append(v.Warnings, "top-level additionalContext ignored (Claude Code reads hookSpecificOutput.additionalContext)")
	} else if v.AdditionalContext == "" {
		v.AdditionalContext = top
	}
	if !in.ClaudeSchema {
		v.ModifiedArgs = object(doc, "modified_args", "modified_args")
	}
	// AutoAgent's feedback tells the agent what to do about the outcome: context for the
	// model, and the reason when the hook gives none.
	if fb, ok := str(doc, "feedback", "feedback"); ok && !in.ClaudeSchema {
		if reason == "" {
			reason = fb
		}
		if v.AdditionalContext != "" {
			v.AdditionalContext += "\n"
		}
		v.AdditionalContext += fb
	}
	v.stated = decision
	if in.ClaudeSchema && decision == None {
		reason = "" // Claude Code reads a reason only beside a decision
	}
	if !v.Continue && ev.CanBlock && ev.Name != "Stop" && ev.Name != "SubagentStop" &&
		!(in.ContinueAfterTool && ev.Name == "PreToolUse") {
		// continue:false outranks any decision: what the event announces must not happen.
		decision = Deny
		if reason == "" {
			reason = v.StopReason
		}
	}
	if ev.AskBlocks {
		// Claude Code 2.1.332's words for what a skill's shell command cannot do.
		switch {
		case decision == Ask || decision == Defer:
			decision, reason = Deny, joinReason(reason, "the hook asked for approval, which a skill can't wait for")
		case decision != Deny && v.UpdatedInput != nil:
			decision, reason = Deny, "the hook changed the command, which isn't supported here"
		}
		if decision == Deny {
			v.UpdatedInput = nil
		}
	}
	v.Reason = reason
	if decision == Deny {
		v.block(ev, reason)
	} else {
		v.Decision = decision
	}
	if v.Decision == Defer {
		// The reference: with "defer", the reason, updatedInput and additionalContext are ignored.
		v.Reason, v.UpdatedInput, v.AdditionalContext = "", nil, ""
	}
}

// joinReason is "reason; why", or why alone.
func joinReason(reason, why string) string {
	if reason == "" {
		return why
	}
	return reason + "; " + why
}

// claudeIgnoresContinue are the events on which Claude Code 2.1.330 neither stops nor
// blocks anything for continue:false (live: legacy_continue_false_<event> went on).
var claudeIgnoresContinue = map[string]bool{
	"SessionStart": true, "Setup": true, "SubagentStart": true, "MessageDisplay": true,
	"PermissionRequest": true, "PermissionDenied": true, "PostToolUseFailure": true,
	"PreCompact": true, "ConfigChange": true, "CwdChanged": true, "FileChanged": true,
	"WorktreeRemove": true, "PostModelSwitch": true,
}

// claudeSchema checks the top-level fields of a hook's JSON output against Claude Code
// 2.1.330's schema (its zod hookJSONOutput: every field optional, none null, unknown
// fields allowed); hookSpecificOutput is only checked to be an object.
func claudeSchema(doc *fastjson.Value) error {
	var bad error
	doc.GetObject().Visit(func(key []byte, x *fastjson.Value) {
		if bad != nil {
			return
		}
		want := ""
		switch string(key) {
		case "continue", "suppressOutput":
			if t := x.Type(); t != fastjson.TypeTrue && t != fastjson.TypeFalse {
				want = "a boolean"
			}
		case "stopReason", "reason", "systemMessage", "terminalSequence":
			if x.Type() != fastjson.TypeString {
				want = "a string"
			}
		case "decision":
			if d := string(x.GetStringBytes()); x.Type() != fastjson.TypeString || d != "approve" && d != "block" {
				bad = fmt.Errorf("decision is %s, want \"approve\" or \"block\"", x)
			}
		case "hookSpecificOutput":
			if x.Type() != fastjson.TypeObject {
				want = "an object"
			}
		}
		if want != "" {
			bad = fmt.Errorf("%s is %s, want %s", key, x.Type(), want)
		}
	})
	return bad
}

func (v *Verdict) parseDecision(s, field string) Decision {
	switch s {
	case "approve", "allow":
		return Allow
	case "block", "deny":
		return Deny
	case "ask":
		return Ask
	case "defer":
		return Defer
	case "modify", "":
		return None
	}
	v.Warnings = append(v.Warnings, fmt.Sprintf("output field %s is %q, want allow, deny, ask, defer, approve or block; ignored", field, s))
	return None
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// strictJSON says why encoding/json rejects b.
func strictJSON(b []byte) error {
	var buf bytes.Buffer
	if err := json.Compact(&buf, b); err != nil {
		return err
	}
	return fmt.Errorf("not valid JSON")
}
