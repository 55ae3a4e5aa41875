"""hookexec for Google ADK: one plugin governs every agent a Runner runs.

    from hookexec.integrations.google_adk import HookexecPlugin
    runner = InMemoryRunner(agent=agent, plugins=[HookexecPlugin()])

The plugin reads the hooks of ``.claude/settings.json`` (any profile hookexec reads) and maps
ADK's plugin callbacks to hookexec events:

- ``on_user_message_callback`` → SessionStart (once per ADK session) and UserPromptSubmit:
  additional context is added to the user's message; a block replaces the message with a
  notice and ``before_run_callback`` ends the run with the reason, before any model call.
- ``before_tool_callback`` → PreToolUse: a block answers the call with ``{"error": reason}``
  (the model reads it; the tool does not run); ``updated_input`` rewrites the arguments the
  tool really runs with; ``ask`` uses ADK's tool confirmation (``request_confirmation``: the
  run pauses for the app's yes or no) unless ``approve=`` settles it in process.
- ``after_tool_callback`` → PostToolUse (never for a call the plugin answered itself: ADK
  calls the after-callbacks for those too): additional context and a block's reason are added
  to the tool's result.
- ``on_tool_error_callback`` → PostToolUseFailure.
- ``after_run_callback`` → Stop. ADK ignores what ``after_run_callback`` returns and no
  callback can reopen a finished run, so a Stop block that makes the agent go on needs
  :meth:`HookexecPlugin.run`, which wraps ``Runner.run_async`` and sends the reason as the
  next user message; with ``Runner.run_async`` alone a Stop block is logged.
- ``continue: false`` on any event ends the run (the invocation's ``end_invocation``);
  the reason is kept in :attr:`HookexecPlugin.stop_reasons` and logged.
- ``close()`` (``Runner.close``) → SessionEnd for every session the plugin saw.

ADK is imported lazily: ``pip install hookexec[google-adk]``.
"""

from __future__ import annotations

import asyncio
import dataclasses
import importlib
from typing import TYPE_CHECKING, Any, AsyncIterator, Callable, Dict, List, Mapping, Optional, Set, Union

from ..engine import Engine
from ._gate import Approver, Gate, Verdict, log

# The tool name hooks see for code an agent's code executor runs (no tool of ADK's).
CODE_TOOL = "code_execution"

if TYPE_CHECKING:
    import os

__all__ = ["HookexecPlugin"]

_EXTRA = "pip install 'hookexec[google-adk]' (google-adk)"


def _adk(module: str) -> Any:
    # Imported by name: ADK is optional, and mypy checks this package without it.
    try:
        return importlib.import_module(module)
    except ImportError as e:
        raise ImportError(f"hookexec.integrations.google_adk needs Google ADK: {_EXTRA}") from e


def _text(content: Any) -> str:
    """The text parts of a genai Content, joined."""
    parts = getattr(content, "parts", None) or []
    return "\n".join(p.text for p in parts if getattr(p, "text", None) and not getattr(p, "thought", False))


def _content(role: str, *texts: str) -> Any:
    types = _adk("google.genai.types")
    return types.Content(role=role, parts=[types.Part(text=t) for t in texts if t])


def _call_key(tool_context: Any) -> str:
    return str(getattr(tool_context, "function_call_id", None) or id(tool_context))


