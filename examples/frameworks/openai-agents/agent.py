"""An OpenAI Agents SDK agent with one tool, `shell`, governed by the hooks of the current
directory's .claude/settings.json (`shell` is `Bash` to their matchers).

The model endpoint is the SDK's usual environment, spoken with the Chat Completions API:
OPENAI_BASE_URL, OPENAI_API_KEY; the model name is HOOKEXEC_EXAMPLE_MODEL (default gpt-4.1).
Usage: run PROMPT
"""

import os
import subprocess
import sys

from agents import Agent, function_tool, set_default_openai_api, set_tracing_disabled

from hookexec.integrations.openai_agents import Hookexec


@function_tool
def shell(command: str) -> str:
    """Runs a shell command with sh -c in the current directory and returns its output."""
    p = subprocess.run(["sh", "-c", command], capture_output=True, text=True, timeout=120)
    return f"exit {p.returncode}\n{p.stdout}{p.stderr}"


def main() -> None:
    if len(sys.argv) != 2:
        sys.exit("usage: run PROMPT")
    set_default_openai_api("chat_completions")
    if not os.environ.get("OPENAI_API_KEY"):
        set_tracing_disabled(True)  # nowhere to export traces to without a key
    agent = Agent(
        name="shell agent",
        instructions="You run shell commands with the shell tool to do what the user asks.",
        tools=[shell],
        model=os.environ.get("HOOKEXEC_EXAMPLE_MODEL", "gpt-4.1"),
    )
    with Hookexec() as hx:  # the hooks of ./.claude/settings.json
        result = hx.run_sync(agent, sys.argv[1])
    print(result.final_output)


if __name__ == "__main__":
    main()
