package claude

// MCP for the live suite: vectors configure Claude Code with an MCP server (the
// mcpserver helper, $MCP, through --mcp-config), and hookexec's evaluator answers mcp_tool
// hooks by calling the same server, started with the same command line, so both sides'
// hooks get the answer of one real MCP server (tests/live/mcpclient).

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/hookexec/hookexec/tests/live/mcpclient"
	"github.com/hookexec/hookexec/tests/live/suite"
)

// vars gives a vector $MCP, the mcpserver helper, built once beside the suite's rec hook
// (in the suite's temp directory, removed when the suite ends), and the third-party hooks
// it names (thirdparty_test.go).
func vars(raw []byte) (map[string]string, error) {
	out := map[string]string{}
	if err := thirdPartyVars(raw, out); err != nil {
		return nil, err
	}
	if !bytes.Contains(raw, []byte("$MCP")) {
		return out, nil
	}
	bin, err := mcpclient.Build(filepath.Dir(suite.Rec()))
	out["$MCP"] = bin
	return out, err
}

// mcpServers reads the MCP servers Claude Code was given: the files after --mcp-config in
// the vector's args (vectors use those with --strict-mcp-config, so no other server
// counts); the first definition of a name wins.
func mcpServers(v suite.Vector) (map[string]mcpclient.Server, error) {
	var files []string
	for i, a := range v.Args {
		if a == "--mcp-config" && i+1 < len(v.Args) {
			files = append(files, v.Args[i+1])
		}
	}
	out := map[string]mcpclient.Server{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		var cfg struct {
			MCPServers map[string]mcpclient.Server `json:"mcpServers"`
		}
		if err := json.Unmarshal(data, &cfg); err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		for name, s := range cfg.MCPServers {
			if _, ok := out[name]; !ok {
				out[name] = s
			}
		}
	}
	return out, nil
}
