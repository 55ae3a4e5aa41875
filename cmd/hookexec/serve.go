package main

import (
	"flag"
	"fmt"

	"github.com/hookexec/hookexec/core/serve"
)

func init() {
	var stdio bool
	register(&verb{
		name:    "serve",
		summary: "serve the engine to a host in any language: JSON-RPC 2.0 over stdin/stdout",
		help: `Reads JSON-RPC 2.0 requests, one JSON message a line, on stdin and writes responses
and notifications, one a line, on stdout (logs never go there). Methods:
  open     params: engine options (profile, project_dir, home, sources, config, ...;
           as hookexec_open), plus "evaluate": true to answer prompt/agent/mcp_tool hooks
           → {"engine": N}
  fire     {engine, event, payload}      → the fire result
  match    {engine, event, subject}      → {"count": N, "ids": [...]}
  explain  {engine, event, payload}      → why each hook would or would not run
  config   {engine}                      → hooks, sources, warnings
  reload   {engine}                      → null
  drain    {engine}                      → {"output": [...]}
  close    {engine}                      → null
Requests run concurrently and responses may come in any order (match them by id). Results
of async hooks arrive as notifications "hookexec.async" {engine, event, hook, ...}; autohand's
hook notifications ("autohand.hook.preTool", ...) keep their method and gain "engine" in
params. With "evaluate", the server asks the host with a request "hookexec.evaluate"
{engine, type, hook, payload} and expects {"ok", "reason"} or {"exit_code", "stdout",
"stderr"} back; answers are read as they come, whatever else is in flight. A message longer
than 32 MiB is skipped and answered with error -32004. At end of input evaluations still
waiting fail, every engine is closed (async hooks finish) and serve exits.`,
		example: `hookexec serve --stdio
printf '%s\n' '{"jsonrpc":"2.0","id":1,"method":"open","params":{"profile":"claude"}}' | hookexec serve --stdio`,
		flags: func(fs *flag.FlagSet) {
			fs.BoolVar(&stdio, "stdio", false, "speak JSON-RPC on stdin/stdout (the only transport)")
		},
		run: func(a *app, args []string) int {
			if err := noArgs("serve", args); err != nil {
				return a.fail(err)
			}
			if !stdio {
				return a.fail(usagef("serve: say --stdio (JSON-RPC 2.0 on stdin/stdout, the only transport)"))
			}
			if err := serve.New(a.stdin, a.stdout, serve.Options{}).Serve(); err != nil {
				return a.fail(fmt.Errorf("serve: reading input: %w", err))
			}
			return exitOK
		},
	})
}
