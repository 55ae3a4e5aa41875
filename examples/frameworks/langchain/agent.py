"""A LangChain 1.x agent with one tool, `shell`, governed by the hooks of the current
directory's .claude/settings.json (`shell` is `Bash` to a matcher).

    examples/frameworks/langchain/run "list the files here"

The model: ChatOpenAI (Chat Completions) at $OPENAI_BASE_URL with $OPENAI_API_KEY, named by
$HOOKEXEC_EXAMPLE_MODEL (default gpt-4.1-mini).
"""

from __future__ import annotations

import os
import subprocess
import sys

from langchain.agents import create_agent
from langchain_core.tools import tool
from langchain_openai import ChatOpenAI

from hookexec.integrations.langchain import HookexecMiddleware


@tool
def shell(command: str) -> str:
    """Runs a shell command (sh -c) in the current directory and returns its output."""
    p = subprocess.run(["sh", "-c", command], capture_output=True, text=True, timeout=300)
    out = p.stdout + p.stderr
    return out if p.returncode == 0 else f"{out}(exit status {p.returncode})"


def build(model: ChatOpenAI, hooks: HookexecMiddleware, **agent_options: object) -> object:
    """The agent: the model, the shell tool and the hooks' middleware."""
    return create_agent(model, tools=[shell], middleware=[hooks], **agent_options)


def main() -> int:
    if len(sys.argv) < 2:
        print("usage: run PROMPT", file=sys.stderr)
        return 2
    model = ChatOpenAI(model=os.environ.get("HOOKEXEC_EXAMPLE_MODEL", "gpt-4.1-mini"))
    with HookexecMiddleware(on_system_message=lambda text: print(f"[hook] {text}", file=sys.stderr)) as hooks:
        agent = build(model, hooks)
        result = agent.invoke({"messages": [{"role": "user", "content": " ".join(sys.argv[1:])}]})
    print(result["messages"][-1].text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
