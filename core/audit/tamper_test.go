package audit_test

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hookexec/hookexec/core/audit"
	"github.com/hookexec/hookexec/core/engine"
)

// The chain against tampering, generated: a log of real entries (written by a real engine)
// is changed in every way below, one change at a time, and Verify must name the line.

// span is one JSON token of a line: a key or a scalar value, at line[start:end].
type span struct {
	start, end int
	key        bool
	path       string // e.g. "hooks.0.exit_code", for messages
}

// spans lists the keys and scalar values of a JSON line.
func spans(t *testing.T, line []byte) []span {
	dec := json.NewDecoder(bytes.NewReader(line))
	type frame struct {
		object  bool
		wantKey bool
		name    string
		index   int
	}
	var stack []frame
	var out []span
	name := func() string {
		var parts []string
		for _, f := range stack {
			parts = append(parts, f.name)
		}
		return strings.Join(parts, ".")
	}
	for {
		start := int(dec.InputOffset())
		tok, err := dec.Token()
		if err != nil {
			break
		}
		end := int(dec.InputOffset())
		for start < end && strings.ContainsRune(" \t:,", rune(line[start])) {
			start++
		}
		top := len(stack) - 1
		switch v := tok.(type) {
		case json.Delim:
			if v == '{' || v == '[' {
				if top >= 0 {
					stack[top].wantKey = stack[top].object
				}
				stack = append(stack, frame{object: v == '{', wantKey: v == '{'})
				if top >= 0 && !stack[top].object {
					stack[len(stack)-1].name = fmt.Sprint(stack[top].index)
					stack[top].index++
				}
			} else {
				stack = stack[:top]
			}
			continue
		}
		f := &stack[top]
		if f.object && f.wantKey {
			f.name = tok.(string)
			f.wantKey = false
			out = append(out, span{start, end, true, name()})
			continue
		}
		if f.object {
			f.wantKey = true
		}
		if tok != nil {
			out = append(out, span{start, end, false, name()})
		}
	}
	require.NotEmpty(t, out)
	return out
}

// changed is line with the token at s replaced by a different valid one.
func changed(line []byte, s span) []byte {
	raw := string(line[s.start:s.end])
	var repl string
	switch {
	case raw == "true":
		repl = "false"
	case raw == "false":
		repl = "true"
	case strings.HasPrefix(raw, `"`):
		inner := raw[1 : len(raw)-1]
		if len(inner) == 64 && strings.Trim(inner, "0123456789abcdef") == "" {
			c := byte('1')
			if inner[0] == '1' {
				c = '2'
			}
			repl = `"` + string(c) + inner[1:] + `"`
		} else {
			repl = `"` + inner + `x"`
		}
	default: // a number
		repl = raw + "1"
	}
	out := append([]byte(nil), line[:s.start]...)
	return append(append(out, repl...), line[s.end:]...)
}

// reseal recomputes a line's own hash (key nil: plain SHA-256), as a forger without the
// log's key would. With prev set, it first links the line to prev.
func reseal(t *testing.T, line []byte, key []byte, prev string) []byte {
	i := bytes.LastIndex(line, []byte(`,"hash":"`))
	require.Positive(t, i)
	body := append(append([]byte(nil), line[:i]...), '}')
	if prev != "" {
		j := bytes.Index(body, []byte(`"prev":"`)) + len(`"prev":"`)
		copy(body[j:j+64], prev)
	}
	var sum []byte
	if key != nil {
		m := hmac.New(sha256.New, key)
		m.Write(body)
		sum = m.Sum(nil)
	} else {
		s := sha256.Sum256(body)
		sum = s[:]
	}
	return fmt.Appendf(nil, `%s,"hash":"%s"}`, body[:len(body)-1], hex.EncodeToString(sum))
}

func hashOf(line []byte) string {
	i := bytes.LastIndex(line, []byte(`,"hash":"`)) + len(`,"hash":"`)
	return string(line[i : i+64])
}

// tamperLog is a verified log of real entries, its lines, and a file to write changes to.
type tamperLog struct {
	lines [][]byte
	path  string
	key   []byte
	head  string
}

