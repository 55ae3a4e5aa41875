package nomatch_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hookexec/hookexec/core/dispatch"
	"github.com/hookexec/hookexec/core/nomatch"
)

// indexed is a world whose index says PreToolUse hooks match only Bash (and its other
// spellings), checked: a Read call is answered from it.
func indexed(t *testing.T, bin, identity string) *world {
	t.Helper()
	w := newWorld(t, bin, identity)
	w.hooks(map[string][]string{"PreToolUse": {"Bash"}})
	d := dispatch.New()
	d.IndexTo(w.run, identity)
	w.index(d)
	d.Close()
	r := w.call(payloadOf("PreToolUse", "Read"))
	require.True(t, r.skipped(), "a fresh index answers a call no hook matches")
	require.Equal(t, run{0, "", ""}, r, "Claude Code's answer when no hook matched: exit 0, nothing written")
	require.False(t, w.call(payloadOf("PreToolUse", "Bash")).skipped())
	return w
}

func settleZero(t *testing.T) {
	saved := nomatch.Settle
	nomatch.Settle = 0
	t.Cleanup(func() { nomatch.Settle = saved })
}

// Every change to what the index depends on sends the call to the daemon: each case below
// would otherwise answer "no match" for a configuration that may now match Read.
func TestIndexInvalidated(t *testing.T) {
	bin, identity := client(t)
	settleZero(t)
	read := payloadOf("PreToolUse", "Read")
	cases := map[string]func(w *world) []string{
		// The same size, the modification time set back to the nanosecond: only the change
		// time (and the contents) differ.
		"edited in place, same size and mtime": func(w *world) []string {
			st, err := os.Stat(w.hook)
			require.NoError(t, err)
			data, err := os.ReadFile(w.hook)
			require.NoError(t, err)
			f, err := os.OpenFile(w.hook, os.O_WRONLY, 0)
			require.NoError(t, err)
			_, err = f.Write([]byte(strings.Replace(string(data), `"Bash"`, `"Read"`, 1)))
			require.NoError(t, err)
			require.NoError(t, f.Close())
			require.NoError(t, os.Chtimes(w.hook, st.ModTime(), st.ModTime()))
			st2, _ := os.Stat(w.hook)
			require.Equal(t, st.Size(), st2.Size())
			require.Equal(t, st.ModTime(), st2.ModTime())
			return nil
		},
		"replaced by rename": func(w *world) []string {
			st, err := os.Stat(w.hook)
			require.NoError(t, err)
			data, _ := os.ReadFile(w.hook)
			tmp := w.hook + ".new"
			require.NoError(t, os.WriteFile(tmp, []byte(strings.Replace(string(data), `"Bash"`, `"Read"`, 1)), 0o644))
			require.NoError(t, os.Chtimes(tmp, st.ModTime(), st.ModTime()))
			require.NoError(t, os.Rename(tmp, w.hook))
			return nil
		},
		"a project settings file appears": func(w *world) []string {
			require.NoError(t, os.WriteFile(filepath.Join(w.project, ".claude", "settings.json"), []byte(`{}`), 0o644))
			return nil
		},
		"a local hookexec file appears": func(w *world) []string {
			require.NoError(t, os.WriteFile(filepath.Join(w.project, ".claude", "hookexec-hooks.local.json"), []byte(`{}`), 0o644))
			return nil
		},
		"the user's hookexec file appears": func(w *world) []string {
			require.NoError(t, os.MkdirAll(filepath.Join(w.home, ".claude"), 0o755))
			require.NoError(t, os.WriteFile(filepath.Join(w.home, ".claude", "hookexec-hooks.json"), []byte(`{}`), 0o644))
			return nil
		},
		"a policy bundle is configured": func(w *world) []string {
			require.NoError(t, os.MkdirAll(filepath.Join(w.home, ".config", "hookexec"), 0o755))
			require.NoError(t, os.WriteFile(filepath.Join(w.home, ".config", "hookexec", "bundle.json"), []byte(`{}`), 0o644))
			return nil
		},
		"the index is a symbolic link to a valid index": func(w *world) []string {
			real := filepath.Join(w.run, "elsewhere")
			require.NoError(t, os.Rename(w.indexPath(), real))
			require.NoError(t, os.Symlink(real, w.indexPath()))
			return nil
		},
		"the index is writable by the group": func(w *world) []string {
			require.NoError(t, os.Chmod(w.indexPath(), 0o620))
			return nil
		},
		"the index is readable by others": func(w *world) []string {
			require.NoError(t, os.Chmod(w.indexPath(), 0o604))
			return nil
		},
		"the runtime directory is open to others": func(w *world) []string {
			require.NoError(t, os.Chmod(w.run, 0o755))
			return nil
		},
		"the index is cut short": func(w *world) []string {
			data, _ := os.ReadFile(w.indexPath())
			require.NoError(t, os.WriteFile(w.indexPath(), data[:len(data)-4], 0o600))
			return nil
		},
		"the index has a record it does not know": func(w *world) []string {
			data, _ := os.ReadFile(w.indexPath())
			require.NoError(t, os.WriteFile(w.indexPath(), []byte(strings.Replace(string(data), "\nend\n", "\nnew x\nend\n", 1)), 0o600))
			return nil
		},
		"the index is of another format version": func(w *world) []string {
			data, _ := os.ReadFile(w.indexPath())
			require.NoError(t, os.WriteFile(w.indexPath(), []byte(strings.Replace(string(data), "hookexec-nomatch 1\n", "hookexec-nomatch 2\n", 1)), 0o600))
			return nil
		},
		"the index names another project": func(w *world) []string {
			data, _ := os.ReadFile(w.indexPath())
			require.NoError(t, os.WriteFile(w.indexPath(), []byte(strings.Replace(string(data), "project "+w.project, "project "+w.project+"x", 1)), 0o600))
			return nil
		},
		"hookexec was rebuilt": func(w *world) []string {
			later := time.Now().Add(time.Minute)
			require.NoError(t, os.Chtimes(filepath.Join(filepath.Dir(w.bin), "hookexec"), later, later))
			return nil
		},
		"the trust mode differs":               func(*world) []string { return []string{"HOOKEXEC_TRUST=project"} },
		"PATH differs (trust's script hashes)": func(*world) []string { return []string{"PATH=/bin"} },
		"a debug log is asked for":             func(*world) []string { return []string{"HOOKEXEC_LOG=/dev/null"} },
		"the index is turned off":              func(*world) []string { return []string{"HOOKEXEC_INDEX=off"} },
		"another project":                      func(w *world) []string { return []string{"CLAUDE_PROJECT_DIR=" + w.home} },
		"another home":                         func(w *world) []string { return []string{"HOME=" + w.project} },
	}
	for name, change := range cases {
		t.Run(name, func(t *testing.T) {
			if name == "hookexec was rebuilt" {
				// The fake binary is shared: a client of its own for this case.
				b, id := client(t)
				bin, identity := b, id
				w := indexed(t, bin, identity)
				change(w)
				assert.False(t, w.call(read).skipped())
				return
			}
			w := indexed(t, bin, identity)
			extra := change(w)
			assert.False(t, w.call(read, extra...).skipped(), "answered from an index that no longer holds")
		})
	}
}

