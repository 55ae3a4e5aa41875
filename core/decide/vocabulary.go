package decide

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/valyala/fastjson"

	"github.com/hookexec/hookexec/core/event"
)

// Vocabulary is the language a hook's answer is read in: exit codes and JSON fields mean
// what the agent the hook was written for makes of them. The zero value is Claude Code's
// (SPEC §7), which the seed dialects share.
type Vocabulary uint8

const (
	// ClaudeCode: SPEC §7.
	ClaudeCode Vocabulary = iota
	// Gemini is Gemini CLI's (packages/core/src/hooks, hookRunner and hookAggregator): the
	// text read is stdout, else stderr, whatever the exit code; JSON there decides even on a
	// failing exit; plain text is a system message on exit 0, a warning on exit 1 and a
	// block on any other exit; exit 2 with no text blocks too, as Gemini CLI's reference
	// says (0.61.0 reads no answer there: hookexec keeps the guard); BeforeTool rewrites
	// the input with hookSpecificOutput.tool_input; a blocked AfterTool replaces the tool's result with an
	// error carrying the reason; additionalContext has < and > escaped.
	Gemini
	// Codex is OpenAI Codex's (codex-rs/hooks, output_parser): strict. An answer an event
	// does not support (ask or a bare allow on PreToolUse, approve, continue:false where it
	// cannot stop, a block without a reason, exit 2 without stderr) fails the hook instead of
	// deciding anything.
	Codex
	// Qwen is Qwen Code's: Claude Code's, except that exit 2 reads stderr (JSON there is the
	// answer), plain stdout of other events is a system message, and any exit but 0 and 2
	// is a warning.
	Qwen
)

func (v Vocabulary) String() string {
	return [...]string{"claude", "gemini", "codex", "qwen"}[v]
}

// geminiAdvisory are the events on which Gemini CLI ignores flow control (continue, decision).
var geminiAdvisory = map[string]bool{"SessionStart": true, "SessionEnd": true, "Notification": true, "PreCompact": true, "BeforeToolSelection": true}

// readGemini reads a hook the way Gemini CLI's hookRunner does.
func readGemini(in Input) Verdict {
	v := Verdict{Continue: true}
	text := strings.TrimSpace(string(in.Stdout))
	if text == "" {
		text = strings.TrimSpace(string(in.Stderr))
	}
	text = strings.ToValidUTF8(text, "\uFFFD")
	if in.ExitCode != 0 {
		v.Error = fmt.Sprintf("exit status %d", in.ExitCode)
	}
	doc := jsonObject(text)
	switch {
	case text == "" && in.ExitCode == 2 && !geminiAdvisory[in.Event.Name]:
		// Gemini CLI 0.61.0 reads no answer from an exit 2 that printed nothing (hookRunner:
		// no text, no output) and lets the call through; its reference calls exit 2 a block
		// whatever it prints, and hookexec keeps it one: a silent guard stays a guard (live:
		// exit2_without_text_deliberate; the dispatcher says it as JSON, which Gemini obeys).
		v.Error = ""
		geminiBlock(&v, in.Event, "blocked by hook (exit status 2)")
	case text == "":
	case doc != nil:
		v.Output = doc.MarshalTo(nil)
		geminiApply(&v, in.Event, doc)
	case in.ExitCode == 0:
		v.SystemMessage = text
	case in.ExitCode == 1:
		v.SystemMessage = "Warning: " + text
	default:
		// Every other exit code, 2 included, turns the text into a denial.
		v.Error = ""
		if !geminiAdvisory[in.Event.Name] {
			geminiBlock(&v, in.Event, text)
		}
	}
	return v
}

// geminiBlock blocks as Gemini CLI does. A blocked AfterTool withholds the tool's result:
// the model gets an error carrying the reason in its place (executeToolWithHooks: "Tool
// result blocked"), which hookexec says as the replaced tool output.
func geminiBlock(v *Verdict, ev event.Info, reason string) {
	v.block(ev, reason)
	if ev.Name == "PostToolUse" {
		v.UpdatedToolOutput, _ = json.Marshal(map[string]string{"error": reason})
	}
}

