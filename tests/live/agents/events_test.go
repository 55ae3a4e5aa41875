package agents

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

func TestDeclaredEvents(t *testing.T) {
	known := []string{"PreToolUse", "PostToolUse", "Stop", "SessionStart"}
	tests := []struct {
		name  string
		files map[string]string
		want  []string
		lists int
	}{
		{"a bundle's list with a new event",
			map[string]string{"cli.js": `var a=1;const E=["PreToolUse","PostToolUse","Stop","Interrupt"];f(E)`},
			[]string{"Interrupt", "PostToolUse", "PreToolUse", "Stop"}, 1},
		// A compiled binary that embeds its JavaScript: the list among other bytes, and
		// spread over lines.
		{"a binary, lists in two files",
			map[string]string{"bin/agent": "\x7fELF\x00\x01[\"PreToolUse\",\n \"PostToolUse\", \"SessionStart\"]\x00\xff",
				"lib/x.js": `x=['a'];y=["Stop","PreToolUse","PostToolUse","Setup"]`},
			[]string{"PostToolUse", "PreToolUse", "SessionStart", "Setup", "Stop"}, 2},
		// Lists that name events among mostly other things are not the event list.
		{"not event lists",
			map[string]string{"a.js": `t=["PreToolUse","PostToolUse","Stop","Bash","Edit","Read","Write","Grep"];` +
				`u=["PreToolUse","PostToolUse"];v=["PreToolUse","PostToolUse",x,"Stop"];w=["PreToolUse","PostToolUse","Stop" + "X"]`},
			[]string{}, 0},
		{"no list: a native binary",
			map[string]string{"bin/codex": "\x00PreToolUsePostToolUseStopSessionStartInterrupt\x00"}, []string{}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			for name, text := range tt.files {
				path := filepath.Join(dir, name)
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			got, lists, err := DeclaredEvents(dir, known)
			if err != nil || !reflect.DeepEqual(got, tt.want) || lists != tt.lists {
				t.Errorf("DeclaredEvents = %q, %d lists, %v; want %q, %d", got, lists, err, tt.want, tt.lists)
			}
		})
	}
}
