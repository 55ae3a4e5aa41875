"""A smolagents ToolCallingAgent with one tool, ``shell``, governed by the hooks of the
current directory's .claude/settings.json (``shell`` is ``Bash`` to a matcher).

    OPENAI_BASE_URL=... OPENAI_API_KEY=... ./run "list the files here"
"""

import os
import subprocess
import sys

from smolagents import OpenAIServerModel, ToolCallingAgent, tool

from hookexec.integrations import RunStopped
from hookexec.integrations.smolagents import govern


@tool
def shell(command: str) -> str:
    """Runs a shell command in the current directory and returns its output.

    Args:
        command: the command line, run with sh -c
    """
    p = subprocess.run(["sh", "-c", command], capture_output=True, text=True, timeout=120)
    return (p.stdout + p.stderr).strip() + ("" if p.returncode == 0 else f"\n(exit status {p.returncode})")


def main() -> int:
    if len(sys.argv) != 2:
        print("usage: run PROMPT", file=sys.stderr)
        return 2
    model = OpenAIServerModel(
        model_id=os.environ.get("HOOKEXEC_EXAMPLE_MODEL", "gpt-4.1-mini"),
        api_base=os.environ.get("OPENAI_BASE_URL"),
        api_key=os.environ.get("OPENAI_API_KEY"),
    )
    agent = govern(
        ToolCallingAgent(tools=[shell], model=model, max_steps=8, verbosity_level=0),
        on_system_message=lambda text: print(f"[hook] {text}", file=sys.stderr),
    )
    try:
        print(agent.run(sys.argv[1]))
    except RunStopped as e:
        print(f"stopped by a hook: {e.reason}", file=sys.stderr)
        return 1
    finally:
        agent.hookexec.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
