"""Typed views of the configuration in force (``Engine.config()``, ``hookexec_config``).

Values built from the library's JSON by small constructors, like the fire results: keys the
library adds later are kept in ``raw`` (and reachable as ``config["key"]``), keys it omits
take neutral values.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, Literal, Optional, Tuple, cast

from .result import ReadOnlyDict, ReadOnlyList

__all__ = ["Config", "ConfiguredHook", "Source", "Warning", "EventSummary", "SourceStatus"]

#: What happened to one configuration location.
SourceStatus = Literal["loaded", "missing", "error"]


@dataclass(frozen=True)
class Source:
    """One configuration location, in precedence order."""

    path: str
    dialect: str  # "claude", "cli-agent", "autohand", ...; "" when nothing was read
    status: SourceStatus
    hooks: int

    @classmethod
    def from_dict(cls, d: Dict[str, Any]) -> "Source":
        return cls(d.get("path") or "", d.get("dialect") or "", cast(SourceStatus, d.get("status") or "missing"), int(d.get("hooks") or 0))


@dataclass(frozen=True)
class Warning:
    """A problem found in a configuration file. ``error`` marks one that disabled a hook
    or a file, as opposed to advice."""

    source: str
    hook: str
    message: str
    error: bool

    @classmethod
    def from_dict(cls, d: Dict[str, Any]) -> "Warning":
        return cls(d.get("source") or "", d.get("hook") or "", d.get("message") or "", bool(d.get("error")))

    def __str__(self) -> str:
        where = self.source + (f": hook {self.hook}" if self.hook else "")
        return f"{where}: {self.message}" if where else self.message


@dataclass(frozen=True)
class ConfiguredHook:
    """One configured hook, enabled or not, in config order."""

    id: str
    event: str
    matcher: str
    type: str  # "command", "prompt", "git-commit", ...
    command: str
    exec: str
    timeout_ms: int
    cwd: str
    async_: bool  # JSON key "async"
    fail_closed: bool
    blocking: bool
    pipe_output: bool
    sequential: bool
    source: str
    dialect: str  # the agent format the hook is written in: "claude", "cursor", "windsurf", ...
    event_as_written: str  # the event as its file spells it ("beforeShellExecution"); "" when canonical
    enabled: bool
    disabled_reason: str
    description: str
    env: Dict[str, str]
    raw: Dict[str, Any] = field(repr=False, compare=False)

    @classmethod
    def from_dict(cls, d: Dict[str, Any]) -> "ConfiguredHook":
        g = d.get
        return cls(
            id=g("id") or "",
            event=g("event") or "",
            matcher=g("matcher") or "",
            type=g("type") or "",
            command=g("command") or "",
            exec=g("exec") or "",
            timeout_ms=int(g("timeout_ms") or 0),
            cwd=g("cwd") or "",
            async_=bool(g("async")),
            fail_closed=bool(g("fail_closed")),
            blocking=bool(g("blocking")),
            pipe_output=bool(g("pipe_output")),
            sequential=bool(g("sequential")),
            source=g("source") or "",
            dialect=g("dialect") or "",
            event_as_written=g("event_as_written") or "",
            enabled=bool(g("enabled")),
            disabled_reason=g("disabled_reason") or "",
            description=g("description") or "",
            env=ReadOnlyDict(g("env") or {}),
            raw=ReadOnlyDict(d),
        )


@dataclass(frozen=True)
class EventSummary:
    """Per canonical event: how many enabled hooks it has and the payload fields its
    matchers are tested against (the tool name for tool events)."""

    hooks: int
    subject: Tuple[str, ...]


@dataclass(frozen=True)
class Config:
    """The configuration in force: profile, sources in precedence order, hooks in config
    order, the warnings of loading them, and a summary per event. ``config["key"]`` reads
    the library's JSON as is (``raw``)."""

    profile: str
    project_dir: str
    disable_all: bool
    sources: ReadOnlyList[Source]
    hooks: ReadOnlyList[ConfiguredHook]
    warnings: ReadOnlyList[Warning]
    events: Dict[str, EventSummary]
    event_names: Dict[str, str]  # every known event name and alias → its canonical name
    notifications: bool
    raw: Dict[str, Any] = field(repr=False, compare=False)

    @classmethod
    def from_dict(cls, d: Dict[str, Any]) -> "Config":
        g = d.get
        return cls(
            profile=g("profile") or "",
            project_dir=g("project_dir") or "",
            disable_all=bool(g("disable_all")),
            sources=ReadOnlyList(Source.from_dict(s) for s in g("sources") or ()),
            hooks=ReadOnlyList(ConfiguredHook.from_dict(h) for h in g("hooks") or ()),
            warnings=ReadOnlyList(Warning.from_dict(w) for w in g("warnings") or ()),
            events=ReadOnlyDict(
                {name: EventSummary(int(s.get("hooks") or 0), tuple(s.get("subject") or ())) for name, s in (g("events") or {}).items()}
            ),
            event_names=ReadOnlyDict(g("event_names") or {}),
            notifications=bool(g("notifications")),
            raw=ReadOnlyDict(d),
        )

    def __getitem__(self, key: str) -> Any:
        return self.raw[key]

    def get(self, key: str, default: Optional[Any] = None) -> Any:
        """The library's JSON value for ``key``, or ``default``."""
        return self.raw.get(key, default)

    def hook(self, id: str) -> Optional[ConfiguredHook]:
        """The configured hook with this id, or None."""
        return next((h for h in self.hooks if h.id == id), None)
