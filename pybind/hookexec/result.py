"""Typed views of the library's fire result JSON (SPEC §7).

Results are values: frozen dataclasses built from the JSON by small constructors. Keys the
library adds later are ignored here and kept in ``raw``; keys it omits take the documented
neutral value, so an older or newer library never breaks parsing.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Dict, Iterable, List, Literal, NoReturn, Optional, Tuple, TypeVar, Union, cast

__all__ = ["AwaitingApproval", "FireResult", "HookResult", "Decision", "ExecKind"]

#: A hook's or a fire's decision; "none" when no hook decided.
Decision = Literal["none", "allow", "ask", "deny"]
#: How a hook ran: a command without a shell ("direct"), through /bin/sh ("shell"), in exec
#: form ("args"), a built-in (AutoAgent's git-commit/git-push), or handed to the host or a
#: server (prompt, agent, mcp_tool, http). Later library versions may add kinds.
ExecKind = Literal["direct", "shell", "args", "builtin", "prompt", "agent", "mcp_tool", "http"]

T = TypeVar("T")


def _refuse(self: object, *args: object, **kwargs: object) -> NoReturn:
    raise TypeError(f"hookexec results are read-only values ({type(self).__name__})")


class ReadOnlyList(List[T]):
    """A list that refuses mutation: results are values, and the fast path shares them."""

    __slots__ = ()
    append = extend = insert = pop = remove = clear = sort = reverse = _refuse
    __setitem__ = __delitem__ = __iadd__ = __imul__ = _refuse

    def __reduce__(self) -> Tuple[Any, Tuple[List[T]]]:
        return (list, (list(self),))


class ReadOnlyDict(Dict[str, Any]):
    """A dict that refuses mutation (the top level of ``FireResult.raw``)."""

    __slots__ = ()
    __setitem__ = __delitem__ = clear = pop = popitem = setdefault = update = __ior__ = _refuse

    def __reduce__(self) -> Tuple[Any, Tuple[Dict[str, Any]]]:
        return (dict, (dict(self),))


@dataclass(frozen=True)
class HookResult:
    """What one hook of a fire did. Results come in config order, never finishing order."""

    id: str
    source: str
    matcher: str
    command: str
    exec: ExecKind
    exit_code: int  # -1 when the hook did not exit by itself (signal, not started, async)
    signal: str
    timed_out: bool
    duration_ms: float
    stdout: str
    stderr: str
    stdout_truncated: bool
    stderr_truncated: bool
    output: Any  # stdout parsed as JSON, else None
    decision: Decision
    error: str
    async_: bool  # JSON key "async"

    @classmethod
    def from_dict(cls, d: Dict[str, Any]) -> "HookResult":
        g = d.get
        return cls(
            id=g("id") or "",
            source=g("source") or "",
            matcher=g("matcher") or "",
            command=g("command") or "",
            exec=cast(ExecKind, g("exec") or "direct"),
            exit_code=g("exit_code", -1),
            signal=g("signal") or "",
            timed_out=bool(g("timed_out")),
            duration_ms=float(g("duration_ms") or 0.0),
            stdout=g("stdout") or "",
            stderr=g("stderr") or "",
            stdout_truncated=bool(g("stdout_truncated")),
            stderr_truncated=bool(g("stderr_truncated")),
            output=g("output"),
            decision=cast(Decision, g("decision") or "none"),
            error=g("error") or "",
            async_=bool(g("async")),
        )


@dataclass(frozen=True)
class AwaitingApproval:
    """A project-level hook the fire selected but did not run (trust "project"): it is not
    approved, or ``reason`` says what changed since it was ("new hook", "command changed",
    "script .claude/hooks/guard.py changed", "trust store unreadable: ...")."""

    id: str
    source: str
    event: str
    matcher: str
    command: str
    reason: str

    @classmethod
    def from_dict(cls, d: Dict[str, Any]) -> "AwaitingApproval":
        g = d.get
        return cls(
            id=g("id") or "",
            source=g("source") or "",
            event=g("event") or "",
            matcher=g("matcher") or "",
            command=g("command") or "",
            reason=g("reason") or "",
        )


@dataclass(frozen=True)
class FireResult:
    """The aggregated outcome of one fire. A read-only value: its lists and ``raw`` refuse
    mutation, because the fast path hands the same empty result to every caller.

    ``decision`` is "none", "allow", "ask" or "deny"; ``blocked`` is true when any hook
    blocked. ``continue_`` (JSON "continue", also ``should_continue``) is false when a hook
    asked the agent to stop, with ``stop_reason``. ``updated_input`` is the tool input after
    every hook's replacement or merge, or None when no hook changed it.
    """

    event: str
    matched: int
    blocked: bool
    decision: Decision
    reason: str
    continue_: bool
    stop_reason: str
    updated_input: Optional[Dict[str, Any]]
    additional_context: str
    system_message: str
    agent_output: ReadOnlyList[str]
    duration_ms: float
    warnings: ReadOnlyList[str]
    hooks: ReadOnlyList[HookResult]
    raw: Dict[str, Any] = field(repr=False, compare=False)
    # Hooks not run because they await approval (trust "project"); they neither block nor allow.
    awaiting_approval: List[AwaitingApproval] = field(default_factory=lambda: ReadOnlyList())

    @property
    def should_continue(self) -> bool:
        """Whether the agent may go on (JSON "continue"; every hook's ``continue`` ANDed)."""
        return self.continue_

    @classmethod
    def from_json(cls, data: Union[bytes, str]) -> "FireResult":
        d = json.loads(data)
        if not isinstance(d, dict):
            raise ValueError(f"hookexec: a fire result is a JSON object, not {type(d).__name__}")
        return cls.from_dict(d)

    @classmethod
    def from_dict(cls, d: Dict[str, Any]) -> "FireResult":
        g = d.get
        cont = g("continue")
        return cls(
            event=g("event") or "",
            matched=g("matched") or 0,
            blocked=bool(g("blocked")),
            decision=cast(Decision, g("decision") or "none"),
            reason=g("reason") or "",
            continue_=True if cont is None else bool(cont),
            stop_reason=g("stop_reason") or "",
            updated_input=g("updated_input"),
            additional_context=g("additional_context") or "",
            system_message=g("system_message") or "",
            agent_output=ReadOnlyList(g("agent_output") or ()),
            duration_ms=float(g("duration_ms") or 0.0),
            warnings=ReadOnlyList(g("warnings") or ()),
            hooks=ReadOnlyList(HookResult.from_dict(h) for h in g("hooks") or ()),
            raw=ReadOnlyDict(d),
            awaiting_approval=ReadOnlyList(AwaitingApproval.from_dict(a) for a in g("awaiting_approval") or ()),
        )

    @classmethod
    def empty(cls, event: str) -> "FireResult":
        """The result of a fire that matched no hook, as the library reports it (with duration 0)."""
        return cls(
            event=event,
            matched=0,
            blocked=False,
            decision="none",
            reason="",
            continue_=True,
            stop_reason="",
            updated_input=None,
            additional_context="",
            system_message="",
            agent_output=ReadOnlyList(),
            duration_ms=0.0,
            warnings=ReadOnlyList(),
            hooks=ReadOnlyList(),
            raw=ReadOnlyDict({
                "event": event, "matched": 0, "blocked": False, "decision": "none", "reason": "",
                "continue": True, "stop_reason": "", "updated_input": None, "additional_context": "",
                "system_message": "", "agent_output": [], "duration_ms": 0.0, "warnings": [], "hooks": [],
                "awaiting_approval": [],
            }),
        )
