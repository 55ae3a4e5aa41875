package main

// A daemon that serves the http transport hands itself over to another build by executing
// it in its own process. When that execution fails — the build was removed, or swapped for
// something that is no executable, after the daemon checked it and while it drained — the
// daemon must not exit (its port would be free for any local user while the sessions post
// to it): it goes on serving with its own build. Real binaries, a real install, a real
// daemon, a squatter run as nobody; needs root (newHTTPScenario).

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestHTTPFailedHandoverKeepsServing(t *testing.T) {
	t.Parallel()
	for name, spoil := range map[string]func(path string) error{
		// execve: ENOEXEC
		"swapped for a file that is no executable": func(p string) error {
			if err := os.Remove(p); err != nil {
				return err
			}
			return os.WriteFile(p, []byte("this is no hookexec build\n"), 0o755)
		},
		// execve: ENOENT
		"removed": os.Remove,
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			// The guard waits for the test's word, so that a call is in flight while the
			// daemon drains; it records the descriptors it was given.
			h := newHTTPScenarioWith(t, "10m", func(root string) string {
				gate := filepath.Join(root, "gate")
				return `{"hooks": {
  "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "touch ` + gate + `.started; while [ ! -e ` + gate + `.go ]; do sleep 0.05; done; ls -l /proc/$$/fd > ` + gate + `.fds.$$; grep -q 'rm -rf' && { echo 'no rm' >&2; exit 2; }; exit 0"}]}],
  "Stop": [{"hooks": [{"type": "command", "command": "exit 0"}]}]
}}`
			})
			gate := filepath.Join(h.root, "gate")
			h.start(h.sessionCmd, "s1")
			before, ok := h.status()
			require.True(t, ok)
			require.Equal(t, h.port, before.HTTPPort, before.HTTPError)
			sq := squat(t, h.port)

			type answer struct {
				code int
				body string
			}
			inFlight := make(chan answer, 1)
			go func() {
				code, body := h.post(h.payload("PreToolUse", "s1", `"tool_name":"Bash","tool_use_id":"t1","tool_input":{"command":"rm -rf /"}`))
				inFlight <- answer{code, body}
			}()
			eventually(t, "the guard of the call in flight", func() bool { _, err := os.Stat(gate + ".started"); return err == nil })

			// An upgrade's call: the daemon checks the new build, stops taking calls and
			// waits for the one in flight; meanwhile the build is spoilt.
			other := h.otherBuild()
			out := h.entry(other+" hook --agent claude", h.payload("UserPromptSubmit", "s1", `"prompt":"hi"`))
			require.Equal(t, 0, out.code, out.stderr)
			eventually(t, "the daemon draining (its socket closed)", func() bool { _, ok := h.status(); return !ok })
			require.NoError(t, spoil(other))
			require.NoError(t, os.WriteFile(gate+".go", nil, 0o644))

			select {
			case a := <-inFlight:
				assert.Equal(t, http.StatusOK, a.code, a.body)
				assert.Contains(t, a.body, `"permissionDecision":"deny","permissionDecisionReason":"no rm"`, "answered by its guard")
			case <-time.After(time.Minute):
				t.Fatal("the call in flight got no answer")
			}
			// The execution failed: the same process serves again with its own build.
			var after daemonStatus
			eventually(t, "the daemon serving again", func() bool { after, ok = h.status(); return ok })
			assert.Equal(t, before.PID, after.PID, "the same process")
			assert.Equal(t, before.Identity, after.Identity, "its own build")
			assert.Equal(t, h.port, after.HTTPPort, after.HTTPError)
			assert.Contains(t, after.HandoverError, other, "status says the handover failed")
			assert.Equal(t, 1, after.Sessions, "the session is kept")
			time.Sleep(500 * time.Millisecond) // the squatter keeps trying
			h.held(sq)

			// The session goes on being guarded, and the guard gets none of the daemon's
			// own descriptors (lock, listening socket, sessions) that were made
			// inheritable for the successor.
			old, _ := filepath.Glob(gate + ".fds.*")
			h.guarded("s1")
			fds, _ := filepath.Glob(gate + ".fds.*")
			require.Len(t, fds, len(old)+1, "the guard ran once more")
			for _, f := range fds {
				if slices.Contains(old, f) {
					continue
				}
				b, err := os.ReadFile(f)
				require.NoError(t, err)
				for _, leak := range []string{"socket:", "daemon.lock", "memfd:"} {
					assert.NotContains(t, string(b), leak, "a descriptor of the daemon's reached a hook:\n%s", b)
				}
			}
			// And a later upgrade with a sound build still takes the daemon's place.
			good := h.otherBuild()
			out = h.entry(good+" hook --agent claude", h.payload("UserPromptSubmit", "s1", `"prompt":"hi"`))
			require.Equal(t, 0, out.code, out.stderr)
			eventually(t, "the sound build in the daemon's place", func() bool {
				st, ok := h.status()
				return ok && st.Identity != before.Identity && st.PID == before.PID
			})
			h.held(sq)
			h.guarded("s1")
		})
	}
}

