package suite

import (
	"reflect"
	"testing"
)

func TestFieldDiffs(t *testing.T) {
	golden := map[string][]string{
		"PreToolUse": {"cwd", "tool_input", "tool_name"},
		"Stop":       {"cwd", "stop_hook_active"},
	}
	tests := []struct {
		name string
		seen map[string][]string
		full bool
		want []string
	}{
		{"full run, as recorded", golden, true, nil},
		// A -run filter: Stop never fired, PreToolUse without one field. Not a difference.
		{"partial run, subset", map[string][]string{"PreToolUse": {"cwd", "tool_name"}}, false, nil},
		{"partial run, new field", map[string][]string{"PreToolUse": {"cwd", "effort"}}, false,
			[]string{"PreToolUse: new fields [effort]"}},
		{"partial run, new event", map[string][]string{"Setup": {"cwd"}}, false,
			[]string{"Setup: new fields [cwd]"}},
		{"full run, event not fired", map[string][]string{"PreToolUse": {"cwd", "tool_input", "tool_name"}}, true,
			[]string{"Stop: 2.1.330's [cwd stop_hook_active] not sent"}},
		{"full run, field gone and field new", map[string][]string{"PreToolUse": {"cwd", "tool_input", "tool_use_id"}, "Stop": {"cwd", "stop_hook_active"}}, true,
			[]string{"PreToolUse: new fields [tool_use_id]; 2.1.330's [tool_name] not sent"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := fieldDiffs(tt.seen, golden, "2.1.330", tt.full)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("fieldDiffs = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestUnionKeepsUnseenEvents(t *testing.T) {
	got := union(map[string][]string{"Stop": {"cwd"}, "PreToolUse": {"cwd"}}, map[string][]string{"PreToolUse": {"tool_name"}})
	want := map[string][]string{"Stop": {"cwd"}, "PreToolUse": {"cwd", "tool_name"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("union = %v, want %v", got, want)
	}
}
