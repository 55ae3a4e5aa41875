// Package livetest holds what every live suite shares: the rec hook built once, the
// per-vector temp tree with its files written, the rec log read back and grouped by fire,
// and the report (one line per vector, then "N agree, M differ"). The agent-specific parts
// (how to run the agent, what its requests show) live in each suite.
package livetest

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
)

// BuildRec builds the rec hook (tests/live/rec) into dir and returns its path.
func BuildRec(dir string) (string, error) {
	_, file, _, _ := runtime.Caller(0)
	src := filepath.Join(filepath.Dir(file), "..", "rec")
	out := filepath.Join(dir, "rec")
	cmd := exec.Command("go", "build", "-o", out, ".")
	cmd.Dir = src
	if b, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("livetest: building rec: %v: %s", err, b)
	}
	return out, nil
}

// Tree is one vector's temp tree: Home and Project, and the rec log of each side.
type Tree struct {
	Root, Home, Project string
}

// NewTree makes home/ and project/ under root.
func NewTree(root string) (Tree, error) {
	t := Tree{Root: root, Home: filepath.Join(root, "home"), Project: filepath.Join(root, "project")}
	for _, d := range []string{t.Home, t.Project} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return t, err
		}
	}
	return t, nil
}

// Substitute replaces each key of vars by its value in the JSON text raw, JSON-escaped,
// so that file contents and payloads keep their key order.
func Substitute(raw []byte, vars map[string]string) []byte {
	keys := make([]string, 0, len(vars))
	for k := range vars {
		keys = append(keys, k)
	}
	// Longest first, so $HOMEDIR is not cut by $HOME.
	sort.Slice(keys, func(i, j int) bool { return len(keys[i]) > len(keys[j]) })
	s := string(raw)
	for _, k := range keys {
		b, _ := json.Marshal(vars[k])
		s = strings.ReplaceAll(s, k, string(b[1:len(b)-1]))
	}
	return []byte(s)
}

// WriteFiles writes a vector's files: names start with "home/", "project/" or "root/"; a
// JSON string is written as-is, any other value as JSON; *.sh files are executable.
func (t Tree) WriteFiles(files map[string]json.RawMessage) error {
	for name, content := range files {
		var dst string
		switch {
		case strings.HasPrefix(name, "home/"):
			dst = filepath.Join(t.Home, strings.TrimPrefix(name, "home/"))
		case strings.HasPrefix(name, "project/"):
			dst = filepath.Join(t.Project, strings.TrimPrefix(name, "project/"))
		case strings.HasPrefix(name, "root/"):
			dst = filepath.Join(t.Root, strings.TrimPrefix(name, "root/"))
		default:
			return fmt.Errorf("livetest: file %q must start with home/, project/ or root/", name)
		}
		var text string
		data := []byte(content)
		if json.Unmarshal(content, &text) == nil {
			data = []byte(text)
		}
		mode := os.FileMode(0o644)
		if strings.HasSuffix(name, ".sh") {
			mode = 0o755
		}
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(dst, data, mode); err != nil {
			return err
		}
	}
	return nil
}

// Entry is one line of a rec log: which hook ran and the stdin it got.
type Entry struct {
	Name  string `json:"name"`
	Stdin string `json:"stdin"`
	Pid   int    `json:"pid"`
}

