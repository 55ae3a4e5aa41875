package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The agents whose every scope's dispatcher entry runs (Cline's dispatcher files, Droid's
// hooks.json): installed with the C client, their calls reach the daemon, a second session
// of the project is served by the same warm engine, and a call no hook can match is
// answered from the no-match index without the daemon, with the answer the Go dispatcher
// gives; a change that makes it match sends it to the daemon again.
func TestScopedAgentsThroughTheDaemon(t *testing.T) {
	t.Parallel()
	fast := buildFastClient(t)
	goBin := filepath.Join(filepath.Dir(fast), "hookexec")
	for _, tc := range []struct {
		agent string
		files map[string]string
		// entry is the dispatcher entry of event as the agent runs it: argv.
		entry func(s *scenario, event string) []string
		// payload of a call; matched says whether it is a call the hook matches (where the
		// agent has matchers).
		payload func(s *scenario, session string, matched bool) string
		env     string // the variable that gives the project, if any
		ran     string // in the stdout of the matched call: its hook ran
		// unmatch makes the matched call match no hook; rematch undoes it.
		unmatch, rematch func(s *scenario)
	}{{
		agent: "cline",
		files: map[string]string{"project/.clinerules/hooks/PreToolUse": "#!/bin/sh\necho '{\"contextModification\": \"guard ran\"}'\n",
			"project/.clinerules/hooks/PostToolUse": "#!/bin/sh\necho '{\"contextModification\": \"post ran\"}'\n"},
		entry: func(s *scenario, event string) []string {
			return []string{"sh", filepath.Join(s.project, ".clinerules/hooks", event)}
		},
		payload: func(s *scenario, session string, matched bool) string {
			b, _ := json.Marshal(map[string]any{"hookName": "tool_result", "taskId": session, "workspaceRoots": []string{s.project},
				"tool_result": map[string]any{"id": "c1", "name": "run_commands", "input": map[string]any{"commands": []string{"ls"}}}})
			return string(b)
		},
		ran: "post ran",
		unmatch: func(s *scenario) { // the PostToolUse hook leaves hookexec-hooks/
			require.NoError(t, os.Rename(filepath.Join(s.project, ".clinerules/hooks/hookexec-hooks/PostToolUse"), filepath.Join(s.root, "PostToolUse")))
		},
		rematch: func(s *scenario) {
			require.NoError(t, os.Rename(filepath.Join(s.root, "PostToolUse"), filepath.Join(s.project, ".clinerules/hooks/hookexec-hooks/PostToolUse")))
		},
	}, {
		agent: "factory",
		files: map[string]string{"project/.factory/hooks.json": `{"PostToolUse": [{"matcher": "Execute", "hooks": [{"type": "command", "command": "echo '{\"hookSpecificOutput\": {\"hookEventName\": \"PostToolUse\", \"additionalContext\": \"post ran\"}}'"}]}]}`},
		entry: func(s *scenario, event string) []string {
			var doc map[string][]struct {
				Hooks []struct{ Command string }
			}
			require.NoError(t, json.Unmarshal([]byte(s.read("project/.factory/hooks.json")), &doc))
			return []string{"sh", "-c", doc[event][0].Hooks[0].Command}
		},
		payload: func(s *scenario, session string, matched bool) string {
			tool := map[bool]string{true: "Execute", false: "Read"}[matched]
			b, _ := json.Marshal(map[string]any{"hook_event_name": "PostToolUse", "session_id": session, "cwd": s.project,
				"tool_name": tool, "tool_input": map[string]any{"command": "ls"}, "tool_response": "ok"})
			return string(b)
		},
		env: "FACTORY_PROJECT_DIR",
		ran: "post ran",
		// Droid's matchers are unanchored regexes, which the index does not list: a call
		// the index answers is one of an event left without hooks.
		unmatch: func(s *scenario) {
			m := "project/.factory/hookexec-hooks.hooks.json"
			s.write(m, strings.Replace(s.read(m), `"PostToolUse"`, `"Stop"`, 1))
		},
		rematch: func(s *scenario) {
			m := "project/.factory/hookexec-hooks.hooks.json"
			s.write(m, strings.Replace(s.read(m), `"Stop"`, `"PostToolUse"`, 1))
		},
	}} {
		t.Run(tc.agent, func(t *testing.T) {
			t.Parallel()
			s := newScenario(t)
			for rel, text := range tc.files {
				path := s.write(rel, text)
				require.NoError(t, os.Chmod(path, 0o755))
			}
			install := exec.Command(goBin, "--project", s.project, "--home", s.home, "install", "--agent", tc.agent)
			install.Env = append(os.Environ(), "HOME="+s.home)
			out, err := install.CombinedOutput()
			require.NoError(t, err, string(out))
			run := filepath.Join(s.root, "run")
			s.env = append(s.env, "HOOKEXEC_DAEMON=", "HOOKEXEC_RUNTIME_DIR="+run, "HOOKEXEC_DAEMON_IDLE=10m")
			t.Cleanup(func() { _ = s.runQuiet("daemon", "--ask", "shutdown") })
			call := func(session, payload string, extra ...string) output {
				argv := tc.entry(s, "PostToolUse")
				cmd := exec.Command(argv[0], argv[1:]...)
				cmd.Dir = s.project
				cmd.Env = append(append(os.Environ(), "HOME="+s.home, "HOOKEXEC_LOG=", "HOOKEXEC_AUDIT_LOG=", "SESSION_ONLY="+session), s.env...)
				if tc.env != "" {
					cmd.Env = append(cmd.Env, tc.env+"="+s.project)
				}
				cmd.Env = append(cmd.Env, extra...)
				return runCmd(t, cmd, payload)
			}
			assert.Contains(t, strings.Join(argvOf(tc.entry(s, "PostToolUse")), " ")+s.read(dispatcherFile(tc.agent)), "hookexec-hook --agent "+tc.agent+" --scope project")

			first := call("s1", tc.payload(s, "s1", true))
			assert.Contains(t, first.stdout, tc.ran, first.stderr)
			eventually(t, "the daemon started by the first call", func() bool { _, ok := s.status(); return ok })
			for _, session := range []string{"s2", "s3"} {
				before, _ := s.status()
				o := call(session, tc.payload(s, session, true))
				assert.Contains(t, o.stdout, tc.ran, o.stderr)
				after, _ := s.status()
				assert.Equal(t, before.Requests+1, after.Requests, "session %s through the daemon", session)
				assert.Equal(t, 1, after.Engines, "session %s served by the same engine", session)
			}

			if tc.unmatch != nil {
				tc.unmatch(s)
			}
			time.Sleep(2100 * time.Millisecond) // the files settle (nomatch.Settle)
			none := tc.payload(s, "s4", tc.unmatch != nil)
			goAnswer := s.hookWithArgs(goBin, none, tc.agent, tc.env)
			assert.NotContains(t, goAnswer.stdout, tc.ran)
			eventually(t, "the index of this agent and scope", func() bool {
				idx, _ := filepath.Glob(filepath.Join(run, "nomatch-*"))
				if len(idx) == 0 {
					return false
				}
				call("s4", none) // a load retries an unsettled index
				return true
			})
			before, _ := s.status()
			for range 3 {
				o := call("s5", none)
				assert.Equal(t, goAnswer, o, "the client's no-match answer is the dispatcher's")
			}
			after, _ := s.status()
			assert.Equal(t, before.Requests, after.Requests, "answered from the index, not by the daemon")

			if tc.rematch != nil {
				tc.rematch(s)
				o := call("s6", none)
				assert.Contains(t, o.stdout, tc.ran, "the hook moved back runs again: the index no longer holds")
			}
		})
	}
}

func argvOf(a []string) []string { return a }

// dispatcherFile is the file holding the agent's project dispatcher entry.
func dispatcherFile(agent string) string {
	if agent == "cline" {
		return "project/.clinerules/hooks/PostToolUse"
	}
	return "project/.factory/hooks.json"
}

// hookWithArgs runs the Go dispatcher for agent's project scope.
func (s *scenario) hookWithArgs(bin, payload, agent, projectEnv string) output {
	s.t.Helper()
	cmd := exec.Command(bin, "hook", "--agent", agent, "--scope", "project")
	cmd.Dir = s.project
	cmd.Env = append(append(os.Environ(), "HOME="+s.home, "HOOKEXEC_LOG=", "HOOKEXEC_AUDIT_LOG="), s.env...)
	if projectEnv != "" {
		cmd.Env = append(cmd.Env, projectEnv+"="+s.project)
	}
	return runCmd(s.t, cmd, payload)
}
