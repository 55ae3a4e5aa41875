package main

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hookexec/hookexec/core/stats/pagecheck"
)

// statsJSON is what the test reads of stats --json.
type statsJSON struct {
	Fires    int `json:"fires"`
	Excluded int `json:"excluded"`
	Bad      int `json:"bad"`
	Hooks    []struct {
		ID        string         `json:"id"`
		Source    string         `json:"source"`
		Line      int            `json:"line"`
		Count     int            `json:"count"`
		TotalMs   float64        `json:"total_ms"`
		P50       float64        `json:"p50_ms"`
		P90       float64        `json:"p90_ms"`
		P99       float64        `json:"p99_ms"`
		Max       float64        `json:"max_ms"`
		Decisions map[string]int `json:"decisions"`
		TimedOut  int            `json:"timed_out"`
		Errors    int            `json:"errors"`
		Histogram []struct {
			Count int `json:"count"`
		} `json:"histogram"`
	} `json:"hooks"`
	Events []struct {
		Event   string `json:"event"`
		Count   int    `json:"count"`
		Blocked int    `json:"blocked"`
	} `json:"events"`
}

// logDurations reads each hook's durations straight from the debug log, the test's own
// reading of the engine's format.
func logDurations(t *testing.T, path string) map[string][]float64 {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	out := map[string][]float64{}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var fire struct {
			Hooks []struct {
				ID         string  `json:"id"`
				Ran        bool    `json:"ran"`
				DurationMs float64 `json:"duration_ms"`
			} `json:"hooks"`
		}
		if json.Unmarshal([]byte(line), &fire) != nil {
			continue
		}
		for _, h := range fire.Hooks {
			if h.Ran {
				out[h.ID] = append(out[h.ID], h.DurationMs)
			}
		}
	}
	return out
}

// rank is the nearest-rank percentile of values, by sorting.
func rank(values []float64, p float64) float64 {
	s := slices.Sorted(slices.Values(values))
	return s[int(math.Ceil(p*float64(len(s))/100))-1]
}

