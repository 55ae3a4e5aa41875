package decide

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"github.com/hookexec/hookexec/core/event"
)

func TestRead(t *testing.T) {
	pre := event.Lookup("PreToolUse")
	post := event.Lookup("PostToolUse")
	stop := event.Lookup("Stop")
	notif := event.Lookup("Notification")
	prompt := event.Lookup("UserPromptSubmit")
	tests := []struct {
		name     string
		in       Input
		decision Decision
		blocked  bool
		reason   string
		cont     bool
		errSub   string
		context  string
	}{
		{name: "exit 0 no output", in: Input{Event: pre}, cont: true},
		{name: "exit 2 blocks with stderr", in: Input{Event: pre, ExitCode: 2, Stderr: []byte("no rm\n")}, decision: Deny, blocked: true, reason: "no rm", cont: true},
		{name: "exit 2 without stderr", in: Input{Event: pre, ExitCode: 2}, decision: Deny, blocked: true, reason: "blocked by hook (exit status 2)", cont: true},
		{name: "exit 2 json allow still blocks", in: Input{Event: pre, ExitCode: 2, Stdout: []byte(`{"decision":"approve","reason":"fine"}`), Stderr: []byte("bad")}, decision: Deny, blocked: true, reason: "fine", cont: true},
		{name: "exit 2 on PostToolUse is feedback", in: Input{Event: post, ExitCode: 2, Stderr: []byte("lint failed")}, reason: "lint failed", cont: true},
		{name: "exit 2 on Notification is an error", in: Input{Event: notif, ExitCode: 2, Stderr: []byte("x")}, cont: true, errSub: "cannot block"},
		{name: "exit 1 is non-blocking", in: Input{Event: pre, ExitCode: 1, Stderr: []byte("oops\nmore")}, cont: true, errSub: "exit status 1: oops"},
		{name: "exit 1 with known json decides", in: Input{Event: pre, ExitCode: 1, Stdout: []byte(`{"decision":"block","reason":"r"}`)}, decision: Deny, blocked: true, reason: "r", cont: true},
		{name: "exit 1 with unknown json is an error", in: Input{Event: pre, ExitCode: 1, Stdout: []byte(`{"x":1}`)}, cont: true, errSub: "exit status 1"},
		{name: "permissionDecision deny", in: Input{Event: pre, Stdout: []byte(`{"hookSpecificOutput":{"permissionDecision":"deny","permissionDecisionReason":"no"}}`)}, decision: Deny, blocked: true, reason: "no", cont: true},
		{name: "permissionDecision ask", in: Input{Event: pre, Stdout: []byte(`{"hookSpecificOutput":{"permissionDecision":"ask"}}`)}, decision: Ask, cont: true},
		{name: "approve is allow", in: Input{Event: pre, Stdout: []byte(` {"decision":"approve"}`)}, decision: Allow, cont: true},
		{name: "flat permissionDecision honoured", in: Input{Event: pre, Stdout: []byte(`{"permissionDecision":"deny","permissionDecisionReason":"flat"}`)}, decision: Deny, blocked: true, reason: "flat", cont: true},
		{name: "continue false blocks a tool", in: Input{Event: pre, Stdout: []byte(`{"continue":false,"stopReason":"halt"}`)}, decision: Deny, blocked: true, reason: "halt"},
		{name: "continue false on PreToolUse in Claude Code's dialect lets the tool run, then stops", in: Input{Event: pre, ContinueAfterTool: true, Stdout: []byte(`{"continue":false,"stopReason":"halt"}`)}},
		{name: "exit 2 does not deny a PermissionRequest in Claude Code's dialect", in: Input{Event: event.Lookup("PermissionRequest"), DecisionObjects: true, ExitCode: 2, Stderr: []byte("no")}, cont: true, errSub: "does not decide PermissionRequest"},
		{name: "exit 2 with a deny object denies a PermissionRequest", in: Input{Event: event.Lookup("PermissionRequest"), DecisionObjects: true, ExitCode: 2, Stdout: []byte(`{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"deny","message":"m"}}}`)}, decision: Deny, blocked: true, reason: "m", cont: true},
		{name: "continue false on Stop does not block", in: Input{Event: stop, Stdout: []byte(`{"continue":false,"stopReason":"halt"}`)}},
		{name: "Stop block keeps the agent going", in: Input{Event: stop, Stdout: []byte(`{"decision":"block","reason":"tests fail"}`)}, decision: Deny, blocked: true, reason: "tests fail", cont: true},
		{name: "text on UserPromptSubmit is context", in: Input{Event: prompt, Stdout: []byte("branch: main\n")}, context: "branch: main", cont: true},
		{name: "text starting with { that is not JSON is an error, not context", in: Input{Event: prompt, Stdout: []byte("{{.ID}}\n{{ .Names }}\n")}, cont: true, errSub: "not valid JSON"},
		{name: "text on PreToolUse is not context", in: Input{Event: pre, Stdout: []byte("hello")}, cont: true},
		{name: "timeout is an error", in: Input{Event: pre, Failure: "timed out after 1s"}, cont: true, errSub: "timed out"},
		{name: "timeout fail_closed blocks", in: Input{Event: pre, Failure: "timed out after 1s", FailClosed: true}, decision: Deny, blocked: true, reason: "hook failed and fail_closed is set: timed out after 1s", cont: true, errSub: "timed out"},
		{name: "fail_closed on a non-blocking event does not block", in: Input{Event: notif, Failure: "timed out", FailClosed: true}, cont: true, errSub: "timed out"},
		{name: "unparseable json fail_closed blocks", in: Input{Event: pre, Stdout: []byte("{nope"), FailClosed: true}, decision: Deny, blocked: true, reason: "hook output unparseable and fail_closed is set", cont: true, errSub: "not valid JSON"},
		{name: "feedback surfaces as reason and context", in: Input{Event: stop, Stdout: []byte(`{"decision":"block","feedback":"fix lint"}`)}, decision: Deny, blocked: true, reason: "fix lint", context: "fix lint", cont: true},
		{name: "feedback beside a reason is context only", in: Input{Event: stop, Stdout: []byte(`{"decision":"block","reason":"5 lint errors","feedback":"run lint:fix"}`)}, decision: Deny, blocked: true, reason: "5 lint errors", context: "run lint:fix", cont: true},
		{name: "autohand top-level additionalContext", in: Input{Event: pre, Stdout: []byte(`{"decision":"allow","additionalContext":"ok by policy"}`)}, decision: Allow, context: "ok by policy", cont: true},
		{name: "blocking: non-zero exit blocks with stderr", in: Input{Event: pre, ExitCode: 1, Stderr: []byte("tests failed\n"), Blocking: true}, decision: Deny, blocked: true, reason: "tests failed", cont: true},
		{name: "blocking: non-zero exit on a post event is feedback", in: Input{Event: post, ExitCode: 1, Stderr: []byte("tests failed"), Blocking: true}, reason: "tests failed", cont: true},
		{name: "blocking: failure blocks", in: Input{Event: pre, Failure: "timed out after 1s", Blocking: true}, decision: Deny, blocked: true, reason: "blocking hook failed: timed out after 1s", cont: true, errSub: "timed out"},
		{name: "blocking: non-zero exit on an event that cannot block is an error", in: Input{Event: notif, ExitCode: 1, Blocking: true}, cont: true, errSub: "exit status 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := Read(tt.in)
			require.Equal(t, tt.decision, v.Decision, "decision")
			require.Equal(t, tt.blocked, v.Blocked, "blocked")
			require.Equal(t, tt.reason, v.Reason, "reason")
			require.Equal(t, tt.cont, v.Continue, "continue")
			require.Equal(t, tt.context, v.AdditionalContext, "context")
			if tt.errSub == "" {
				require.Empty(t, v.Error)
			} else {
				require.Contains(t, v.Error, tt.errSub)
			}
		})
	}
}

