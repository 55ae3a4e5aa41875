package convert

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hookexec/hookexec/core/dialect"
	"github.com/hookexec/hookexec/core/vocab"
)

var update = flag.Bool("update", false, "rewrite the golden reports")

// configs returns every hook configuration file of the conformance vectors of the agents
// convert writes: name → (agent, data).
func configs(t *testing.T) map[string][2]string {
	out := map[string][2]string{}
	for _, agent := range Targets {
		files, _ := filepath.Glob(filepath.Join("..", "..", "tests", "conformance", agent, "*.json"))
		for _, f := range files {
			raw, err := os.ReadFile(f)
			require.NoError(t, err)
			var v struct {
				Profile string                     `json:"profile"`
				Files   map[string]json.RawMessage `json:"files"`
			}
			require.NoError(t, json.Unmarshal(raw, &v))
			if v.Profile != agent {
				continue
			}
			for name, content := range v.Files {
				if !strings.HasSuffix(name, ".json") || !strings.Contains(string(content), `"hooks"`) || strings.Contains(name, "managed") {
					continue
				}
				out[strings.TrimSuffix(filepath.Base(f), ".json")+":"+name] = [2]string{agent, string(content)}
			}
		}
	}
	require.NotEmpty(t, out)
	return out
}

type sig struct{ event, tools, command string }

func signatures(t *testing.T, agent, name string, data []byte, skip map[string]bool) []sig {
	f, err := dialect.Read(name, data, dialect.ByName(agent))
	require.NoError(t, err)
	var out []sig
	for _, h := range f.Hooks {
		if h.Disabled != "" || skip[h.Path] || skip[h.Name] {
			continue
		}
		tools, _ := canonicalTools(h.Matcher, h.RegexMatcher)
		slices.Sort(tools)
		out = append(out, sig{h.Event, strings.Join(tools, "|"), command(&h)})
	}
	return out
}

// TestRoundTrip: every conformance config converted to each other target and back keeps
// every hook the report does not name (event, tools and command), and the report of the
// first leg is what the golden file says.
func TestRoundTrip(t *testing.T) {
	for name, c := range configs(t) {
		agent, data := c[0], []byte(c[1])
		for _, to := range Targets {
			if to == agent {
				continue
			}
			there, err := Convert(agent, to, name, data)
			require.NoError(t, err, "%s -> %s", name, to)
			back, err := Convert(to, agent, name+" ("+to+")", there.Output)
			require.NoError(t, err, "%s -> %s -> %s", name, to, agent)
			lossy := map[string]bool{}
			for _, l := range there.Losses {
				if l.Feature != "answer" {
					lossy[l.Hook] = true
				}
			}
			want := signatures(t, agent, name, data, lossy)
			got := signatures(t, agent, name, back.Output, nil)
			for _, s := range want {
				require.Contains(t, got, s, "%s -> %s -> %s lost a hook it did not report:\n%s\n%s", name, to, agent, there.Report(agent, to), there.Output)
			}
			golden := filepath.Join("testdata", strings.NewReplacer(":", "__", "/", "_").Replace(name)+"."+to+".report")
			report := there.Report(agent, to)
			if *update {
				require.NoError(t, os.WriteFile(golden, []byte(report), 0o644))
				continue
			}
			want2, err := os.ReadFile(golden)
			require.NoError(t, err, "golden %s (go test ./core/convert -update)", golden)
			require.Equal(t, string(want2), report, golden)
		}
	}
}

func TestGuardsAreNeverDroppedSilently(t *testing.T) {
	src := `{"hooks":{"PreToolUse":[{"matcher":"Grep","hooks":[{"type":"command","command":"./g.sh"}]},{"matcher":"Edit.*","hooks":[{"type":"command","command":"./e.sh"}]}]}}`
	r, err := Convert(vocab.Claude, vocab.Windsurf, "s.json", []byte(src))
	require.NoError(t, err)
	require.True(t, r.Dropped())
	require.Contains(t, r.Report("claude", "windsurf"), "no longer guarded")
	require.Contains(t, r.Report("claude", "windsurf"), "cannot filter by a pattern")
	require.NotContains(t, string(r.Output), "./g.sh")

	_, err = Convert(vocab.Claude, vocab.Kiro, "s.json", []byte(src))
	require.ErrorIs(t, err, ErrTarget)
	_, err = Convert("nope", vocab.Claude, "s.json", []byte(src))
	require.Error(t, err)
}

func TestToolNamesAndEventsAreSpelledForTheTarget(t *testing.T) {
	src := `{"hooks":{"PreToolUse":[{"matcher":"Bash|Read","hooks":[{"type":"command","command":"g","timeout":3}]}],"UserPromptSubmit":[{"hooks":[{"type":"command","command":"p"}]}]}}`
	for to, want := range map[string][]string{
		vocab.Cursor:   {`"beforeShellExecution"`, `"beforeReadFile"`, `"beforeSubmitPrompt"`, `"timeout": 3`},
		vocab.Copilot:  {`"preToolUse"`, `"matcher": "bash|view"`, `"userPromptSubmitted"`, `"timeoutSec": 3`, `"bash": "g"`},
		vocab.Windsurf: {`"pre_run_command"`, `"pre_read_code"`, `"pre_user_prompt"`},
		vocab.Factory:  {`"matcher": "Execute|Read"`},
	} {
		r, err := Convert(vocab.Claude, to, "s.json", []byte(src))
		require.NoError(t, err)
		for _, w := range want {
			require.Contains(t, string(r.Output), w, fmt.Sprintf("%s:\n%s", to, r.Output))
		}
	}
}