// A replace while calls are in flight, over http and on the socket, and more arriving
// during the drain: every call is answered exactly once, by its guard, and none is lost —
// the http calls in flight are answered before the new build is executed, those arriving
// meanwhile wait in the listening socket's queue for it, the socket's are answered by the
// old build or, arriving once it stopped taking calls, run in-process.
func TestHTTPReplaceWithCallsInFlight(t *testing.T) {
	t.Parallel()
	h := newHTTPScenarioWith(t, "10m", func(root string) string {
		log := filepath.Join(root, "guard.log")
		return `{"hooks": {
  "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "id=$(grep -o 'call-[0-9a-z-]*' | head -1); echo $id >> ` + log + `; sleep 1; echo \"no rm $id\" >&2; exit 2"}]}],
  "Stop": [{"hooks": [{"type": "command", "command": "exit 0"}]}]
}}`
	})
	h.start(h.sessionCmd, "s1")
	before, ok := h.status()
	require.True(t, ok)
	sq := squat(t, h.port)
	call := func(id string) string {
		return h.payload("PreToolUse", "s1", `"tool_name":"Bash","tool_use_id":"`+id+`","tool_input":{"command":"rm -rf `+id+`"}`)
	}
	type answer struct {
		id, got string
	}
	answers := make(chan answer, 100)
	var ids []string
	// exe is the build whose dispatcher a socket call runs: the daemon's, then the new one.
	exe := binary
	send := func(id string, socket bool) {
		ids = append(ids, id)
		bin := exe
		go func() {
			if socket {
				out := h.entry(bin+" hook --agent claude", call(id))
				answers <- answer{id, out.stdout + out.stderr}
				return
			}
			code, body := h.post(call(id))
			answers <- answer{id, fmt.Sprint(code, " ", body)}
		}()
	}
	for i := range 12 {
		send(fmt.Sprintf("call-http-%d", i), false)
		if i%3 == 0 {
			send(fmt.Sprintf("call-sock-%d", i), true)
		}
	}
	// Every early call in flight (its guard running) before the new build's call: a
	// dispatcher of the old build reaching the new daemon would have it replaced back.
	eventually(t, "the guards of the calls in flight", func() bool {
		b, _ := os.ReadFile(filepath.Join(h.root, "guard.log"))
		return len(strings.Fields(string(b))) == len(ids)
	})
	other := h.otherBuild()
	replaced := make(chan output, 1)
	go func() {
		replaced <- h.entry(other+" hook --agent claude", h.payload("UserPromptSubmit", "s1", `"prompt":"hi"`))
	}()
	// From now on the agent runs the new build's dispatcher: one of the old build reaching
	// the new daemon would rightly have it replaced back (seen under load: the identity
	// never moved).
	exe = other
	for i := range 8 { // arriving during the drain and the execution
		time.Sleep(40 * time.Millisecond)
		send(fmt.Sprintf("call-late-%d", i), i%2 == 0)
	}
	require.Equal(t, 0, (<-replaced).code)
	got := map[string]int{}
	for range ids {
		select {
		case a := <-answers:
			got[a.id]++
			assert.Contains(t, a.got, "no rm "+a.id, "%s answered by its own guard", a.id)
			assert.Contains(t, a.got, "deny", a.id)
		case <-time.After(time.Minute):
			t.Fatalf("%d of %d calls answered", len(got), len(ids))
		}
	}
	eventually(t, "the other build in the daemon's place", func() bool {
		st, ok := h.status()
		return ok && st.Identity != before.Identity
	})
	b, err := os.ReadFile(filepath.Join(h.root, "guard.log"))
	require.NoError(t, err)
	ran := map[string]int{}
	for _, line := range strings.Fields(string(b)) {
		ran[line]++
	}
	for _, id := range ids {
		assert.Equal(t, 1, got[id], "%s answered once", id)
		assert.Equal(t, 1, ran[id], "%s's guard ran once", id)
	}
	h.held(sq)
}
