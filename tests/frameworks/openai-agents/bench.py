"""Bench: one real `shell` tool call (sh -c true) through the OpenAI Agents SDK's function-tool
path, as the SDK runs it (needs_approval policy, tool input guardrails, on_invoke_tool, tool
output guardrails; public API, no model round trip), in three rows taken in turns (ABCABC...):

  baseline    the plain tool
  no-match    the tool governed by hookexec, hooks that match nothing (a Write matcher)
  persistent  the tool governed, a persistent Bash guard (POSIX sh, one line each way)

Prints `framework<TAB>openai-agents<TAB>row<TAB>median_us<TAB>ratio_to_baseline`.
Run: examples/frameworks/env.sh openai-agents python tests/frameworks/openai-agents/bench.py [N]
"""

from __future__ import annotations

import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from typing import Any, Dict, List

from agents import Agent, ToolGuardrailFunctionOutput, function_tool, set_tracing_disabled
from agents.tool_context import ToolContext
from agents.tool_guardrails import ToolInputGuardrailData, ToolOutputGuardrailData

from hookexec.integrations.openai_agents import Hookexec

GUARD = ("while IFS= read -r line; do case \"$line\" in *'rm -rf'*) "
         "printf '{\"exit_code\":2,\"stderr\":\"no\"}\\n';; *) printf '{}\\n';; esac; done")


@function_tool
def shell(command: str) -> str:
    """Runs a shell command."""
    p = subprocess.run(["sh", "-c", command], capture_output=True, text=True)
    return f"exit {p.returncode}\n{p.stdout}{p.stderr}"


async def call(tool: Any, agent: Any, n: int) -> Any:
    """One call as the SDK's function-tool executor makes it."""
    args = json.dumps({"command": "true"})
    ctx = ToolContext(context=None, tool_name=tool.name, tool_call_id=f"call_{n}", tool_arguments=args)
    if callable(tool.needs_approval) and await tool.needs_approval(ctx, json.loads(args), ctx.tool_call_id):
        raise RuntimeError("the bench's hooks never ask")
    for g in tool.tool_input_guardrails or []:
        out: ToolGuardrailFunctionOutput = await g.run(ToolInputGuardrailData(context=ctx, agent=agent))
        if out.behavior["type"] != "allow":
            raise RuntimeError(f"refused: {out.behavior}")
    result = await tool.on_invoke_tool(ctx, args)
    for g in tool.tool_output_guardrails or []:
        await g.run(ToolOutputGuardrailData(context=ctx, agent=agent, output=result))
    assert str(result).startswith("exit 0"), result
    return result


def project(hooks: Dict[str, Any]) -> str:
    d = tempfile.mkdtemp(prefix="hookexec-bench-")
    os.makedirs(os.path.join(d, ".claude"))
    with open(os.path.join(d, ".claude", "settings.json"), "w") as f:
        json.dump({"hooks": hooks}, f)
    return d


async def main(rounds: int) -> None:
    set_tracing_disabled(True)
    agent = Agent(name="bench", tools=[shell])
    none_hx = Hookexec(project_dir=project({"PreToolUse": [{"matcher": "Write", "hooks": [{"type": "command", "command": "exit 2"}]}]}))
    guard_hx = Hookexec(project_dir=project({"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": GUARD, "persistent": True}]}]}))
    rows = {"baseline": shell, "no-match": none_hx.tool(shell), "persistent": guard_hx.tool(shell)}
    # The guard really guards: a call it refuses never reaches the tool.
    ctx = ToolContext(context=None, tool_name="shell", tool_call_id="call_rm", tool_arguments='{"command": "rm -rf x"}')
    await rows["persistent"].needs_approval(ctx, {"command": "rm -rf x"}, "call_rm")
    refused = await rows["persistent"].tool_input_guardrails[0].run(ToolInputGuardrailData(context=ctx, agent=agent))
    assert refused.behavior["type"] == "reject_content", refused
    times: Dict[str, List[float]] = {k: [] for k in rows}
    for n in range(5):  # warm up (the persistent guard starts on its first fire)
        for tool in rows.values():
            await call(tool, agent, n)
    for n in range(rounds):
        for name, tool in rows.items():
            t = time.perf_counter()
            await call(tool, agent, n)
            times[name].append((time.perf_counter() - t) * 1e6)
    base = statistics.median(times["baseline"])
    for name, ts in times.items():
        m = statistics.median(ts)
        print(f"framework\topenai-agents\t{name}\t{m:.0f}\t{m / base:.2f}")
    none_hx.close()
    guard_hx.close()


if __name__ == "__main__":
    asyncio.run(main(int(sys.argv[1]) if len(sys.argv) > 1 else 200))