func newTamperLog(t *testing.T, n int, key []byte) *tamperLog {
	var more []func(*engine.Options)
	if key != nil {
		kf := filepath.Join(t.TempDir(), "key")
		require.NoError(t, os.WriteFile(kf, key, 0o600))
		more = append(more, func(o *engine.Options) { o.AuditKeyFile = kf })
	}
	src := writeLog(t, n, more...)
	data, err := os.ReadFile(src)
	require.NoError(t, err)
	lines := bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n"))
	require.Len(t, lines, n)
	tl := &tamperLog{lines: lines, path: filepath.Join(t.TempDir(), "audit.jsonl"), key: key, head: hashOf(lines[n-1])}
	rep := tl.verify(t, lines, "")
	require.Nil(t, rep.Problem, "the untouched log verifies")
	assert.EqualValues(t, n, rep.Entries)
	assert.Equal(t, tl.head, rep.Head)
	return tl
}

// verify writes lines as the log and verifies it (with head when not "").
func (tl *tamperLog) verify(t *testing.T, lines [][]byte, head string) *audit.Report {
	data := append(bytes.Join(lines, []byte("\n")), '\n')
	if len(lines) == 0 {
		data = nil
	}
	return tl.verifyBytes(t, data, head)
}

func (tl *tamperLog) verifyBytes(t *testing.T, data []byte, head string) *audit.Report {
	require.NoError(t, os.WriteFile(tl.path, data, 0o600))
	rep, err := audit.Verify(tl.path, audit.VerifyOptions{Key: tl.key, Head: head})
	require.NoError(t, err)
	return rep
}

// with is lines with line i replaced.
func with(lines [][]byte, i int, line []byte) [][]byte {
	out := append([][]byte(nil), lines...)
	out[i] = line
	return out
}

// problemAt asserts the report names line want (from 1).
func problemAt(t *testing.T, rep *audit.Report, want int, what string) {
	t.Helper()
	if assert.NotNil(t, rep.Problem, "%s: not detected", what) {
		assert.Equal(t, want, rep.Problem.Line, "%s: %v", what, rep.Problem)
	}
}

const tamperN = 8

func TestTamperEveryFieldOfEveryEntry(t *testing.T) {
	for _, keyed := range []bool{false, true} {
		t.Run(fmt.Sprintf("keyed=%v", keyed), func(t *testing.T) {
			var key []byte
			if keyed {
				key = []byte("0123456789abcdef-the-log-key")
			}
			tl := newTamperLog(t, tamperN, key)
			edits := 0
			for i, line := range tl.lines {
				for _, s := range spans(t, line) {
					what := fmt.Sprintf("line %d, %s %s", i+1, map[bool]string{true: "key", false: "value"}[s.key], s.path)
					bad := changed(line, s)
					// edited in place
					problemAt(t, tl.verify(t, with(tl.lines, i, bad), ""), i+1, what)
					edits++
					if s.key || s.path == "hash" {
						continue
					}
					// edited and its own hash recomputed without the key: the next line no
					// longer links to it, or (the last line) the head recorded before does
					// not match; with a key the line itself fails
					forged := reseal(t, bad, nil, "")
					rep := tl.verify(t, with(tl.lines, i, forged), "")
					switch {
					case keyed:
						problemAt(t, rep, i+1, what+" resealed")
					case i < len(tl.lines)-1:
						if assert.NotNil(t, rep.Problem, what+" resealed") {
							assert.Contains(t, []int{i + 1, i + 2}, rep.Problem.Line, what)
						}
					case rep.Problem == nil:
						problemAt(t, tl.verify(t, with(tl.lines, i, forged), tl.head), i+1, what+" resealed, with the head")
					}
				}
			}
			t.Logf("%d single-token edits over %d entries, each detected", edits, len(tl.lines))
		})
	}
}