func TestReadWarnings(t *testing.T) {
	v := Read(Input{Event: event.Lookup("PreToolUse"), Stdout: []byte(`{"decision":7,"reason":["x"],"hookSpecificOutput":{"updatedInput":"str"},"continue":"no"}`)})
	require.Len(t, v.Warnings, 4)
	require.Equal(t, None, v.Decision)
	require.Nil(t, v.UpdatedInput)
	require.True(t, v.Continue)

	v = Read(Input{Event: event.Lookup("PreToolUse"), Stdout: []byte(`{"permissionDecision":"allow"}`)})
	require.Equal(t, Allow, v.Decision)
	require.Contains(t, v.Warnings[0], "hookSpecificOutput")
}

func TestAggregate(t *testing.T) {
	input := []byte(`{"command":"ls","cwd":"/"}`)
	vs := []Verdict{
		{Decision: Allow, Reason: "ok", Continue: true, AdditionalContext: "a", SystemMessage: "m1"},
		{Decision: Deny, Blocked: true, Reason: "first", Continue: true, ModifiedArgs: []byte(`{"command":"ls -la"}`)},
		{Decision: Ask, Continue: false, StopReason: "s", AdditionalContext: "b"},
		{Decision: Deny, Blocked: true, Reason: "second", Continue: true, ModifiedArgs: []byte(`{"extra":true}`)},
	}
	s := Aggregate(input, vs)
	require.Equal(t, Deny, s.Decision)
	require.True(t, s.Blocked)
	require.Equal(t, "first\nsecond", s.Reason)
	require.False(t, s.Continue)
	require.Equal(t, "s", s.StopReason)
	require.Equal(t, "a\nb", s.AdditionalContext)
	require.Equal(t, "m1", s.SystemMessage)
	require.JSONEq(t, `{"command":"ls -la","cwd":"/","extra":true}`, string(s.UpdatedInput))
}

