"""hookexec for the Claude Agent SDK for Python (``claude-agent-sdk``): hookexec's engine answers
the SDK's hook callbacks, so the hooks configuration that guards Claude Code governs an app
built on the SDK, with hookexec's persistent hooks, templates and trust.

One line, a drop-in for the SDK's ``query``::

    from hookexec.integrations.claude_agent_sdk import query   # in place of claude_agent_sdk's

or, assembling the options yourself, ``options = governed(ClaudeAgentOptions(...))``, or only
the callbacks, ``ClaudeAgentOptions(hooks=hookexec_hooks(), ...)``.

The SDK runs Claude Code, which sends each hook point to a Python callback with Claude Code's
own payload; the callback fires the same event through a :class:`~hookexec.integrations.Gate`
with that payload and answers with Claude Code's hook output (``permissionDecision``,
``updatedInput``, ``additionalContext``, ``decision: "block"``, ``continue: false``,
``systemMessage``). Tool names are Claude Code's already (``Bash``, ``mcp__server__tool``).

What it deliberately does not do:

- run hooks twice: Claude Code itself runs the hooks of the settings files it loads, the
  very files hookexec reads. :func:`governed` and :func:`query` turn Claude Code's own hook
  runner off (``disableAllHooks`` in the ``--settings`` layer) and leave ``setting_sources``
  as the app set it, so CLAUDE.md, permissions and skills still load. With bare
  :func:`hookexec_hooks` that is the app's to do.
- rely on the SDK for SessionStart and SessionEnd: 0.2.189 never calls callbacks for them. The
  adapter fires SessionStart before the first event of a session (its additional context
  reaches the model with that event's) and SessionEnd when the run ends (:func:`query`,
  :func:`session`, or :meth:`Hooks.aclose`).
"""

from __future__ import annotations

import dataclasses
import importlib
import json
import os
from contextlib import asynccontextmanager
from typing import Any, AsyncIterator, Dict, List, Optional

from ._gate import BLOCKING_EVENTS, Gate, Verdict, log

__all__ = ["hookexec_hooks", "governed", "query", "session", "Hooks", "EVENTS"]

# The hook points the SDK sends to Python callbacks (0.2.189's HookEvent), each fired as the
# hookexec event of the same name. Notification, SubagentStart and PermissionRequest are
# Claude Code's too: they pass through with their own answers.
EVENTS = (
    "PreToolUse", "PostToolUse", "PostToolUseFailure", "UserPromptSubmit", "Stop",
    "SubagentStop", "PreCompact", "Notification", "SubagentStart", "PermissionRequest",
)

# The answer fields each event carries in hookSpecificOutput.additionalContext.
_CONTEXT_EVENTS = frozenset(
    {"PreToolUse", "PostToolUse", "PostToolUseFailure", "UserPromptSubmit", "Notification", "SubagentStart"}
)


def _sdk() -> Any:
    try:
        # importlib: mypy checks this package without the SDK installed
        return importlib.import_module("claude_agent_sdk")
    except ImportError as e:  # pragma: no cover - depends on the environment
        raise ImportError(
            "hookexec.integrations.claude_agent_sdk needs the Claude Agent SDK: "
            "pip install 'hookexec[claude-agent-sdk]' (or claude-agent-sdk)"
        ) from e


