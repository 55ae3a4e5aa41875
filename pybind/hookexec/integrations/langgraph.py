"""hookexec for LangGraph: the ``ToolNode`` tool-call wrapper of a hand-built graph::

    from langgraph.prebuilt import ToolNode
    from hookexec.integrations.langgraph import ToolCallHooks

    hooks = ToolCallHooks()                      # .claude/settings.json of the current directory
    tools = ToolNode([shell], wrap_tool_call=hooks.wrap_tool_call,
                     awrap_tool_call=hooks.awrap_tool_call)   # or: hooks.tool_node([shell])

Each tool call fires PreToolUse, then PostToolUse or PostToolUseFailure, through one
:class:`~hookexec.integrations.Gate`:

- a block answers the call with an error ``ToolMessage`` carrying the hook's reason (the tool
  does not run), which the model reads next;
- ``updated_input`` rewrites the request's ``tool_call["args"]``: the tool runs with it;
- ``additional_context`` (and a PostToolUse block's reason) is appended to the ``ToolMessage``;
- ``ask`` raises LangGraph's ``interrupt()`` with LangChain's per-call approval value
  (``{"type": "tool_approval", ...}``, answered by ``Command(resume={"type": "approve"})``,
  ``{"type": "edit", "edited_action": {"args": ...}}`` or ``{"type": "reject", "message": ...}``)
  when the graph has a checkpointer and the gate no ``approve`` callback; else the gate
  settles it (the callback, or a block with the reason);
- ``continue: false`` raises :class:`~hookexec.integrations.RunStopped` out of the graph's
  ``invoke`` (a ToolNode cannot end a hand-built graph by itself; ``handle_tool_errors=True``
  would turn any exception into a message, so leave it off or re-raise ``RunStopped``).

It does not fire UserPromptSubmit, Stop or the session events: a hand-built graph has no
fixed point for them (``hooks.gate.user_prompt(...)`` etc. are there for the graph's own
nodes). :mod:`hookexec.integrations.langchain` builds its middleware on this wrapper.

LangGraph is imported lazily: ``pip install 'hookexec[langgraph]'``.
"""

from __future__ import annotations

import importlib
from dataclasses import replace
from types import ModuleType
from typing import Any, Awaitable, Callable, Dict, Optional, Sequence, Tuple

from ._gate import Gate, RunStopped, Verdict

__all__ = ["ToolCallHooks", "require"]

# The config key under which LangGraph hands a node its checkpointer (interrupts need one).
_CHECKPOINTER_KEY = "__pregel_checkpointer"

ASK_MODES = ("auto", "interrupt", "approve")


def require(module: str, extra: str) -> ModuleType:
    """Imports ``module`` of an optional framework, or says which pip extra installs it."""
    try:
        return importlib.import_module(module)
    except ImportError as e:
        raise ImportError(
            f"hookexec.integrations.{extra.replace('-', '_')} needs {module.split('.')[0]}: "
            f"pip install 'hookexec[{extra}]' ({e})"
        ) from e


def _append(content: Any, text: str) -> Any:
    """A ToolMessage content with ``text`` added (a string, or a list of content blocks)."""
    if isinstance(content, list):
        return [*content, {"type": "text", "text": text}]
    if content in (None, ""):
        return text
    content = str(content)
    return f"{content}{chr(10) if content.endswith(chr(10)) else chr(10) * 2}{text}"


def _content_text(content: Any) -> Any:
    """What a hook sees as ``tool_response``: the message's text, else its content as is."""
    if isinstance(content, list) and all(isinstance(b, dict) and b.get("type") == "text" for b in content):
        return "".join(str(b.get("text", "")) for b in content)
    return content


