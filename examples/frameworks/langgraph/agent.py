"""A hand-built LangGraph agent (a model node and a ToolNode) with one tool, `shell`, whose
tool calls are governed by the hooks of the current directory's .claude/settings.json
(`shell` is `Bash` to a matcher).

    examples/frameworks/langgraph/run "list the files here"

The model: ChatOpenAI (Chat Completions) at $OPENAI_BASE_URL with $OPENAI_API_KEY, named by
$HOOKEXEC_EXAMPLE_MODEL (default gpt-4.1-mini).
"""

from __future__ import annotations

import os
import subprocess
import sys
from typing import Any, Dict

from langchain_core.tools import tool
from langchain_openai import ChatOpenAI
from langgraph.graph import START, MessagesState, StateGraph
from langgraph.prebuilt import tools_condition

from hookexec.integrations import RunStopped
from hookexec.integrations.langgraph import ToolCallHooks


@tool
def shell(command: str) -> str:
    """Runs a shell command (sh -c) in the current directory and returns its output."""
    p = subprocess.run(["sh", "-c", command], capture_output=True, text=True, timeout=300)
    out = p.stdout + p.stderr
    return out if p.returncode == 0 else f"{out}(exit status {p.returncode})"


def build(model: ChatOpenAI, hooks: ToolCallHooks, **compile_options: Any) -> Any:
    """model -> tools (the hooks' ToolNode) -> model ..., until the model answers in text."""
    bound = model.bind_tools([shell])

    def call_model(state: MessagesState) -> Dict[str, Any]:
        return {"messages": [bound.invoke(state["messages"])]}

    g = StateGraph(MessagesState)
    g.add_node("model", call_model)
    g.add_node("tools", hooks.tool_node([shell]))
    g.add_edge(START, "model")
    g.add_conditional_edges("model", tools_condition)
    g.add_edge("tools", "model")
    return g.compile(**compile_options)


def main() -> int:
    if len(sys.argv) < 2:
        print("usage: run PROMPT", file=sys.stderr)
        return 2
    model = ChatOpenAI(model=os.environ.get("HOOKEXEC_EXAMPLE_MODEL", "gpt-4.1-mini"))
    with ToolCallHooks(on_system_message=lambda text: print(f"[hook] {text}", file=sys.stderr)) as hooks:
        graph = build(model, hooks)
        try:
            result = graph.invoke({"messages": [{"role": "user", "content": " ".join(sys.argv[1:])}]})
        except RunStopped as e:
            print(f"stopped by a hook: {e.reason}", file=sys.stderr)
            return 1
    print(result["messages"][-1].text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
