"""One real tool call through smolagents' tool-call path (ToolCallingAgent.execute_tool_call,
no model round trip): without the adapter, with it and no matching hook, with it and a
persistent guard on Bash. Rows in turns, medians of N rounds:

    examples/frameworks/env.sh smolagents python tests/frameworks/smolagents/bench.py [N]
"""

from __future__ import annotations

import json
import os
import statistics
import sys
import tempfile
import time
from typing import Any, Callable, Dict, List

from smolagents import Model, ToolCallingAgent, tool

from hookexec.integrations.smolagents import govern

GUARD = (
    "while IFS= read -r line; do case \"$line\" in *'rm -rf'*) "
    "printf '{\"exit_code\":2,\"stderr\":\"no\"}\\n';; *) printf '{}\\n';; esac; done"
)


@tool
def shell(command: str) -> str:
    """Echoes the command it was given (the call path, not a process, is measured).

    Args:
        command: the command line
    """
    return command


def settings(root: str, hooks: Dict[str, Any]) -> str:
    os.makedirs(os.path.join(root, ".claude"))
    with open(os.path.join(root, ".claude", "settings.json"), "w") as f:
        json.dump({"hooks": hooks}, f)
    return root


def agent(project: str, governed: bool) -> Callable[[], Any]:
    a = ToolCallingAgent(tools=[shell], model=Model(), verbosity_level=-1)
    if governed:
        govern(a, project_dir=project)
    return lambda: a.execute_tool_call("shell", {"command": "ls"})


def main() -> None:
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    tmp = tempfile.mkdtemp()
    nomatch = settings(os.path.join(tmp, "nomatch"), {"PreToolUse": [{"matcher": "Write", "hooks": [{"type": "command", "command": "true"}]}]})
    guard = settings(os.path.join(tmp, "guard"), {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": GUARD, "persistent": True}]}]})
    rows = {"baseline": agent(tmp, False), "adapter, no matching hook": agent(nomatch, True), "adapter, persistent guard": agent(guard, True)}
    for call in rows.values():  # warm up: imports, the guard's process
        for _ in range(20):
            assert call() == "ls"
    times: Dict[str, List[float]] = {name: [] for name in rows}
    for _ in range(rounds):
        for name, call in rows.items():
            t = time.perf_counter()
            call()
            times[name].append((time.perf_counter() - t) * 1e6)
    base = statistics.median(times["baseline"])
    for name, ts in times.items():
        m = statistics.median(ts)
        print(f"framework\tsmolagents\t{name}\t{m:.1f}\t{m / base:.2f}")


if __name__ == "__main__":
    main()
