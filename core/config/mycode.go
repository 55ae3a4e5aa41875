package config

import "regexp"

// mycodeVars are the variables mycode substitutes into a command before running it
// (seed 002's expandVariables), with the payload field each one reads.
var mycodeVars = map[string]string{
	"TOOL_NAME":  "tool_name",
	"FILE_PATH":  "tool_input.file_path",
	"SESSION_ID": "session_id",
	"CWD":        "cwd",
	"EXIT_CODE":  "exit_code",
}

var mycodeVarRE = regexp.MustCompile(`\$(?:\{(TOOL_NAME|FILE_PATH|SESSION_ID|CWD|EXIT_CODE)\}|(TOOL_NAME|FILE_PATH|SESSION_ID|CWD|EXIT_CODE)\b)`)

// CommandTemplate is the command with the dialect's own variable syntax turned into
// placeholders: for mycode, $FILE_PATH and ${FILE_PATH} (and the other four names) become
// <<tool_input.file_path>> and so on, so that the value is substituted and quoted for its
// context, as mycode does, even inside '...'. Other dialects return Command unchanged.
func (h *Hook) CommandTemplate() string {
	if h.Dialect != DialectMycode {
		return h.Command
	}
	return mycodeVarRE.ReplaceAllStringFunc(h.Command, func(m string) string {
		sub := mycodeVarRE.FindStringSubmatch(m)
		name := sub[1] + sub[2]
		return "<<" + mycodeVars[name] + ">>"
	})
}
