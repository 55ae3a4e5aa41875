package engine

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// A value must never decide whether a guard runs (issue 16): a value the template
// refuses (NUL, over the argument limit, an option) or that makes the exec fail (E2BIG)
// ends the fire blocked on events that can block, whatever fail_closed says, with an
// error naming the placeholder; elsewhere it is a non-blocking error. Before, the exec
// failed, the failure was non-blocking, and the tool ran.
func TestRefusedValueBlocksTheGuard(t *testing.T) {
	guard := `printf %s <<tool_input.file_path>> > seen; echo "guard ran" >&2; exit 2`
	tests := []struct {
		name    string
		command string
		args    []string
		value   string
		event   string
		blocked bool
		err     string // a substring of the hook's error; "" when the guard ran
	}{
		{name: "ordinary value runs the guard", command: guard, value: "a.go", event: "PreToolUse", blocked: true},
		{name: "NUL", command: guard, value: "a\x00b", event: "PreToolUse", blocked: true, err: "NUL"},
		{name: "over the argument limit", command: guard, value: strings.Repeat("x", 200<<10), event: "PreToolUse", blocked: true, err: "argument limit"},
		{name: "option", command: "gofmt -l <<tool_input.file_path>> >/dev/null; exit 2", value: "-cpuprofile=cpu.out", event: "PreToolUse", blocked: true, err: "starts with -"},
		{name: "args form NUL", args: []string{"sh", "-c", "exit 2", "sh", "<<tool_input.file_path>>"}, value: "a\x00b", event: "PreToolUse", blocked: true, err: "NUL"},
		{name: "not a blocking event", command: guard, value: "a\x00b", event: "PostToolUse", blocked: false, err: "NUL"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := map[string]any{"type": "command"}
			if tt.args != nil {
				h["args"] = tt.args
			} else {
				h["command"] = tt.command
			}
			cfg, _ := json.Marshal(map[string]any{"hooks": map[string]any{tt.event: []any{map[string]any{"matcher": "Write", "hooks": []any{h}}}}})
			e, dir := open(t, string(cfg))
			payload, _ := json.Marshal(map[string]any{"tool_name": "Write", "tool_input": map[string]any{"file_path": tt.value}})
			r := fireT(t, e, tt.event, string(payload))
			require.Len(t, r.Hooks, 1)
			require.Equal(t, tt.blocked, r.Blocked, "%+v", r.Hooks[0])
			if tt.err == "" {
				require.Equal(t, 2, r.Hooks[0].ExitCode)
				return
			}
			require.Contains(t, r.Hooks[0].Error, tt.err)
			require.Contains(t, r.Hooks[0].Error, "<<tool_input.file_path>>")
			require.NotContains(t, r.Hooks[0].Stderr, "guard ran")
			require.NoFileExists(t, filepath.Join(dir, "seen"), "the hook did not run")
			require.NoFileExists(t, filepath.Join(dir, "cpu.out"), "the option was never passed")
			if tt.blocked {
				require.Contains(t, r.Reason, "hook not run")
			}
		})
	}
}

// Arguments each under the per-argument limit can still exceed the total (E2BIG): the
// exec fails, and that blocks like a refused value.
func TestTooLargeArgvBlocks(t *testing.T) {
	args := []string{"sh", "-c", "exit 2", "sh"}
	for range 48 {
		args = append(args, "<<tool_input.file_path>>")
	}
	cfg, _ := json.Marshal(map[string]any{"hooks": map[string]any{"PreToolUse": []any{map[string]any{"hooks": []any{map[string]any{"args": args}}}}}})
	e, _ := open(t, string(cfg))
	payload, _ := json.Marshal(map[string]any{"tool_name": "Write", "tool_input": map[string]any{"file_path": strings.Repeat("y", 120<<10)}})
	r := fireT(t, e, "PreToolUse", string(payload))
	require.True(t, r.Blocked, "%+v", r.Hooks[0].Error)
	if r.Hooks[0].ExitCode != 2 { // a stack limit large enough lets the exec through, and the guard blocks itself
		require.Contains(t, r.Hooks[0].Error, "argument limit")
	}
}

// mycode's $FILE_PATH inside bash -c '...' is escaped for both shells: the inner script
// receives the value as data (before, it was pasted into the inner script and ran). A
// $FILE_PATH the escaper cannot place makes the hook an error at load, never a fallback
// to the shell's own $FILE_PATH, which python3 -c "...$FILE_PATH..." would run as code.
func TestMycodeFilePathInNestedShell(t *testing.T) {
	e, project, _ := openProfile(t, "mycode", func(project, home string) {
		writeFile(t, project, ".gen/settings.json", `{"hooks": {"PostToolUse": [
		  {"matcher": "Write", "hooks": [
		    {"type": "command", "command": "bash -o pipefail -c 'printf %s $FILE_PATH > out1'"},
		    {"type": "command", "command": "sh -c \"printf %s ${FILE_PATH} > out2\""},
		    {"type": "command", "command": "python3 -c \"print('$FILE_PATH')\""}
		  ]}
		]}}`)
	})
	cfg := configReport(t, e)
	require.Len(t, cfg.Hooks, 3)
	require.Empty(t, cfg.Hooks[0].Disabled)
	require.Empty(t, cfg.Hooks[1].Disabled)
	require.Contains(t, cfg.Hooks[2].Disabled, "python3")
	for _, v := range []string{`$(touch PWNED)`, `'; touch PWNED; '`, `"; touch PWNED; "`, "`touch PWNED`", `a b`, `it's`} {
		payload, _ := json.Marshal(map[string]any{"tool_name": "Write", "tool_input": map[string]any{"file_path": v}})
		r := fireT(t, e, "PostToolUse", string(payload))
		require.Equal(t, 2, r.Matched)
		for _, out := range []string{"out1", "out2"} {
			got, err := os.ReadFile(filepath.Join(project, out))
			require.NoError(t, err, "value %q: %+v", v, r.Hooks)
			require.Equal(t, v, string(got))
		}
		require.NoFileExists(t, filepath.Join(project, "PWNED"), "value %q ran", v)
	}
}
