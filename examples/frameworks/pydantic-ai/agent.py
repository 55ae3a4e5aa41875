"""A Pydantic AI agent with one tool, `shell`, governed by the hooks in the current directory's
.claude/settings.json (hookexec maps `shell` to `Bash`, so a Claude Code matcher applies).

    ./run "list the files here"

The model: OpenAI Chat Completions at OPENAI_BASE_URL with OPENAI_API_KEY, named by
HOOKEXEC_EXAMPLE_MODEL (default gpt-4o-mini).
"""

import os
import subprocess
import sys

from pydantic_ai import Agent
from pydantic_ai.models.openai import OpenAIChatModel
from pydantic_ai.providers.openai import OpenAIProvider

from hookexec.integrations import RunStopped
from hookexec.integrations.pydantic_ai import HookexecHooks


def shell(command: str) -> str:
    """Run a shell command in the current directory and return its output."""
    p = subprocess.run(["sh", "-c", command], capture_output=True, text=True, timeout=120)
    return f"exit {p.returncode}\n{p.stdout}{p.stderr}"


def main() -> int:
    if len(sys.argv) != 2:
        print("usage: run PROMPT", file=sys.stderr)
        return 2
    model = OpenAIChatModel(
        os.environ.get("HOOKEXEC_EXAMPLE_MODEL", "gpt-4o-mini"),
        provider=OpenAIProvider(base_url=os.environ.get("OPENAI_BASE_URL"), api_key=os.environ.get("OPENAI_API_KEY")),
    )
    with HookexecHooks(on_system_message=lambda text: print(f"[hook] {text}", file=sys.stderr)) as hooks:
        agent = Agent(model, tools=[shell], capabilities=[hooks])
        try:
            result = agent.run_sync(sys.argv[1])
        except RunStopped as e:
            print(f"stopped by a hook: {e.reason}", file=sys.stderr)
            return 1
    print(result.output)
    return 0


if __name__ == "__main__":
    sys.exit(main())
