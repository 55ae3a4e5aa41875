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
	"github.com/valyala/fastjson"

	"github.com/hookexec/hookexec/core/dialect"
	"github.com/hookexec/hookexec/core/vocab"
)

var update = flag.Bool("update", false, "rewrite the golden reports")

// configs returns every hook configuration file of the conformance vectors of every agent
// (tests/conformance/*) and of the live suites (tests/live/{gemini,codex,qwen}/vectors):
// name → (agent, data). A file is one when the agent's dialect reads a hook from it.
func configs(t *testing.T) map[string][2]string {
	out := map[string][2]string{}
	add := func(vector, agent string, files map[string]json.RawMessage) {
		d := dialect.ByName(agent)
		require.NotNil(t, d, vector)
		for name, content := range files {
			text := string(content)
			var str string
			if json.Unmarshal(content, &str) == nil {
				text = str // a script, YAML or TOML file is a JSON string
			}
			if strings.Contains(name, "managed") {
				continue
			}
			fd := d
			// A file of another agent's format (the mixed vectors) is read in its own.
			v, _ := fastjson.Parse(text)
			if found := dialect.Detect(name, v); found != nil && found != dialect.Claude {
				fd = found
			}
			f, err := dialect.Read(name, []byte(text), fd)
			if err != nil || len(f.Hooks) == 0 {
				continue
			}
			out[vector+":"+name] = [2]string{fd.Name, text}
		}
	}
	dirs, _ := filepath.Glob(filepath.Join("..", "..", "tests", "conformance", "*", "*.json"))
	for _, f := range dirs {
		raw, err := os.ReadFile(f)
		require.NoError(t, err)
		var v struct {
			Profile string                     `json:"profile"`
			Files   map[string]json.RawMessage `json:"files"`
		}
		require.NoError(t, json.Unmarshal(raw, &v))
		if v.Profile == "" || dialect.ByName(v.Profile) == nil {
			continue // mixed: several dialects, each file converted where its own dir has it
		}
		add(filepath.Base(filepath.Dir(f))+"_"+strings.TrimSuffix(filepath.Base(f), ".json"), v.Profile, v.Files)
	}
	for _, agent := range []string{vocab.Gemini, vocab.Codex, vocab.Qwen} {
		live, _ := filepath.Glob(filepath.Join("..", "..", "tests", "live", agent, "vectors", "*.json"))
		require.NotEmpty(t, live, agent)
		for _, f := range live {
			raw, err := os.ReadFile(f)
			require.NoError(t, err)
			var v struct {
				Files   map[string]json.RawMessage `json:"files"`
				Convert *struct {
					Agent, From string
				} `json:"convert"`
			}
			require.NoError(t, json.Unmarshal(raw, &v))
			name := "live_" + agent + "_" + strings.TrimSuffix(filepath.Base(f), ".json")
			own := map[string]json.RawMessage{}
			for path, content := range v.Files {
				if strings.Contains(path, "/."+agent+"/") {
					own[path] = content
				}
			}
			add(name, agent, own)
			if v.Convert != nil { // a conversion vector's source, in its own agent's format
				add(name, v.Convert.Agent, map[string]json.RawMessage{v.Convert.From: v.Files[v.Convert.From]})
			}
		}
	}
	require.NotEmpty(t, out)
	return out
}

// sig is what of a hook must carry over: its event, the command (unwrapped from "hookexec
// adapt") and, by event and command, the union of its canonical tools ("" is every tool).
type sig struct{ event, command string }

func signatures(t *testing.T, agent, name string, data []byte, skip map[string]bool) map[sig]string {
	f, err := dialect.Read(name, data, dialect.ByName(agent))
	require.NoError(t, err, "%s\n%s", name, data)
	out := map[sig]string{}
	for _, h := range f.Hooks {
		if h.Disabled != "" || skip[h.Path] || skip[h.Name] {
			continue
		}
		cmd := command(&h)
		for _, a := range Targets {
			for _, b := range Targets {
				if inner, ok := unwrap(cmd, a, b); ok {
					cmd = inner
				}
			}
		}
		tools, _ := canonicalTools(h.Matcher, h.RegexMatcher)
		if e, ok := vocab.EventOf(agent, h.Spelling); ok && e.Tools != "" && len(tools) == 0 {
			tools = strings.Split(e.Tools, "|") // an event named after its tools
		}
		k := sig{h.Event, cmd}
		prev, seen := out[k]
		if seen && prev == "" || len(tools) == 0 {
			out[k] = ""
			continue
		}
		all := tools
		if prev != "" {
			all = append(strings.Split(prev, "|"), tools...)
		}
		slices.Sort(all)
		out[k] = strings.Join(slices.Compact(all), "|")
	}
	return out
}

// carried checks that every hook of want the report does not name is in got with the same
// tools (or, where the target's event covers every tool, all of them).
func carried(t *testing.T, want, got map[sig]string, format string, args ...any) {
	t.Helper()
	for k, tools := range want {
		g, ok := got[k]
		require.True(t, ok, "lost a hook it did not report: %+v\n%s", k, fmt.Sprintf(format, args...))
		if g != "" {
			for _, tool := range strings.Split(tools, "|") {
				require.Contains(t, strings.Split(g, "|"), tool, "%+v: tools %q, got %q\n%s", k, tools, g, fmt.Sprintf(format, args...))
			}
		}
	}
}

