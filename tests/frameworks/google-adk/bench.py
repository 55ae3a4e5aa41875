"""Bench: one real tool call through Google ADK's tool-call path (handle_function_calls_async:
plugin callbacks, the tool, the response event; no model round trip) — A without the plugin,
B with HookexecPlugin and no matching hook, C with the plugin and a persistent Bash guard.
Rows run in turns (ABCABC...), N rounds; prints medians as
framework<TAB>google-adk<TAB>row<TAB>median_us<TAB>ratio_to_baseline.

Run: examples/frameworks/env.sh google-adk python tests/frameworks/google-adk/bench.py [N]"""

from __future__ import annotations

import asyncio
import json
import os
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from typing import Any, Callable, Dict, List

from google.adk.agents import LlmAgent
from google.adk.agents.invocation_context import InvocationContext
from google.adk.agents.run_config import RunConfig
from google.adk.events.event import Event
from google.adk.flows.llm_flows.functions import handle_function_calls_async
from google.adk.plugins.plugin_manager import PluginManager
from google.adk.sessions import InMemorySessionService
from google.adk.tools.function_tool import FunctionTool
from google.genai import types

from hookexec.integrations.google_adk import HookexecPlugin

GUARD = """import json, sys
for line in sys.stdin:
    cmd = json.loads(line).get("tool_input", {}).get("command", "")
    answer = {"exit_code": 2, "stderr": "no rm -rf"} if "rm -rf" in cmd else {}
    print(json.dumps(answer), flush=True)
"""


def shell(command: str) -> dict:
    """Runs a shell command with sh -c in the current directory."""
    p = subprocess.run(["sh", "-c", command], capture_output=True, text=True)
    return {"exit_code": p.returncode, "output": p.stdout + p.stderr}


async def row(plugins: List[Any]) -> Callable[[], Any]:
    """A coroutine factory that makes one `shell` call through ADK with these plugins."""
    agent = LlmAgent(name="bench", model="gemini-2.5-flash", tools=[shell])
    service = InMemorySessionService()
    session = await service.create_session(app_name="bench", user_id="u")
    ctx = InvocationContext(session_service=service, invocation_id="inv", agent=agent, session=session,
                            plugin_manager=PluginManager(plugins=plugins), run_config=RunConfig())
    tools = {"shell": FunctionTool(shell)}
    n = [0]

    async def call() -> None:
        n[0] += 1
        fc = types.FunctionCall(id=f"call-{n[0]}", name="shell", args={"command": "true"})
        event = Event(invocation_id="inv", author="bench", content=types.Content(role="model", parts=[types.Part(function_call=fc)]))
        out = await handle_function_calls_async(ctx, event, tools)
        assert out is not None and out.get_function_responses()[0].response["exit_code"] == 0
    return call


async def main(rounds: int) -> None:
    with tempfile.TemporaryDirectory() as d:
        plain = os.path.join(d, "plain")
        guarded = os.path.join(d, "guarded")
        for p, hooks in ((plain, {}), (guarded, {"PreToolUse": [{"matcher": "Bash", "hooks": [
                {"type": "command", "command": f"{shlex.quote(sys.executable)} {shlex.quote(os.path.join(d, 'guard.py'))}", "persistent": True}]}]})):
            os.makedirs(os.path.join(p, ".claude"))
            with open(os.path.join(p, ".claude", "settings.json"), "w") as f:
                json.dump({"hooks": hooks}, f)
        with open(os.path.join(d, "guard.py"), "w") as f:
            f.write(GUARD)
        b_plugin = HookexecPlugin(project_dir=plain, name="b")
        c_plugin = HookexecPlugin(project_dir=guarded, name="c")
        rows: Dict[str, Callable[[], Any]] = {
            "baseline (no plugin)": await row([]),
            "plugin, no matching hook": await row([b_plugin]),
            "plugin, persistent guard": await row([c_plugin]),
        }
        times: Dict[str, List[float]] = {k: [] for k in rows}
        for call in rows.values():  # warm up (the guard's process starts here)
            for _ in range(5):
                await call()
        for _ in range(rounds):
            for name, call in rows.items():
                t = time.perf_counter()
                await call()
                times[name].append((time.perf_counter() - t) * 1e6)
        await b_plugin.close()
        await c_plugin.close()
    base = statistics.median(times["baseline (no plugin)"])
    for name, ts in times.items():
        m = statistics.median(ts)
        print(f"framework\tgoogle-adk\t{name}\t{m:.0f}\t{m / base:.2f}")


if __name__ == "__main__":
    asyncio.run(main(int(sys.argv[1]) if len(sys.argv) > 1 else 200))
