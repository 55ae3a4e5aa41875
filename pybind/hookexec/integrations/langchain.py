"""hookexec for LangChain 1.x: one middleware governs a ``create_agent`` agent::

    from langchain.agents import create_agent
    from hookexec.integrations.langchain import HookexecMiddleware

    agent = create_agent(model, tools=[shell], middleware=[HookexecMiddleware()])

The hooks are read from the current directory's ``.claude/settings.json`` (any
:class:`~hookexec.integrations.Gate` option: ``project_dir``, ``profile``, ``tool_names``,
``approve``, ``on_system_message``, engine options). The agent's points fire:

- ``before_agent``: SessionStart (the first run only) and UserPromptSubmit with the run's
  new human message. Their ``additional_context`` is added to the conversation as a human
  message; a prompt block removes the prompt and ends the run with the reason as the answer.
- ``wrap_tool_call``/``awrap_tool_call``: PreToolUse and PostToolUse/PostToolUseFailure, by
  :class:`hookexec.integrations.langgraph.ToolCallHooks` (the same wrapper a hand-built graph's
  ``ToolNode`` uses): block, ``updated_input``, context, ``ask`` as LangChain's per-call
  human-in-the-loop ``interrupt()`` (with a checkpointer) or the gate's ``approve``.
- ``before_model``: ends the run (``jump_to: end``) after a tool hook's ``continue: false``.
- ``after_agent``: Stop (SubagentStop with ``subagent=True``); a block sends the agent back
  to the model with the reason as a human message; ``stop_hook_active`` is true on the
  answer to such a continuation.
- :meth:`close` (or ``with``): SessionEnd, once, and the engine closed.

What the adapter added is marked in each message's ``response_metadata["hookexec"]``
(never sent to the model), so a run resumed from a checkpointer reads the same state.

LangChain is imported lazily: ``pip install 'hookexec[langchain]'``.
"""

from __future__ import annotations

from typing import Any, Callable, Dict, List, Optional, TypeVar

from ._gate import Gate, Verdict
from .langgraph import ToolCallHooks, require

__all__ = ["HookexecMiddleware", "AgentToolCalls"]

MARK = "hookexec"  # the response_metadata key of the messages the adapter adds

F = TypeVar("F", bound=Callable[..., Any])


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(b if isinstance(b, str) else str(b.get("text", "")) for b in content if isinstance(b, (str, dict)))
    return "" if content is None else str(content)


def _mark(message: Any) -> Dict[str, Any]:
    meta = getattr(message, "response_metadata", None) or {}
    m = meta.get(MARK)
    return m if isinstance(m, dict) else {}


class AgentToolCalls(ToolCallHooks):
    """The tool-call wrapper inside an agent: ``continue: false`` marks the tool's message,
    and the middleware's ``before_model`` ends the run on it (a tool node cannot end a
    ``create_agent`` loop itself)."""

    def stopped(self, v: Verdict, request: Any, message: Any) -> Any:
        meta = {**(message.response_metadata or {}), MARK: {"stop": v.stop_reason or "a hook stopped the run"}}
        return message.model_copy(update={"response_metadata": meta})