// The whole path: the engine writes a real debug log while hooks that sleep different
// times run, and stats reads it back.
func TestStatsEndToEnd(t *testing.T) {
	t.Parallel()
	s := newScenario(t)
	s.write("project/.claude/settings.json", `{"hooks": {
		"PreToolUse": [{"matcher": "Bash", "hooks": [
			{"type": "command", "command": "true", "name": "fast"},
			{"type": "command", "command": "sleep 0.1", "name": "mid"},
			{"type": "command", "command": "sleep 0.3", "name": "slow"},
			{"type": "command", "command": "echo '{\"hookSpecificOutput\":{\"hookEventName\":\"PreToolUse\",\"permissionDecision\":\"deny\",\"permissionDecisionReason\":\"no\"}}'", "name": "guard"}]}],
		"Stop": [{"hooks": [{"type": "command", "command": "sleep 5", "timeout": 1, "name": "stuck"}]}]}}`)
	log := filepath.Join(s.root, "fires.log")
	const pre = 5
	for range pre {
		out := s.run("--profile", "claude", "--log", log, "fire", "PreToolUse", "--payload", `{"tool_name": "Bash", "tool_input": {"command": "ls"}}`)
		require.Equal(t, exitBlocked, out.code, out.stderr)
	}
	out := s.run("--profile", "claude", "--log", log, "fire", "Stop")
	require.Equal(t, 0, out.code, out.stderr)

	out = s.run("stats", "--json", log)
	require.Equal(t, 0, out.code, out.stderr)
	assert.Empty(t, out.stderr)
	var got statsJSON
	require.NoError(t, json.Unmarshal([]byte(out.stdout), &got))
	assert.Equal(t, pre+1, got.Fires)
	durations := logDurations(t, log)
	require.Len(t, got.Hooks, 5)
	var order []string
	for _, h := range got.Hooks {
		order = append(order, h.ID)
		d := durations[h.ID]
		assert.Equal(t, len(d), h.Count, h.ID)
		assert.Equal(t, rank(d, 50), h.P50, h.ID)
		assert.Equal(t, rank(d, 90), h.P90, h.ID)
		assert.Equal(t, rank(d, 99), h.P99, h.ID)
		assert.Equal(t, slices.Max(d), h.Max, h.ID)
		sum := 0.0
		for _, v := range d {
			sum += v
		}
		assert.InDelta(t, sum, h.TotalMs, 1e-6, h.ID)
		assert.Equal(t, filepath.Join(s.project, ".claude", "settings.json"), h.Source)
		assert.Positive(t, h.Line, h.ID)
		bars := 0
		for _, b := range h.Histogram {
			bars += b.Count
		}
		assert.Equal(t, h.Count, bars, h.ID)
	}
	want := slices.Clone(order)
	slices.SortStableFunc(want, func(a, b string) int {
		ta, tb := 0.0, 0.0
		for _, v := range durations[a] {
			ta += v
		}
		for _, v := range durations[b] {
			tb += v
		}
		return -cmpFloat(ta, tb)
	})
	assert.Equal(t, want, order, "by total time, largest first")
	byID := map[string]int{}
	for i, h := range got.Hooks {
		byID[h.ID] = i
	}
	assert.Equal(t, pre, got.Hooks[byID["fast"]].Count)
	assert.GreaterOrEqual(t, got.Hooks[byID["slow"]].P50, 300.0, "sleep 0.3")
	assert.GreaterOrEqual(t, got.Hooks[byID["mid"]].P50, 100.0, "sleep 0.1")
	assert.GreaterOrEqual(t, got.Hooks[byID["stuck"]].P50, 1000.0, "killed at its 1 s timeout")
	assert.Equal(t, 1, got.Hooks[byID["stuck"]].TimedOut)
	assert.Equal(t, 0, got.Hooks[byID["stuck"]].Errors, "a timeout is not also an error")
	assert.Equal(t, pre, got.Hooks[byID["guard"]].Decisions["deny"])
	assert.Equal(t, pre, got.Hooks[byID["slow"]].Decisions["none"])
	require.Len(t, got.Events, 2)
	assert.Equal(t, "PreToolUse", got.Events[0].Event)
	assert.Equal(t, pre, got.Events[0].Blocked)

	// The table: aligned, in the same order, sources as the user would type them.
	out = s.run("stats", log)
	require.Equal(t, 0, out.code, out.stderr)
	lines := strings.Split(out.stdout, "\n")
	assert.Regexp(t, `^HOOK +SOURCE +RUNS +TOTAL +P50 +P90 +P99 +MAX +TIMEOUTS +ERRORS +DECISIONS$`, lines[0])
	for i, id := range order {
		assert.Regexp(t, `^`+id+` +\.claude/settings\.json:\d+ +\d+ +`, lines[1+i])
		end := strings.Index(lines[0], "RUNS") + len("RUNS") // right-aligned under its header
		assert.Regexp(t, `^\d `, lines[1+i][end-1:], "RUNS right-aligned: %q", lines[1+i])
	}
	assert.Regexp(t, `(?m)^guard +.* deny 5$`, out.stdout)
	assert.Regexp(t, `(?m)^stuck +.* +1 +0  none 1$`, out.stdout)
	assert.Regexp(t, `(?m)^EVENT +FIRES +TOTAL +P50 +P90 +P99 +MAX +BLOCKED +HOOK RUNS +TIMEOUTS +ERRORS$`, out.stdout)
	assert.Regexp(t, `(?m)^PreToolUse +5 +.* +5 +20 +0 +0$`, out.stdout)

	// Filters and order.
	out = s.run("stats", "--json", "--event", "stop", log) // an alias counts as its event
	require.Equal(t, 0, out.code, out.stderr)
	got = statsJSON{}
	require.NoError(t, json.Unmarshal([]byte(out.stdout), &got))
	assert.Equal(t, 1, got.Fires)
	assert.Equal(t, pre, got.Excluded)
	require.Len(t, got.Hooks, 1)
	assert.Equal(t, "stuck", got.Hooks[0].ID)
	out = s.run("stats", "--since", "2999-01-01", log)
	require.Equal(t, 0, out.code, out.stderr)
	assert.Contains(t, out.stdout, "no fires (1 file read, 6 left out by --event/--since)")
	out = s.run("stats", "--json", "--since", "1h", "--sort", "id", log)
	require.Equal(t, 0, out.code, out.stderr)
	got = statsJSON{}
	require.NoError(t, json.Unmarshal([]byte(out.stdout), &got))
	assert.Equal(t, pre+1, got.Fires)
	var ids []string
	for _, h := range got.Hooks {
		ids = append(ids, h.ID)
	}
	assert.Equal(t, []string{"fast", "guard", "mid", "slow", "stuck"}, ids)

	// The default file: --log, then HOOKEXEC_LOG.
	out = s.run("--log", log, "stats", "--json")
	require.Equal(t, 0, out.code, out.stderr)
	s.env = append(s.env, "HOOKEXEC_LOG="+log)
	out = s.run("stats", "--json")
	require.Equal(t, 0, out.code, out.stderr)
	assert.Contains(t, out.stdout, `"fires": 6`)
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// Bad input: bad lines are counted and reported, bad flags and missing files are errors.
func TestStatsBadInput(t *testing.T) {
	t.Parallel()
	s := newScenario(t)
	good := `{"time":"2026-01-02T03:04:05Z","event":"Stop","matched":1,"blocked":false,"decision":"none","duration_ms":3,"hooks":[{"id":"h","source":"/s.json","line":2,"ran":true,"duration_ms":2.5}]}`
	log := s.write("mixed.log", "garbage\n"+good+"\n{\"event\":\"Stop\",\"matc\n"+good+"\n")
	out := s.run("stats", log)
	require.Equal(t, 0, out.code, out.stderr)
	assert.Contains(t, out.stderr, "mixed.log: 2 lines skipped, not a fire (line 1: not a JSON object)")
	assert.Regexp(t, `(?m)^h +/s\.json:2 +2 +5\.0ms`, out.stdout)
	out = s.run("stats", "--json", log)
	assert.Contains(t, out.stdout, `"bad": 2`)

	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"stats"}, exitUsage, "HOOKEXEC_LOG"},
		{[]string{"stats", "--sort", "speed", log}, exitUsage, "--sort \"speed\": one of total, count"},
		{[]string{"stats", "--since", "last week", log}, exitUsage, "--since \"last week\": not a duration"},
		{[]string{"stats", "--since", "-1h", log}, exitUsage, "positive"},
		{[]string{"stats", "--event", "", log}, exitUsage, "empty event name"},
		{[]string{"stats", filepath.Join(s.root, "missing.log")}, exitFail, "no such file"},
		{[]string{"stats", s.root}, exitUsage, "is a directory"},
	} {
		out := s.run(tc.args...)
		assert.Equal(t, tc.code, out.code, "%v: %s", tc.args, out.stderr)
		assert.Contains(t, out.stderr, tc.want, tc.args)
	}

	// stdin.
	out = s.runIn(good+"\n", "stats", "--json", "-")
	require.Equal(t, 0, out.code, out.stderr)
	assert.Contains(t, out.stdout, `"fires": 1`)
}

