// Command mcpserver is the stdio MCP server of the Claude Code live suite
// (tests/live/claude/mcp_test.go): the real Claude Code connects to it through --mcp-config, and
// hookexec's evaluator, in the same test, starts it with the same command line. It serves
// two tools:
//
//   - answer {text, error}: returns text as its one text block (an error result when
//     error is true): what an mcp_tool hook said, JSON output or plain text.
//   - echo {text}: returns "echo: " + text: a tool for the scripted model to call, so a
//     PreToolUse hook can match mcp__<server>__echo.
//   - store {data}: takes any JSON value (a free-form argument, which lets the model send
//     a value nested as deep as it likes) and says how many bytes it got.
//
// With -log FILE every call is appended to FILE as one JSON line {"side", "tool",
// "arguments"}, side being $HOOKEXEC_LIVE_MCP_SIDE (hookexec's evaluator sets it; Claude
// Code does not), so the test compares the calls each side's hooks made.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type answerIn struct {
	Text  string `json:"text" jsonschema:"the text the tool returns"`
	Error bool   `json:"error,omitempty" jsonschema:"return it as an error result"`
}

type echoIn struct {
	Text string `json:"text" jsonschema:"the text to echo"`
}

type storeIn struct {
	Data any `json:"data" jsonschema:"any JSON value"`
}

func main() {
	logPath := flag.String("log", "", "append every call to this file, one JSON line each")
	flag.Parse()
	logCall := func(tool string, args any) {
		if *logPath == "" {
			return
		}
		line, _ := json.Marshal(map[string]any{"side": os.Getenv("HOOKEXEC_LIVE_MCP_SIDE"), "tool": tool, "arguments": args})
		// One write of one line to an O_APPEND file: concurrent calls' lines do not mix.
		f, err := os.OpenFile(*logPath, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err != nil {
			fmt.Fprintln(os.Stderr, "mcpserver:", err)
			return
		}
		_, _ = f.Write(append(line, '\n'))
		_ = f.Close()
	}
	srv := mcp.NewServer(&mcp.Implementation{Name: "hookexec-live", Version: "1.0.0"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "answer", Description: "Returns the given text (a hook's answer)."},
		func(_ context.Context, _ *mcp.CallToolRequest, in answerIn) (*mcp.CallToolResult, any, error) {
			logCall("answer", in)
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Text}}, IsError: in.Error}, nil, nil
		})
	mcp.AddTool(srv, &mcp.Tool{Name: "echo", Description: "Echoes the given text."},
		func(_ context.Context, _ *mcp.CallToolRequest, in echoIn) (*mcp.CallToolResult, any, error) {
			logCall("echo", in)
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "echo: " + in.Text}}}, nil, nil
		})
	mcp.AddTool(srv, &mcp.Tool{Name: "store", Description: "Stores any JSON value."},
		func(_ context.Context, _ *mcp.CallToolRequest, in storeIn) (*mcp.CallToolResult, any, error) {
			logCall("store", in)
			data, _ := json.Marshal(in.Data)
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf("stored %d bytes", len(data))}}}, nil, nil
		})
	if err := srv.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, "mcpserver:", err)
		os.Exit(1)
	}
}
