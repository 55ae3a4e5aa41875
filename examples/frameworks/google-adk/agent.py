"""A Google ADK agent with one tool, shell, governed by hookexec: the hooks of the current
directory's .claude/settings.json apply to it as they do to Claude Code (shell is Bash).

Model: Gemini through google-genai (GOOGLE_API_KEY; GOOGLE_GEMINI_BASE_URL for another
endpoint), named by HOOKEXEC_EXAMPLE_MODEL (default gemini-2.5-flash)."""

import asyncio
import os
import subprocess
import sys

from google.adk.agents import LlmAgent
from google.adk.apps import App
from google.adk.runners import InMemoryRunner
from google.genai import types

from hookexec.integrations.google_adk import HookexecPlugin


def shell(command: str) -> dict:
    """Runs a shell command with sh -c in the current directory; returns its exit code and output."""
    p = subprocess.run(["sh", "-c", command], capture_output=True, text=True, timeout=300)
    return {"exit_code": p.returncode, "output": p.stdout + p.stderr}


async def main(prompt: str) -> int:
    agent = LlmAgent(
        name="assistant",
        model=os.environ.get("HOOKEXEC_EXAMPLE_MODEL", "gemini-2.5-flash"),
        instruction="You are a helpful assistant. Use the shell tool to run commands.",
        tools=[shell],
    )
    hooks = HookexecPlugin(on_system_message=lambda text: print(f"[hook] {text}", file=sys.stderr))
    runner = InMemoryRunner(app=App(name="hookexec_example", root_agent=agent, plugins=[hooks]))
    session = await runner.session_service.create_session(app_name="hookexec_example", user_id="user")
    answer = ""
    try:
        message = types.Content(role="user", parts=[types.Part(text=prompt)])
        async for event in hooks.run(runner, user_id="user", session_id=session.id, new_message=message):
            if event.is_final_response() and event.content and event.content.parts:
                answer = "".join(p.text or "" for p in event.content.parts if not p.thought)
    finally:
        await runner.close()
    print(answer)
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: run PROMPT")
    sys.exit(asyncio.run(main(sys.argv[1])))