class Hooks(Dict[str, List[Any]]):
    """The SDK's ``hooks=`` mapping (event → ``[HookMatcher]``) whose callbacks answer through
    one :class:`Gate` (``.gate``). :meth:`aclose` fires SessionEnd and closes a gate it
    opened."""

    def __init__(self, gate: Gate, owned: bool, timeout: Optional[float]) -> None:
        super().__init__()
        sdk = _sdk()
        self.gate = gate
        self._owned = owned
        self._seen = False  # a first event came: SessionStart was fired
        for event in EVENTS:
            # on_failure="block": a callback that fails (it never should: the gate turns engine
            # errors into verdicts) refuses instead of allowing.
            self[event] = [sdk.HookMatcher(matcher=None, hooks=[self._callback], timeout=timeout, on_failure="block")]

    async def _callback(self, hook_input: Any, tool_use_id: Optional[str], context: Any) -> Dict[str, Any]:
        event = str(hook_input.get("hook_event_name", ""))
        try:
            return await self._answer(event, dict(hook_input), tool_use_id)
        except Exception as e:  # noqa: BLE001 - fail closed on anything unexpected
            log.exception("hookexec: the %s callback failed", event)
            if event in BLOCKING_EVENTS:
                return _output(event, Verdict(event=event, decision="deny", reason=f"hookexec: {event} could not be decided: {e}", error=str(e)))
            return {}

    async def _answer(self, event: str, payload: Dict[str, Any], tool_use_id: Optional[str]) -> Dict[str, Any]:
        gate = self.gate
        started = await self._start(payload)
        if started.stops:
            return _output(event, started)
        tool = payload.get("tool_name")
        if isinstance(tool, str):
            payload["tool_name"] = gate.canonical(tool)
        if tool_use_id and "tool_use_id" not in payload:
            payload["tool_use_id"] = tool_use_id
        v = await gate.afire(event, payload)
        if event == "PreToolUse" and v.asks and gate.approve is not None:
            # The app's approver settles it here; without one Claude Code's own permission
            # flow asks (the SDK's can_use_tool, or the permission mode's answer).
            v = await gate.asettle_ask(v, str(tool), dict(payload.get("tool_input") or {}))
        if started.additional_context:
            joined = "\n".join(c for c in (started.additional_context, v.additional_context) if c)
            v = dataclasses.replace(v, additional_context=joined)
        return _output(event, v)

    async def _start(self, payload: Dict[str, Any]) -> Verdict:
        """SessionStart, once, before the session's first event, with Claude Code's session."""
        gate = self.gate
        if self._seen:  # the gate's own lock makes the fire itself once-only
            return Verdict(event="SessionStart")
        self._seen = True
        if isinstance(payload.get("session_id"), str):
            gate.session_id = payload["session_id"]
        if isinstance(payload.get("cwd"), str):
            gate.cwd = payload["cwd"]
        return await gate.asession_start("startup")

    async def aclose(self, reason: str = "other") -> None:
        """Fires SessionEnd (once, if the session started) and closes the gate if it opened it."""
        try:
            await self.gate.asession_end(reason)
        finally:
            if self._owned:
                self.gate.close()


def _output(event: str, v: Verdict) -> Dict[str, Any]:
    """Claude Code's hook output for ``v`` (the SDK turns ``continue_`` into ``continue``)."""
    out: Dict[str, Any] = {}
    specific: Dict[str, Any] = {"hookEventName": event}
    if event == "PreToolUse":
        if v.decision in ("allow", "ask", "deny"):
            specific["permissionDecision"] = v.decision
            specific["permissionDecisionReason"] = v.feedback() if v.blocked else v.reason
        if v.updated_input is not None:
            specific["updatedInput"] = v.updated_input
    elif event == "PermissionRequest":
        if v.decision in ("allow", "deny"):
            decision: Dict[str, Any] = {"behavior": v.decision}
            if v.blocked:
                decision["message"] = v.feedback()
                decision["interrupt"] = bool(v.result is not None and v.result.interrupt)
            elif v.updated_input is not None:
                decision["updatedInput"] = v.updated_input
            if v.decision == "allow" and v.result is not None and v.result.updated_permissions:
                decision["updatedPermissions"] = v.result.updated_permissions
            specific["decision"] = decision
    elif v.blocked:
        out["decision"] = "block"
        out["reason"] = v.feedback()
    if event == "PostToolUse" and v.result is not None and v.result.updated_tool_output is not None:
        specific["updatedToolOutput"] = v.result.updated_tool_output
    if v.additional_context and event in _CONTEXT_EVENTS:
        specific["additionalContext"] = v.additional_context
    if len(specific) > 1:
        out["hookSpecificOutput"] = specific
    if v.system_message:
        out["systemMessage"] = v.system_message
    if v.stops:
        out["continue_"] = False
        out["stopReason"] = v.stop_reason or f"Stopped by a {v.event} hook"
    return out


def hookexec_hooks(gate: Optional[Gate] = None, *, timeout: Optional[float] = None, **gate_options: Any) -> Hooks:
    """The ``hooks=`` mapping for ``ClaudeAgentOptions``: every hook point the SDK has, answered
    by hookexec. ``gate`` is a :class:`Gate` to use (not closed here); else one is opened with
    ``gate_options`` (``project_dir``, ``profile``, ``approve``, ``on_system_message``, ...).
    ``timeout`` is each callback's limit in seconds (the SDK's default, 60, when None).

    Claude Code still runs the hooks of the settings files it loads; use :func:`governed` (or
    ``disableAllHooks`` in ``settings``) so they run once, here."""
    _sdk()  # before the gate opens an engine: a missing SDK leaks nothing
    owned = gate is None
    if gate is None:
        gate = Gate(**gate_options)
    elif gate_options:
        raise TypeError("hookexec_hooks(gate=...) takes no gate options: the gate is already made")
    return Hooks(gate, owned, timeout)


