package convert

import (
	"encoding/json"
	"testing"

	"github.com/hookexec/hookexec/core/dialect"
)

// FuzzConvert reads arbitrary bytes as a file of each agent's format and writes it for
// every target. Properties: nothing panics; every output is one JSON object that the
// target's own reader reads without error.
func FuzzConvert(f *testing.F) {
	for _, s := range []string{
		`{"hooks":{"PreToolUse":[{"matcher":"Bash|Read","hooks":[{"type":"command","command":"g","timeout":3}]}],"UserPromptSubmit":[{"hooks":[{"type":"command","command":"p"}]}]}}`,
		`{"hooks":{"BeforeTool":[{"matcher":"run_shell_command","sequential":true,"hooks":[{"type":"command","command":"x","timeout":1500,"name":"n"}]}]}}`,
		`{"hooks":{"PreToolUse":[{"matcher":"^Ba","hooks":[{"type":"command","command":"x","commandWindows":"y","timeout":2000}]}]}}`,
		`{"version":1,"hooks":{"beforeShellExecution":[{"command":"x","failClosed":true}]}}`,
		`{"hooks":{"pre_run_command":[{"command":"a"}]}}`, `{bad`, ``, `[]`, `{"hooks":[]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, from := range Targets {
			for _, to := range Targets {
				r, err := Convert(from, to, "f.json", data)
				if err != nil {
					continue
				}
				var v map[string]any
				if err := json.Unmarshal(r.Output, &v); err != nil {
					t.Fatalf("%s -> %s: output is not a JSON object: %v\n%s", from, to, err, r.Output)
				}
				if _, err := dialect.Read("out.json", r.Output, dialect.ByName(to)); err != nil {
					t.Fatalf("%s -> %s: the target cannot read it: %v\n%s", from, to, err, r.Output)
				}
			}
		}
	})
}
