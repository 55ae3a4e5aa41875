"""Bench of the Pydantic AI adapter: one run of an agent that makes one tool call, through the
framework's real tool-call path (validation, capability hooks, execution) with an in-process
FunctionModel (no HTTP round trip), in three rows taken in turns (ABCABC...):

- baseline: the agent without HookexecHooks;
- no-match: with HookexecHooks and a hook that matches another tool (Write);
- guard: with HookexecHooks and a persistent Bash guard (docs/persistent.md).

The tool itself does nothing, so the rows show what governing the call costs: PreToolUse and
PostToolUse for the call, UserPromptSubmit and Stop for the run. Prints one line per row:
framework<TAB>pydantic-ai<TAB>row<TAB>median_us<TAB>ratio_to_baseline.

    examples/frameworks/env.sh pydantic-ai python tests/frameworks/pydantic-ai/bench.py [ROUNDS]
"""

from __future__ import annotations

import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Dict, List, Optional

from pydantic_ai import Agent
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart, ToolReturnPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from hookexec.integrations.pydantic_ai import HookexecHooks

GUARD = "while IFS= read -r line; do printf '{}\\n'; done"


def shell(command: str) -> str:
    """Run a shell command (here: does nothing, so only the call's path is measured)."""
    return "ok"


def model(messages: List[ModelMessage], info: AgentInfo) -> ModelResponse:
    # One tool call, then the answer once the tool's result is in.
    if any(isinstance(p, ToolReturnPart) for m in messages for p in getattr(m, "parts", [])):
        return ModelResponse(parts=[TextPart("done")])
    return ModelResponse(parts=[ToolCallPart("shell", {"command": "true"})])


def project(hooks: Dict[str, Any]) -> str:
    d = tempfile.mkdtemp(prefix="hookexec-bench-pydantic-ai-")
    (Path(d) / ".claude").mkdir()
    (Path(d) / ".claude" / "settings.json").write_text(json.dumps({"hooks": hooks}))
    return d


def agent(capability: Optional[Any]) -> Agent[None, str]:
    return Agent(FunctionModel(model), tools=[shell], capabilities=[capability] if capability else [])


def main() -> None:
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 300
    os.environ["HOME"] = tempfile.mkdtemp(prefix="hookexec-bench-home-")  # no user-level hooks
    no_match = HookexecHooks(project_dir=project({"PreToolUse": [{"matcher": "Write", "hooks": [{"type": "command", "command": "exit 0"}]}]}))
    guard = HookexecHooks(project_dir=project({"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": GUARD, "persistent": True}]}]}))
    rows = {"baseline": agent(None), "no-match": agent(no_match), "guard": agent(guard)}
    times: Dict[str, List[float]] = {name: [] for name in rows}
    for name, a in rows.items():  # warm-up: imports, schemas, the persistent process
        assert a.run_sync("go").output == "done"
    for _ in range(rounds):
        for name, a in rows.items():
            t = time.perf_counter()
            a.run_sync("go")
            times[name].append((time.perf_counter() - t) * 1e6)
    no_match.close()
    guard.close()
    base = statistics.median(times["baseline"])
    for name, ts in times.items():
        m = statistics.median(ts)
        print(f"framework\tpydantic-ai\t{name}\t{m:.0f}\t{m / base:.2f}")


if __name__ == "__main__":
    main()