def _middleware_class() -> Any:
    mw = require("langchain.agents.middleware", "langchain")
    messages = require("langchain_core.messages", "langchain")
    base: Any = mw.AgentMiddleware
    jump: Callable[..., Callable[[F], F]] = mw.hook_config  # can_jump_to=[...]: where a hook may send the run

    class HookexecMiddleware(base):  # type: ignore[misc] # LangChain is imported lazily
        """Fires hookexec events at a ``create_agent`` agent's points (module docs).

        ``gate``: a :class:`~hookexec.integrations.Gate` to share (not closed here); else one
        is opened with ``gate_options``. ``ask``: see
        :class:`~hookexec.integrations.langgraph.ToolCallHooks`. ``subagent``: this agent
        runs as another's subagent, so its end fires SubagentStop instead of Stop.
        """

        def __init__(self, gate: Optional[Gate] = None, *, ask: str = "auto", subagent: bool = False, **gate_options: Any) -> None:
            super().__init__()
            self.tool_calls = AgentToolCalls(gate, ask=ask, **gate_options)
            self.gate = self.tool_calls.gate
            self.subagent = subagent

        # --- tools ------------------------------------------------------------------------

        def wrap_tool_call(self, request: Any, handler: Any) -> Any:
            return self.tool_calls.wrap_tool_call(request, handler)

        async def awrap_tool_call(self, request: Any, handler: Any) -> Any:
            return await self.tool_calls.awrap_tool_call(request, handler)

        # --- the run's start: SessionStart, UserPromptSubmit -----------------------------

        @jump(can_jump_to=["end"])
        def before_agent(self, state: Any, runtime: Any) -> Optional[Dict[str, Any]]:
            start = self.gate.session_start()
            prompt = self._prompt(state)
            v = self.gate.user_prompt(_text(prompt.content)) if prompt is not None else None
            return self._started(start, prompt, v)

        @jump(can_jump_to=["end"])
        async def abefore_agent(self, state: Any, runtime: Any) -> Optional[Dict[str, Any]]:
            start = await self.gate.asession_start()
            prompt = self._prompt(state)
            v = await self.gate.auser_prompt(_text(prompt.content)) if prompt is not None else None
            return self._started(start, prompt, v)

        @staticmethod
        def _prompt(state: Any) -> Any:
            """The run's new human message (None when the run starts from anything else)."""
            msgs = state.get("messages") or []
            if msgs and isinstance(msgs[-1], messages.HumanMessage) and not _mark(msgs[-1]):
                return msgs[-1]
            return None

        def _started(self, start: Verdict, prompt: Any, v: Optional[Verdict]) -> Optional[Dict[str, Any]]:
            if v is not None and (v.blocked or v.stops):
                # The prompt never reaches the model; the reason is the run's answer.
                reason = (v.stop_reason or v.feedback()) if v.stops else v.feedback()
                end = messages.AIMessage(content=reason, response_metadata={MARK: {"ended": "UserPromptSubmit"}})
                drop = [messages.RemoveMessage(id=prompt.id)] if prompt.id else []
                return {"messages": [*drop, end], "jump_to": "end"}
            added = [self._context(x.event, x.additional_context) for x in (start, v) if x is not None and x.additional_context]
            return {"messages": added} if added else None

        @staticmethod
        def _context(event: str, text: str) -> Any:
            return messages.HumanMessage(content=text, response_metadata={MARK: {"context": event}})

        # --- the loop: end it after a tool hook's continue: false ------------------------

        @jump(can_jump_to=["end"])
        def before_model(self, state: Any, runtime: Any) -> Optional[Dict[str, Any]]:
            for m in reversed(state.get("messages") or []):
                if not isinstance(m, messages.ToolMessage):
                    break
                if "stop" in _mark(m):
                    return {"jump_to": "end"}
            return None

        @jump(can_jump_to=["end"])
        async def abefore_model(self, state: Any, runtime: Any) -> Optional[Dict[str, Any]]:
            jumped: Optional[Dict[str, Any]] = self.before_model(state, runtime)
            return jumped

        # --- the run's end: Stop ---------------------------------------------------------

        @jump(can_jump_to=["model"])
        def after_agent(self, state: Any, runtime: Any) -> Optional[Dict[str, Any]]:
            msgs = state.get("messages") or []
            if self._ended_by_hook(msgs):
                return None
            active, last = self._stop_state(msgs)
            return self._stopped(self.gate.stop(last, stop_hook_active=active, subagent=self.subagent), active)

        @jump(can_jump_to=["model"])
        async def aafter_agent(self, state: Any, runtime: Any) -> Optional[Dict[str, Any]]:
            msgs = state.get("messages") or []
            if self._ended_by_hook(msgs):
                return None
            active, last = self._stop_state(msgs)
            return self._stopped(await self.gate.astop(last, stop_hook_active=active, subagent=self.subagent), active)

        @staticmethod
        def _ended_by_hook(msgs: List[Any]) -> bool:
            """A hook already ended this run (continue: false, a blocked prompt): no Stop."""
            return bool(msgs) and bool({"stop", "ended"} & set(_mark(msgs[-1])))

        @staticmethod
        def _stop_state(msgs: List[Any]) -> "tuple[bool, Optional[str]]":
            """(stop_hook_active, the last assistant text): active when the latest human
            message is a Stop hook's continuation."""
            last = next((_text(m.content) for m in reversed(msgs) if isinstance(m, messages.AIMessage)), None)
            for m in reversed(msgs):
                if isinstance(m, messages.HumanMessage) and "context" not in _mark(m):
                    return "continue" in _mark(m), last
            return False, last

        def _stopped(self, v: Verdict, active: bool) -> Optional[Dict[str, Any]]:
            # An engine that cannot decide Stop fails closed once; not again on the answer
            # to that continuation, or a dead engine would keep the agent going for ever.
            if v.stops or not v.blocked or (v.error and active):
                return None
            go_on = messages.HumanMessage(content=v.feedback(), response_metadata={MARK: {"continue": v.event}})
            return {"messages": [go_on], "jump_to": "model"}

        # --- lifecycle -------------------------------------------------------------------

        def close(self) -> None:
            """SessionEnd (once, if the session started) and the gate's engine closed."""
            self.tool_calls.close()

        def __enter__(self) -> Any:
            return self

        def __exit__(self, *exc: Any) -> None:
            self.close()

    HookexecMiddleware.__module__ = __name__
    return HookexecMiddleware


def __getattr__(name: str) -> Any:
    # The class subclasses LangChain's AgentMiddleware, so it is built on first use.
    if name == "HookexecMiddleware":
        cls = _middleware_class()
        globals()[name] = cls
        return cls
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
