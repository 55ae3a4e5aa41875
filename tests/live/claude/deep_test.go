package claude

import (
	"encoding/json"
	"maps"
)

// deepDepth is how deep the deep vector nests its tool input: issue 25's hole 6 (about 300
// levels made `hookexec hook --agent claude` exit 1 without running a hook).
const deepDepth = 300

// generated are the suite's generated vectors: the legacy fields (legacy_test.go) and the
// deep tool input.
func generated() (map[string][]byte, error) {
	out, err := legacyVectors()
	if err != nil {
		return nil, err
	}
	deep, err := deepVectors()
	if err != nil {
		return nil, err
	}
	maps.Copy(out, deep)
	return out, nil
}

// deepVectors: a deny-all PreToolUse guard and an MCP tool with a free-form argument (the
// live server's store {data}), called with valid JSON nested deepDepth deep. Claude Code
// runs the guard, which denies, so the tool never runs; through the dispatcher (make
// test-dispatch) the same must hold, or a deny-all guard becomes an allow once hookexec is
// installed. The engine must read the payload too (the plain run fires it through hookexec).
func deepVectors() (map[string][]byte, error) {
	var data any = "leaf"
	for range deepDepth {
		data = map[string]any{"a": data}
	}
	v := map[string]any{
		"description": "A deny-all guard and an MCP tool called with a free-form argument nested 300 deep: the tool never runs, natively or through hookexec install (issue 25 hole 6; generated: deep_test.go).",
		"args":        []any{"--mcp-config", "$ROOT/mcp.json", "--strict-mcp-config"},
		"script":      []any{map[string]any{"tools": []any{map[string]any{"name": "mcp__live__store", "input": map[string]any{"data": data}}}}},
		"files": map[string]any{
			"root/mcp.json": map[string]any{"mcpServers": map[string]any{"live": map[string]any{"command": "$MCP", "args": []any{"-log", "$ROOT/mcp.log"}}}},
			"project/.claude/settings.json": map[string]any{"hooks": map[string]any{
				"PreToolUse": []any{hook("$REC deny-all -err 'deny-all guard' -exit 2")}}},
		},
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return map[string][]byte{"deep_tool_input_mcp": raw}, nil
}
