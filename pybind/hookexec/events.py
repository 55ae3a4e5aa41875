"""Typed views of what the library's listener delivers outside a fire's return value.

The C listener multiplexes by kind (``hookexec_listener_fn``'s ``kind``); the package keeps
that inside and hands each kind's callback its own value type:

==============  ==============================  ===================================
kind            callback                        value
==============  ==============================  ===================================
"async"         :meth:`Engine.on_async`         :class:`AsyncResult`
"status"        :meth:`Engine.on_status`        :class:`StatusEvent`
"rewake"        :meth:`Engine.on_rewake`        :class:`RewakeEvent`
"notification"  :meth:`Engine.on_notification`  the JSON-RPC 2.0 message (a dict)
==============  ==============================  ===================================

:data:`KINDS` maps each kind to the constructor of its value; a kind the library adds later
slots in as one row there and one ``on_<kind>`` method. Kinds not in the table are ignored,
as the C header asks of hosts.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Dict, cast

from .result import Decision, HookResult, ReadOnlyDict

__all__ = ["AsyncResult", "StatusEvent", "RewakeEvent", "KINDS"]


@dataclass(frozen=True)
class AsyncResult:
    """The result of an ``async: true`` hook, delivered once it finished (kind "async")."""

    event: str
    hook: HookResult
    blocked: bool
    decision: Decision
    reason: str
    raw: Dict[str, Any] = field(repr=False, compare=False)

    @classmethod
    def from_dict(cls, d: Dict[str, Any]) -> "AsyncResult":
        return cls(
            event=d.get("event") or "",
            hook=HookResult.from_dict(d.get("hook") or {}),
            blocked=bool(d.get("blocked")),
            decision=cast(Decision, d.get("decision") or "none"),
            reason=d.get("reason") or "",
            raw=ReadOnlyDict(d),
        )


@dataclass(frozen=True)
class StatusEvent:
    """A hook with a ``statusMessage`` started (kind "status"): show ``status_message``
    while it runs, as Claude Code's spinner does."""

    event: str
    hook: str  # the hook's id
    status_message: str
    raw: Dict[str, Any] = field(repr=False, compare=False)

    @classmethod
    def from_dict(cls, d: Dict[str, Any]) -> "StatusEvent":
        return cls(
            event=d.get("event") or "",
            hook=d.get("hook") or "",
            status_message=d.get("status_message") or "",
            raw=ReadOnlyDict(d),
        )


@dataclass(frozen=True)
class RewakeEvent:
    """An ``asyncRewake`` hook exited 2 in the background (kind "rewake"): wake the agent
    with ``message`` (the hook's stderr, else its stdout); ``result`` is the whole run."""

    event: str
    hook: str  # the hook's id
    message: str
    result: HookResult
    raw: Dict[str, Any] = field(repr=False, compare=False)

    @classmethod
    def from_dict(cls, d: Dict[str, Any]) -> "RewakeEvent":
        return cls(
            event=d.get("event") or "",
            hook=d.get("hook") or "",
            message=d.get("message") or "",
            result=HookResult.from_dict(d.get("result") or {}),
            raw=ReadOnlyDict(d),
        )


def _message(d: Dict[str, Any]) -> Dict[str, Any]:
    return d


#: Listener kind → the constructor of the value its callback receives.
KINDS: Dict[str, Callable[[Dict[str, Any]], Any]] = {
    "async": AsyncResult.from_dict,
    "status": StatusEvent.from_dict,
    "rewake": RewakeEvent.from_dict,
    "notification": _message,
}
