package dispatch

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// reads counts the file reads of the freshness check, per path.
var reads = struct {
	sync.Mutex
	n map[string]int
}{n: map[string]int{}}

func init() {
	readFile = func(p string) ([]byte, error) {
		reads.Lock()
		reads.n[p]++
		reads.Unlock()
		return os.ReadFile(p)
	}
}

func readsUnder(dir string) int {
	reads.Lock()
	defer reads.Unlock()
	n := 0
	for p, c := range reads.n {
		if strings.HasPrefix(p, dir) {
			n += c
		}
	}
	return n
}

// Every edit reloads the engine, even one that keeps the size and puts the old mtime back
// (within a timestamp's granularity, or cp -p); once the files have settled, the check
// before each call stats them and reads none.
func TestFreshnessCheck(t *testing.T) {
	t.Parallel()
	hooks := func(reason string) string {
		return `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "echo '{\"decision\": \"block\", \"reason\": \"` + reason + `\"}'"}]}]}}`
	}
	project, home := setup(t, hooks("one"))
	managed := filepath.Join(project, ".claude", "hookexec-hooks.json")
	d := New()
	defer d.Close()
	stop := func(session string) string {
		r, err := d.Dispatch(Request{Agent: "claude", Project: project, Home: home,
			Payload: payloadOf(map[string]any{"hook_event_name": "Stop", "session_id": session})})
		require.NoError(t, err)
		return r.Stdout
	}
	keepStat := func(text string) { // same size, the old mtime put back
		st, err := os.Stat(managed)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(managed, []byte(text), 0o644))
		require.NoError(t, os.Chtimes(managed, st.ModTime(), st.ModTime()))
	}
	assert.Contains(t, stop("a"), `"one"`)
	keepStat(hooks("two")) // at once: nothing has settled yet, the contents are compared
	assert.Contains(t, stop("b"), `"two"`)

	if runtime.GOOS != "linux" {
		return // without a change time every check reads the files (fresh_other.go)
	}
	time.Sleep(settleTime + 100*time.Millisecond) // let the files settle
	stop("c")                                     // the first check after settling reads them once more
	before := readsUnder(filepath.Dir(project))
	for i := 0; i < 5; i++ {
		assert.Contains(t, stop("d"+string(rune('0'+i))), `"two"`)
	}
	assert.Equal(t, before, readsUnder(filepath.Dir(project)), "settled files are not read again")
	keepStat(hooks("six"))
	assert.Contains(t, stop("e"), `"six"`, "a settled file edited with its old size and mtime is still seen")
	assert.Greater(t, readsUnder(filepath.Dir(project)), before)
}