func TestAggregateReplaceThenMerge(t *testing.T) {
	s := Aggregate([]byte(`{"a":1}`), []Verdict{
		{Continue: true, ModifiedArgs: []byte(`{"b":2}`)},
		{Continue: true, UpdatedInput: []byte(`{"z":0}`)},
		{Continue: true, ModifiedArgs: []byte(`{"c":3}`)},
	})
	require.JSONEq(t, `{"z":0,"c":3}`, string(s.UpdatedInput))
	require.Equal(t, None, s.Decision)
	require.False(t, s.Blocked)
	require.True(t, s.Continue)
}

// TestAggregateAskKeepsTheAskingReasons: an ask's reason is the asking hooks' alone, in
// config order, as Claude Code 2.1.330 tells the model (live vector permission_decisions).
func TestAggregateAskKeepsTheAskingReasons(t *testing.T) {
	vs := []Verdict{
		{Decision: Allow, Reason: "reads are fine", Continue: true},
		{Decision: Ask, Reason: "confirm writes", Continue: true},
		{Decision: Allow, Reason: "default allow", Continue: true},
		{Decision: Ask, Reason: "really?", Continue: true},
	}
	a := Aggregate(nil, vs)
	require.Equal(t, Ask, a.Decision)
	require.Equal(t, "confirm writes\nreally?", a.Reason)
}

func TestAggregateWithoutBlockKeepsEveryReason(t *testing.T) {
	// (Order independence of finishing times is shown end to end by the engine test
	// TestParallelHooksReportInConfigOrder, where the slowest hook comes first.)
	vs := []Verdict{{Decision: Allow, Reason: "x", Continue: true}, {Decision: None, Reason: "y", Continue: true}}
	a := Aggregate(nil, vs)
	require.Equal(t, "x\ny", a.Reason)
	require.Equal(t, Allow, a.Decision)
	require.Nil(t, a.UpdatedInput)
}

// TestReadKeepsOutputValidUTF8: raw JSON from a hook's stdout is passed on (output,
// updated_input), so bytes that are not UTF-8 must not reach the host's result.
func TestReadKeepsOutputValidUTF8(t *testing.T) {
	v := Read(Input{Event: event.Lookup("PreToolUse"), Stdout: []byte("{\"reason\":\"a\xff\xfeb\",\"hookSpecificOutput\":{\"updatedInput\":{\"k\":\"\xc0\x80\"}}}")})
	require.True(t, utf8.Valid(v.Output), "output %q", v.Output)
	require.True(t, utf8.Valid(v.UpdatedInput), "updated_input %q", v.UpdatedInput)
	require.JSONEq(t, `{"reason":"a\ufffdb","hookSpecificOutput":{"updatedInput":{"k":"\ufffd"}}}`, string(v.Output))
}

// Claude Code 2.1.332's PreSkillShellCommand, as its binary reads the answer (TWn and
// p5i in its bundle): exit 2, "block" and "deny" keep the skill's command from running, and
// so do "ask", "defer" and an updatedInput, which a skill's command cannot wait for or take.
func TestReadPreSkillShellCommand(t *testing.T) {
	ev := event.Lookup("PreSkillShellCommand")
	tests := []struct {
		name, stdout string
		exit         int
		blocked      bool
		reason       string
	}{
		{"exit 2", "", 2, true, "no curl in skills"},
		{"deny", `{"hookSpecificOutput":{"hookEventName":"PreSkillShellCommand","permissionDecision":"deny","permissionDecisionReason":"no"}}`, 0, true, "no"},
		{"block", `{"decision":"block","reason":"nope"}`, 0, true, "nope"},
		{"ask", `{"hookSpecificOutput":{"hookEventName":"PreSkillShellCommand","permissionDecision":"ask","permissionDecisionReason":"sure?"}}`, 0, true,
			"sure?; the hook asked for approval, which a skill can't wait for"},
		{"defer without a reason", `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"defer"}}`, 0, true,
			"the hook asked for approval, which a skill can't wait for"},
		{"updatedInput", `{"hookSpecificOutput":{"hookEventName":"PreSkillShellCommand","permissionDecision":"allow","updatedInput":{"command":"true"}}}`, 0, true,
			"the hook changed the command, which isn't supported here"},
		{"allow", `{"hookSpecificOutput":{"hookEventName":"PreSkillShellCommand","permissionDecision":"allow"}}`, 0, false, ""},
		{"exit 1 runs it", "", 1, false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stderr := ""
			if tt.exit != 0 {
				stderr = "no curl in skills\n"
			}
			v := Read(Input{Event: ev, Vocabulary: ClaudeCode, ClaudeSchema: true, ExitCode: tt.exit, Stdout: []byte(tt.stdout), Stderr: []byte(stderr)})
			require.Equal(t, tt.blocked, v.Blocked, "%+v", v)
			if tt.blocked {
				require.Equal(t, tt.reason, v.Reason)
				require.Nil(t, v.UpdatedInput, "a blocked command takes no new input")
			}
		})
	}
	// On PreToolUse the same ask stays an ask.
	v := Read(Input{Event: event.Lookup("PreToolUse"), Vocabulary: ClaudeCode, ClaudeSchema: true,
		Stdout: []byte(`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask"}}`)})
	require.False(t, v.Blocked)
	require.Equal(t, Ask, v.Decision)
}