// Alive says whether the rec process of an entry is still running (a zombie is not).
func (e Entry) Alive() bool {
	if e.Pid <= 0 {
		return false
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", e.Pid))
	if err != nil {
		return false
	}
	// pid (comm) S ...: the state follows the last ")".
	i := strings.LastIndexByte(string(stat), ')')
	return i < 0 || i+2 >= len(stat) || stat[i+2] != 'Z'
}

// ReadLog reads a rec log; a missing log is empty (no hook ran).
func ReadLog(path string) ([]Entry, error) {
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []Entry
	r := bufio.NewReader(f)
	for {
		line, err := r.ReadBytes('\n')
		if len(line) > 0 {
			var e Entry
			if jerr := json.Unmarshal(line, &e); jerr != nil {
				return nil, fmt.Errorf("livetest: %s: %w", path, jerr)
			}
			out = append(out, e)
		}
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// Fire is one event the agent fired, as its recorder hook saw it.
type Fire struct {
	Event   string
	Payload string // the stdin the agent gave the event's hooks
	// Ran lists the names of the vector's hooks that got this stdin, sorted.
	Ran []string
}

// Fires groups a log into fires: each entry named "@<Event>" (the recorder) starts one;
// the vector's hooks belong to the fire whose recorder got the same stdin (the same JSON
// value: a hook run through hookexec gets the agent's payload as one line of compact JSON
// ending in a newline, whatever the agent's spacing). Fires with the same stdin (the same
// event fired twice identically) share their hooks: each gets the hooks logged with that
// stdin divided among them in log order.
func Fires(log []Entry) []Fire {
	var fires []Fire
	byStdin := map[string][]int{}
	for _, e := range log {
		if ev, ok := strings.CutPrefix(e.Name, "@"); ok {
			k := stdinKey(e.Stdin)
			byStdin[k] = append(byStdin[k], len(fires))
			fires = append(fires, Fire{Event: ev, Payload: e.Stdin})
		}
	}
	seen := map[string]map[string]int{}
	for _, e := range log {
		if strings.HasPrefix(e.Name, "@") {
			continue
		}
		k := stdinKey(e.Stdin)
		idx := byStdin[k]
		if len(idx) == 0 {
			continue
		}
		if seen[k] == nil {
			seen[k] = map[string]int{}
		}
		n := seen[k][e.Name]
		seen[k][e.Name]++
		i := idx[n%len(idx)]
		fires[i].Ran = append(fires[i].Ran, e.Name)
	}
	for i := range fires {
		sort.Strings(fires[i].Ran)
	}
	return fires
}

// stdinKey is a stdin as a JSON value (keys sorted, compact), or as it is when it is not JSON.
func stdinKey(stdin string) string {
	var v any
	d := json.NewDecoder(strings.NewReader(stdin))
	d.UseNumber()
	if d.Decode(&v) != nil || d.More() {
		return stdin
	}
	b, err := json.Marshal(v)
	if err != nil {
		return stdin
	}
	return string(b)
}

// Names returns the sorted names of the non-recorder entries of a log.
func Names(log []Entry) []string {
	var out []string
	for _, e := range log {
		if !strings.HasPrefix(e.Name, "@") {
			out = append(out, e.Name)
		}
	}
	sort.Strings(out)
	return out
}

// Report collects one line per vector and prints them sorted with the totals.
type Report struct {
	mu    sync.Mutex
	lines map[string]string
	agree int
	// Differ counts the vectors whose two runs disagree (deliberate differences excluded).
	differ int
	// again counts the vectors that agreed only when run a second time (AddAgain).
	again int
}

// Add records a vector's outcome: problems empty means agree; deliberate names a
// documented difference the vector is marked with.
func (r *Report) Add(name string, problems []string, deliberate string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.lines == nil {
		r.lines = map[string]string{}
	}
	switch {
	case len(problems) == 0 && deliberate != "":
		r.agree++
		r.lines[name] = fmt.Sprintf("agree   %s (deliberate difference: %s)", name, deliberate)
	case len(problems) == 0:
		r.agree++
		r.lines[name] = "agree   " + name
	default:
		r.differ++
		r.lines[name] = "DIFFER  " + name + "\n          " + strings.Join(problems, "\n          ")
	}
}

// AddAgain records a vector that differed, then agreed when run a second time: it agrees,
// and its line keeps what the first run showed, so a difference that comes and goes stays
// in sight (an agent's own race under load: Qwen Code 0.24.4 once lost a printf's output).
func (r *Report) AddAgain(name string, first []string, deliberate string) {
	r.Add(name, nil, deliberate)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.again++
	r.lines[name] += " (agreed when run again; the first run differed:\n          " + strings.Join(first, "\n          ") + ")"
}

// Print writes the lines in name order, then "N agree, M differ", to w.
func (r *Report) Print(w io.Writer) {
	r.mu.Lock()
	defer r.mu.Unlock()
	names := make([]string, 0, len(r.lines))
	for n := range r.lines {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintln(w, r.lines[n])
	}
	if r.again > 0 {
		fmt.Fprintf(w, "%d agree (%d of them when run again), %d differ\n", r.agree, r.again, r.differ)
		return
	}
	fmt.Fprintf(w, "%d agree, %d differ\n", r.agree, r.differ)
}

// Differ is the number of vectors that disagree.
func (r *Report) Differ() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.differ
}
