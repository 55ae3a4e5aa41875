"""Typed views of the library's fire result JSON (SPEC §7).

Results are values: frozen dataclasses built from the JSON by small constructors. Keys the
library adds later are ignored here and kept in ``raw``; keys it omits take the documented
neutral value, so an older or newer library never breaks parsing.
"""

from __future__ import annotations

import json
import dataclasses
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

# The library's JSON is UTF-8 bytes: decoding them here skips json.loads's encoding sniffing.
_decode = json.JSONDecoder().decode


def _loads(data: Union[bytes, str]) -> Any:
    return _decode(data.decode("utf-8") if isinstance(data, (bytes, bytearray)) else data)


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


# Shared by every result that has nothing there: both refuse mutation.
_EMPTY_LIST: "ReadOnlyList[Any]" = ReadOnlyList()
_EMPTY_DICT = ReadOnlyDict()


def _fast_init(cls: Any) -> Any:
    """Gives a frozen dataclass an __init__ with the same signature that stores every field
    with one dict update, instead of the generated one's object.__setattr__ per field: a fire
    builds one FireResult and one HookResult per hook, and that was half of the Python side
    of a persistent hook's fire (issue 10's profile)."""
    params, stores = [], []
    ns: Dict[str, Any] = {"MISSING": dataclasses.MISSING}
    for f in dataclasses.fields(cls):
        if not f.init:
            continue
        if f.default is not dataclasses.MISSING:
            ns["_d_" + f.name] = f.default
            params.append(f"{f.name}=_d_{f.name}")
        elif f.default_factory is not dataclasses.MISSING:
            ns["_f_" + f.name] = f.default_factory
            params.append(f"{f.name}=MISSING")
            stores.append(f"    if {f.name} is MISSING: {f.name} = _f_{f.name}()")
        else:
            params.append(f.name)
    names = [f.name for f in dataclasses.fields(cls) if f.init]
    src = (f"def __init__(self, {', '.join(params)}):\n" + "".join(x + "\n" for x in stores)
           + "    self.__dict__.update({" + ", ".join(f"{n!r}: {n}" for n in names) + "})\n")
    exec(src, ns)  # noqa: S102 — source built above from the class's own field names
    ns["__init__"].__qualname__ = f"{cls.__qualname__}.__init__"
    cls.__init__ = ns["__init__"]
    return cls


def _ro_list(items: Optional[List[Any]]) -> "ReadOnlyList[Any]":
    """items as a ReadOnlyList; the one shared empty list when there are none (most fires
    have no warnings, agent output or watch paths: no list built for them)."""
    return ReadOnlyList(items) if items else _EMPTY_LIST


def _ro_dict(d: Optional[Dict[str, Any]]) -> "ReadOnlyDict":
    return ReadOnlyDict(d) if d else _EMPTY_DICT


@_fast_init
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
    http_status: int = 0  # an http hook's response status; 0 when none arrived
    status_message: str = ""  # the hook's statusMessage

    @classmethod
    def from_dict(cls, d: Dict[str, Any]) -> "HookResult":
        if d.keys() <= _HOOK_KEYS:
            # The library's own keys (some may be missing: an older library): its values
            # have the types above, so the object is filled in one step (issue 21's profile:
            # this was most of the decode after json.loads).
            v = {**_HOOK_NEUTRAL, **d}
            v["async_"] = v.pop("async")
            v["duration_ms"] = float(v["duration_ms"] or 0.0)
            o = object.__new__(cls)
            o.__dict__.update(v)
            return o
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
            http_status=g("http_status") or 0,
            status_message=g("status_message") or "",
        )


@_fast_init
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