// The HTML page of a real log, in a real browser: no script error, nothing loaded from
// elsewhere, one histogram per hook whose bars hold every run.
func TestStatsHTMLInBrowser(t *testing.T) {
	t.Parallel()
	browser := pagecheck.Browser(t)
	s := newScenario(t)
	s.write("project/.claude/settings.json", `{"hooks": {
		"PreToolUse": [{"matcher": "*", "hooks": [
			{"type": "command", "command": "sleep 0.0$(( RANDOM % 5 ))", "name": "jitter"},
			{"type": "command", "command": "true", "name": "quick"}]}],
		"PostToolUse": [{"hooks": [{"type": "command", "command": "exit 1", "name": "<b>fails</b>"}]}]}}`)
	log := filepath.Join(s.root, "fires.log")
	for i := range 8 {
		ev := "PreToolUse"
		if i%3 == 0 {
			ev = "PostToolUse"
		}
		out := s.run("--profile", "claude", "--log", log, "fire", ev, "--payload", `{"tool_name": "Bash", "tool_input": {"command": "ls"}}`)
		require.Contains(t, []int{0, 2}, out.code, out.stderr)
	}
	page := filepath.Join(s.root, "out", "stats.html")
	out := s.run("stats", "--html", page, log)
	require.Equal(t, 0, out.code, out.stderr)
	assert.Contains(t, out.stdout, "wrote "+page)
	out = s.run("stats", "--json", log)
	require.Equal(t, 0, out.code, out.stderr)
	var got statsJSON
	require.NoError(t, json.Unmarshal([]byte(out.stdout), &got))
	require.Len(t, got.Hooks, 3)

	r := pagecheck.Load(t, browser, page)
	assert.Empty(t, r.Console)
	rendered, _ := r.Attr("body", "data-rendered")
	assert.Equal(t, "ok", rendered)
	_, errs := r.Attr("html", "data-script-errors")
	assert.False(t, errs)
	hs, err := r.Histograms()
	require.NoError(t, err)
	require.Len(t, hs, len(got.Hooks))
	for i, h := range hs {
		want := got.Hooks[i]
		var counts []int
		for _, b := range want.Histogram {
			counts = append(counts, b.Count)
		}
		assert.Equal(t, len(counts), h.Bars, want.ID)
		assert.Equal(t, counts, h.Counts, want.ID)
	}
	assert.Contains(t, r.DOM, "&lt;b&gt;fails&lt;/b&gt;")
	assert.Contains(t, r.DOM, ">.claude/settings.json:", "sources as the user would type them")
}

