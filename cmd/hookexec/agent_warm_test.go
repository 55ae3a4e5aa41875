package main

import (
	"encoding/json"
	"maps"
	"testing"
)

// warmCases is what warmAndNoMatch needs of an agent of installCases beyond its files: the
// variable that names its project to the dispatcher ("": the payload's cwd, as Codex) and
// a call none of its hooks matches: another tool, or for Gemini CLI and Qwen Code another
// event, since they read a matcher as an unanchored regex (run_shell_command also selects
// xrun_shell_commandx), which the index does not list (docs/performance.md, the no-match
// path), so their guarded event goes to the daemon whatever the tool.
var warmCases = map[string]struct{ projectVar, otherTool, otherEvent string }{
	"claude": {"CLAUDE_PROJECT_DIR", "Read", ""},
	"codex":  {"", "web_search", ""},
	"gemini": {"GEMINI_PROJECT_DIR", "read_file", "AfterTool"},
	"qwen":   {"QWEN_PROJECT_DIR", "read_file", "PostToolUse"},
}

// TestDaemonWarmAndNoMatchEveryAgent: issue 30's warmth and no-match path for every agent
// of installCases, installed with the real binary and called through the real C client and
// daemon (the other agents install supports have tests of their own: agent_copilot_test.go,
// agent_auggie_test.go, agent_scoped_test.go, agent_opencode_test.go). The matching call is
// the case's first fire, its `rm -rf` guard.
func TestDaemonWarmAndNoMatchEveryAgent(t *testing.T) {
	t.Parallel()
	for _, c := range installCases {
		w, ok := warmCases[c.agent]
		if !ok {
			t.Fatalf("%s: no warmCases entry", c.agent)
		}
		t.Run(c.agent, func(t *testing.T) {
			t.Parallel()
			files := map[string]string{}
			for rel, text := range c.files {
				files["project/"+rel] = text
			}
			s := installedDaemonScenario(t, c.agent, files)
			if w.projectVar != "" {
				s.env = append(s.env, w.projectVar+"="+s.project)
			}
			guard := c.fires[0].payload
			warmAndNoMatch(t, s, []string{"--agent", c.agent}, func(session string, matching bool) string {
				p := maps.Clone(c.envelope)
				if p == nil {
					p = map[string]any{}
				}
				maps.Copy(p, guard)
				if !matching {
					p["tool_name"] = w.otherTool
					if w.otherEvent != "" {
						p["hook_event_name"] = w.otherEvent
					}
				}
				p["session_id"], p["cwd"] = session, s.project
				b, err := json.Marshal(p)
				if err != nil {
					t.Fatal(err)
				}
				return string(b)
			}, "no rm -rf here")
		})
	}
}
