package suite

import (
	"testing"

	"github.com/hookexec/hookexec/tests/live/livetest"
)

// What dispatch mode leaves out of the comparison is only what differs between any two
// runs: the tree, ids, and the lines naming the files install adds.
func TestNormalizeText(t *testing.T) {
	tree := livetest.Tree{Root: "/tmp/T1/001", Home: "/tmp/T1/001/home", Project: "/tmp/T1/001/project"}
	tests := []struct{ in, want string }{
		{"cwd /tmp/T1/001/project", "cwd $ROOT/project"},
		{"slug -tmp-T1-001-project", "slug $SLUG-project"},
		{"session 01a20c6d-864f-72a1-82b2-84bea2745f2f", "session $UUID"},
		{"/tmp/T1/001/project/\n└───.gemini/\n    ├───.settings.json.hookexec-backup\n    ├───hookexec-hooks.json\n    ├───hookexec-hooks.local.json\n    └───settings.json\n",
			"$ROOT/project/\n└───.gemini/\n    └───settings.json"},
		// A file the user named like one of install's is only dropped as a listing line.
		{"see hookexec-hooks.json for the moved hooks", "see hookexec-hooks.json for the moved hooks"},
		{"blocked: no refusals here", "blocked: no refusals here"},
	}
	for _, tt := range tests {
		if got := NormalizeText(tree, tt.in); got != tt.want {
			t.Errorf("NormalizeText(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestDiffOutcomes(t *testing.T) {
	native := Outcome{Fires: []string{"PreToolUse ran:guard"}, ToolResults: map[string]string{"c1": "error=false ran"}, UserTexts: []string{"go"}}
	same := native
	if p := diffOutcomes(native, same, Vector{}); len(p) != 0 {
		t.Errorf("equal outcomes differ: %v", p)
	}
	other := Outcome{Fires: []string{"PreToolUse ran:"}, ToolResults: map[string]string{"c1": "error=true blocked"}, UserTexts: []string{"go", "ctx"}}
	if p := diffOutcomes(native, other, Vector{}); len(p) != 3 {
		t.Errorf("want a difference in hooks run, tool result and texts, got %v", p)
	}
	if p := diffOutcomes(native, other, Vector{Skip: map[string]string{"ran": "x", "context": "y"}}); len(p) != 1 {
		t.Errorf("skips: want only the tool result, got %v", p)
	}
}
