package match

import (
	"slices"
	"strings"
	"testing"

	"github.com/hookexec/hookexec/core/vocab"
)

// Subjects is exact: every subject Match accepts is listed, and only those. Checked over
// every matcher built from a pool of words (names, alternations, anchored literal regexes,
// with and without a vocabulary) against every spelling derived from the pool and the
// vocabulary (case variants, builtin:, mcp__S__N and S:N forms, every split, a trailing
// newline, prefixes and suffixes).
func TestSubjectsAreExact(t *testing.T) {
	words := []string{"Bash", "Read", "Edit", "Write", "run_shell_command", "mcp__github__create_issue", "github:create_issue",
		"mcp__a__b__c", "a__b:c", "a:b__c", "x__y:z", "builtin:x", "builtin:builtin:x", "mcp__x", "mcp__x__", "mcp__", "x", "startup",
		"foo-bar", "Bash-x", "Task", "Agent", "b:c:d", "mcp__b:c__d"}
	for _, agent := range vocab.Agents {
		for name := range vocab.ToolsOf(agent) {
			words = append(words, name)
		}
	}
	var subjects []string
	for _, w := range words {
		t := ParseTool(w)
		for _, s := range []string{w, strings.ToLower(w), strings.ToUpper(w), "builtin:" + w, w + "\n", "\n" + w, w + "x", "x" + w,
			t.Name, t.Canonical(), t.Server + ":" + t.Name, "mcp__" + strings.ReplaceAll(w, ":", "__"), strings.Replace(w, "__", ":", 1), ""} {
			subjects = append(subjects, s)
		}
	}
	var patterns []string
	for i, w := range words[:24] {
		v := words[(i+7)%24]
		patterns = append(patterns, w, w+"|"+v, w+", "+v, "^"+w+"$", "^("+w+"|"+v+")$", "^(?:"+w+")$", "^(|"+w+")$")
	}
	patterns = append(patterns, `^Bash\-x$`, `^a\:b$`, "^(Bash)", "Bash$", "^Ba|sh$", "^(a)|(b)$", "^(a|b)c$", "B.sh", "^B.sh$")
	for _, p := range patterns {
		for _, agent := range []string{"", vocab.Claude, vocab.Gemini, vocab.Codex} {
			m, err := Compile(p)
			if err != nil {
				continue
			}
			if agent != "" {
				m = m.Vocabulary(agent)
			}
			subs, ok := m.Subjects()
			if !ok {
				continue
			}
			for _, s := range append(subjects, subs...) {
				if m.Match(s) != slices.Contains(subs, s) {
					t.Errorf("matcher %q (vocabulary %q): Match(%q) = %v, but Subjects %v", p, agent, s, m.Match(s), subs)
				}
			}
		}
	}
}

// Only finite sets are claimed: everything, globs and regexes beyond anchored literals are not.
func TestSubjectsNotFinite(t *testing.T) {
	for _, p := range []string{"", "*", "|", "mcp__*", "builtin:*", "Bash.*", "B.sh", "^Ba", "ash$", "[Bb]ash", "(?:Edit)", "^Ba|sh$",
		"^(a)|(b)$", "^(a|b)c$", "^(a|(b))$", "^a+$", `^\d$`, "^a$|^b$"} {
		m, err := Compile(p)
		if err != nil {
			continue
		}
		if subs, ok := m.Subjects(); ok {
			t.Errorf("%q: Subjects claims %v", p, subs)
		}
	}
	var nilM *Matcher
	if _, ok := nilM.Subjects(); ok {
		t.Error("a nil matcher matches everything")
	}
}
