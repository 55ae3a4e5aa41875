//go:build unix

package template

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"maps"
	"math/rand"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// The differential property of the template package, proven by the real shells: hook
// commands generated from a grammar of bash's expansion and evaluation forms
// (shelldiff_gen_test.go) are compiled; each one Compile accepts is rendered with hostile
// values (shelldiff_values_test.go) and run the way /bin/sh would run it (<shell> -c
// script) under every shell /bin/sh may be, in a directory of its own and with a PATH
// where rec and recin are recorders and pwn is a trap. Two oracles:
//
//  1. no value-derived code runs: no XPWN file appears and pwn never runs;
//  2. a value placed as an argument of the recorder (or on its standard input) arrives
//     exactly as it is, and a recorder call the harmless value reaches is reached with
//     every hostile value too.
//
// A command Compile refuses, and a value Render refuses, are safe and only counted.
// TestShellDiff is the short form (make test); FuzzShellDiff and -shelldiff.time are the
// long forms (make fuzz).

var (
	shelldiffN    = flag.Int("shelldiff.n", 300, "TestShellDiff: commands generated from the grammar")
	shelldiffSeed = flag.Int64("shelldiff.seed", 25, "TestShellDiff: the generator's seed")
	shelldiffTime = flag.Duration("shelldiff.time", 0, "TestShellDiff: the long form: generate for this long, with every core value and more per command")
)

// diffCase is a command to try: generated, or a seed from testdata/shelldiff.
type diffCase struct {
	command genCommand
	seed    bool
	values  []string
}

// diffFailure is one broken promise.
type diffFailure struct {
	command, value, shell, forms, what string
	culprit                            string // the statement that fails on its own, if one does
	outside                            bool   // under a shell outside the promise
}

// diffStats counts what a run of the property tried.
type diffStats struct {
	mu        sync.Mutex
	generated int
	seeds     int
	compiled  int
	refused   int
	direct    int
	values    int            // command × value pairs rendered
	rendered  int            // of which Render accepted
	runs      map[string]int // by shell
	failures  []diffFailure
	known     []diffFailure // failures matching the known-open list
	outside   []diffFailure // failures under a shell outside the promise (native zsh)
}

func (st *diffStats) fail(f diffFailure) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if f.outside {
		st.outside = append(st.outside, f)
		return
	}
	for _, k := range knownOpen {
		if k.match(f) {
			f.what = "KNOWN OPEN (" + k.finding + "): " + f.what
			st.known = append(st.known, f)
			return
		}
	}
	st.failures = append(st.failures, f)
}

func (st *diffStats) summary() string {
	st.mu.Lock()
	defer st.mu.Unlock()
	var b strings.Builder
	fmt.Fprintf(&b, "shelldiff: %d commands generated + %d seeds, %d compiled (%d direct), %d refused by Compile; %d command×value pairs, %d rendered (the rest refused by Render); runs:",
		st.generated, st.seeds, st.compiled, st.direct, st.refused, st.values, st.rendered)
	total := 0
	for _, sh := range slices.Sorted(maps.Keys(st.runs)) {
		fmt.Fprintf(&b, " %s %d", sh, st.runs[sh])
		total += st.runs[sh]
	}
	fmt.Fprintf(&b, " (total %d); failures %d, known open %d, under native zsh (not promised) %d", total, len(st.failures), len(st.known), len(st.outside))
	return b.String()
}