class _Plugin:
    """An ADK plugin that governs every agent of a Runner or App with hookexec:
    ``Runner(..., plugins=[HookexecPlugin()])``.

    ``engine`` is an open engine to use (not closed by the plugin); else one is opened with
    ``project_dir`` and ``profile`` (where the hooks are read: default the current
    directory's ``.claude/settings.json`` and the user's) and engine options (``timeout``,
    ...). ``tool_names`` maps ADK tool names to canonical ones, over the defaults (``shell``
    → ``Bash``). ``approve(tool, input, reason)`` settles an ``ask`` in process instead of
    ADK's tool confirmation. ``on_system_message(text)`` gets hooks' systemMessage (default:
    logged). ``max_stop_continuations`` bounds :meth:`run`. ``name`` is the ADK plugin name.
    """

    name: str

    def __init__(
        self,
        engine: Optional[Engine] = None,
        *,
        project_dir: Union[str, "os.PathLike[str]", None] = None,
        profile: str = "claude",
        tool_names: Optional[Mapping[str, str]] = None,
        approve: Optional[Approver] = None,
        on_system_message: Optional[Callable[[str], Any]] = None,
        max_stop_continuations: int = 8,
        name: str = "hookexec",
        **engine_options: Any,
    ) -> None:
        super().__init__(name=name)  # type: ignore[call-arg]
        # One engine for the app; one gate per ADK session (its id is the hooks' session_id).
        self._root = Gate(engine, project_dir=project_dir, profile=profile, tool_names=tool_names,
                          approve=approve, on_system_message=on_system_message, **engine_options)
        self.engine = self._root.engine
        self.max_stop_continuations = max_stop_continuations
        self._gates: Dict[str, Gate] = {}
        self._answered: Set[str] = set()  # calls the plugin answered: no PostToolUse for them
        self._halted: Dict[str, str] = {}  # invocation id -> the reason the prompt was refused
        self._ended: Set[str] = set()  # invocations a hook ended (continue: false): no Stop
        self._continue: Dict[str, str] = {}  # session id -> a Stop block's reason to go on with
        self._continuing: Set[str] = set()  # sessions whose next message is that reason
        #: session id -> the stopReason of the hook that ended its last run (continue: false).
        self.stop_reasons: Dict[str, str] = {}

    # --- gates ----------------------------------------------------------------------------

    def gate(self, session_id: str) -> Gate:
        """The gate of one ADK session (created on first use, sharing the plugin's engine)."""
        g = self._gates.get(session_id)
        if g is None:
            r = self._root
            g = Gate(r.engine, project_dir=r.cwd, tool_names=r.tool_names, session_id=session_id,
                     approve=r.approve, on_system_message=r.on_system_message)
            self._gates[session_id] = g
        return g

    @staticmethod
    def _session_id(ctx: Any) -> str:
        session = getattr(ctx, "session", None)
        return str(getattr(session, "id", "") or "adk")

    # --- the prompt -----------------------------------------------------------------------

    async def on_user_message_callback(self, *, invocation_context: Any, user_message: Any) -> Any:
        sid = self._session_id(invocation_context)
        g = self.gate(sid)
        added: List[str] = []
        start = await g.asession_start()
        if start.additional_context:
            added.append(start.additional_context)
        prompt = _text(user_message)
        if sid in self._continuing:
            # The reason of a Stop block, sent by run(): not a prompt of the user's.
            self._continuing.discard(sid)
        elif prompt:
            # A new prompt of the user's: a Stop block left by a plain run_async is moot.
            self._continue.pop(sid, None)
            v = await g.auser_prompt(prompt)
            if v.stops or v.blocked:
                # The prompt stays out of the history; before_run_callback ends the run.
                if v.stops:
                    self._end(invocation_context, sid, v.stop_reason)
                why = v.stop_reason if v.stops else v.feedback()
                self._halted[invocation_context.invocation_id] = why or "a hook stopped the run"
                return _content("user", f"(prompt withheld by a UserPromptSubmit hook: {why})")
            if v.additional_context:
                added.append(v.additional_context)
        return _with_text(user_message, added) if added else None

    async def before_run_callback(self, *, invocation_context: Any) -> Any:
        await self.gate(self._session_id(invocation_context)).asession_start()
        reason = self._halted.get(invocation_context.invocation_id)
        if reason is not None:
            return _content("model", reason)
        return None

    def _end(self, invocation_context: Any, session_id: str, reason: str) -> None:
        """continue: false. ADK stops before its next model call once ``end_invocation`` is set."""
        self.stop_reasons[session_id] = reason
        log.warning("hookexec: a hook stopped the run%s", f": {reason}" if reason else "")
        if invocation_context is not None:
            invocation_context.end_invocation = True
            self._ended.add(invocation_context.invocation_id)

    # --- code the model writes -------------------------------------------------------------

    async def before_agent_callback(self, *, agent: Any, callback_context: Any) -> Any:
        executor = getattr(agent, "code_executor", None)
        if executor is not None and "_hookexec_guarded" not in vars(executor):
            self._guard(executor)
        return None

    def _guard(self, executor: Any) -> None:
        """An agent's code executor runs the code blocks the model writes, with no tool call
        and no tool callback: its ``execute_code`` meets PreToolUse as the tool
        ``code_execution`` (``{"code": ...}``; map it with ``tool_names``) and PostToolUse."""
        utils = _adk("google.adk.code_executors.code_execution_utils")
        inner = executor.execute_code

        def execute_code(invocation_context: Any, code_input: Any) -> Any:
            # ADK calls this in a worker thread: the gate's blocking calls are fine here.
            sid = self._session_id(invocation_context)
            g = self.gate(sid)
            tool_input: Dict[str, Any] = {"code": code_input.code}
            v = g.settle_ask(g.pre_tool(CODE_TOOL, tool_input), CODE_TOOL, tool_input)
            if v.stops:
                self._end(invocation_context, sid, v.stop_reason)
                return utils.CodeExecutionResult(stderr=f"A hook stopped the run: {v.stop_reason or v.feedback()}")
            if not v.blocked and v.updated_input is not None:
                code = v.updated_input.get("code")
                if not isinstance(code, str):
                    v = dataclasses.replace(v, decision="deny", reason='hookexec: a PreToolUse updatedInput for code_execution needs "code", a string')
                else:
                    tool_input = {"code": code}
                    code_input = dataclasses.replace(code_input, code=code)
            if v.blocked:
                return utils.CodeExecutionResult(stderr=v.feedback())
            result = inner(invocation_context, code_input)
            post = g.post_tool(CODE_TOOL, tool_input, {"stdout": result.stdout, "stderr": result.stderr})
            if post.stops:
                self._end(invocation_context, sid, post.stop_reason)
            notes = [t for t in (post.feedback() if (post.blocked or post.reason) else "", post.additional_context) if t]
            if notes:
                result = dataclasses.replace(result, stderr="\n".join([result.stderr, *notes]).strip("\n"))
            return result

        # A pydantic model: set on the instance past its validation (not a field).
        object.__setattr__(executor, "execute_code", execute_code)
        object.__setattr__(executor, "_hookexec_guarded", True)

    # --- tools ----------------------------------------------------------------------------

    async def before_tool_callback(self, *, tool: Any, tool_args: Dict[str, Any], tool_context: Any) -> Optional[Dict[str, Any]]:
        sid = self._session_id(tool_context)
        g = self.gate(sid)
        v = await g.apre_tool(tool.name, dict(tool_args), getattr(tool_context, "function_call_id", None))
        if v.asks:
            v = await self._ask(g, v, tool.name, tool_args, tool_context)
            if v.asks:  # the run pauses for the app's answer
                self._answered.add(_call_key(tool_context))
                return {"error": f"This tool call requires confirmation: {v.feedback()}"}
        if v.stops:
            self._end(getattr(tool_context, "_invocation_context", None), sid, v.stop_reason)
            self._answered.add(_call_key(tool_context))
            return {"error": f"A hook stopped the run: {v.stop_reason or v.feedback()}"}
        if v.blocked:
            self._answered.add(_call_key(tool_context))
            return {"error": v.feedback()}
        if v.updated_input is not None:
            # The tool runs with this very dict (ADK passes it on), so the rewrite is real.
            tool_args.clear()
            tool_args.update(v.updated_input)
        return None

    async def _ask(self, g: Gate, v: Verdict, tool: str, tool_args: Dict[str, Any], tool_context: Any) -> Verdict:
        """An "ask": ``approve=`` settles it in process; else ADK's tool confirmation does: the
        first time the call is answered and the run pauses; resumed with the user's answer,
        yes lets the call through and no refuses it."""
        if g.approve is not None:
            return await g.asettle_ask(v, tool, dict(tool_args))
        confirmation = getattr(tool_context, "tool_confirmation", None)
        if confirmation is None:
            tool_context.request_confirmation(
                hint=v.reason or "a hook asks for the user's approval",
                payload={"tool_name": g.canonical(tool), "tool_input": dict(tool_args)},
            )
            return v
        return Gate._asked(v, bool(getattr(confirmation, "confirmed", False)))

    async def after_tool_callback(self, *, tool: Any, tool_args: Dict[str, Any], tool_context: Any, result: Dict[str, Any]) -> Optional[Dict[str, Any]]:
        key = _call_key(tool_context)
        if key in self._answered:
            self._answered.discard(key)
            return None
        sid = self._session_id(tool_context)
        v = await self.gate(sid).apost_tool(tool.name, dict(tool_args), result, getattr(tool_context, "function_call_id", None))
        if v.stops:
            self._end(getattr(tool_context, "_invocation_context", None), sid, v.stop_reason)
        out = dict(result)
        if v.blocked or v.reason:
            # PostToolUse's "decision": "block" cannot undo the call: the engine reports its
            # reason, which Claude Code shows the model, and so does the plugin.
            out["hook_feedback"] = v.feedback()
        if v.additional_context:
            out["additional_context"] = v.additional_context
        return out if out != result else None

    async def on_tool_error_callback(self, *, tool: Any, tool_args: Dict[str, Any], tool_context: Any, error: Exception) -> Optional[Dict[str, Any]]:
        if isinstance(error, asyncio.CancelledError):
            return None
        sid = self._session_id(tool_context)
        v = await self.gate(sid).atool_failed(tool.name, dict(tool_args), f"{type(error).__name__}: {error}",
                                              getattr(tool_context, "function_call_id", None))
        if v.stops:
            self._end(getattr(tool_context, "_invocation_context", None), sid, v.stop_reason)
        if v.additional_context:
            # Answering the call keeps the run going with the error and the hook's context
            # (ADK then runs the after-callbacks: no PostToolUse for a call that failed).
            self._answered.add(_call_key(tool_context))
            return {"error": f"{type(error).__name__}: {error}", "additional_context": v.additional_context}
        return None

    # --- the end of a run -----------------------------------------------------------------

    async def after_run_callback(self, *, invocation_context: Any) -> None:
        sid = self._session_id(invocation_context)
        iid = invocation_context.invocation_id
        if self._halted.pop(iid, None) is not None or iid in self._ended:
            self._ended.discard(iid)
            return
        last = ""
        for event in reversed(list(getattr(invocation_context.session, "events", None) or [])):
            if getattr(event, "author", "user") != "user" and _text(getattr(event, "content", None)):
                last = _text(event.content)
                break
        active = sid in self._continue
        v = await self.gate(sid).astop(last or None, stop_hook_active=active)
        self._continue.pop(sid, None)
        if v.stops:
            self._end(None, sid, v.stop_reason)
        elif v.blocked and not v.error:
            # A Stop the engine failed to decide ends the run: going on is not the safe side.
            self._continue[sid] = v.feedback()
            log.info("hookexec: a Stop hook asks the agent to go on: %s", v.feedback())

    async def run(self, runner: Any, *, user_id: str, session_id: str, new_message: Any, **kwargs: Any) -> AsyncIterator[Any]:
        """``runner.run_async(...)``, then again with a Stop block's reason as the next user
        message while a Stop hook blocks (at most ``max_stop_continuations`` times): the way
        for a Stop block to make an ADK agent go on."""
        self.stop_reasons.pop(session_id, None)
        message = new_message
        for n in range(self.max_stop_continuations + 1):
            async for event in runner.run_async(user_id=user_id, session_id=session_id, new_message=message, **kwargs):
                yield event
            reason = self._continue.get(session_id)
            if reason is None or session_id in self.stop_reasons:
                break
            if n == self.max_stop_continuations:
                log.warning("hookexec: Stop hooks blocked %d times; the run ends", n + 1)
                self._continue.pop(session_id, None)
                break
            self._continuing.add(session_id)
            message = _content("user", reason)

    async def close(self) -> None:
        """SessionEnd for every session seen; closes the engine the plugin opened."""
        try:
            for g in self._gates.values():
                await g.asession_end()
        finally:
            self._root.close()


def _with_text(content: Any, texts: List[str]) -> Any:
    types = _adk("google.genai.types")
    parts = list(content.parts or []) + [types.Part(text=t) for t in texts]
    return types.Content(role=content.role or "user", parts=parts)


_cls: Any = None


def __getattr__(name: str) -> Any:
    # HookexecPlugin (_Plugin on ADK's BasePlugin) subclasses ADK's BasePlugin, so it is made on first use: importing this
    # module never needs ADK, naming the class does.
    global _cls
    if name != "HookexecPlugin":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    if _cls is None:
        _cls = type("HookexecPlugin", (_Plugin, _adk("google.adk.plugins.base_plugin").BasePlugin), {"__module__": __name__})
    return _cls
