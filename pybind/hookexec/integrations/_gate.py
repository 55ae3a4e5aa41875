"""The gate every framework adapter goes through: a framework's hook point becomes a hookexec
event with a Claude Code-shaped payload, and the engine's result becomes a :class:`Verdict`
the adapter turns into the framework's own verbs.

One gate per agent run (or per app): it owns the engine it opens, knows the session, maps the
framework's tool names to the canonical ones a Claude Code matcher names, and fails closed: an
engine error on an event that can block is a block, never a silent allow.
"""

from __future__ import annotations

import logging
import os
import threading
import uuid
from dataclasses import dataclass, replace
from typing import Any, Awaitable, Callable, Dict, Mapping, Optional, Union

from ..engine import Engine
from ..result import FireResult
from ._names import DEFAULT_TOOL_NAMES

__all__ = ["Gate", "Verdict", "RunStopped", "BLOCKING_EVENTS", "log"]

log = logging.getLogger("hookexec.integrations")

# Events whose hooks can refuse something: an engine error there blocks (fail closed).
BLOCKING_EVENTS = frozenset(
    {"PreToolUse", "PostToolUse", "UserPromptSubmit", "Stop", "SubagentStop", "PreCompact"}
)

# The engine's decisions as the verdict's: "defer" (pause at this call, resume later) is the
# framework's approval pause, an "ask"; anything else unknown is refused, never run.
_DECISIONS = {"none": "none", "allow": "allow", "ask": "ask", "defer": "ask", "deny": "deny"}

# approve(tool_name, tool_input, reason) -> True to let an "ask" through.
Approver = Callable[[str, Dict[str, Any], str], Union[bool, Awaitable[bool]]]


class RunStopped(Exception):
    """A hook answered ``continue: false``: the run ends. ``reason`` is its stopReason."""

    def __init__(self, reason: str = "", verdict: Optional["Verdict"] = None) -> None:
        super().__init__(reason or "a hook stopped the run")
        self.reason = reason
        self.verdict = verdict


@dataclass(frozen=True)
class Verdict:
    """What the hooks decided for one framework call.

    ``decision`` is "none", "allow", "ask" or "deny" ("deny" also when a hook blocked, and on a
    Stop event it means *go on*, with ``reason`` as the instruction). ``continue_`` false means
    the run must end (``stop_reason``). ``error`` is set when the engine failed and the verdict
    was made closed (deny) or, on an event that cannot block, empty.

    After a tool (PostToolUse, PostToolUseFailure) the tool has already run, so a hook's block
    (exit 2, ``decision: "block"``) is not a "deny": it is ``reason``, text for the model to
    read with the tool's result, as Claude Code gives it.
    """

    event: str
    decision: str = "none"
    reason: str = ""
    updated_input: Optional[Dict[str, Any]] = None
    additional_context: str = ""
    continue_: bool = True
    stop_reason: str = ""
    system_message: str = ""
    error: str = ""
    result: Optional[FireResult] = None

    @property
    def blocked(self) -> bool:
        return self.decision == "deny"

    @property
    def asks(self) -> bool:
        return self.decision == "ask"

    @property
    def stops(self) -> bool:
        return not self.continue_

    def feedback(self) -> str:
        """The text the model should read for a block: the hook's reason, never empty."""
        if self.reason:
            return self.reason
        return f"Blocked by a {self.event} hook"

    @classmethod
    def of(cls, event: str, r: FireResult) -> "Verdict":
        decision = "deny" if r.blocked else _DECISIONS.get(str(r.decision), "deny")
        reason = r.reason
        if decision == "deny" and not r.blocked and str(r.decision) not in _DECISIONS:
            reason = reason or f"hookexec: an unknown decision {r.decision!r} is refused"
        return cls(
            event=event,
            decision=decision,
            reason=reason,
            updated_input=dict(r.updated_input) if r.updated_input is not None else None,
            additional_context=r.additional_context,
            continue_=r.continue_,
            stop_reason=r.stop_reason,
            system_message=r.system_message,
            result=r,
        )


