package config

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// hookexec as an agent's dispatcher: the hooks of the agent's own files and of managed
// settings are the agent's to run; the policy of every file still applies to hookexec's.
func TestAgentRuns(t *testing.T) {
	t.Parallel()
	project, home := t.TempDir(), t.TempDir()
	settings := filepath.Join(project, ".claude", "settings.json")
	managedHooks := filepath.Join(project, ".claude", "hookexec-hooks.json")
	policy := filepath.Join(home, "managed.json")
	write(t, settings, `{"allowedHttpHookUrls": ["https://ok.example/*"], "disabledHooks": ["off"],
		"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "hookexec hook --agent claude"}]}]}}`)
	write(t, managedHooks, `{"hooks": {"Stop": [{"hooks": [
		{"type": "command", "command": "echo mine"},
		{"type": "command", "command": "echo off", "name": "off"},
		{"type": "http", "url": "https://evil.example/x"}]}]}}`)
	write(t, policy, hookJSON("Stop", "", "echo managed"))
	set, err := Load(Options{Profile: "claude", ProjectDir: project, Home: home, ManagedSettings: policy,
		Sources: []string{settings, managedHooks}, AgentRuns: []string{settings}})
	require.NoError(t, err)
	state := map[string]string{}
	for _, h := range set.Hooks {
		key := h.Command
		if h.Type == "http" {
			key = h.URL
		}
		state[key] = h.Disabled
	}
	assert.Equal(t, map[string]string{
		"echo managed":                 RunByAgent,
		"hookexec hook --agent claude": RunByAgent,
		"echo mine":                    "",
		"echo off":                     "disabled by disabledHooks in " + settings,
		"https://evil.example/x":       "url https://evil.example/x is not in allowedHttpHookUrls",
	}, state)

	set, err = Load(Options{Profile: "claude", ProjectDir: project, Home: home, ManagedSettings: policy, Sources: []string{settings, managedHooks}})
	require.NoError(t, err)
	for _, h := range set.Hooks {
		assert.NotEqual(t, RunByAgent, h.Disabled, "without AgentRuns every hook is hookexec's")
	}
}
