package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// opencodeGuard is a project's .opencode/hooks.json (Kilo: .kilo/hooks.json): Claude
// Code's shape, "Bash" selecting opencode's bash through the tool vocabulary.
const opencodeGuard = `{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
  {"type": "command", "command": "grep -q 'rm -rf' && { echo 'no rm -rf here' >&2; exit 2; } || exit 0"}]}]}}
`

// TestPluginAgentsDaemonWarmAndNoMatch: issue 30's warmth and no-match path for the agents
// reached through hookexec's plugin (opencode, Kilo Code). The C client runs with the argv
// install wrote into the plugin, the environment and working directory the plugin gives it
// (its project variable, the project as cwd) and the plugin's payloads (payloadOf in
// core/install/opencode.js).
func TestPluginAgentsDaemonWarmAndNoMatch(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ agent, dir, projectVar string }{
		{"opencode", ".opencode", "OPENCODE_PROJECT_DIR"},
		{"kilo", ".kilo", "KILO_PROJECT_DIR"},
	} {
		t.Run(c.agent, func(t *testing.T) {
			t.Parallel()
			s := installedDaemonScenario(t, c.agent, map[string]string{"project/" + c.dir + "/hooks.json": opencodeGuard})
			// The plugin's dispatcher is hookexec-hook --agent X, or hookexec hook --agent X
			// where no C client is installed beside it (as here): its arguments are the same.
			args := pluginArgs(t, s, c.dir)[1:]
			if args[0] == "hook" {
				args = args[1:]
			}
			require.Equal(t, []string{"--agent", c.agent}, args)
			s.env = append(s.env, c.projectVar+"="+s.project)
			args = append(args, "--timeout-ms", "65000") // as dispatch() in the plugin adds it
			warmAndNoMatch(t, s, args, func(session string, matching bool) string {
				tool, input := "bash", map[string]any{"command": "rm -rf /", "description": "clean"}
				if !matching {
					tool, input = "read", map[string]any{"filePath": filepath.Join(s.project, "README.md")}
				}
				b, err := json.Marshal(map[string]any{"session_id": session, "cwd": s.project, "hook_event_name": "PreToolUse",
					"agent": c.agent, "tool_name": tool, "tool_input": input, "tool_use_id": "call_" + session})
				require.NoError(t, err)
				return string(b)
			}, "no rm -rf here")
		})
	}
}

// pluginArgs reads the dispatcher argv install wrote into the agent's plugin file.
func pluginArgs(t *testing.T, s *scenario, dir string) []string {
	files, err := filepath.Glob(filepath.Join(s.project, dir, "plugin*", "*.js"))
	require.NoError(t, err)
	require.Len(t, files, 1, "install wrote one plugin")
	data, err := os.ReadFile(files[0])
	require.NoError(t, err)
	const mark = "const DISPATCHER = "
	_, rest, ok := strings.Cut(string(data), mark)
	require.True(t, ok, "the plugin names its dispatcher")
	line, _, _ := strings.Cut(rest, ";\n")
	var argv []string
	require.NoError(t, json.Unmarshal([]byte(line), &argv), line)
	require.NotEmpty(t, argv)
	return argv
}