// jsonObject parses text as a JSON object, or as a JSON string holding one (Gemini CLI
// parses twice); nil otherwise.
func jsonObject(text string) *fastjson.Value {
	if text == "" || !json.Valid([]byte(text)) {
		return nil
	}
	doc, err := fastjson.Parse(text)
	if err != nil {
		return nil
	}
	if doc.Type() == fastjson.TypeString {
		inner := string(doc.GetStringBytes())
		if !json.Valid([]byte(inner)) {
			return nil
		}
		if doc, err = fastjson.Parse(inner); err != nil {
			return nil
		}
	}
	if doc.Type() != fastjson.TypeObject {
		return nil
	}
	return doc
}

func geminiApply(v *Verdict, ev event.Info, doc *fastjson.Value) {
	str := func(parent *fastjson.Value, key string) string {
		if x := parent.Get(key); x != nil && x.Type() == fastjson.TypeString {
			return string(x.GetStringBytes())
		}
		return ""
	}
	advisory := geminiAdvisory[ev.Name]
	if ev.Name != "BeforeToolSelection" {
		v.SystemMessage = str(doc, "systemMessage")
	}
	reason := str(doc, "reason")
	stop := str(doc, "stopReason")
	if c := doc.Get("continue"); c != nil && c.Type() == fastjson.TypeFalse && !advisory {
		v.Continue, v.StopReason = false, stop
	}
	decision := None
	switch d := str(doc, "decision"); d {
	case "block", "deny":
		decision = Deny
	case "ask":
		decision = Ask
	case "allow", "approve":
		decision = Allow
	case "":
	default:
		v.Warnings = append(v.Warnings, fmt.Sprintf("output field decision is %q, want allow, deny, block or ask; ignored", d))
	}
	if hs := doc.Get("hookSpecificOutput"); hs != nil && hs.Type() == fastjson.TypeObject {
		if c := hs.Get("additionalContext"); c != nil && c.Type() == fastjson.TypeString {
			// Gemini CLI escapes tags so a hook cannot close the context block it lands in.
			v.AdditionalContext = strings.NewReplacer("<", "&lt;", ">", "&gt;").Replace(string(c.GetStringBytes()))
		}
		if ti := hs.Get("tool_input"); ti != nil && ti.Type() == fastjson.TypeObject && ev.Name == "PreToolUse" {
			v.UpdatedInput = ti.MarshalTo(nil)
		}
	}
	if advisory {
		return
	}
	if !v.Continue && ev.CanBlock && ev.Name != "Stop" {
		decision = Deny
	}
	if decision == Deny {
		// getEffectiveReason: stopReason, else reason.
		r := stop
		if r == "" {
			r = reason
		}
		if r == "" {
			r = "No reason provided"
		}
		geminiBlock(v, ev, r)
		return
	}
	v.Decision, v.Reason = decision, reason
}

