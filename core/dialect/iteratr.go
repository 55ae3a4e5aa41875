package dialect

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"time"

	"github.com/valyala/fastjson"
	"go.yaml.in/yaml/v3"

	"github.com/hookexec/hookexec/core/event"
	"github.com/hookexec/hookexec/core/payload"
)

// Iteratr is <workdir>/.iteratr.hooks.yml (seed 004): six hook types keyed by iteratr's own
// event names, timeouts in seconds (default 30 s), hooks run one after another, and
// pipe_output hands a hook's output to the agent. Its hooks see the events spelt their way.
var Iteratr = &Dialect{
	Name:       "iteratr",
	Unit:       time.Second,
	Timeout:    30 * time.Second,
	Envelope:   payload.Claude,
	Names:      iteratrNames,
	Sequential: true,
	Templates:  true,
	YAML:       true,
	Detect: func(path string, v *fastjson.Value) bool {
		return v == nil && hasSuffix(path, ".yml", ".yaml")
	},
	Load: func(r *Reader, data []byte, _ *fastjson.Value) error { return r.iteratr(data) },
}

var iteratrNames = map[string]string{
	"SessionStart": "session_start", "PreIteration": "pre_iteration", "PostIteration": "post_iteration",
	"SessionEnd": "session_end", "TaskComplete": "on_task_complete", "SessionError": "on_error",
}

// iteratrFile is .iteratr.hooks.yml (seed 004).
type iteratrFile struct {
	Version *int                     `yaml:"version"`
	Hooks   map[string][]iteratrHook `yaml:"hooks"`
	Extra   map[string]any           `yaml:",inline"`
}

type iteratrHook struct {
	// Type is "" (a command) or hookexec's "policy", with the policy's fields.
	Type       string         `yaml:"type"`
	CEL        string         `yaml:"cel"`
	Rego       string         `yaml:"rego"`
	Query      string         `yaml:"query"`
	Decision   string         `yaml:"decision"`
	Reason     string         `yaml:"reason"`
	Command    string         `yaml:"command"`
	Timeout    *float64       `yaml:"timeout"` // seconds; absent or 0: 30
	PipeOutput bool           `yaml:"pipe_output"`
	Extra      map[string]any `yaml:",inline"`
}

// iteratrTypes are the six hook types in the order the seed lists them.
var iteratrTypes = []string{"session_start", "pre_iteration", "post_iteration", "session_end", "on_task_complete", "on_error"}

// iteratr reads the YAML file. Like iteratr itself, a file that does not parse yields no
// hooks at all: the error becomes the file's warning and the session goes on.
func (p *Reader) iteratr(data []byte) error {
	var f iteratrFile
	if err := yaml.Unmarshal(data, &f); err != nil {
		return fmt.Errorf("invalid YAML, no hooks loaded from it: %v", err)
	}
	if f.Version != nil && *f.Version != 1 {
		p.warn("", "version %d is not 1; read as version 1", *f.Version)
	}
	for _, k := range slices.Sorted(maps.Keys(f.Extra)) {
		p.warn("", "unknown field %q; ignored", k)
	}
	known := map[string]bool{}
	for _, t := range iteratrTypes {
		known[t] = true
	}
	for _, k := range slices.Sorted(maps.Keys(f.Hooks)) {
		if !known[k] {
			p.skip("hooks.%s is not an iteratr hook type (want one of %v)", k, iteratrTypes)
		}
	}
	for _, typ := range iteratrTypes {
		ev := event.Lookup(typ)
		for i, ih := range f.Hooks[typ] {
			where := fmt.Sprintf("hooks.%s[%d]", typ, i)
			h := Hook{Event: ev.Name, Type: "command", Command: ih.Command, PipeOutput: ih.PipeOutput}
			for _, k := range slices.Sorted(maps.Keys(ih.Extra)) {
				p.warn(where, "unknown field %q; ignored", k)
			}
			switch ih.Type {
			case "", "command":
				if ih.Command == "" {
					p.disable(&h, where, "no \"command\"")
				}
			case "policy":
				h.Type = "policy"
				p.at = where
				p.policyFields(where, where, ih.policy(), &h)
				p.at = ""
			default:
				p.disable(&h, where, "unknown type %q (iteratr runs commands; hookexec adds policy)", ih.Type)
			}
			if t := ih.Timeout; t != nil && *t != 0 {
				if *t < 0 || math.IsNaN(*t) {
					p.disable(&h, where, "timeout %v is not positive", *t)
				} else {
					h.Timeout = time.Duration(*t * float64(time.Second))
				}
			}
			if ev.Name == "SessionEnd" && h.PipeOutput {
				p.warn(where, "pipe_output has no effect on session_end: no iteration follows")
				h.PipeOutput = false
			}
			p.f.Hooks = append(p.f.Hooks, h)
		}
	}
	return nil
}

// policy is the hook's policy fields as the JSON object the shared reader reads.
func (ih iteratrHook) policy() *fastjson.Value {
	var a fastjson.Arena
	o := a.NewObject()
	for _, kv := range [][2]string{{"cel", ih.CEL}, {"rego", ih.Rego}, {"query", ih.Query}, {"decision", ih.Decision}, {"reason", ih.Reason}, {"command", ih.Command}} {
		if kv[1] != "" {
			o.Set(kv[0], a.NewString(kv[1]))
		}
	}
	return o
}
