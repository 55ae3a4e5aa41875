#!/usr/bin/env python3
"""cli-agent's tool loop on hookexec's drop-in HookManager.

    make build/libhookexec.so && PYTHONPATH=pybind python3 examples/cli_agent/walkthrough.py

The ToolExecutionEngine below makes the same hook calls, in the same order, as cli-agent
1.2.6's (cli_agent/core/tool_execution_engine.py): PreToolUse → should_block_operation →
extract_modified_arguments → run the tool → PostToolUse. The agent is switched over to
hookexec with the two lines in main(). The hooks (settings.json next to this file, copied
into a fresh project as .config/agent/settings.json) block a dangerous bash_execute, rewrite
a write_file path through cli-agent's `modified_args`, and log every PostToolUse.
"""
import asyncio
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from datetime import datetime

from hookexec.cli_agent import HookManager, HookType

HERE = os.path.dirname(os.path.abspath(__file__))
HOOKS = os.path.join(os.path.dirname(HERE), "hooks")


class ToolExecutionEngine:
    """The hook part of cli-agent's ToolExecutionEngine.execute_mcp_tool."""

    def __init__(self, agent):
        self.agent = agent

    async def execute_mcp_tool(self, tool_key, arguments):
        info = self.agent.available_tools[tool_key]
        tool_name = info["name"]  # cli-agent hands hooks the bare name, MCP tools included
        hook_manager = self.agent.hook_manager
        pre_results = await hook_manager.execute_hooks(HookType.PRE_TOOL_USE, {
            "tool_name": tool_name, "tool_args": arguments,
            "timestamp": datetime.now().isoformat(), "session_id": self.agent.session_id,
        })
        report("PreToolUse", pre_results)
        should_block, reason = hook_manager.should_block_operation(pre_results)
        if should_block:
            return f"Tool execution blocked by hook: {reason}"
        modified_args = hook_manager.extract_modified_arguments(pre_results)
        if modified_args:
            arguments.update(modified_args)
            print(f"    arguments rewritten by hook: {json.dumps(arguments)}")
        start = time.time()
        result = await self.agent.run_tool(info, arguments)
        post_results = await hook_manager.execute_hooks(HookType.POST_TOOL_USE, {
            "tool_name": tool_name, "tool_args": arguments, "result": str(result),
            "execution_time": time.time() - start,
            "timestamp": datetime.now().isoformat(), "session_id": self.agent.session_id,
        })
        report("PostToolUse", post_results)
        return result


class Agent:
    """Just enough of cli-agent's BaseMCPAgent: a tool registry, a hook manager, a tool engine."""

    def __init__(self, project):
        self.project = project
        self.session_id = "walkthrough"
        self.hook_manager = None  # cli-agent's own manager would be here
        self.tool_execution_engine = ToolExecutionEngine(self)
        self.available_tools = {
            "builtin:bash_execute": {"server": "builtin", "name": "bash_execute"},
            "builtin:write_file": {"server": "builtin", "name": "write_file"},
            "github:create_issue": {"server": "github", "name": "create_issue"},
        }

    async def run_tool(self, info, args):
        name = info["name"]
        if name == "bash_execute":
            out = subprocess.run(args["command"], shell=True, cwd=self.project, capture_output=True, text=True)
            return out.stdout.strip()
        if name == "write_file":
            path = os.path.join(self.project, args["file_path"])
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w") as f:
                f.write(args["content"])
            return f"wrote {len(args['content'])} bytes to {os.path.relpath(path, self.project)}"
        return f"issue #1 created: {args['title']}"  # the "github" MCP server


def report(event, results):
    for r in results:
        why = f" — {r.reason}" if r.reason else ""
        print(f"    {event} hook {r.hook_id}: exit {r.exit_code}, {r.decision}{why}")


async def session(agent):
    calls = [
        ("builtin:bash_execute", {"command": "echo hello from the agent"}),
        ("builtin:bash_execute", {"command": "rm -rf /"}),
        ("builtin:write_file", {"file_path": "/etc/motd", "content": "hi\n"}),
        ("github:create_issue", {"title": "Add tests"}),
    ]
    for key, args in calls:
        print(f"\n> model calls {key} {json.dumps(args)}")
        result = await agent.tool_execution_engine.execute_mcp_tool(key, dict(args))
        print(f"  => {result}")


def main():
    project = tempfile.mkdtemp(prefix="hookexec-cli-agent-")
    home = tempfile.mkdtemp(prefix="hookexec-cli-agent-home-")  # keep the machine's own hooks out
    try:
        os.makedirs(os.path.join(project, ".config", "agent"))
        shutil.copy(os.path.join(HERE, "settings.json"), os.path.join(project, ".config", "agent", "settings.json"))
        agent = Agent(project)

        # The switch-over: two lines.
        manager = HookManager(project_dir=project, home=home, env={"HOOKS": HOOKS, "HERE": HERE})
        manager.install(agent)

        with manager:
            summary = manager.get_hook_summary()
            print(f"hookexec drop-in: {summary['total_hooks']} hooks for {', '.join(summary['hook_types'])}")
            asyncio.run(session(agent))
        with open(os.path.join(project, "tools.log")) as f:
            print("\ntools.log (PostToolUse):\n" + "".join("  | " + line for line in f))
        print("files written:", sorted(os.path.relpath(os.path.join(d, f), project)
                                       for d, _, fs in os.walk(os.path.join(project, "sandbox")) for f in fs))
    finally:
        shutil.rmtree(project, ignore_errors=True)
        shutil.rmtree(home, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
