"""A Claude Agent SDK agent with Claude Code's own Bash tool, governed by the hooks in the
current directory's .claude/settings.json through hookexec. The model endpoint is the SDK's
usual environment (ANTHROPIC_BASE_URL, ANTHROPIC_API_KEY); HOOKEXEC_EXAMPLE_MODEL names the
model when set. Prints the final answer."""

from __future__ import annotations

import os
import sys

import anyio
from claude_agent_sdk import ClaudeAgentOptions, ResultMessage

from hookexec.integrations.claude_agent_sdk import query


async def main(prompt: str) -> int:
    options = ClaudeAgentOptions(
        tools=["Bash"],  # the one tool: Claude Code's Bash, running in the current directory
        allowed_tools=["Bash"],  # no permission prompt: the hooks are the guard
        cwd=os.getcwd(),
        model=os.environ.get("HOOKEXEC_EXAMPLE_MODEL") or None,
    )
    answer = None
    async for message in query(prompt=prompt, options=options, on_system_message=lambda m: print(f"[hook] {m}", file=sys.stderr)):
        if isinstance(message, ResultMessage):
            answer = message
    if answer is None:
        print("no answer: the run ended early", file=sys.stderr)
        return 1
    print(answer.result or "")
    return 1 if answer.is_error else 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: run PROMPT")
    sys.exit(anyio.run(main, sys.argv[1]))