// An index of another user is refused: the file's owner is not the caller (needs root to
// give it away; skipped otherwise).
func TestIndexOfAnotherUser(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("needs root to give the index to another user")
	}
	bin, identity := client(t)
	settleZero(t)
	w := indexed(t, bin, identity)
	require.NoError(t, os.Lchown(w.indexPath(), 65534, 65534))
	assert.False(t, w.call(payloadOf("PreToolUse", "Read")).skipped())
	require.NoError(t, os.Lchown(w.indexPath(), 0, 0))
	assert.True(t, w.call(payloadOf("PreToolUse", "Read")).skipped(), "given back, it is used again")
}

// Payloads the client cannot read exactly as the Go dispatcher does go to the daemon: a key
// spelt twice or with an escape, a subject with an escape or a byte outside ASCII, JSON that
// is not strict or nests too deep, an event the index does not list, no project.
func TestPayloadDoubts(t *testing.T) {
	bin, identity := client(t)
	settleZero(t)
	w := indexed(t, bin, identity)
	for _, p := range []string{
		`{"hook_event_name":"PreToolUse","tool_name":"Read","tool_name":"Bash"}`,
		`{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_name":"Read"}`,
		`{"hook_event_name":"PreToolUse","tool\u005fname":"Bash","tool_name":"Read"}`,
		`{"hook_event_name":"PreToolUse","tool_name":"Ba\u0073h"}`,
		`{"hook_event_name":"PreToolUse","tool_name":"Bash\n"}`,
		`{"hook_event_name":"PreToolUse","tool_name":"Bäsh"}`,
		`{"hook_event_name":"PreTool\u0055se","tool_name":"Read"}`,
		`{"hook_event_name":"PreToolUse","hook_event_name":"PreToolUse","tool_name":"Read"}`,
		`{"hook_event_name":"PreToolUse","tool_name":"Read"} x`,
		`{"hook_event_name":"PreToolUse","tool_name":"Read",}`,
		`{"hook_event_name":"PreToolUse","tool_name":"Read","n":01}`,
		`{"hook_event_name":"PreToolUse","tool_name":"Read","s":"a` + "\t" + `b"}`,
		`{"hook_event_name":"PreToolUse","tool_name":"Read","d":` + strings.Repeat("[", 70) + strings.Repeat("]", 70) + `}`,
		`{"hook_event_name":"NotAnEvent","tool_name":"Read"}`,
		`{"hook_event_name":"","tool_name":"Read"}`,
		`{"hook_event_name":7,"tool_name":"Read"}`,
		`["PreToolUse"]`,
		`{"hook_event_name":"SessionEnd","reason":"other"}`,
	} {
		assert.False(t, w.call(p).skipped(), "%s", p)
	}
	// The same payloads written plainly are answered from the index.
	for _, p := range []string{
		`{"hook_event_name":"PreToolUse","tool_name":"Read","d":` + strings.Repeat("[", 60) + strings.Repeat("]", 60) + `}`,
		`{"hook_event_name":"PreToolUse","tool_name":"Read","s":"\u00e9\n","n":-1.5e+3,"b":[true,false,null,{}]}`,
		`{"hook_event_name":"PreToolUse","tool_name":"BASH"}`,
		`{"hook_event_name":"PreToolUse"}`,
		`{"hook_event_name":"Stop","tool_name":"Bash"}`,
	} {
		assert.True(t, w.call(p).skipped(), "%s", p)
	}
	// Codex names no project variable: without the payload's cwd there is no project.
	cmd := exec.Command(w.bin, "--agent", "codex")
	cmd.Env = w.env
	cmd.Stdin = strings.NewReader(`{"hook_event_name":"PreToolUse","tool_name":"Read"}`)
	out, _ := cmd.Output()
	assert.Equal(t, fallback, string(out))
}

// An index is not written for files that changed less than Settle ago: a second write
// within the same timestamp tick, keeping the size, would leave the stat unchanged.
func TestUnsettledFilesAreNotIndexed(t *testing.T) {
	bin, identity := client(t)
	saved := nomatch.Settle
	nomatch.Settle = time.Second
	t.Cleanup(func() { nomatch.Settle = saved })
	w := newWorld(t, bin, identity)
	w.hooks(map[string][]string{"PreToolUse": {"Bash"}})
	d := dispatch.New()
	defer d.Close()
	d.IndexTo(w.run, identity)
	w.index(d)
	_, err := os.Stat(w.indexPath())
	assert.True(t, os.IsNotExist(err), "no index for files just written")
	assert.False(t, w.call(payloadOf("PreToolUse", "Read")).skipped())
	time.Sleep(1200 * time.Millisecond)
	w.index(d)
	assert.True(t, w.call(payloadOf("PreToolUse", "Read")).skipped(), "once settled, the index is written")
}
