"""hookexec in agent frameworks: one hooks configuration governs an app built on a framework.

Each adapter is a submodule that imports its framework lazily, so ``import hookexec`` never
needs one (pip extras install them: ``pip install hookexec[langchain]``):

- :mod:`hookexec.integrations.claude_agent_sdk` — Claude Agent SDK ``hooks=``
- :mod:`hookexec.integrations.openai_agents` — OpenAI Agents SDK guardrails and RunHooks
- :mod:`hookexec.integrations.langchain` — LangChain ``create_agent`` middleware
- :mod:`hookexec.integrations.langgraph` — LangGraph ``ToolNode`` tool-call wrapper
- :mod:`hookexec.integrations.pydantic_ai` — Pydantic AI hooks
- :mod:`hookexec.integrations.google_adk` — Google ADK plugin
- :mod:`hookexec.integrations.smolagents` — smolagents tools and step callbacks
- :mod:`hookexec.integrations.crewai` — CrewAI tool-call hooks

They share :class:`Gate`, which turns a framework call into a hookexec event and the result
into a :class:`Verdict` (docs/frameworks.md).
"""

from __future__ import annotations

from ._gate import BLOCKING_EVENTS, Gate, RunStopped, Verdict
from ._names import DEFAULT_TOOL_NAMES

__all__ = ["Gate", "Verdict", "RunStopped", "BLOCKING_EVENTS", "DEFAULT_TOOL_NAMES"]