@_fast_init
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
    # Exports the hooks wrote to $CLAUDE_ENV_FILE (SessionStart, Setup, CwdChanged,
    # FileChanged), for the host to apply to the commands it runs later.
    env: Dict[str, str] = field(default_factory=dict)
    worktree_path: str = ""  # the directory a WorktreeCreate hook created
    # Claude Code's output fields, for the host to act on (folded in config order).
    updated_tool_output: Any = None  # PostToolUse: replaces the tool's output; None for none
    updated_permissions: Optional[List[Dict[str, Any]]] = None  # PermissionRequest allow: update entries
    interrupt: bool = False  # PermissionRequest deny: stop the agent
    retry: bool = False  # PermissionDenied: the model may retry the denied call
    session_title: str = ""  # SessionStart, UserPromptSubmit
    initial_user_message: str = ""  # SessionStart
    watch_paths: List[str] = field(default_factory=lambda: ReadOnlyList())  # SessionStart, FileChanged
    reload_skills: bool = False  # SessionStart
    terminal_sequence: str = ""  # allowlisted OSC/BEL bytes to write to the terminal
    # PostToolUse: each hook's classifierContext, for an auto-mode classifier (2,000 UTF-16 units shared)
    classifier_context: List[str] = field(default_factory=lambda: ReadOnlyList())
    # Hooks not run because they await approval (trust "project"); they neither block nor allow.
    awaiting_approval: List[AwaitingApproval] = field(default_factory=lambda: ReadOnlyList())

    @property
    def should_continue(self) -> bool:
        """Whether the agent may go on (JSON "continue"; every hook's ``continue`` ANDed)."""
        return self.continue_

    @classmethod
    def from_json(cls, data: Union[bytes, str]) -> "FireResult":
        d = _loads(data)
        if not isinstance(d, dict):
            raise ValueError(f"hookexec: a fire result is a JSON object, not {type(d).__name__}")
        return cls.from_dict(d)

    @classmethod
    def from_dict(cls, d: Dict[str, Any]) -> "FireResult":
        if d.keys() <= _FIRE_KEYS:
            # The library's own keys: filled in one step, as HookResult.from_dict does.
            v = {**_FIRE_NEUTRAL, **d}
            cont = v.pop("continue")
            v["continue_"] = True if cont is None else cont
            v["duration_ms"] = float(v["duration_ms"] or 0.0)
            hooks = v["hooks"]
            v["hooks"] = ReadOnlyList([HookResult.from_dict(h) for h in hooks]) if hooks else _EMPTY_LIST
            waiting = v["awaiting_approval"]
            v["awaiting_approval"] = ReadOnlyList([AwaitingApproval.from_dict(a) for a in waiting]) if waiting else _EMPTY_LIST
            v["agent_output"] = _ro_list(v["agent_output"])
            v["warnings"] = _ro_list(v["warnings"])
            v["watch_paths"] = _ro_list(v["watch_paths"])
            v["classifier_context"] = _ro_list(v["classifier_context"])
            v["env"] = _ro_dict(v["env"])
            v["raw"] = ReadOnlyDict(d)
            o = object.__new__(cls)
            o.__dict__.update(v)
            return o
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
            agent_output=_ro_list(g("agent_output")),
            duration_ms=float(g("duration_ms") or 0.0),
            warnings=_ro_list(g("warnings")),
            hooks=_ro_list([HookResult.from_dict(h) for h in g("hooks") or ()]),
            raw=ReadOnlyDict(d),
            env=_ro_dict(g("env")),
            worktree_path=g("worktree_path") or "",
            updated_tool_output=g("updated_tool_output"),
            updated_permissions=g("updated_permissions"),
            interrupt=bool(g("interrupt")),
            retry=bool(g("retry")),
            session_title=g("session_title") or "",
            initial_user_message=g("initial_user_message") or "",
            watch_paths=_ro_list(g("watch_paths")),
            reload_skills=bool(g("reload_skills")),
            terminal_sequence=g("terminal_sequence") or "",
            classifier_context=_ro_list(g("classifier_context")),
            awaiting_approval=_ro_list([AwaitingApproval.from_dict(a) for a in g("awaiting_approval") or ()]),
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
                "env": {}, "worktree_path": "",
                "updated_tool_output": None, "updated_permissions": None, "interrupt": False, "retry": False,
                "session_title": "", "initial_user_message": "", "watch_paths": [], "reload_skills": False,
                "terminal_sequence": "", "classifier_context": [],
                "awaiting_approval": [],
            }),
            env=ReadOnlyDict(),
            worktree_path="",
        )


# What each JSON key of a result holds when the library leaves it out: the neutral values
# the slow constructors give. A result with only these keys takes the fast path.
_HOOK_NEUTRAL: Dict[str, Any] = {
    "id": "", "source": "", "matcher": "", "command": "", "exec": "direct", "exit_code": -1,
    "signal": "", "timed_out": False, "duration_ms": 0.0, "stdout": "", "stderr": "",
    "stdout_truncated": False, "stderr_truncated": False, "output": None, "decision": "none",
    "error": "", "async": False, "http_status": 0, "status_message": "",
}
_HOOK_KEYS = frozenset(_HOOK_NEUTRAL)
_FIRE_NEUTRAL: Dict[str, Any] = {
    "event": "", "matched": 0, "blocked": False, "decision": "none", "reason": "", "continue": True,
    "stop_reason": "", "updated_input": None, "additional_context": "", "system_message": "",
    "agent_output": None, "duration_ms": 0.0, "warnings": None, "hooks": None, "env": None,
    "worktree_path": "", "updated_tool_output": None, "updated_permissions": None,
    "interrupt": False, "retry": False, "session_title": "", "initial_user_message": "",
    "watch_paths": None, "reload_skills": False, "terminal_sequence": "", "classifier_context": None,
    "awaiting_approval": None,
}
_FIRE_KEYS = frozenset(_FIRE_NEUTRAL)
