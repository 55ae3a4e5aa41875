"""One real tool call through CrewAI's native tool-call path (execute_single_native_tool_call:
its before/after tool-call hooks, events and the tool; no model round trip): without the
adapter, with it and no matching hook, with it and a persistent guard on Bash. Rows in turns,
medians of N rounds:

    examples/frameworks/env.sh crewai python tests/frameworks/crewai/bench.py [N]
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import statistics
import sys
import tempfile
from types import SimpleNamespace
from typing import Any, Callable, Dict, List

os.environ.setdefault("CREWAI_DISABLE_TELEMETRY", "true")
os.environ.setdefault("OTEL_SDK_DISABLED", "true")

import time  # noqa: E402

from crewai import LLM, Agent  # noqa: E402
from crewai.tools import tool  # noqa: E402
from crewai.utilities.agent_utils import execute_single_native_tool_call  # noqa: E402

from hookexec.integrations.crewai import CrewAIHooks  # noqa: E402

GUARD = (
    "while IFS= read -r line; do case \"$line\" in *'rm -rf'*) "
    "printf '{\"exit_code\":2,\"stderr\":\"no\"}\\n';; *) printf '{}\\n';; esac; done"
)


@tool("shell")
def shell(command: str) -> str:
    """Echoes the command it was given (the call path, not a process, is measured)."""
    return command


def settings(root: str, hooks: Dict[str, Any]) -> str:
    os.makedirs(os.path.join(root, ".claude"))
    with open(os.path.join(root, ".claude", "settings.json"), "w") as f:
        json.dump({"hooks": hooks}, f)
    return root


def caller(project: str, governed: bool) -> Callable[[], Any]:
    llm = LLM(model="openai/fake-model", base_url="http://127.0.0.1:9/v1", api_key="unused")
    agent = Agent(role="operator", goal="g", backstory="b", tools=[shell], llm=llm)
    if governed:
        CrewAIHooks(project_dir=project).govern(agent)
    call = SimpleNamespace(id="call_1", function=SimpleNamespace(name="shell", arguments='{"command": "ls"}'))
    fn = shell.run  # what CrewAI's executor puts in available_functions

    def one() -> Any:
        return execute_single_native_tool_call(
            call, available_functions={"shell": fn}, original_tools=[shell], structured_tools=None,
            tools_handler=None, agent=agent, task=None, crew=None, event_source=agent,
        ).result

    return one


def main() -> None:
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    tmp = tempfile.mkdtemp()
    nomatch = settings(os.path.join(tmp, "nomatch"), {"PreToolUse": [{"matcher": "Write", "hooks": [{"type": "command", "command": "true"}]}]})
    guard = settings(os.path.join(tmp, "guard"), {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": GUARD, "persistent": True}]}]})
    rows = {"baseline": caller(tmp, False), "adapter, no matching hook": caller(nomatch, True), "adapter, persistent guard": caller(guard, True)}
    quiet = contextlib.redirect_stdout(io.StringIO())  # CrewAI's console panel per tool call
    quiet.__enter__()
    for call in rows.values():  # warm up: imports, the guard's process
        for _ in range(20):
            assert call() == "ls", call()
    times: Dict[str, List[float]] = {name: [] for name in rows}
    for _ in range(rounds):
        for name, call in rows.items():
            t = time.perf_counter()
            call()
            times[name].append((time.perf_counter() - t) * 1e6)
    quiet.__exit__(None, None, None)
    base = statistics.median(times["baseline"])
    for name, ts in times.items():
        m = statistics.median(ts)
        print(f"framework\tcrewai\t{name}\t{m:.1f}\t{m / base:.2f}")


if __name__ == "__main__":
    main()