// TestRoundTrip: every conformance and live-suite config converted to every target keeps
// every hook the report does not name (event, tools, command: the target's file read back
// in the target's dialect), and a target's own configs come back from every other target
// the same way; the reports are the golden files testdata/<config>.report.
func TestRoundTrip(t *testing.T) {
	pairs, back := 0, 0
	per := map[string]int{} // source agent → pairs
	for name, c := range configs(t) {
		agent, data := c[0], []byte(c[1])
		var report strings.Builder
		for _, to := range Targets {
			if to == agent {
				continue
			}
			there, err := Convert(agent, to, name, data)
			require.NoError(t, err, "%s -> %s", name, to)
			report.WriteString(there.Report(agent, to))
			lossy := map[string]bool{}
			for _, l := range there.Losses {
				if l.Feature != "answer" {
					lossy[l.Hook] = true
				}
			}
			want := signatures(t, agent, name, data, lossy)
			ctx := fmt.Sprintf("%s -> %s:\n%s\n%s", name, to, there.Report(agent, to), there.Output)
			carried(t, want, signatures(t, to, name+" ("+to+")", there.Output, nil), "%s", ctx)
			pairs++
			per[agent]++
			if !slices.Contains(Targets, agent) {
				continue
			}
			again, err := Convert(to, agent, name+" ("+to+")", there.Output)
			require.NoError(t, err, "%s -> %s -> %s", name, to, agent)
			carried(t, want, signatures(t, agent, name+" (back).json", again.Output, nil), "%s\nback:\n%s", ctx, again.Output)
			back++
		}
		golden := filepath.Join("testdata", strings.NewReplacer(":", "__", "/", "_").Replace(name)+".report")
		if *update {
			require.NoError(t, os.WriteFile(golden, []byte(report.String()), 0o644))
			continue
		}
		want, err := os.ReadFile(golden)
		require.NoError(t, err, "golden %s (go test ./core/convert -update)", golden)
		require.Equal(t, string(want), report.String(), golden)
	}
	t.Logf("%d source x target pairs converted, %d of them back again; per source: %v", pairs, back, per)
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
		vocab.Cursor: {`"beforeShellExecution"`, `"beforeReadFile"`, `"beforeSubmitPrompt"`, `"timeout": 3`,
			`"command": "hookexec adapt --from claude --to cursor 'g'"`, `"failClosed": true`},
		vocab.Windsurf: {`"pre_run_command"`, `"pre_read_code"`, `"pre_user_prompt"`, `"command": "hookexec adapt --from claude --to windsurf 'p'"`},
		vocab.Copilot: {`"preToolUse"`, `"matcher": "bash|view"`, `"userPromptSubmitted"`, `"timeoutSec": 3`,
			`"bash": "hookexec adapt --from claude --to copilot --event preToolUse 'g'"`,
			`"bash": "hookexec adapt --from claude --to copilot --event userPromptSubmitted 'p'"`},
		vocab.Factory: {`"matcher": "Execute|Read"`},
	} {
		r, err := Convert(vocab.Claude, to, "s.json", []byte(src))
		require.NoError(t, err)
		for _, w := range want {
			require.Contains(t, string(r.Output), w, fmt.Sprintf("%s:\n%s", to, r.Output))
		}
	}
}

// A Stop hook that keeps the agent going, or a PostToolUse block, lands on one of Windsurf's
// post_ hooks, which cannot block: the report must say so rather than let it look kept.
func TestBlocksWindsurfPostHooksCannotMakeAreReported(t *testing.T) {
	src := `{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"./keep-going.sh"}]}],"PostToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"./check.sh"}]}]}}`
	r, err := Convert(vocab.Claude, vocab.Windsurf, "s.json", []byte(src))
	require.NoError(t, err)
	report := r.Report("claude", "windsurf")
	require.Contains(t, report, "Windsurf's post_cascade_response hooks cannot block: a Stop block (keep the agent going)")
	require.Contains(t, report, "Windsurf's post_run_command hooks cannot block: a PostToolUse block (feedback to the model)")
	require.Contains(t, string(r.Output), "post_cascade_response")
}

// TestPolicyHooksAreReportedDropped: no agent runs a policy hook itself, so converting one
// to any agent's format drops it with a report saying where it still runs.
func TestPolicyHooksAreReportedDropped(t *testing.T) {
	src := `{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"policy","cel":"tool_input.command.contains(\"rm -rf\")","reason":"no"},{"type":"command","command":"./g.sh"}]}]}}`
	for _, to := range Targets {
		if to == vocab.Claude {
			continue
		}
		r, err := Convert(vocab.Claude, to, "s.json", []byte(src))
		require.NoError(t, err, to)
		require.True(t, r.Dropped(), to)
		report := r.Report("claude", to)
		require.Contains(t, report, "cannot run a policy hook itself, no agent can", to)
		require.Contains(t, report, "hookexec install", to)
		require.NotContains(t, string(r.Output), "rm -rf", to)
		require.Contains(t, string(r.Output), "g.sh", to)
	}
	// Claude Code's own format too: Claude Code does not run type policy.
	r, err := Convert(vocab.Cursor, vocab.Claude, "hooks.json", []byte(`{"version":1,"hooks":{"beforeShellExecution":[{"type":"policy","cel":"true"}]}}`))
	require.NoError(t, err)
	require.Contains(t, r.Report("cursor", "claude"), "cannot run a policy hook itself")
}
