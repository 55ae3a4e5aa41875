package engine

import (
	"bytes"
	"fmt"
	"unicode"
)

// MaxDecisionBytes is the most of a hook's stdout read for its decision. The output cap
// (output_cap_bytes) bounds what a result stores and shows, never what decides: a JSON answer
// longer than the cap is still read whole, up to this bound, far above any real answer. Past
// it the hook fails, blocking where its failure policy says so (fail_closed, blocking): a
// decision is never read from part of an answer, and a deny is never dropped silently.
const MaxDecisionBytes = 8 << 20

// stdoutOf files what a hook printed on stdout (at most MaxDecisionBytes of it; over reports
// that it printed more) into hr, capped at cap bytes with StdoutTruncated set when cut, and
// returns what decide reads: a JSON answer whole, text as the result shows it. failure says
// why a JSON answer could not be read.
func stdoutOf(hr *HookResult, stdout []byte, over bool, cap int) (read []byte, failure string) {
	shown, cut := capped(stdout, cap)
	hr.Stdout, hr.StdoutTruncated = string(shown), cut || over
	if !startsJSON(stdout) {
		return shown, ""
	}
	if over {
		return shown, fmt.Sprintf("stdout is JSON longer than %d MiB, the most a decision is read from: its decision could not be read", MaxDecisionBytes>>20)
	}
	return stdout, ""
}

// stdoutCap is how much of stdout a run keeps: enough to read a decision, and never less
// than the output cap.
func stdoutCap(outputCap int) int { return max(outputCap, MaxDecisionBytes) }

// startsJSON reports whether decide would read b as JSON (it starts with '{').
func startsJSON(b []byte) bool {
	b = bytes.TrimLeftFunc(b, unicode.IsSpace)
	return len(b) > 0 && b[0] == '{'
}
