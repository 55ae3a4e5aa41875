package livetest

import (
	"reflect"
	"strings"
	"testing"
)

// Through hookexec install a hook gets the agent's payload re-encoded (compact, ending in a
// newline); it must still count for the fire whose recorder got the agent's bytes, and a
// hook with another payload must not.
func TestFiresMatchesHooksByStdinValue(t *testing.T) {
	tests := []struct {
		name string
		log  []Entry
		want []Fire
	}{
		{"same bytes", []Entry{
			{Name: "@PreToolUse", Stdin: `{"a":1}`}, {Name: "guard", Stdin: `{"a":1}`},
		}, []Fire{{Event: "PreToolUse", Payload: `{"a":1}`, Ran: []string{"guard"}}}},
		{"re-encoded with a newline", []Entry{
			{Name: "@PreToolUse", Stdin: `{"tool_input": {"command": "ls"}, "a": 1}`},
			{Name: "guard", Stdin: "{\"tool_input\":{\"command\":\"ls\"},\"a\":1}\n"},
		}, []Fire{{Event: "PreToolUse", Payload: `{"tool_input": {"command": "ls"}, "a": 1}`, Ran: []string{"guard"}}}},
		{"another value", []Entry{
			{Name: "@PreToolUse", Stdin: `{"a":1}`}, {Name: "guard", Stdin: `{"a":2}`},
		}, []Fire{{Event: "PreToolUse", Payload: `{"a":1}`}}},
		{"big numbers kept exact", []Entry{
			{Name: "@Stop", Stdin: `{"n":12345678901234567890}`}, {Name: "check", Stdin: `{"n":12345678901234567891}`},
		}, []Fire{{Event: "Stop", Payload: `{"n":12345678901234567890}`}}},
		{"not JSON: bytes", []Entry{
			{Name: "@Stop", Stdin: "x"}, {Name: "check", Stdin: "x\n"},
		}, []Fire{{Event: "Stop", Payload: "x"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Fires(tt.log); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Fires = %+v, want %+v", got, tt.want)
			}
		})
	}
}

// A vector that agreed only when run again counts as agreeing, and the report keeps what
// its first run showed and says how many needed a second run.
func TestReportAgreedWhenRunAgain(t *testing.T) {
	var r Report
	r.Add("a_first", nil, "")
	r.AddAgain("b_again", []string{"tool result call_0_0: native \"ran-one\", dispatched \"(empty)\""}, "")
	r.Add("c_differs", []string{"the rm ran"}, "")
	var b strings.Builder
	r.Print(&b)
	want := "agree   a_first\n" +
		"agree   b_again (agreed when run again; the first run differed:\n          tool result call_0_0: native \"ran-one\", dispatched \"(empty)\")\n" +
		"DIFFER  c_differs\n          the rm ran\n" +
		"2 agree (1 of them when run again), 1 differ\n"
	if b.String() != want {
		t.Fatalf("got\n%s\nwant\n%s", b.String(), want)
	}
	if r.Differ() != 1 {
		t.Fatalf("differ %d", r.Differ())
	}
}
