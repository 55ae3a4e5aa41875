package conformance

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hookexec/hookexec/core/engine"
)

// TestExampleConfigs loads examples/configs/<system>/ (verbatim copies of the seed documents'
// examples) unchanged through each system's profile: every file loads without a warning with
// the seed's number of hooks, and a few side-effect-free hooks fire as the seeds say. HOME is
// a temp dir so that hooks writing under ~ stay out of the real home; nothing fires that
// would touch the repository (AutoAgent's git-commit, validate-execution.sh).
func TestExampleConfigs(t *testing.T) {
	type fire struct{ event, payload, stdout string } // stdout: what some hook's stdout contains
	tests := []struct {
		name, system, profile string
		sources               []string       // explicit files instead of the profile's locations
		files                 map[string]int // file (relative to the system's dir) → hooks it holds
		enabled               int            // enabled hooks in all, -1 to skip
		fires                 []fire
	}{
		{name: "autohand", system: "autohand", profile: "autohand",
			files: map[string]int{"home/.autohand/config.json": 15}, enabled: 14, // smart-commit ships disabled
			fires: []fire{{"permission-request", `{"tool_name":"read_file","path":"src/a.ts"}`, `{"decision": "allow", "reason": "Read operations are safe"}` + "\n"}}},
		{name: "autoagent", system: "autoagent", profile: "autoagent",
			files: map[string]int{"project/.autoagent/config.json": 5}, enabled: 5,
			fires: []fire{{"PostExecutionStart", `{"issueNumber":1,"issueTitle":"Implement user authentication"}`,
				`"issueTitle":"Implement user authentication"`}}},
		{name: "mycode", system: "mycode", profile: "mycode",
			files: map[string]int{"project/.gen/settings.json": 2, "project/.claude/settings.json": 2}, enabled: -1,
			fires: []fire{
				{"PostToolUse", `{"tool_name":"Write","tool_input":{"file_path":"src/component.tsx"}}`, "File modified: src/component.tsx\n"},
				{"PostToolUse", `{"tool_name":"Edit","tool_input":{"file_path":"src/component.tsx"}}`, "run-linter: src/component.tsx\n"},
			}},
		{name: "mycode-user-experience", system: "mycode", profile: "mycode", sources: []string{"project/.mycode/settings.json"},
			files: map[string]int{"project/.mycode/settings.json": 2}, enabled: 2},
		{name: "iteratr", system: "iteratr", profile: "iteratr",
			files: map[string]int{"project/.iteratr.hooks.yml": 7}, enabled: 7,
			fires: []fire{{"on_task_complete", `{"session":"demo","task_id":"T-7","task_content":"add login"}`, "validate: task T-7\n"}}},
		{name: "cli-agent", system: "cli-agent", profile: "cli-agent",
			files: map[string]int{"project/.config/agent/settings.json": 11}, enabled: 11,
			fires: []fire{{"PreToolUse", `{"tool_name":"bash_execute","tool_args":{"command":"ls"}}`, "About to execute bash command\n"}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			root, err := filepath.Abs(filepath.Join("..", "..", "examples", "configs", tc.system))
			require.NoError(t, err)
			o := engine.Options{
				Profile: tc.profile, ProjectDir: filepath.Join(root, "project"), Home: filepath.Join(root, "home"),
				Env: map[string]string{"HOME": t.TempDir()},
			}
			for _, s := range tc.sources {
				o.Sources = append(o.Sources, filepath.Join(root, s))
			}
			e, err := engine.Open(o)
			require.NoError(t, err)
			defer e.Close()

			c, err := e.Config()
			require.NoError(t, err)
			require.Empty(t, c.Warnings, "the seed's examples load without a warning")
			for file, n := range tc.files {
				path := filepath.Join(root, file)
				found := false
				for _, s := range c.Sources {
					if s.Path == path {
						found = true
						require.Equal(t, "loaded", s.Status, file)
						require.Equal(t, n, s.Hooks, file)
					}
				}
				require.True(t, found, "%s is not among the sources", file)
			}
			if tc.enabled >= 0 {
				enabled := 0
				for _, h := range c.Hooks {
					if h.Enabled {
						enabled++
					}
				}
				require.Equal(t, tc.enabled, enabled)
			}

			for _, f := range tc.fires {
				r, err := e.Fire(f.event, []byte(f.payload))
				require.NoError(t, err)
				require.NotZero(t, r.Matched, f.event)
				found := false
				for _, h := range r.Hooks {
					found = found || strings.Contains(h.Stdout, f.stdout)
				}
				require.True(t, found, "%s: no hook printed %q: %s", f.event, f.stdout, r.JSON())
			}
		})
	}
}