def governed(options: Any = None, *, hooks: Optional[Hooks] = None, claude_code_hooks: bool = False, **gate_options: Any) -> Any:
    """A copy of ``options`` (a ``ClaudeAgentOptions``; None for the defaults) governed by
    hookexec: its ``hooks`` gain :func:`hookexec_hooks` (``hooks``, else made with
    ``gate_options`` in the options' ``cwd``), after the app's own callbacks, and Claude
    Code's own hook runner is turned off (``claude_code_hooks=True`` keeps it) so the
    settings files' hooks run once, through hookexec."""
    sdk = _sdk()
    if options is None:
        options = sdk.ClaudeAgentOptions()
    if not isinstance(options, sdk.ClaudeAgentOptions):
        raise TypeError(f"governed: options must be a ClaudeAgentOptions, not {type(options).__name__}")
    if hooks is None:
        if options.cwd is not None:
            gate_options.setdefault("project_dir", options.cwd)
        hooks = hookexec_hooks(**gate_options)
    elif gate_options:
        raise TypeError("governed(hooks=...) takes no gate options: the hooks' gate is already made")
    merged: Dict[str, List[Any]] = {k: list(v) for k, v in (options.hooks or {}).items()}
    for event, matchers in hooks.items():
        merged.setdefault(event, []).extend(matchers)
    settings = options.settings if claude_code_hooks else _without_claude_code_hooks(options.settings, options.cwd)
    return dataclasses.replace(options, hooks=merged, settings=settings)


def _without_claude_code_hooks(settings: Optional[str], cwd: Any) -> str:
    """``settings`` (None, JSON text or a file path, as ClaudeAgentOptions takes it) with
    ``disableAllHooks``: Claude Code then runs no hook of its settings files."""
    obj: Any = {}
    if settings is not None:
        text = settings.strip()
        if not (text.startswith("{") and text.endswith("}")):
            path = os.path.join(os.fspath(cwd) if cwd is not None else "", text)
            try:
                with open(path, encoding="utf-8-sig") as f:
                    text = f.read()
            except OSError as e:
                raise ValueError(f"hookexec: cannot read ClaudeAgentOptions.settings {settings!r}: {e}") from e
        try:
            obj = json.loads(text)
        except ValueError as e:
            raise ValueError(f"hookexec: ClaudeAgentOptions.settings is not JSON: {e}") from e
        if not isinstance(obj, dict):
            raise ValueError("hookexec: ClaudeAgentOptions.settings must be a JSON object")
    obj["disableAllHooks"] = True
    return json.dumps(obj)


async def query(*, prompt: Any, options: Any = None, transport: Any = None, gate: Optional[Gate] = None, **gate_options: Any) -> AsyncIterator[Any]:
    """``claude_agent_sdk.query`` governed by hookexec: the same messages, the options made
    with :func:`governed`, SessionStart fired before the first event and SessionEnd when the
    run ends (however it ends). ``gate``/``gate_options`` as for :func:`hookexec_hooks`."""
    sdk = _sdk()
    hooks = hookexec_hooks(gate, **_in_cwd(options, gate, gate_options))
    try:
        opts = governed(options, hooks=hooks)
        kw: Dict[str, Any] = {"prompt": prompt, "options": opts}
        if transport is not None:
            kw["transport"] = transport
        async for message in sdk.query(**kw):
            yield message
    finally:
        await hooks.aclose()


@asynccontextmanager
async def session(options: Any = None, *, gate: Optional[Gate] = None, **gate_options: Any) -> AsyncIterator[Any]:
    """A connected ``ClaudeSDKClient`` governed by hookexec (``async with session(opts) as
    client``); on exit it disconnects and fires SessionEnd."""
    sdk = _sdk()
    hooks = hookexec_hooks(gate, **_in_cwd(options, gate, gate_options))
    try:
        client = sdk.ClaudeSDKClient(options=governed(options, hooks=hooks))
        await client.connect()
        try:
            yield client
        finally:
            await client.disconnect()
    finally:
        await hooks.aclose()


def _in_cwd(options: Any, gate: Optional[Gate], gate_options: Dict[str, Any]) -> Dict[str, Any]:
    if gate is None and options is not None and getattr(options, "cwd", None) is not None:
        gate_options.setdefault("project_dir", options.cwd)
    return gate_options
