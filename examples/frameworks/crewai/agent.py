"""A one-agent CrewAI crew with one tool, ``shell``, governed by the hooks of the current
directory's .claude/settings.json (``shell`` is ``Bash`` to a matcher).

    OPENAI_BASE_URL=... OPENAI_API_KEY=... ./run "list the files here"
"""

import os
import subprocess
import sys

from crewai import LLM, Agent, Crew, Task
from crewai.tools import tool

from hookexec.integrations import RunStopped
from hookexec.integrations.crewai import govern, hooks_of


@tool("shell")
def shell(command: str) -> str:
    """Runs a shell command with sh -c in the current directory and returns its output."""
    p = subprocess.run(["sh", "-c", command], capture_output=True, text=True, timeout=120)
    return (p.stdout + p.stderr).strip() + ("" if p.returncode == 0 else f"\n(exit status {p.returncode})")


def main() -> int:
    if len(sys.argv) != 2:
        print("usage: run PROMPT", file=sys.stderr)
        return 2
    llm = LLM(
        model="openai/" + os.environ.get("HOOKEXEC_EXAMPLE_MODEL", "gpt-4.1-mini"),
        base_url=os.environ.get("OPENAI_BASE_URL"),
        api_key=os.environ.get("OPENAI_API_KEY"),
    )
    agent = Agent(role="operator", goal="do what the user asks with the shell", backstory="A careful operator.",
                  tools=[shell], llm=llm, max_iter=8)
    task = Task(description=sys.argv[1], expected_output="the answer for the user", agent=agent)
    crew = govern(Crew(agents=[agent], tasks=[task]),
                  on_system_message=lambda text: print(f"[hook] {text}", file=sys.stderr))
    try:
        print(crew.kickoff().raw)
    except RunStopped as e:
        print(f"stopped by a hook: {e}", file=sys.stderr)
        return 1
    finally:
        hooks_of(crew).close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