// readCodex reads a hook the way Codex's output_parser and events/*.rs do.
func readCodex(in Input, contextLimit int) Verdict {
	v := Verdict{Continue: true}
	stdout := strings.TrimSpace(string(in.Stdout))
	stderr := strings.TrimSpace(string(in.Stderr))
	name := in.Event.Name
	fail := func(msg string) Verdict {
		v = Verdict{Continue: true, Error: msg, Output: v.Output, Warnings: v.Warnings}
		return v
	}
	switch in.ExitCode {
	case 0:
	case 2:
		if !utf8.ValidString(stderr) {
			stderr = strings.ToValidUTF8(stderr, "\uFFFD")
		}
		if stderr == "" {
			return fail(fmt.Sprintf("%s hook exited with code 2 but did not write a blocking reason to stderr", name))
		}
		switch {
		case in.Event.CanBlock || in.Event.Feedback:
			v.block(in.Event, stderr)
		default:
			v.Error = "exit status 2: " + firstLine(stderr)
		}
		return v
	default:
		return fail(fmt.Sprintf("hook exited with code %d", in.ExitCode))
	}
	if stdout == "" {
		return v
	}
	doc := jsonObject(stdout)
	if doc == nil {
		if s := strings.TrimLeft(stdout, " \t\r\n"); strings.HasPrefix(s, "{") || strings.HasPrefix(s, "[") {
			return fail("hook returned invalid " + codexKebab(name) + " JSON output")
		}
		if name == "SessionStart" || name == "UserPromptSubmit" {
			v.AdditionalContext = codexLimit(stdout, contextLimit)
		}
		return v
	}
	v.Output = doc.MarshalTo(nil)
	str := func(parent *fastjson.Value, key string) (string, bool) {
		x := parent.Get(key)
		if x == nil || x.Type() == fastjson.TypeNull {
			return "", false
		}
		return string(x.GetStringBytes()), x.Type() == fastjson.TypeString
	}
	cont := doc.Get("continue") == nil || doc.Get("continue").Type() != fastjson.TypeFalse
	stopReason, hasStop := str(doc, "stopReason")
	suppress := doc.Get("suppressOutput") != nil && doc.Get("suppressOutput").Type() == fastjson.TypeTrue
	v.SystemMessage, _ = str(doc, "systemMessage")
	decision, hasDecision := str(doc, "decision")
	reason, hasReason := str(doc, "reason")
	hs := doc.Get("hookSpecificOutput")
	if hs != nil && hs.Type() != fastjson.TypeObject {
		hs = nil
	}
	var context string
	if hs != nil {
		context, _ = str(hs, "additionalContext")
	}
	trimmed := strings.TrimSpace(reason)
	switch name {
	case "PreToolUse":
		switch {
		case !cont:
			return fail("PreToolUse hook returned unsupported continue:false")
		case hasStop:
			return fail("PreToolUse hook returned unsupported stopReason")
		case suppress:
			return fail("PreToolUse hook returned unsupported suppressOutput")
		}
		pd, hasPD := "", false
		var updated *fastjson.Value
		pdReason, hasPDReason := "", false
		if hs != nil {
			pd, hasPD = str(hs, "permissionDecision")
			pdReason, hasPDReason = str(hs, "permissionDecisionReason")
			if u := hs.Get("updatedInput"); u != nil && u.Type() != fastjson.TypeNull {
				updated = u
			}
		}
		if hasPD || hasPDReason || updated != nil {
			switch {
			case updated != nil && pd != "allow":
				return fail("PreToolUse hook returned updatedInput without permissionDecision:allow")
			case pd == "allow" && updated == nil:
				return fail("PreToolUse hook returned unsupported permissionDecision:allow")
			case pd == "ask":
				return fail("PreToolUse hook returned unsupported permissionDecision:ask")
			case pd == "deny" && strings.TrimSpace(pdReason) == "":
				return fail("PreToolUse hook returned permissionDecision:deny without a non-empty permissionDecisionReason")
			case !hasPD && hasPDReason:
				return fail("PreToolUse hook returned permissionDecisionReason without permissionDecision")
			case pd == "deny":
				v.block(in.Event, strings.TrimSpace(pdReason))
			case pd == "allow":
				if updated.Type() == fastjson.TypeObject {
					v.UpdatedInput = updated.MarshalTo(nil)
				}
			default:
				return fail(fmt.Sprintf("PreToolUse hook returned unknown permissionDecision %q", pd))
			}
		} else {
			switch {
			case hasDecision && decision == "approve":
				return fail("PreToolUse hook returned unsupported decision:approve")
			case hasDecision && decision == "block" && trimmed == "":
				return fail("PreToolUse hook returned decision:block without a non-empty reason")
			case hasDecision && decision == "block":
				v.block(in.Event, trimmed)
			case hasDecision:
				return fail(fmt.Sprintf("hook returned invalid %s JSON output", codexKebab(name)))
			case hasReason:
				return fail("PreToolUse hook returned reason without decision")
			}
		}
	case "PermissionRequest":
		switch {
		case !cont:
			return fail("PermissionRequest hook returned unsupported continue:false")
		case hasStop:
			return fail("PermissionRequest hook returned unsupported stopReason")
		case suppress:
			return fail("PermissionRequest hook returned unsupported suppressOutput")
		}
		if hs != nil {
			if dec := hs.Get("decision"); dec != nil && dec.Type() == fastjson.TypeObject {
				switch {
				case dec.Exists("updatedInput"):
					return fail("PermissionRequest hook returned unsupported updatedInput")
				case dec.Exists("updatedPermissions"):
					return fail("PermissionRequest hook returned unsupported updatedPermissions")
				case dec.Get("interrupt") != nil && dec.Get("interrupt").Type() == fastjson.TypeTrue:
					return fail("PermissionRequest hook returned unsupported interrupt:true")
				}
				switch b, _ := str(dec, "behavior"); b {
				case "allow":
					v.Decision = Allow
				case "deny":
					msg, _ := str(dec, "message")
					if msg = strings.TrimSpace(msg); msg == "" {
						msg = "PermissionRequest hook denied approval"
					}
					v.block(in.Event, msg)
				default:
					return fail("hook returned invalid permission-request JSON output")
				}
			}
		}
	case "PostToolUse", "UserPromptSubmit", "Stop", "SubagentStop":
		if name == "PostToolUse" && suppress {
			return fail("PostToolUse hook returned unsupported suppressOutput")
		}
		switch {
		case hasDecision && decision == "block" && trimmed == "":
			return fail(name + " hook returned decision:block without a non-empty reason")
		case hasDecision && decision == "block":
			v.block(in.Event, trimmed)
		case name == "PostToolUse" && hasReason && cont:
			return fail("PostToolUse hook returned reason without decision")
		}
		if name == "PostToolUse" && hs != nil {
			for _, k := range [...]string{"updatedToolOutput", "updatedMCPToolOutput"} {
				if x := hs.Get(k); x != nil && x.Type() != fastjson.TypeNull && v.UpdatedToolOutput == nil {
					v.UpdatedToolOutput = x.MarshalTo(nil)
				}
			}
		}
	}
	if !cont {
		v.Continue, v.StopReason = false, stopReason
	}
	v.AdditionalContext = codexLimit(context, contextLimit)
	return v
}

