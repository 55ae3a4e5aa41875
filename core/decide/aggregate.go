package decide

import (
	"strings"

	"github.com/valyala/fastjson"
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
}

// Aggregate folds verdicts given in config order. input is the tool input the host sent (a
// JSON object, or nil); modified_args are merged into it, updatedInput replaces it.
// Strongest decision wins (deny > ask > allow > none), texts are joined in config order.
func Aggregate(input []byte, vs []Verdict) Summary {
	s := Summary{Continue: true}
	var reasons, blockReasons, stopReasons, contexts, messages []string
	for i := range vs {
		v := &vs[i]
		s.Decision = max(s.Decision, v.Decision)
		if v.Blocked {
			s.Blocked = true
			if v.Reason != "" {
				blockReasons = append(blockReasons, v.Reason)
			}
		}
		if v.Reason != "" {
			reasons = append(reasons, v.Reason)
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
	if s.Blocked {
		reasons = blockReasons
	}
	s.Reason = strings.Join(reasons, "\n")
	s.StopReason = strings.Join(stopReasons, "\n")
	s.AdditionalContext = strings.Join(contexts, "\n")
	s.SystemMessage = strings.Join(messages, "\n")
	return s
}

// merge returns base with the top-level keys of patch set (dict.update semantics).
func merge(base, patch []byte) ([]byte, error) {
	if len(base) == 0 {
		base = []byte("{}")
	}
	var pb, pp fastjson.Parser
	b, err := pb.ParseBytes(base)
	if err != nil {
		return nil, err
	}
	if b.Type() != fastjson.TypeObject {
		b, _ = pb.Parse("{}")
	}
	p, err := pp.ParseBytes(patch)
	if err != nil {
		return nil, err
	}
	obj, _ := p.Object()
	obj.Visit(func(k []byte, val *fastjson.Value) { b.Set(string(k), val) })
	return b.MarshalTo(nil), nil
}
