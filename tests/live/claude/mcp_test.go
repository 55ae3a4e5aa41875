package claude

// MCP for the live suite: vectors configure Claude Code with an MCP server (the
// mcpserver helper, $MCP, through --mcp-config), and hookexec's evaluator answers mcp_tool
// hooks by calling the same server, started with the same command line, so both sides'
// hooks get the answer of one real MCP server.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hookexec/hookexec/core/engine"
	"github.com/hookexec/hookexec/tests/live/livetest"
	"github.com/hookexec/hookexec/tests/live/suite"
)

var mcpBuild struct {
	once sync.Once
	bin  string
	err  error
}

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
	mcpBuild.once.Do(func() {
		out := filepath.Join(filepath.Dir(suite.Rec()), "mcpserver")
		cmd := exec.Command("go", "build", "-o", out, "./mcpserver")
		if b, err := cmd.CombinedOutput(); err != nil {
			mcpBuild.err = fmt.Errorf("building mcpserver: %v: %s", err, b)
			return
		}
		mcpBuild.bin = out
	})
	out["$MCP"] = mcpBuild.bin
	return out, mcpBuild.err
}

// mcpServerConfig is one entry of an MCP config file's mcpServers (stdio servers only).
type mcpServerConfig struct {
	Command string            `json:"command"`
	Args    []string          `json:"args"`
	Env     map[string]string `json:"env"`
}

// mcpServers reads the MCP servers Claude Code was given: the files after --mcp-config in
// the vector's args (vectors use those with --strict-mcp-config, so no other server
// counts); the first definition of a name wins.
func mcpServers(v suite.Vector) (map[string]mcpServerConfig, error) {
	var files []string
	for i, a := range v.Args {
		if a == "--mcp-config" && i+1 < len(v.Args) {
			files = append(files, v.Args[i+1])
		}
	}
	out := map[string]mcpServerConfig{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		var cfg struct {
			MCPServers map[string]mcpServerConfig `json:"mcpServers"`
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

// mcpEvaluate answers an mcp_tool hook as a host would: it starts the hook's server as the
// MCP config says, calls the tool with the hook's filled input and reads the result like a
// command's stdout; an error result, or a server that is not configured, is a
// non-blocking error.
func mcpEvaluate(ctx context.Context, servers map[string]mcpServerConfig, hook []byte) (engine.Outcome, error) {
	var def struct {
		Server string         `json:"server"`
		Tool   string         `json:"tool"`
		Input  map[string]any `json:"input"`
	}
	if err := json.Unmarshal(hook, &def); err != nil {
		return engine.Outcome{}, err
	}
	s, ok := servers[def.Server]
	if !ok {
		return engine.Outcome{}, fmt.Errorf("MCP server %s is not configured", def.Server)
	}
	cmd := exec.Command(s.Command, s.Args...)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH")}
	for k, val := range s.Env {
		cmd.Env = append(cmd.Env, k+"="+val)
	}
	cmd.Env = append(cmd.Env, "HOOKEXEC_LIVE_MCP_SIDE=hookexec")
	client := mcp.NewClient(&mcp.Implementation{Name: "hookexec-live-test", Version: "1.0.0"}, nil)
	session, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		return engine.Outcome{}, fmt.Errorf("MCP server %s: %w", def.Server, err)
	}
	defer session.Close()
	res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: def.Tool, Arguments: def.Input})
	if err != nil {
		return engine.Outcome{}, fmt.Errorf("MCP server %s, tool %s: %w", def.Server, def.Tool, err)
	}
	var text []string
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			text = append(text, t.Text)
		}
	}
	if res.IsError {
		return engine.Outcome{}, fmt.Errorf("MCP server %s, tool %s: %s", def.Server, def.Tool, strings.Join(text, "\n"))
	}
	return engine.Outcome{Stdout: []byte(strings.Join(text, "\n"))}, nil
}

// compareMCPCalls compares the calls the hooks of each side made to the vector's MCP
// servers (their -log file, $ROOT/mcp.log): the same tools with the same filled-in
// arguments, in any order. The model's own calls (the echo tool) are Claude Code's only.
func compareMCPCalls(tree livetest.Tree) []string {
	f, err := os.Open(filepath.Join(tree.Root, "mcp.log"))
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		return []string{err.Error()}
	}
	defer f.Close()
	calls := map[string][]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var c struct {
			Side      string          `json:"side"`
			Tool      string          `json:"tool"`
			Arguments json.RawMessage `json:"arguments"`
		}
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			return []string{"mcp.log: " + err.Error()}
		}
		if c.Tool == "echo" || c.Tool == "store" {
			continue // the model's tools, not the hooks'
		}
		side := c.Side
		if side == "" {
			side = "claude"
		}
		calls[side] = append(calls[side], c.Tool+" "+string(c.Arguments))
	}
	sort.Strings(calls["claude"])
	sort.Strings(calls["hookexec"])
	if !reflect.DeepEqual(calls["claude"], calls["hookexec"]) {
		return []string{fmt.Sprintf("mcp_tool calls: claude %q, hookexec %q", calls["claude"], calls["hookexec"])}
	}
	return nil
}