func TestTamperRemoveSwapInsertTruncate(t *testing.T) {
	tl := newTamperLog(t, tamperN, nil)
	n := len(tl.lines)
	for i := range tl.lines {
		removed := append(append([][]byte(nil), tl.lines[:i]...), tl.lines[i+1:]...)
		rep := tl.verify(t, removed, "")
		if i == n-1 {
			assert.Nil(t, rep.Problem, "the last entry removed: undetectable without a head")
			problemAt(t, tl.verify(t, removed, tl.head), n-1, "the last entry removed, with the head")
		} else {
			problemAt(t, rep, i+1, fmt.Sprintf("entry %d removed", i+1))
		}
	}
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			swapped := append([][]byte(nil), tl.lines...)
			swapped[i], swapped[j] = swapped[j], swapped[i]
			problemAt(t, tl.verify(t, swapped, ""), i+1, fmt.Sprintf("entries %d and %d swapped", i+1, j+1))
		}
	}
	foreign := newTamperLog(t, 2, nil).lines
	for i := 0; i <= n; i++ {
		for _, ins := range []struct {
			name string
			line []byte
		}{{"a copy of the entry before", tl.lines[max(i-1, 0)]}, {"an entry of another log", foreign[1]}, {"a copy of the first entry", tl.lines[0]}} {
			grown := append(append(append([][]byte(nil), tl.lines[:i]...), ins.line), tl.lines[i:]...)
			at := i + 1
			if i < n && bytes.Equal(ins.line, tl.lines[i]) {
				at++ // two equal lines in a row: the second is the one out of place
			}
			problemAt(t, tl.verify(t, grown, ""), at, fmt.Sprintf("%s inserted at %d", ins.name, i+1))
		}
	}
	// Cut at every byte (of a shorter log, to keep it quick): at a line's end it is a
	// shorter, valid chain (the head catches it); anywhere else the last line is torn and
	// everything before it verifies.
	tl = newTamperLog(t, 3, nil)
	data := append(bytes.Join(tl.lines, []byte("\n")), '\n')
	for cut := 1; cut < len(data); cut++ {
		rep := tl.verifyBytes(t, data[:cut], "")
		whole := bytes.Count(data[:cut], []byte("\n"))
		if data[cut-1] == '\n' {
			assert.Nil(t, rep.Problem, "cut after entry %d", whole)
			assert.EqualValues(t, whole, rep.Entries)
			problemAt(t, tl.verifyBytes(t, data[:cut], tl.head), whole, fmt.Sprintf("cut after entry %d, with the head", whole))
			continue
		}
		problemAt(t, rep, whole+1, fmt.Sprintf("cut at byte %d", cut))
		assert.True(t, rep.TornTail, "cut at byte %d: reported as torn", cut)
		assert.EqualValues(t, whole, rep.Entries, "cut at byte %d: the entries before verify", cut)
	}
	// An empty file is no chain to check; a head given is then missing.
	problemAt(t, tl.verifyBytes(t, nil, tl.head), 0, "everything removed, with the head")
}

// What the chain does not prove without a key or a head: a whole chain recomputed from an
// edit on verifies. A head recorded before, or the key, catches it.
func TestTamperWholeChainRecomputed(t *testing.T) {
	for _, keyed := range []bool{false, true} {
		var key []byte
		if keyed {
			key = []byte("0123456789abcdef-the-log-key")
		}
		tl := newTamperLog(t, tamperN, key)
		forged := append([][]byte(nil), tl.lines...)
		for _, s := range spans(t, forged[3]) {
			if s.path == "decision" && !s.key {
				forged[3] = changed(forged[3], s)
			}
		}
		require.NotEqual(t, tl.lines[3], forged[3])
		for i := 3; i < len(forged); i++ {
			forged[i] = reseal(t, forged[i], nil, hashOf(forged[i-1]))
		}
		rep := tl.verify(t, forged, "")
		if keyed {
			problemAt(t, rep, 4, "recomputed without the key")
			continue
		}
		assert.Nil(t, rep.Problem, "recomputed: a chain alone cannot tell")
		problemAt(t, tl.verify(t, forged, tl.head), tamperN, "recomputed, with the head")
		problemAt(t, tl.verify(t, forged, hashOf(tl.lines[5])), tamperN, "recomputed, with an older head")
	}
}