class Gate:
    """Fires hookexec events for a framework adapter.

    ``engine`` is an open :class:`~hookexec.Engine` to use (the gate does not close it); else
    the gate opens one with ``profile`` (default "claude": ``.claude/settings.json`` and the
    user's settings) in ``project_dir`` (default the current directory) with ``engine_options``.
    ``tool_names`` maps framework tool names to canonical ones, over :data:`DEFAULT_TOOL_NAMES`
    (``{"shell": "Bash", "read_file": "Read", ...}``); a name in neither passes unchanged.
    ``approve(tool_name, tool_input, reason)`` settles an "ask" for frameworks without an
    approval mechanism (without it, an ask blocks with its reason). ``on_system_message(text)``
    receives each hook's systemMessage (default: logged as a warning on
    ``hookexec.integrations``).
    """

    def __init__(
        self,
        engine: Optional[Engine] = None,
        *,
        project_dir: Union[str, "os.PathLike[str]", None] = None,
        profile: str = "claude",
        tool_names: Optional[Mapping[str, str]] = None,
        session_id: Optional[str] = None,
        approve: Optional[Approver] = None,
        on_system_message: Optional[Callable[[str], Any]] = None,
        **engine_options: Any,
    ) -> None:
        self.cwd = os.path.abspath(os.fspath(project_dir)) if project_dir is not None else os.getcwd()
        self.session_id = session_id or str(uuid.uuid4())
        if engine is None:
            engine_options.setdefault("session_id", self.session_id)
            engine = Engine(profile, project_dir=self.cwd, **engine_options)
            self._owned = True
        else:
            if engine_options:
                raise TypeError("Gate(engine=...) takes no engine options: the engine is already open")
            self._owned = False
        self.engine = engine
        self.tool_names: Dict[str, str] = {**DEFAULT_TOOL_NAMES, **(tool_names or {})}
        self.approve = approve
        self.on_system_message = on_system_message
        self._lock = threading.Lock()
        self._started = False
        self._ended = False

    # --- names and payloads ---------------------------------------------------------------

    def canonical(self, tool_name: str, server: Optional[str] = None) -> str:
        """The name hooks see for a framework's tool: the map's, ``mcp__<server>__<tool>`` for
        a tool of an MCP server, else the name itself."""
        if server:
            return f"mcp__{server}__{tool_name}"
        return self.tool_names.get(tool_name, tool_name)

    def payload(self, event: str, **fields: Any) -> Dict[str, Any]:
        """The Claude Code-shaped payload of ``event`` with ``fields`` (None values dropped)."""
        p: Dict[str, Any] = {
            "session_id": self.session_id,
            "transcript_path": "",
            "cwd": self.cwd,
            "permission_mode": "default",
            "hook_event_name": event,
        }
        p.update((k, v) for k, v in fields.items() if v is not None)
        return p

    def _tool(self, event: str, tool: str, tool_input: Any, tool_use_id: Optional[str], server: Optional[str], **more: Any) -> Dict[str, Any]:
        return self.payload(
            event,
            tool_name=self.canonical(tool, server),
            tool_input=tool_input if isinstance(tool_input, dict) else {"input": tool_input},
            tool_use_id=tool_use_id or f"toolu_{uuid.uuid4().hex[:24]}",
            **more,
        )

    # --- firing ---------------------------------------------------------------------------

    def fire(self, event: str, payload: Dict[str, Any]) -> Verdict:
        """Fires ``event`` and returns its verdict; an engine error fails closed."""
        try:
            r = self.engine.fire(event, payload)
        except Exception as e:  # noqa: BLE001 - any failure of the engine is a verdict
            return self._failed(event, e)
        return self._settled(event, r)

    async def afire(self, event: str, payload: Dict[str, Any]) -> Verdict:
        """:meth:`fire` without blocking the event loop."""
        try:
            r = await self.engine.fire_async(event, payload)
        except Exception as e:  # noqa: BLE001
            return self._failed(event, e)
        return self._settled(event, r)

    def _settled(self, event: str, r: FireResult) -> Verdict:
        v = Verdict.of(event, r)
        for w in r.warnings:
            log.debug("hookexec %s: %s", event, w)
        if v.system_message:
            self._system_message(v.system_message)
        return v

    def _failed(self, event: str, e: BaseException) -> Verdict:
        msg = f"hookexec: {event} could not be decided: {e}"
        log.error("%s", msg)
        if event in BLOCKING_EVENTS:
            return Verdict(event=event, decision="deny", reason=msg, error=str(e))
        return Verdict(event=event, error=str(e))

    def _system_message(self, text: str) -> None:
        if self.on_system_message is None:
            log.warning("%s", text)
            return
        try:
            self.on_system_message(text)
        except Exception:  # noqa: BLE001 - the app's callback never breaks a fire
            log.exception("hookexec: on_system_message failed")

    # --- the events -----------------------------------------------------------------------

    def pre_tool(self, tool: str, tool_input: Any, tool_use_id: Optional[str] = None, *, server: Optional[str] = None) -> Verdict:
        return self.fire("PreToolUse", self._tool("PreToolUse", tool, tool_input, tool_use_id, server))

    async def apre_tool(self, tool: str, tool_input: Any, tool_use_id: Optional[str] = None, *, server: Optional[str] = None) -> Verdict:
        return await self.afire("PreToolUse", self._tool("PreToolUse", tool, tool_input, tool_use_id, server))

    def post_tool(self, tool: str, tool_input: Any, tool_response: Any, tool_use_id: Optional[str] = None, *, server: Optional[str] = None) -> Verdict:
        return self.fire("PostToolUse", self._tool("PostToolUse", tool, tool_input, tool_use_id, server, tool_response=tool_response))

    async def apost_tool(self, tool: str, tool_input: Any, tool_response: Any, tool_use_id: Optional[str] = None, *, server: Optional[str] = None) -> Verdict:
        return await self.afire("PostToolUse", self._tool("PostToolUse", tool, tool_input, tool_use_id, server, tool_response=tool_response))

    def tool_failed(self, tool: str, tool_input: Any, error: str, tool_use_id: Optional[str] = None, *, server: Optional[str] = None) -> Verdict:
        return self.fire("PostToolUseFailure", self._tool("PostToolUseFailure", tool, tool_input, tool_use_id, server, error=error, is_interrupt=False))

    async def atool_failed(self, tool: str, tool_input: Any, error: str, tool_use_id: Optional[str] = None, *, server: Optional[str] = None) -> Verdict:
        return await self.afire("PostToolUseFailure", self._tool("PostToolUseFailure", tool, tool_input, tool_use_id, server, error=error, is_interrupt=False))

    def user_prompt(self, prompt: str) -> Verdict:
        return self.fire("UserPromptSubmit", self.payload("UserPromptSubmit", prompt=prompt))

    async def auser_prompt(self, prompt: str) -> Verdict:
        return await self.afire("UserPromptSubmit", self.payload("UserPromptSubmit", prompt=prompt))

    def stop(self, last_message: Optional[str] = None, *, stop_hook_active: bool = False, subagent: bool = False) -> Verdict:
        event = "SubagentStop" if subagent else "Stop"
        return self.fire(event, self.payload(event, stop_hook_active=stop_hook_active, last_assistant_message=last_message))

    async def astop(self, last_message: Optional[str] = None, *, stop_hook_active: bool = False, subagent: bool = False) -> Verdict:
        event = "SubagentStop" if subagent else "Stop"
        return await self.afire(event, self.payload(event, stop_hook_active=stop_hook_active, last_assistant_message=last_message))

    def pre_compact(self, trigger: str = "auto", custom_instructions: str = "") -> Verdict:
        return self.fire("PreCompact", self.payload("PreCompact", trigger=trigger, custom_instructions=custom_instructions))

    def session_start(self, source: str = "startup") -> Verdict:
        """Fires SessionStart once per gate (later calls return an empty verdict)."""
        with self._lock:
            if self._started:
                return Verdict(event="SessionStart")
            self._started = True
        return self.fire("SessionStart", self.payload("SessionStart", source=source))

    async def asession_start(self, source: str = "startup") -> Verdict:
        with self._lock:
            if self._started:
                return Verdict(event="SessionStart")
            self._started = True
        return await self.afire("SessionStart", self.payload("SessionStart", source=source))

    def session_end(self, reason: str = "other") -> Verdict:
        """Fires SessionEnd once, if SessionStart was fired."""
        with self._lock:
            if not self._started or self._ended:
                return Verdict(event="SessionEnd")
            self._ended = True
        return self.fire("SessionEnd", self.payload("SessionEnd", reason=reason))

    async def asession_end(self, reason: str = "other") -> Verdict:
        with self._lock:
            if not self._started or self._ended:
                return Verdict(event="SessionEnd")
            self._ended = True
        return await self.afire("SessionEnd", self.payload("SessionEnd", reason=reason))

    # --- ask ------------------------------------------------------------------------------

    def settle_ask(self, v: Verdict, tool: str, tool_input: Dict[str, Any]) -> Verdict:
        """For a framework without an approval mechanism: an "ask" becomes "allow" when
        ``approve`` says yes, else "deny" with the hook's reason. Other verdicts pass."""
        if not v.asks:
            return v
        answer: Any = False
        if self.approve is not None:
            try:
                answer = self.approve(self.canonical(tool), tool_input, v.reason)
            except Exception:  # noqa: BLE001 - a failing approver refuses
                log.exception("hookexec: approve failed; the call is refused")
                answer = False
            if hasattr(answer, "__await__"):
                close = getattr(answer, "close", None)
                if close is not None:
                    close()  # never awaited: closed so that it does not warn later
                raise TypeError("Gate.settle_ask: approve returned an awaitable; use asettle_ask")
        return self._asked(v, bool(answer))

    async def asettle_ask(self, v: Verdict, tool: str, tool_input: Dict[str, Any]) -> Verdict:
        if not v.asks:
            return v
        answer: Any = False
        if self.approve is not None:
            try:
                answer = self.approve(self.canonical(tool), tool_input, v.reason)
                if hasattr(answer, "__await__"):
                    answer = await answer
            except Exception:  # noqa: BLE001
                log.exception("hookexec: approve failed; the call is refused")
                answer = False
        return self._asked(v, bool(answer))

    @staticmethod
    def _asked(v: Verdict, yes: bool) -> Verdict:
        if yes:
            return replace(v, decision="allow")
        reason = v.reason or "a hook asks for the user's approval"
        return replace(v, decision="deny", reason=f"{reason} (approval required; none was given)")

    # --- lifecycle ------------------------------------------------------------------------

    def close(self) -> None:
        """Fires SessionEnd (if the session started) and closes the engine the gate opened."""
        try:
            self.session_end()
        finally:
            if self._owned:
                self.engine.close()

    def __enter__(self) -> "Gate":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()
