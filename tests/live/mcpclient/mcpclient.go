// Package mcpclient is the hookexec side of the live suites' MCP vectors: the agent is
// given a real stdio MCP server (tests/live/claude/mcpserver, $MCP), and hookexec's
// evaluator answers mcp_tool hooks by starting the same server with the same command line
// and calling the hook's tool, so both sides' hooks get the answer of one real MCP server.
// The server logs every call with the side that made it (HOOKEXEC_LIVE_MCP_SIDE, which
// only hookexec's evaluator sets), and CompareCalls checks that both sides' hooks made the
// same calls. Claude Code's suite and Codex's use it.
package mcpclient

import (
	"bufio"
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
)

// Server is one stdio MCP server as an agent's config gives it.
type Server struct {
	Command string            `json:"command"`
	Args    []string          `json:"args"`
	Env     map[string]string `json:"env"`
}

var build struct {
	once sync.Once
	bin  string
	err  error
}

// Build builds the mcpserver helper once per test binary into dir and returns its path.
func Build(dir string) (string, error) {
	build.once.Do(func() {
		out := filepath.Join(dir, "mcpserver")
		// By import path: the suites run from their own directories inside the module.
		cmd := exec.Command("go", "build", "-o", out, "github.com/hookexec/hookexec/tests/live/claude/mcpserver")
		if b, err := cmd.CombinedOutput(); err != nil {
			build.err = fmt.Errorf("building mcpserver: %v: %s", err, b)
			return
		}
		build.bin = out
	})
	return build.bin, build.err
}

// Evaluate answers an mcp_tool hook as a host would: it starts the hook's server as
// servers says, calls the tool with the hook's filled input and returns the result's text
// as the hook's stdout; an error result, or a server that is not configured, is an error
// (the hook fails).
func Evaluate(ctx context.Context, servers map[string]Server, hook []byte) (engine.Outcome, error) {
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

// CompareCalls compares the calls the hooks of each side made to the vector's MCP servers
// (their -log file, root/mcp.log): the same tools with the same filled-in arguments, in any
// order. The model's own calls (the echo and store tools) are the agent's only; agent names
// the side that sets no HOOKEXEC_LIVE_MCP_SIDE.
func CompareCalls(root, agent string) []string {
	f, err := os.Open(filepath.Join(root, "mcp.log"))
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
			side = agent
		}
		calls[side] = append(calls[side], c.Tool+" "+string(c.Arguments))
	}
	sort.Strings(calls[agent])
	sort.Strings(calls["hookexec"])
	if !reflect.DeepEqual(calls[agent], calls["hookexec"]) {
		return []string{fmt.Sprintf("mcp_tool calls: %s %q, hookexec %q", agent, calls[agent], calls["hookexec"])}
	}
	return nil
}
