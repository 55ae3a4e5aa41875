"""Bench of the LangChain and LangGraph adapters: one real tool call through LangGraph's
``ToolNode`` (the tool-call path of a hand-built graph and of ``create_agent``, whose tool
node calls each middleware's ``wrap_tool_call``), invoked directly with a model's tool call
(no model round trip) in a one-node graph, in three rows taken in turns (ABCABC...):

- baseline: a ToolNode without the adapter;
- no-match: with the adapter and a hook that matches another tool (Write);
- guard: with the adapter and a persistent Bash guard (docs/persistent.md).

The tool does nothing, so the rows show what governing the call costs (PreToolUse and
PostToolUse). Prints ``framework<TAB>NAME<TAB>row<TAB>median_us<TAB>ratio_to_baseline``.
"""

from __future__ import annotations

import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional

from langchain_core.messages import AIMessage
from langchain_core.tools import tool
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode

GUARD = "while IFS= read -r line; do printf '{}\\n'; done"


@tool
def shell(command: str) -> str:
    """Runs a shell command (here: does nothing, so only the call's path is measured)."""
    return "ok"


def project(hooks: Dict[str, Any]) -> str:
    d = tempfile.mkdtemp(prefix="hookexec-bench-langchain-")
    (Path(d) / ".claude").mkdir()
    (Path(d) / ".claude" / "settings.json").write_text(json.dumps({"hooks": hooks}))
    return d


def run(name: str, wrapper: Callable[[str], Any]) -> None:
    """``wrapper(project_dir)`` is the adapter's object with a ``wrap_tool_call`` and ``close``."""
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 300
    os.environ["HOME"] = tempfile.mkdtemp(prefix="hookexec-bench-home-")  # no user-level hooks
    no_match = wrapper(project({"PreToolUse": [{"matcher": "Write", "hooks": [{"type": "command", "command": "exit 0"}]}]}))
    guard = wrapper(project({"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": GUARD, "persistent": True}]}]}))

    def node(w: Optional[Any]) -> Any:
        # A ToolNode runs inside a graph (it needs the graph's runtime): START -> tools -> END.
        g = StateGraph(MessagesState)
        g.add_node("tools", ToolNode([shell], wrap_tool_call=w.wrap_tool_call if w else None))
        g.add_edge(START, "tools")
        g.add_edge("tools", END)
        return g.compile()

    rows = {"baseline": node(None), "no-match": node(no_match), "guard": node(guard)}
    state = {"messages": [AIMessage(content="", tool_calls=[{"name": "shell", "args": {"command": "true"}, "id": "call_1"}])]}
    times: Dict[str, List[float]] = {r: [] for r in rows}
    for r, n in rows.items():  # warm-up: imports, schemas, the persistent process
        assert n.invoke(state)["messages"][-1].content == "ok", r
    for _ in range(rounds):
        for r, n in rows.items():
            t = time.perf_counter()
            n.invoke(state)
            times[r].append((time.perf_counter() - t) * 1e6)
    no_match.close()
    guard.close()
    base = statistics.median(times["baseline"])
    for r, ts in times.items():
        m = statistics.median(ts)
        print(f"framework\t{name}\t{r}\t{m:.0f}\t{m / base:.2f}")
