package decide

import (
	"errors"
	"fmt"

	"github.com/valyala/fastjson"
)

// Claude holds the fields of Claude Code's hook output that are neither a decision nor
// context: things only the host can act on (reference v2.1.2xx, "JSON output" and each
// event's decision control). Zero values mean "not asked for".
type Claude struct {
	// UpdatedPermissions is PermissionRequest's decision.updatedPermissions (with behavior
	// allow): a JSON array of permission update entries for the host to apply.
	UpdatedPermissions []byte
	// Interrupt is PermissionRequest's decision.interrupt (with behavior deny): stop the agent.
	Interrupt bool
	// Retry is PermissionDenied's retry: tell the model it may retry the denied tool call.
	Retry bool
	// UpdatedToolOutput is PostToolUse's updatedToolOutput (or updatedMCPToolOutput): a JSON
	// value that replaces the tool's output before the model sees it.
	UpdatedToolOutput []byte
	// SessionStart's extras (sessionTitle also on UserPromptSubmit, watchPaths also on
	// FileChanged).
	SessionTitle       string
	InitialUserMessage string
	WatchPaths         []string
	ReloadSkills       bool
	// TerminalSequence is an escape sequence for the host to write to its terminal (OSC
	// 0/1/2/9/99/777 or BEL only; anything else is dropped with a warning).
	TerminalSequence string
	// ClassifierContext is PostToolUse's classifierContext: text for the host's auto-mode
	// permission classifier beside the tool's result (Claude Code 2.1.330); after
	// Aggregate, one entry per hook that gave one, within ClassifierContextBudget.
	ClassifierContext []string
}

// ClassifierContextBudget is the UTF-16 code units of classifierContext one call keeps,
// shared by every hook that gives one, as Claude Code 2.1.330 caps it.
const ClassifierContextBudget = 2000

type (
	strField    func(parent *fastjson.Value, key, path string) (string, bool)
	objectField func(parent *fastjson.Value, key, path string) []byte
)

// readClaude reads the event-specific fields of hookSpecificOutput hs. PermissionRequest's
// decision object decides like a permissionDecision: it returns that decision and reason
// (ok false when there is none).
func (v *Verdict) readClaude(hs *fastjson.Value, str strField, object objectField) (d Decision, reason string, ok bool) {
	warn := func(format string, args ...any) { v.Warnings = append(v.Warnings, fmt.Sprintf(format, args...)) }
	boolean := func(parent *fastjson.Value, key, path string) bool {
		x := parent.Get(key)
		switch {
		case x == nil || x.Type() == fastjson.TypeNull:
		case x.Type() == fastjson.TypeTrue:
			return true
		case x.Type() != fastjson.TypeFalse:
			warn("output field %s is %s, want true or false; ignored", path, x.Type())
		}
		return false
	}
	if dec := hs.Get("decision"); dec != nil && dec.Type() != fastjson.TypeNull {
		if dec.Type() != fastjson.TypeObject {
			warn("output field hookSpecificOutput.decision is %s, want an object {behavior, ...}; ignored", dec.Type())
		} else {
			behavior, _ := str(dec, "behavior", "hookSpecificOutput.decision.behavior")
			switch behavior {
			case "allow":
				d, ok = Allow, true
				if in := object(dec, "updatedInput", "hookSpecificOutput.decision.updatedInput"); in != nil {
					v.UpdatedInput = in
				}
				if p := dec.Get("updatedPermissions"); p != nil && p.Type() != fastjson.TypeNull {
					if p.Type() != fastjson.TypeArray {
						warn("output field hookSpecificOutput.decision.updatedPermissions is %s, want an array; ignored", p.Type())
					} else {
						v.UpdatedPermissions = p.MarshalTo(nil)
					}
				}
			case "deny":
				d, ok = Deny, true
				reason, _ = str(dec, "message", "hookSpecificOutput.decision.message")
				if reason == "" {
					reason = "denied by hook"
				}
				v.Interrupt = boolean(dec, "interrupt", "hookSpecificOutput.decision.interrupt")
			default:
				warn("output field hookSpecificOutput.decision.behavior is %q, want allow or deny; ignored", behavior)
			}
		}
	}
	v.Retry = boolean(hs, "retry", "hookSpecificOutput.retry")
	for _, key := range [...]string{"updatedToolOutput", "updatedMCPToolOutput"} {
		if x := hs.Get(key); x != nil && x.Type() != fastjson.TypeNull && v.UpdatedToolOutput == nil {
			v.UpdatedToolOutput = x.MarshalTo(nil)
		}
	}
	if c, _ := str(hs, "classifierContext", "hookSpecificOutput.classifierContext"); c != "" {
		v.ClassifierContext = []string{c}
	}
	v.SessionTitle, _ = str(hs, "sessionTitle", "hookSpecificOutput.sessionTitle")
	v.InitialUserMessage, _ = str(hs, "initialUserMessage", "hookSpecificOutput.initialUserMessage")
	v.ReloadSkills = boolean(hs, "reloadSkills", "hookSpecificOutput.reloadSkills")
	if w := hs.Get("watchPaths"); w != nil && w.Type() != fastjson.TypeNull {
		arr, err := w.Array()
		if err != nil {
			warn("output field hookSpecificOutput.watchPaths is %s, want an array of strings; ignored", w.Type())
		}
		for i, p := range arr {
			if p.Type() != fastjson.TypeString {
				warn("output field hookSpecificOutput.watchPaths[%d] is %s, want a string; ignored", i, p.Type())
				continue
			}
			v.WatchPaths = append(v.WatchPaths, string(p.GetStringBytes()))
		}
	}
	return d, reason, ok
}

// osc are the OSC numbers a terminalSequence may carry: titles (0, 1, 2) and desktop
// notifications (9, 99, 777).
var osc = map[string]bool{"0": true, "1": true, "2": true, "9": true, "99": true, "777": true}

// checkTerminalSequence accepts one or more allowlisted sequences: OSC 0/1/2/9/99/777
// terminated by BEL or ST, and bare BEL. Anything else (CSI, other OSCs, plain text, control
// bytes inside a sequence) is refused, so a hook can never move the cursor or change colours.
func checkTerminalSequence(s string) error {
	if s == "" {
		return errors.New("empty")
	}
	for i := 0; i < len(s); {
		switch {
		case s[i] == '\a':
			i++
			continue
		case s[i] != 0x1b || i+1 == len(s) || s[i+1] != ']':
			return fmt.Errorf("byte %d is not the start of an OSC sequence or BEL", i)
		}
		j := i + 2
		for j < len(s) && s[j] >= '0' && s[j] <= '9' {
			j++
		}
		num := s[i+2 : j]
		if !osc[num] {
			return fmt.Errorf("OSC %q is not allowed (only 0, 1, 2, 9, 99, 777)", num)
		}
		if j == len(s) || s[j] != ';' {
			return fmt.Errorf("OSC %s has no ';' after its number", num)
		}
		for j++; ; j++ {
			if j == len(s) {
				return fmt.Errorf("OSC %s is not terminated by BEL or ST", num)
			}
			if s[j] == '\a' {
				j++
				break
			}
			if s[j] == 0x1b && j+1 < len(s) && s[j+1] == '\\' {
				j += 2
				break
			}
			if s[j] < 0x20 || s[j] == 0x7f {
				return fmt.Errorf("control byte %#x inside OSC %s", s[j], num)
			}
		}
		i = j
	}
	return nil
}