// The audit log the engine writes gives the same statistics as the debug log of the same
// fires; with no FILE, HOOKEXEC_AUDIT_LOG names it, rotated files included.
func TestStatsAuditLog(t *testing.T) {
	t.Parallel()
	s := newScenario(t)
	s.write("project/.claude/settings.json", `{"hooks": {
		"PreToolUse": [{"matcher": "Bash", "hooks": [
			{"type": "command", "command": "sleep 0.05", "name": "nap"},
			{"type": "command", "command": "echo '{\"hookSpecificOutput\":{\"hookEventName\":\"PreToolUse\",\"permissionDecision\":\"ask\",\"permissionDecisionReason\":\"sure?\"}}'", "name": "asker"}]}],
		"Stop": [{"hooks": [{"type": "command", "command": "sleep 5", "timeout": 1, "name": "stuck"}]}]}}`)
	debugLog := filepath.Join(s.root, "fires.log")
	auditLog := filepath.Join(s.root, "audit", "audit.log")
	require.NoError(t, os.MkdirAll(filepath.Dir(auditLog), 0o755))
	s.env = append(s.env, "HOOKEXEC_AUDIT_LOG="+auditLog, "HOOKEXEC_AUDIT_MAX_BYTES=3000")
	for i := range 7 {
		ev, payload := "PreToolUse", `{"session_id": "s1", "tool_name": "Bash", "tool_input": {"command": "ls"}}`
		if i == 3 {
			ev = "Stop"
		}
		out := s.run("--profile", "claude", "--log", debugLog, "fire", ev, "--payload", payload)
		require.Equal(t, 0, out.code, out.stderr)
	}
	rotated, err := filepath.Glob(auditLog + ".*")
	require.NoError(t, err)
	require.NotEmpty(t, rotated, "HOOKEXEC_AUDIT_MAX_BYTES rotated the audit log")

	read := func(args ...string) statsJSON {
		t.Helper()
		out := s.run(append([]string{"stats", "--json", "--sort", "id"}, args...)...)
		require.Equal(t, 0, out.code, out.stderr)
		assert.Empty(t, out.stderr)
		var got statsJSON
		require.NoError(t, json.Unmarshal([]byte(out.stdout), &got))
		return got
	}
	fromDebug := read(debugLog)
	fromAudit := read() // HOOKEXEC_AUDIT_LOG, every file of it
	assert.Equal(t, 7, fromDebug.Fires)
	assert.Equal(t, 7, fromAudit.Fires)
	require.Len(t, fromAudit.Hooks, 3)
	require.Len(t, fromDebug.Hooks, 3)
	for i, a := range fromAudit.Hooks {
		d := fromDebug.Hooks[i]
		assert.Equal(t, d.ID, a.ID)
		assert.Equal(t, d.Source, a.Source)
		assert.Equal(t, d.Line, a.Line)
		assert.Equal(t, d.Count, a.Count, a.ID)
		assert.Equal(t, d.Decisions, a.Decisions, a.ID)
		assert.Equal(t, d.TimedOut, a.TimedOut, a.ID)
		assert.Equal(t, d.Errors, a.Errors, a.ID)
		assert.InDelta(t, d.P50, a.P50, 0.01, "%s: the two logs' durations differ in rounding only", a.ID)
		assert.InDelta(t, d.Max, a.Max, 0.01, a.ID)
	}
	assert.Equal(t, []string{"asker", "nap", "stuck"}, []string{fromAudit.Hooks[0].ID, fromAudit.Hooks[1].ID, fromAudit.Hooks[2].ID})
	assert.Equal(t, 6, fromAudit.Hooks[0].Decisions["ask"])
	assert.Equal(t, 1, fromAudit.Hooks[2].TimedOut)

	// Named, the current file alone is read; its kind is found from its lines.
	out := s.run("stats", auditLog)
	require.Equal(t, 0, out.code, out.stderr)
	assert.Regexp(t, `(?m)^EVENT +FIRES`, out.stdout)
}