class ToolCallHooks:
    """PreToolUse/PostToolUse/PostToolUseFailure around a LangGraph ``ToolNode``'s tool calls.

    ``gate`` is the :class:`~hookexec.integrations.Gate` to use (not closed by :meth:`close`);
    else one is opened with ``gate_options`` (``project_dir``, ``profile``, ``tool_names``,
    ``approve``, ``on_system_message``, engine options; see ``Gate``) and closed by
    :meth:`close`. ``ask`` says how a hook's "ask" is settled: ``"auto"`` (the default) raises
    an ``interrupt()`` when the gate has no ``approve`` callback and the graph a checkpointer,
    else lets the gate settle it; ``"interrupt"`` always interrupts; ``"approve"`` never does.
    """

    def __init__(self, gate: Optional[Gate] = None, *, ask: str = "auto", **gate_options: Any) -> None:
        if ask not in ASK_MODES:
            raise ValueError(f"hookexec: ask must be one of {', '.join(ASK_MODES)}, not {ask!r}")
        self._lg_types = require("langgraph.types", "langgraph")
        self._lg_errors = require("langgraph.errors", "langgraph")
        self._messages = require("langchain_core.messages", "langgraph")
        if gate is None:
            self.gate = Gate(**gate_options)
            self._owned = True
        else:
            if gate_options:
                raise TypeError("hookexec: pass either a Gate or its options, not both")
            self.gate = gate
            self._owned = False
        self.ask = ask

    # --- the wrappers ToolNode calls ----------------------------------------------------------

    def wrap_tool_call(self, request: Any, execute: Callable[[Any], Any]) -> Any:
        """``ToolNode(wrap_tool_call=...)``: runs ``execute(request)`` as the hooks decide."""
        name, args, call_id = self._call(request)
        v = self.gate.pre_tool(name, args, call_id)
        if v.asks:
            v = self._interrupt(v, request) if self._interrupts(request) else self.gate.settle_ask(v, name, args)
        early, request, args = self._decided(v, request)
        if early is not None:
            return early
        try:
            result = execute(request)
        except self._lg_errors.GraphBubbleUp:
            raise  # an interrupt or a parent command, not a failure
        except Exception as e:
            self._failed_raise(self.gate.tool_failed(name, args, str(e), call_id), e)
            raise
        failed, response = self._response(result, call_id)
        post = self.gate.tool_failed(name, args, str(response), call_id) if failed else self.gate.post_tool(name, args, response, call_id)
        return self._after(post, request, result)

    async def awrap_tool_call(self, request: Any, execute: Callable[[Any], Awaitable[Any]]) -> Any:
        """``ToolNode(awrap_tool_call=...)``: :meth:`wrap_tool_call` for ``ainvoke``/``astream``."""
        name, args, call_id = self._call(request)
        v = await self.gate.apre_tool(name, args, call_id)
        if v.asks:
            v = self._interrupt(v, request) if self._interrupts(request) else await self.gate.asettle_ask(v, name, args)
        early, request, args = self._decided(v, request)
        if early is not None:
            return early
        try:
            result = await execute(request)
        except self._lg_errors.GraphBubbleUp:
            raise
        except Exception as e:
            self._failed_raise(await self.gate.atool_failed(name, args, str(e), call_id), e)
            raise
        failed, response = self._response(result, call_id)
        if failed:
            post = await self.gate.atool_failed(name, args, str(response), call_id)
        else:
            post = await self.gate.apost_tool(name, args, response, call_id)
        return self._after(post, request, result)

    def tool_node(self, tools: Sequence[Any], **tool_node_options: Any) -> Any:
        """A ``langgraph.prebuilt.ToolNode`` of ``tools`` with both wrappers set."""
        prebuilt = require("langgraph.prebuilt", "langgraph")
        return prebuilt.ToolNode(tools, wrap_tool_call=self.wrap_tool_call, awrap_tool_call=self.awrap_tool_call, **tool_node_options)

    # --- what a verdict does to the call ------------------------------------------------------

    @staticmethod
    def _call(request: Any) -> Tuple[str, Dict[str, Any], Optional[str]]:
        call = request.tool_call
        args = call.get("args")
        return str(call["name"]), dict(args) if isinstance(args, dict) else {}, call.get("id")

    def _message(self, request: Any, content: Any, status: str = "success") -> Any:
        call = request.tool_call
        return self._messages.ToolMessage(content=content, name=call["name"], tool_call_id=call.get("id") or "", status=status)

    def _decided(self, v: Verdict, request: Any) -> Tuple[Any, Any, Dict[str, Any]]:
        """(the answer instead of running the tool, or None; the request to run; its args)."""
        early = self._refused(v, request)
        request = self._rewritten(v, request)
        return early, request, request.tool_call.get("args") or {}

    def _refused(self, v: Verdict, request: Any) -> Any:
        """The answer to a call the hooks do not let run (None: it runs)."""
        if v.stops:
            return self.stopped(v, request, self._message(request, v.stop_reason or v.feedback(), "error"))
        if v.blocked or v.asks:  # an ask still open here was not settled: refused
            return self._message(request, v.feedback(), "error")
        return None

    @staticmethod
    def _rewritten(v: Verdict, request: Any) -> Any:
        if v.updated_input is None:
            return request
        return request.override(tool_call={**request.tool_call, "args": dict(v.updated_input)})

    def _response(self, result: Any, call_id: Optional[str]) -> Tuple[bool, Any]:
        """(failed, the tool_response hooks see) of a ToolMessage or a Command's."""
        msg = self._tool_message(result, call_id)
        if msg is None:
            return False, repr(result)
        return getattr(msg, "status", "success") == "error", _content_text(msg.content)

    def _tool_message(self, result: Any, call_id: Optional[str]) -> Any:
        if isinstance(result, self._messages.ToolMessage):
            return result
        update = getattr(result, "update", None)
        if isinstance(update, dict):
            for m in update.get("messages", []) or []:
                if isinstance(m, self._messages.ToolMessage) and m.tool_call_id == call_id:
                    return m
        return None

    def _after(self, v: Verdict, request: Any, result: Any) -> Any:
        """The tool's result with what the PostToolUse (or failure) hooks add for the model."""
        # After a tool, a hook's block (or its reason) is text for the model with the result.
        notes = [t for t in (v.feedback() if v.blocked else v.reason, v.additional_context) if t]
        if notes:
            result = self._amended(result, request.tool_call.get("id"), "\n\n".join(notes))
        if v.stops:
            msg = self._tool_message(result, request.tool_call.get("id"))
            return self.stopped(v, request, msg if msg is not None else self._message(request, v.stop_reason))
        return result

    def _amended(self, result: Any, call_id: Optional[str], text: str) -> Any:
        if isinstance(result, self._messages.ToolMessage):
            return result.model_copy(update={"content": _append(result.content, text)})
        msg = self._tool_message(result, call_id)
        if msg is None:
            return result
        update = dict(result.update)
        update["messages"] = [m.model_copy(update={"content": _append(m.content, text)}) if m is msg else m for m in update["messages"]]
        return replace(result, update=update)

    def _failed_raise(self, v: Verdict, e: BaseException) -> None:
        """After a tool raised: a failure hook's ``continue: false`` ends the run instead."""
        if v.stops:
            raise RunStopped(v.stop_reason, v) from e

    def stopped(self, v: Verdict, request: Any, message: Any) -> Any:
        """``continue: false``: a hand-built graph ends by :class:`RunStopped` (the LangChain
        middleware overrides this to end its agent loop instead)."""
        raise RunStopped(v.stop_reason, v)

    # --- ask ----------------------------------------------------------------------------------

    def _interrupts(self, request: Any) -> bool:
        if self.ask == "interrupt":
            return True
        if self.ask == "approve" or self.gate.approve is not None:
            return False
        config = getattr(request.runtime, "config", None) or {}
        return (config.get("configurable") or {}).get(_CHECKPOINTER_KEY) is not None

    def _interrupt(self, v: Verdict, request: Any) -> Verdict:
        """Asks the graph's user through ``interrupt()``; their answer settles the verdict."""
        call = request.tool_call
        answer = self._lg_types.interrupt(
            {
                "type": "tool_approval",
                "tool_call_id": call.get("id") or "",
                "name": call["name"],
                "args": call.get("args") or {},
                "description": v.reason or f"A hook asks before {self.gate.canonical(call['name'])} runs",
            }
        )
        kind = answer.get("type") if isinstance(answer, dict) else answer
        if kind is True or kind == "approve":
            return replace(v, decision="allow")
        if kind == "edit":
            edited = answer.get("edited_action") or {}
            args = edited.get("args") if isinstance(edited, dict) else None
            if isinstance(args, dict):
                return replace(v, decision="allow", updated_input=args)
            return replace(v, decision="deny", reason=f"hookexec: an edit answer needs edited_action.args (an object); got {answer!r}")
        if kind is False or kind == "reject":
            why = answer.get("message") if isinstance(answer, dict) else None
            return replace(v, decision="deny", reason=f"The user refused: {why}" if why else f"{v.feedback()} (the user refused)")
        return replace(v, decision="deny", reason=f"hookexec: an ask is answered by {{'type': 'approve'|'edit'|'reject'}}; got {answer!r}")

    # --- lifecycle ----------------------------------------------------------------------------

    def close(self) -> None:
        """Closes the gate this object opened (firing SessionEnd if a session started)."""
        if self._owned:
            self.gate.close()

    def __enter__(self) -> "ToolCallHooks":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()
