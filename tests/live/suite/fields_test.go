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
		name  string
		seen  map[string][]string
		full  bool
		want  []string
		notes []string
	}{
		{"full run, as recorded", golden, true, nil, nil},
		// A -run filter: Stop never fired, PreToolUse without one field. Not a difference.
		{"partial run, subset", map[string][]string{"PreToolUse": {"cwd", "tool_name"}}, false, nil, nil},
		{"partial run, new field", map[string][]string{"PreToolUse": {"cwd", "effort"}}, false,
			[]string{"PreToolUse: new fields [effort]"}, nil},
		{"partial run, new event", map[string][]string{"Setup": {"cwd"}}, false,
			[]string{"Setup: an event 2.1.330 never fired, fields [cwd]"}, nil},
		{"full run, field not sent", map[string][]string{"PreToolUse": {"cwd", "tool_input", "tool_name"}, "Stop": {"cwd"}}, true,
			[]string{"Stop: 2.1.330's [stop_hook_active] not sent"}, nil},
		// An event no vector fired (a file watcher's timing) is a note, not a difference.
		{"full run, event not fired", map[string][]string{"PreToolUse": {"cwd", "tool_input", "tool_name"}}, true, nil, []string{"Stop"}},
		{"full run, field gone and field new", map[string][]string{"PreToolUse": {"cwd", "tool_input", "tool_use_id"}, "Stop": {"cwd", "stop_hook_active"}}, true,
			[]string{"PreToolUse: new fields [tool_use_id]; 2.1.330's [tool_name] not sent"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, notes := fieldDiffs(tt.seen, golden, "2.1.330", tt.full)
			if !reflect.DeepEqual(got, tt.want) || !reflect.DeepEqual(notes, tt.notes) {
				t.Errorf("fieldDiffs = %q, notes %q; want %q, %q", got, notes, tt.want, tt.notes)
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

// A field recorded as "name?" may be sent or not, on a full run too.
func TestFieldDiffsOptionalField(t *testing.T) {
	golden := map[string][]string{"PostModelSwitch": {"prompt_id?", "to_model"}}
	for _, seen := range []map[string][]string{
		{"PostModelSwitch": {"to_model"}},
		{"PostModelSwitch": {"prompt_id", "to_model"}},
	} {
		if diffs, _ := fieldDiffs(seen, golden, "2.1.330", true); len(diffs) != 0 {
			t.Errorf("%v: want no difference, got %v", seen, diffs)
		}
	}
	if diffs, _ := fieldDiffs(map[string][]string{"PostModelSwitch": {"prompt_id"}}, golden, "2.1.330", true); len(diffs) != 1 {
		t.Errorf("a required field not sent must still differ, got %v", diffs)
	}
}