// try compiles one case and runs it under every shell with every value, checking both
// oracles; it counts into st and records each failure there.
func (s *sandbox) try(st *diffStats, dc diffCase) {
	c, err := Compile(dc.command.text)
	if err != nil {
		st.mu.Lock()
		st.refused++
		st.mu.Unlock()
		if !errors.Is(err, ErrUnsafe) && !errors.Is(err, ErrEmpty) {
			st.fail(diffFailure{command: dc.command.text, what: "Compile failed with an error that is not ErrUnsafe: " + err.Error()})
		}
		return
	}
	st.mu.Lock()
	st.compiled++
	if c.Mode() == Direct {
		st.direct++
	}
	st.values += len(dc.values)
	st.mu.Unlock()
	type rendered struct {
		value string
		argv  []string
	}
	var rs []rendered
	for _, v := range dc.values {
		argv, err := c.Render(func(int) string { return v })
		if err != nil {
			if !errors.Is(err, ErrValue) {
				st.fail(diffFailure{command: dc.command.text, value: v, what: "Render failed with an error that is not ErrValue: " + err.Error()})
			}
			continue
		}
		rs = append(rs, rendered{v, argv})
	}
	st.mu.Lock()
	st.rendered += len(rs)
	st.mu.Unlock()
	if len(rs) == 0 {
		return
	}
	base, err := c.Render(func(int) string { return harmless })
	if err != nil {
		st.fail(diffFailure{command: dc.command.text, value: harmless, what: "Render refused the harmless value: " + err.Error()})
		return
	}
	forms := strings.Join(dc.command.forms, " ; ")
	shells := s.shells
	if c.Mode() == Direct {
		// Exec'd without a shell; the shell form is the fallback when the program is missing.
		shells = append([]diffShell{{name: "exec"}}, shells...)
	}
	for _, sh := range shells {
		shellArgv := func(v string, argv []string) []string {
			if sh.name != "exec" && c.Mode() == Direct {
				return c.ShellArgv(func(int) string { return v })
			}
			return argv
		}
		fail := func(v, what string) {
			st.fail(diffFailure{command: dc.command.text, value: v, shell: sh.name, forms: forms, what: what, outside: sh.outside})
		}
		b, err := s.run(sh, shellArgv(harmless, base))
		if errors.Is(err, errNotFound) {
			continue // a shell builtin or a missing program: only the shell fallback runs
		}
		st.count(sh.name)
		if err != nil {
			fail(harmless, "the run could not start: "+err.Error())
			continue
		}
		if len(b.pwned) > 0 || b.timeout {
			fail(harmless, fmt.Sprintf("the harmless value's run misbehaved (the test's sandbox is wrong): pwned %q timeout %v", b.pwned, b.timeout))
			continue
		}
		reached := b.tags()
		for _, r := range rs {
			o, err := s.run(sh, shellArgv(r.value, r.argv))
			st.count(sh.name)
			if err != nil {
				fail(r.value, "the run could not start: "+err.Error())
				continue
			}
			whats := judge(dc, r.value, reached, o)
			if len(whats) == 0 {
				continue
			}
			culprit := s.culprit(sh, dc, r.value)
			if culprit != dc.command.text && culprit != "" {
				whats[0] += fmt.Sprintf("; on its own, the statement %q fails", culprit)
			}
			for _, what := range whats {
				st.fail(diffFailure{command: dc.command.text, value: r.value, shell: sh.name, forms: forms, what: what, culprit: culprit, outside: sh.outside})
			}
		}
	}
}

// culprit is the statement of dc that fails on its own under sh with v (the whole
// command for a seed or a command of one statement), or "" when none does alone.
func (s *sandbox) culprit(sh diffShell, dc diffCase, v string) string {
	if dc.seed || len(dc.command.parts) < 2 {
		return dc.command.text
	}
	for _, p := range dc.command.parts {
		c, err := Compile(p)
		if err != nil || sh.name == "exec" && c.Mode() != Direct {
			continue
		}
		value := func(int) string { return v }
		argv, err := c.Render(value)
		if err != nil {
			continue
		}
		base := c.Argv(func(int) string { return harmless })
		if sh.name != "exec" && c.Mode() == Direct {
			argv, base = c.ShellArgv(value), c.ShellArgv(func(int) string { return harmless })
		}
		b, err := s.run(sh, base)
		if err != nil {
			continue
		}
		o, err := s.run(sh, argv)
		if err != nil {
			continue
		}
		sub := diffCase{command: genCommand{text: p, wants: dc.command.wants, must: dc.command.must}}
		if len(judge(sub, v, b.tags(), o)) > 0 {
			return p
		}
	}
	return ""
}

func (st *diffStats) count(shell string) {
	st.mu.Lock()
	st.runs[shell]++
	st.mu.Unlock()
}

// judge applies both oracles to one run of value v.
func judge(dc diffCase, v string, reached map[string]bool, o outcome) []string {
	var out []string
	if len(o.pwned) > 0 {
		out = append(out, "value-derived code ran: "+strings.Join(o.pwned, "; ")+stderrNote(o))
	}
	if o.timeout {
		out = append(out, fmt.Sprintf("the run did not finish within %v", runTimeout))
	}
	got := o.tags()
	for _, r := range o.recs {
		tag := r[0]
		w, ok := dc.command.wants[tag]
		if !ok && dc.seed {
			w, ok = seedWant(tag, len(r)-1)
		}
		if !ok {
			continue // a form whose recorder call is not portable
		}
		if !slices.ContainsFunc(w(v), func(alt []string) bool { return slices.Equal(alt, r[1:]) }) {
			out = append(out, fmt.Sprintf("recorder call %s received %.300q, want one of %.300q%s", tag, r[1:], w(v), stderrNote(o)))
		}
	}
	for tag := range reached {
		_, checked := seedWant(tag, 1)
		if (dc.command.must[tag] || dc.seed && checked) && !got[tag] {
			out = append(out, fmt.Sprintf("recorder call %s, reached with the harmless value, was not reached%s", tag, stderrNote(o)))
		}
	}
	return out
}

