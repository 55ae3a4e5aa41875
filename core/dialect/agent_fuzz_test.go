package dialect

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/valyala/fastjson"

	"github.com/hookexec/hookexec/core/payload"
	"github.com/hookexec/hookexec/core/vocab"
)

// agentDialects are the readers of the agents' own formats (issue 18).
var agentDialects = []*Dialect{Cursor, Copilot, Windsurf, Factory, Kiro, Cline}

// FuzzAgentDialects reads arbitrary bytes as a file of each agent's format, then feeds
// them as a host payload to each dialect's stdin builder for every event of the agent,
// and as a hook's stdout to each answer reader. Properties: nothing panics; every hook
// read has a canonical or explicitly unknown event and is disabled with a reason when its
// event cannot run; every stdin is one line of valid JSON; an answer is nil or a JSON
// object; answers never turn a non-zero exit into 0.
func FuzzAgentDialects(f *testing.F) {
	for _, s := range []string{
		`{"version":1,"hooks":{"beforeShellExecution":[{"command":"x","timeout":3,"failClosed":true}],"afterAgentThought":[{"command":"y"}]}}`,
		`{"version":1,"hooks":{"preToolUse":[{"type":"command","bash":"a","powershell":"b","timeoutSec":-1,"matcher":"["}]}}`,
		`{"hooks":{"pre_run_command":[{"command":"a","show_output":1}],"nope":[1]}}`,
		`{"enabled":true,"name":"k","when":{"type":"preToolUse","toolTypes":["shell","@mcp","("]},"then":{"type":"askAgent","prompt":""}}`,
		`{"tool_name":"mcp__a__b","tool_input":{"command":"ls","file_path":"a","edits":[1]},"tool_response":{"stdout":"x"},"prompt":"p"}`,
		`{"permission":"deny","continue":false,"followup_message":"f","updated_input":{"a":1},"cancel":true,"permissionDecision":"ask","modifiedArgs":{}}`,
		`{bad`, ``, `[]`, `{"hooks":[]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, d := range agentDialects {
			file, err := Read("/p/.cursor/hooks.json", data, d)
			if err == nil {
				for _, h := range file.Hooks {
					require.NotEmpty(t, h.Event)
					require.Equal(t, d, file.Dialect)
				}
			}
		}
		v, err := fastjson.ParseBytes(data)
		if err != nil || v.Type() != fastjson.TypeObject {
			v = fastjson.MustParse(`{}`)
		}
		frame := payload.Frame{SessionID: "s", Cwd: "/p", Time: time.Unix(1, 0)}
		for _, d := range agentDialects {
			agent := d.Name
			names := []string{"PreToolUse"}
			for _, e := range vocab.Events(agent) {
				names = append(names, e.Name)
			}
			for _, name := range names {
				if d.Stdin != nil {
					out := d.Stdin(Fire{Event: name, Canonical: "PreToolUse", Payload: v, Frame: frame})
					require.True(t, json.Valid(out), "%s %s stdin %q", agent, name, out)
					require.Equal(t, byte('\n'), out[len(out)-1])
				}
				if d.Answer != nil {
					for _, exit := range []int{0, 1, 2} {
						code, ans := d.Answer(name, exit, data)
						switch {
						case agent == vocab.Cline && ans != nil:
							// Cline reads a hook's answer whatever its exit code.
							require.Zero(t, code, "cline: an answer is read")
						case agent == vocab.Copilot && exit != 0 && (name == "preToolUse" || exit == 2 && (name == "permissionRequest" || name == "PreToolUse")):
							// Copilot CLI 1.0.102 denies on a failing preToolUse hook (any exit)
							// and a permissionRequest or PascalCase PreToolUse hook's exit 2, whatever it printed.
							require.Zero(t, code)
							require.Contains(t, string(ans), `"decision":"deny"`)
						case exit != 0:
							require.NotZero(t, code, "%s: a failure stays a failure", agent)
						}
						if agent == vocab.Cline {
							require.NotEqual(t, 2, code, "cline: exit 2 never blocks")
						}
						if ans != nil && len(malformed(ans)) == 0 {
							var m map[string]any
							require.NoError(t, json.Unmarshal(ans, &m), "%s answer %q", agent, ans)
						}
					}
				}
			}
		}
	})
}
