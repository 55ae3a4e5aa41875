package config

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/valyala/fastjson"
)

func TestDetect(t *testing.T) {
	cases := []struct {
		name, path, doc string
		want            Dialect
	}{
		{"claude nested", "/p/settings.json", `{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"x"}]}]}}`, DialectClaude},
		{"claude settings without hooks", "/p/settings.json", `{"disableAllHooks":true}`, DialectClaude},
		{"autohand list", "/p/config.json", `{"hooks":{"hooks":[{"event":"pre-tool","command":"x"}]}}`, DialectAutohand},
		{"autohand toggle only", "/p/config.json", `{"hooks":{"enabled":false}}`, DialectAutohand},
		{"autoagent by settings", "/p/config.json", `{"providers":["claude"],"hooks":{}}`, DialectAutoAgent},
		{"autoagent by built-in", "/p/x.json", `{"hooks":{"PostExecutionEnd":[{"type":"git-commit","message":"m"}]}}`, DialectAutoAgent},
		{"autoagent by lifecycle event", "/p/x.json", `{"hooks":{"PreExecutionStart":[{"type":"command","command":"x"}]}}`, DialectAutoAgent},
		{"autoagent by directory", "/p/.autoagent/config.json", `{"hooks":{"Stop":[{"type":"command","command":"x"}]}}`, DialectAutoAgent},
		{"mycode by directory", "/p/.gen/settings.json", `{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"x"}]}]}}`, DialectMycode},
		{"mycode by blocking", "/p/settings.json", `{"hooks":{"PostToolUse":[{"matcher":"Write","type":"command","command":"x","blocking":true}]}}`, DialectMycode},
		{"hooks of the wrong type", "/p/x.json", `{"hooks":[1]}`, DialectUnknown},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			require.Equal(t, c.want, detect(c.path, fastjson.MustParse(c.doc)))
		})
	}
	require.Equal(t, DialectIteratr, detect("/p/.iteratr.hooks.yml", nil))
	require.Equal(t, DialectIteratr, detect("/p/hooks.yaml", nil))
	require.Equal(t, DialectUnknown, detect("/p/hooks.txt", nil))
}

func TestEventName(t *testing.T) {
	require.Equal(t, "pre-tool", DialectAutohand.EventName("PreToolUse", "PreToolUse"))
	require.Equal(t, "pre-tool", DialectAutohand.EventName("BeforeTool", "PreToolUse"))
	require.Equal(t, "post-response", DialectAutohand.EventName("post-response", "Stop"))
	require.Equal(t, "stop", DialectAutohand.EventName("Stop", "Stop"))
	require.Equal(t, "PreCompact", DialectAutohand.EventName("PreCompact", "PreCompact"), "no autohand name: as fired")
	require.Equal(t, "on_error", DialectIteratr.EventName("SessionError", "SessionError"))
	require.Equal(t, "pre-tool", DialectClaude.EventName("pre-tool", "PreToolUse"), "Claude-shaped hooks see the host's spelling")
}

func writeAt(t *testing.T, root, rel, content string) string {
	t.Helper()
	p := filepath.Join(root, rel)
	write(t, p, content)
	return p
}

func TestProfilesFindTheirFiles(t *testing.T) {
	root := t.TempDir()
	project, home := filepath.Join(root, "p"), filepath.Join(root, "h")
	writeAt(t, home, ".autohand/config.json", `{"hooks":{"hooks":[{"event":"stop","command":"a"}]}}`)
	writeAt(t, project, ".autoagent/config.json", `{"hooks":{"Stop":[{"type":"command","command":"b"}]}}`)
	writeAt(t, home, ".autoagent/config.json", `{"hooks":{"Stop":[{"type":"command","command":"c"}]}}`)
	writeAt(t, project, ".iteratr.hooks.yml", "hooks:\n  session_end:\n    - command: d\n")
	writeAt(t, project, ".gen/settings.json", `{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"e"}]}]}}`)
	writeAt(t, project, ".claude/settings.json", `{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"f"}]}]}}`)
	writeAt(t, home, ".claude/settings.json", `{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"g"}]}]}}`)
	commands := func(profile string) (out []string) {
		s, err := Load(Options{Profile: profile, ProjectDir: project, Home: home})
		require.NoError(t, err)
		require.Empty(t, s.Warnings)
		for _, h := range s.Hooks {
			out = append(out, h.Command+"/"+h.Dialect.String()+"/"+h.Timeout.String())
		}
		return out
	}
	require.Equal(t, []string{"a/autohand/5s"}, commands("autohand"))
	require.Equal(t, []string{"b/autoagent/1m0s", "c/autoagent/1m0s"}, commands("autoagent"))
	require.Equal(t, []string{"d/iteratr/30s"}, commands("iteratr"))
	require.Equal(t, []string{"e/mycode/1m0s", "f/mycode/1m0s", "g/mycode/1m0s"}, commands("mycode"))
	require.Equal(t, []string{"f/claude/10m0s", "g/claude/10m0s"}, commands("claude"))
}

func TestHostDefaultTimeoutWinsOverDialects(t *testing.T) {
	root := t.TempDir()
	src := writeAt(t, root, "c.json", `{"hooks":{"hooks":[{"event":"stop","command":"a"},{"event":"stop","command":"b","timeout":250}]}}`)
	s, err := Load(Options{ProjectDir: root, Home: root, Sources: []string{src}, DefaultTimeout: 7 * time.Second})
	require.NoError(t, err)
	require.Equal(t, 7*time.Second, s.Hooks[0].Timeout)
	require.Equal(t, 250*time.Millisecond, s.Hooks[1].Timeout, "a hook's own timeout, in its dialect's unit")
}

func TestIteratrWarnings(t *testing.T) {
	root := t.TempDir()
	src := writeAt(t, root, ".iteratr.hooks.yml", "version: 2\nextra: 1\nhooks:\n  pre_iteration:\n    - command: a\n      color: red\n    - timeout: 5\n  on_start:\n    - command: b\n")
	s, err := Load(Options{ProjectDir: root, Home: root, Sources: []string{src}})
	require.NoError(t, err)
	var msgs []string
	for _, w := range s.Warnings {
		msgs = append(msgs, w.String())
	}
	require.Equal(t, []string{
		src + ": version 2 is not 1; read as version 1",
		src + `: unknown field "extra"; ignored`,
		src + ": hooks.on_start is not an iteratr hook type (want one of [session_start pre_iteration post_iteration session_end on_task_complete on_error]); ignored",
		src + `: hook hooks.pre_iteration[0]: unknown field "color"; ignored`,
		src + `: hook hooks.pre_iteration[1]: no "command"`,
	}, msgs)
	require.Len(t, s.Hooks, 2)
	require.False(t, s.Hooks[1].Enabled())
}

func TestMycodeCommandTemplate(t *testing.T) {
	h := Hook{Dialect: DialectMycode, Command: `echo '$FILE_PATH' "${TOOL_NAME}" $SESSION_ID $CWD $EXIT_CODE $FILE_PATHS $HOME`}
	require.Equal(t, `echo '<<tool_input.file_path>>' "<<tool_name>>" <<session_id>> <<cwd>> <<exit_code>> $FILE_PATHS $HOME`, h.CommandTemplate())
	h.Dialect = DialectClaude
	require.Equal(t, h.Command, h.CommandTemplate(), "other dialects leave $VARs to the shell")
}
