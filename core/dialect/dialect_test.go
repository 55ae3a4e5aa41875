package dialect

import (
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/valyala/fastjson"
)

func TestDetect(t *testing.T) {
	cases := []struct {
		name, path, doc string
		want            *Dialect
	}{
		{"claude nested", "/p/settings.json", `{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"x"}]}]}}`, Claude},
		{"claude settings without hooks", "/p/settings.json", `{"disableAllHooks":true}`, Claude},
		{"autohand list", "/p/config.json", `{"hooks":{"hooks":[{"event":"pre-tool","command":"x"}]}}`, Autohand},
		{"autohand toggle only", "/p/config.json", `{"hooks":{"enabled":false}}`, Autohand},
		{"autoagent by settings", "/p/config.json", `{"providers":["claude"],"hooks":{}}`, AutoAgent},
		{"autoagent by built-in", "/p/x.json", `{"hooks":{"PostExecutionEnd":[{"type":"git-commit","message":"m"}]}}`, AutoAgent},
		{"autoagent by lifecycle event", "/p/x.json", `{"hooks":{"PreExecutionStart":[{"type":"command","command":"x"}]}}`, AutoAgent},
		{"autoagent by directory", "/p/.autoagent/config.json", `{"hooks":{"Stop":[{"type":"command","command":"x"}]}}`, AutoAgent},
		{"mycode by directory", "/p/.gen/settings.json", `{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"x"}]}]}}`, Mycode},
		{"mycode by blocking", "/p/settings.json", `{"hooks":{"PostToolUse":[{"matcher":"Write","type":"command","command":"x","blocking":true}]}}`, Mycode},
		{"hooks of the wrong type", "/p/x.json", `{"hooks":[1]}`, (*Dialect)(nil)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			require.Equal(t, c.want, Detect(c.path, fastjson.MustParse(c.doc)))
		})
	}
	require.Equal(t, Iteratr, Detect("/p/.iteratr.hooks.yml", nil))
	require.Equal(t, Iteratr, Detect("/p/hooks.yaml", nil))
	require.Equal(t, (*Dialect)(nil), Detect("/p/hooks.txt", nil))
}

func TestEventName(t *testing.T) {
	require.Equal(t, "pre-tool", Autohand.EventName("PreToolUse", "PreToolUse"))
	require.Equal(t, "pre-tool", Autohand.EventName("BeforeTool", "PreToolUse"))
	require.Equal(t, "post-response", Autohand.EventName("post-response", "Stop"))
	require.Equal(t, "stop", Autohand.EventName("Stop", "Stop"))
	require.Equal(t, "PreCompact", Autohand.EventName("PreCompact", "PreCompact"), "no autohand name: as fired")
	require.Equal(t, "on_error", Iteratr.EventName("SessionError", "SessionError"))
	require.Equal(t, "pre-tool", Claude.EventName("pre-tool", "PreToolUse"), "Claude-shaped hooks see the host's spelling")
}

func TestMycodeCommandTemplate(t *testing.T) {
	h := Hook{Dialect: Mycode, Command: `echo '$FILE_PATH' "${TOOL_NAME}" $SESSION_ID $CWD $EXIT_CODE $FILE_PATHS $HOME`}
	require.Equal(t, `echo '<<tool_input.file_path>>' "<<tool_name>>" <<session_id>> <<cwd>> <<exit_code>> $FILE_PATHS $HOME`, h.CommandTemplate())
	h.Dialect = Claude
	require.Equal(t, h.Command, h.CommandTemplate(), "other dialects leave $VARs to the shell")
}
