package decide

import (
	"bytes"
	"errors"
	"strings"
	"unicode/utf16"

	"github.com/valyala/fastjson"

	"github.com/hookexec/hookexec/core/payload"
)

// Summary is the one decision of a fire.
type Summary struct {
	Decision          Decision
	Blocked           bool
	Reason            string
	Continue          bool
	StopReason        string
	UpdatedInput      []byte // nil when no hook changed the input
	AdditionalContext string
	SystemMessage     string
	WorktreePath      string // the first WorktreeCreate path, in config order
	Warnings          []string
	// Claude's fields, folded in config order: the last UpdatedToolOutput and SessionTitle win,
	// permission updates and watch paths are concatenated, messages and terminal sequences
	// joined, flags ORed.
	Claude
}

// Aggregate folds verdicts given in config order. input is the tool input the host sent (a
// JSON object, or nil); modified_args are merged into it, updatedInput replaces it.
// Strongest decision wins (deny > defer > ask > allow > none), texts are joined in config order.
// The reason is the blocking hooks' reasons when the fire blocks; on an ask (or defer) it is
// the asking hooks' reasons, not an allowing hook's (Claude Code 2.1.330 shows only those);
// otherwise every hook's.
func Aggregate(input []byte, vs []Verdict) Summary {
	s := Summary{Continue: true}
	var reasons, blockReasons, stopReasons, contexts, messages, initial []string
	var perms [][]byte
	byDecision := map[Decision][]string{}
	budget := ClassifierContextBudget
	for i := range vs {
		v := &vs[i]
		s.Interrupt = s.Interrupt || v.Interrupt
		s.Retry = s.Retry || v.Retry
		s.ReloadSkills = s.ReloadSkills || v.ReloadSkills
		if v.UpdatedToolOutput != nil {
			s.UpdatedToolOutput = v.UpdatedToolOutput
		}
		if v.SessionTitle != "" {
			s.SessionTitle = v.SessionTitle
		}
		if v.InitialUserMessage != "" {
			initial = append(initial, v.InitialUserMessage)
		}
		s.WatchPaths = append(s.WatchPaths, v.WatchPaths...)
		for _, c := range v.ClassifierContext {
			if c = truncateUTF16(c, budget); c != "" {
				s.ClassifierContext = append(s.ClassifierContext, c)
				budget -= utf16Len(c)
			}
		}
		s.TerminalSequence += v.TerminalSequence
		if v.UpdatedPermissions != nil {
			perms = append(perms, v.UpdatedPermissions)
		}
		s.Decision = max(s.Decision, v.Decision)
		if v.Blocked {
			s.Blocked = true
			if v.Reason != "" {
				blockReasons = append(blockReasons, v.Reason)
			}
		}
		if v.Reason != "" {
			reasons = append(reasons, v.Reason)
			byDecision[v.Decision] = append(byDecision[v.Decision], v.Reason)
		}
		if !v.Continue {
			s.Continue = false
			if v.StopReason != "" {
				stopReasons = append(stopReasons, v.StopReason)
			}
		}
		if v.AdditionalContext != "" {
			contexts = append(contexts, v.AdditionalContext)
		}
		if v.SystemMessage != "" {
			messages = append(messages, v.SystemMessage)
		}
		if v.UpdatedInput != nil {
			s.UpdatedInput = v.UpdatedInput
		}
		if s.WorktreePath == "" {
			s.WorktreePath = v.WorktreePath
		}
		if v.ModifiedArgs != nil {
			base := s.UpdatedInput
			if base == nil {
				base = input
			}
			merged, err := merge(base, v.ModifiedArgs)
			if err != nil {
				s.Warnings = append(s.Warnings, "modified_args not applied: "+err.Error())
			} else {
				s.UpdatedInput = merged
			}
		}
	}
	switch {
	case s.Blocked:
		reasons = blockReasons
	case (s.Decision == Ask || s.Decision == Defer) && len(byDecision[s.Decision]) > 0:
		reasons = byDecision[s.Decision]
	}
	s.Reason = strings.Join(reasons, "\n")
	s.StopReason = strings.Join(stopReasons, "\n")
	s.AdditionalContext = strings.Join(contexts, "\n")
	s.SystemMessage = strings.Join(messages, "\n")
	s.InitialUserMessage = strings.Join(initial, "\n")
	s.UpdatedPermissions = concatArrays(perms)
	return s
}

// concatArrays joins JSON arrays into one, in order; nil when there are none.
func concatArrays(arrays [][]byte) []byte {
	if len(arrays) == 0 {
		return nil
	}
	if len(arrays) == 1 {
		return arrays[0]
	}
	out := []byte{'['}
	for _, a := range arrays {
		inner := bytes.TrimSpace(a)
		inner = bytes.TrimSpace(inner[1 : len(inner)-1])
		if len(inner) == 0 {
			continue
		}
		if len(out) > 1 {
			out = append(out, ',')
		}
		out = append(out, inner...)
	}
	return append(out, ']')
}

// merge returns base with the top-level keys of patch set (dict.update semantics). Both are
// read with payload.Parse, which reads inputs nested past fastjson's bound (a model reaches
// that with one free-form argument), and written with payload.AppendJSON, which is valid
// JSON where fastjson's own marshaller escapes Go-style.
func merge(base, patch []byte) ([]byte, error) {
	b, err := payload.Parse(base)
	if errors.Is(err, payload.ErrNotObject) {
		b, err = payload.Parse(nil)
	}
	if err != nil {
		return nil, err
	}
	defer b.Release()
	p, err := payload.Parse(patch)
	if err != nil {
		return nil, err
	}
	defer p.Release()
	root := b.Root()
	obj, _ := p.Root().Object()
	obj.Visit(func(k []byte, val *fastjson.Value) { root.Set(string(k), val) })
	return payload.AppendJSON(nil, root), nil
}

// utf16Len is the length of s in UTF-16 code units (a rune beyond the BMP counts two).
func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		n += utf16.RuneLen(r)
	}
	return n
}

// truncateUTF16 keeps the longest prefix of s that fits in limit UTF-16 code units, never
// splitting a surrogate pair (a rune).
func truncateUTF16(s string, limit int) string {
	n := 0
	for i, r := range s {
		if n+utf16.RuneLen(r) > limit {
			return s[:i]
		}
		n += utf16.RuneLen(r)
	}
	return s
}