// Claude Code 2.1.330's model-switch events, as the binary reads them (live vectors
// model_switch*): exit 2, decision "block" and permissionDecision "deny" cancel the switch,
// "ask" is the host's to put to the user, continue:false changes nothing, and a
// PostModelSwitch exit 2 is a non-blocking error.
func TestReadModelSwitch(t *testing.T) {
	pre := event.Lookup("PreModelSwitch")
	read := func(ev event.Info, exit int, stdout, stderr string) Verdict {
		return Read(Input{Event: ev, Vocabulary: ClaudeCode, ExitCode: exit, Stdout: []byte(stdout), Stderr: []byte(stderr)})
	}
	v := read(pre, 2, "", "stay on opus\n")
	require.True(t, v.Blocked)
	require.Equal(t, "stay on opus", v.Reason)

	v = read(pre, 0, `{"hookSpecificOutput":{"hookEventName":"PreModelSwitch","permissionDecision":"deny","permissionDecisionReason":"too costly"}}`, "")
	require.True(t, v.Blocked)
	require.Equal(t, "too costly", v.Reason)

	v = read(pre, 0, `{"decision":"block","reason":"no"}`, "")
	require.True(t, v.Blocked)

	v = read(pre, 0, `{"hookSpecificOutput":{"hookEventName":"PreModelSwitch","permissionDecision":"ask","permissionDecisionReason":"sure?"}}`, "")
	require.False(t, v.Blocked)
	require.Equal(t, Ask, v.Decision)
	require.Equal(t, "sure?", v.Reason)

	v = read(pre, 0, `{"continue":false,"stopReason":"halt"}`, "")
	require.False(t, v.Blocked)
	require.True(t, v.Continue)
	require.Empty(t, v.StopReason)
	require.Contains(t, v.Warnings[0], "continue:false is ignored on PreModelSwitch")

	post := event.Lookup("PostModelSwitch")
	v = read(post, 2, "", "oops")
	require.False(t, v.Blocked)
	require.Contains(t, v.Error, "cannot block")

	v = read(post, 0, `{"hookSpecificOutput":{"hookEventName":"PostModelSwitch","additionalContext":"now on sonnet"}}`, "")
	require.Equal(t, "now on sonnet", v.AdditionalContext)
	require.True(t, v.Continue)
}

// TestAggregateMergesOntoADeepInput: modified_args merge onto a tool input nested past
// fastjson's 300 levels (a model reaches that with one free-form argument) is applied, and
// the merged input is valid JSON keeping the deep value and characters fastjson's own
// marshaller escapes Go-style.
func TestAggregateMergesOntoADeepInput(t *testing.T) {
	deep := strings.Repeat(`[`, 400) + `"\u2028 \u0007"` + strings.Repeat(`]`, 400)
	s := Aggregate([]byte(`{"command":"rm -rf x","arg":`+deep+`}`), []Verdict{
		{Continue: true, ModifiedArgs: []byte(`{"command":"echo safe"}`)},
	})
	require.Empty(t, s.Warnings)
	require.True(t, json.Valid(s.UpdatedInput), "%.200s", s.UpdatedInput)
	var got map[string]any
	require.NoError(t, json.Unmarshal(s.UpdatedInput, &got))
	require.Equal(t, "echo safe", got["command"])
	var want any
	require.NoError(t, json.Unmarshal([]byte(deep), &want))
	require.Equal(t, want, got["arg"])
}