// seedWant is what a seed's recorder call with this tag and n arguments must receive:
// tag V, each argument exactly the value; L, the value and a newline (a here-string);
// N, the value without trailing newlines ($(...)); any other tag is not checked.
func seedWant(tag string, n int) (want, bool) {
	var one func(string) string
	switch tag[0] {
	case 'V':
		one = func(v string) string { return v }
	case 'L':
		one = func(v string) string { return v + "\n" }
	case 'N':
		one = func(v string) string { return strings.TrimRight(v, "\n") }
	default:
		return nil, false
	}
	return exactly(func(v string) []string { return slices.Repeat([]string{one(v)}, max(n, 1)) }), true
}

func stderrNote(o outcome) string {
	if o.stderr == "" {
		return ""
	}
	return fmt.Sprintf(" (stderr %.300q)", o.stderr)
}

// runCases runs cases on a pool of workers.
func (s *sandbox) runCases(st *diffStats, cases <-chan diffCase) {
	var wg sync.WaitGroup
	for range max(2, runtime.GOMAXPROCS(0)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for dc := range cases {
				s.try(st, dc)
			}
		}()
	}
	wg.Wait()
}

// loadSeeds reads testdata/shelldiff/seeds.txt: one Go-quoted command a line; lines
// starting with # are comments. In a seed, a recorder tag starting with V must receive
// exactly the value.
func loadSeeds(t testing.TB) []string {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "shelldiff", "seeds.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		text := strings.TrimSpace(sc.Text())
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		cmd, err := strconv.Unquote(text)
		if err != nil {
			t.Fatalf("seeds.txt:%d: not a Go-quoted string: %v", line, err)
		}
		out = append(out, cmd)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func seedCase(cmd string, values []string) diffCase {
	return diffCase{command: genCommand{text: cmd, forms: []string{"seed"}, wants: map[string]want{}, must: map[string]bool{}}, seed: true, values: values}
}

// TestShellDiff is the short form: the seeds and *shelldiffN generated commands, each
// rendered with shortValues under every shell. With -shelldiff.time it is a long form:
// until the time is up, the seeds and then generated commands, each rendered with every
// core value and 24 (seeds) or 12 (generated) of moreValues.
func TestShellDiff(t *testing.T) {
	if testing.Short() && *shelldiffTime == 0 {
		t.Skip("runs thousands of shells; not in -short")
	}
	s := newSandbox(t)
	if len(s.shells) == 0 {
		t.Skip("no shell to run")
	}
	st := &diffStats{runs: map[string]int{}}
	long := *shelldiffTime > 0
	cases := make(chan diffCase)
	go func() {
		defer close(cases)
		seeds := loadSeeds(t)
		deadline := time.Now().Add(*shelldiffTime)
		for i, cmd := range seeds {
			vs := seedValues(i)
			if long {
				vs = longValues(i, 24)
			}
			st.mu.Lock()
			st.seeds++
			st.mu.Unlock()
			cases <- seedCase(cmd, vs)
		}
		r := rand.New(rand.NewSource(*shelldiffSeed))
		for i := 0; long && time.Now().Before(deadline) || !long && i < *shelldiffN; i++ {
			vs := shortValues(i)
			if long {
				vs = longValues(i, 12)
			}
			st.mu.Lock()
			st.generated++
			st.mu.Unlock()
			cases <- diffCase{command: generate(r), values: vs}
		}
	}()
	s.runCases(st, cases)
	if len(s.skipped) > 0 {
		t.Logf("shelldiff: SKIPPED shells (not installed): %s", strings.Join(s.skipped, " "))
	}
	report(t, st)
}

// TestShellDiffOracle shows that the oracles fail when they should, under every shell: a
// value pasted into a script without quoting runs pwn; a value changed on its way to the
// recorder, and a recorder call that is not reached, are reported; the trap paths trap.
func TestShellDiffOracle(t *testing.T) {
	s := newSandbox(t)
	dc := seedCase("rec V1 <<x>>", nil)
	reached := map[string]bool{"V1": true}
	for _, sh := range s.shells {
		raw, err := s.run(sh, []string{"/bin/sh", "-c", "rec V1 " + kitchenSink})
		require.NoError(t, err)
		require.NotEmpty(t, raw.pwned, sh.name)
		require.NotEmpty(t, judge(dc, kitchenSink, reached, raw), sh.name)
		changed, err := s.run(sh, []string{"/bin/sh", "-c", "rec V1 a b"})
		require.NoError(t, err)
		require.Empty(t, changed.pwned, sh.name)
		require.NotEmpty(t, judge(dc, "a b", reached, changed), sh.name)
		missing, err := s.run(sh, []string{"/bin/sh", "-c", "rec V2 a"})
		require.NoError(t, err)
		require.NotEmpty(t, judge(dc, "a", reached, missing), sh.name)
		fine, err := s.run(sh, []string{"/bin/sh", "-c", "rec V1 'a b'"})
		require.NoError(t, err)
		require.Empty(t, judge(dc, "a b", reached, fine), sh.name)
		// The traps the paths name work: a script, a PATH entry, a git repository.
		for _, script := range []string{". ./evil", "PATH=evilbin; rec V1 a", "cd evilrepo && git status --short"} {
			o, err := s.run(sh, []string{"/bin/sh", "-c", script})
			require.NoError(t, err)
			require.NotEmpty(t, o.pwned, "%s: %s", sh.name, script)
		}
	}
}

// report logs the counts and fails with every failure, grouped by command (the first
// 60 commands in full).
func report(t testing.TB, st *diffStats) {
	t.Helper()
	t.Log(st.summary())
	for _, g := range group(st.known) {
		t.Logf("known open failure: %s", g)
	}
	for _, g := range group(st.outside) {
		t.Logf("failure under a shell outside the promise: %s", g)
	}
	for i, g := range group(st.failures) {
		if i == 60 {
			t.Errorf("... and more failing commands")
			break
		}
		t.Errorf("shelldiff failure: %s", g)
	}
}

// group gathers failures by command: the shells, how many values, and two examples.
func group(fs []diffFailure) []string {
	type entry struct {
		forms    string
		shells   map[string]bool
		values   map[string]bool
		examples []diffFailure
	}
	var order []string
	by := map[string]*entry{}
	for _, f := range fs {
		e := by[f.command]
		if e == nil {
			e = &entry{forms: f.forms, shells: map[string]bool{}, values: map[string]bool{}}
			by[f.command] = e
			order = append(order, f.command)
		}
		e.shells[f.shell] = true
		e.values[f.value] = true
		if len(e.examples) < 2 {
			e.examples = append(e.examples, f)
		}
	}
	var out []string
	for _, cmd := range order {
		e := by[cmd]
		var b strings.Builder
		fmt.Fprintf(&b, "%q\n  forms: %s\n  shells: %s; %d values", cmd, e.forms, strings.Join(slices.Sorted(maps.Keys(e.shells)), " "), len(e.values))
		for _, f := range e.examples {
			fmt.Fprintf(&b, "\n  e.g. shell %s value %.120q: %s", f.shell, f.value, f.what)
		}
		out = append(out, b.String())
	}
	return out
}

// FuzzShellDiff is the long form under go test -fuzz: the fuzzer mutates the generator's
// choices (gen), a whole command (command, the seeds' form: when it is not empty it is
// used instead of gen) and a value, which runs with one of the core values. Under plain
// go test the generator's seeds and the inputs in testdata/fuzz run; the seed commands
// are TestShellDiff's, which runs them with more values.
func FuzzShellDiff(f *testing.F) {
	seeds := map[string]bool{}
	for i, cmd := range loadSeeds(f) {
		f.Add(cmd, []byte(nil), allValues[i%len(allValues)])
		seeds[cmd] = true
	}
	for i := range 8 {
		f.Add("", []byte{byte(i), byte(i * 7), byte(i * 13), 2, 1, byte(i * 3)}, moreValues[i*5%len(moreValues)])
	}
	s := newSandbox(f)
	if len(s.shells) == 0 {
		f.Skip("no shell to run")
	}
	f.Fuzz(func(t *testing.T, command string, gen []byte, value string) {
		if len(command) > 4096 || len(gen) > 256 {
			t.Skip("too long to be a useful case")
		}
		if seeds[command] && !fuzzing() {
			t.Skip("TestShellDiff runs the seed commands with more values")
		}
		ch := newByteChooser(gen)
		dc := seedCase(command, nil)
		if command == "" {
			dc = diffCase{command: generate(ch)}
		}
		dc.values = []string{value, coreValues[ch.Intn(len(coreValues))]}
		st := &diffStats{runs: map[string]int{}}
		s.try(st, dc)
		for _, g := range group(st.failures) {
			t.Errorf("shelldiff failure: %s", g)
		}
	})
}

// fuzzing reports whether go test -fuzz is running (not only the seed corpus).
func fuzzing() bool {
	f := flag.Lookup("test.fuzz")
	return f != nil && f.Value.String() != ""
}

// knownOpen lists failures whose finding (SD-n in the template findings) is still open,
// so that the test passes while the fix is pending; each is printed as a known open
// failure. The seeds that show them stay in the corpus.
var knownOpen = []struct {
	finding string
	match   func(diffFailure) bool
}{}