// codexLimit keeps additional context within Codex's per-hook budget (additionalContextLimit,
// in approximate tokens of four bytes; 2500 when unset): longer text keeps its head and
// tail around a marker naming how much was left out.
func codexLimit(s string, limit int) string {
	if limit <= 0 {
		limit = 2500
	}
	max := limit * 4
	if len(s) <= max {
		return s
	}
	half := max / 2
	head, tail := s[:half], s[len(s)-half:]
	for len(head) > 0 && !utf8.ValidString(head) {
		head = head[:len(head)-1]
	}
	for len(tail) > 0 && !utf8.ValidString(tail) {
		tail = tail[1:]
	}
	return fmt.Sprintf("%s…%d tokens truncated…%s", head, (len(s)-len(head)-len(tail)+3)/4, tail)
}

// codexKebab spells an event as Codex's messages do ("pre-tool-use").
func codexKebab(name string) string {
	var b bytes.Buffer
	for i, r := range name {
		if r >= 'A' && r <= 'Z' {
			if i > 0 {
				b.WriteByte('-')
			}
			r += 'a' - 'A'
		}
		b.WriteRune(r)
	}
	return b.String()
}

// qwenText is the text Qwen Code reads from a hook that printed no JSON: stdout, else stderr.
func qwenText(stdout, stderr []byte) string {
	if s := strings.TrimSpace(string(stdout)); s != "" {
		return s
	}
	return strings.ToValidUTF8(strings.TrimSpace(string(stderr)), "\uFFFD")
}
