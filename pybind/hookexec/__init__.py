"""hookexec: run the shell hooks users attach to an AI agent's lifecycle events.

A Python host opens an :class:`Engine`, fires events with a payload dict and reads one
aggregated :class:`FireResult`::

    with hookexec.Engine(profile="cli-agent", project_dir=".") as eng:
        r = eng.fire("PreToolUse", {"tool_name": "bash_execute", "tool_input": {"command": "ls"}})
        if r.blocked:
            ...

The engine is libhookexec.so (Go), bundled in the package and loaded with ctypes on first
use; this package needs nothing but the standard library. See ``hookexec._ffi`` for where
the library is looked for (``HOOKEXEC_LIBRARY`` overrides the bundled copy).
"""

from __future__ import annotations

from ._ffi import HOOKEXEC_VERSION_NUMBER
from ._version import __version__
from .config import Config, ConfiguredHook, EventSummary, Source, SourceStatus, Warning
from .engine import Engine, PromptEvaluator, debug_live
from .errors import (
    ClosedError,
    ConfigError,
    ForkError,
    HookexecError,
    InternalError,
    InvalidArgumentError,
    LibraryNotFoundError,
    MisuseError,
    TrustStoreError,
    VersionMismatchError,
)
from .events import AsyncResult, RewakeEvent, StatusEvent
from .result import AwaitingApproval, Decision, ExecKind, FireResult, HookResult

__all__ = [
    "Engine",
    "debug_live",
    "FireResult",
    "HookResult",
    "Decision",
    "ExecKind",
    "AsyncResult",
    "StatusEvent",
    "RewakeEvent",
    "Config",
    "ConfiguredHook",
    "Source",
    "SourceStatus",
    "Warning",
    "EventSummary",
    "PromptEvaluator",
    "AwaitingApproval",
    "HookexecError",
    "InvalidArgumentError",
    "ConfigError",
    "ClosedError",
    "MisuseError",
    "ForkError",
    "InternalError",
    "TrustStoreError",
    "LibraryNotFoundError",
    "VersionMismatchError",
    "HOOKEXEC_VERSION_NUMBER",
    "__version__",
    "library_version",
    "library_path",
]


def library_version() -> str:
    """The loaded library's version text, e.g. "0.1.0" (loads the library if needed)."""
    from . import _ffi

    v: bytes = _ffi.lib().hookexec_version()
    return v.decode("ascii")


def library_path() -> str:
    """The path of the loaded library (loads it if needed)."""
    from . import _ffi

    path: str = _ffi.lib().path
    return path
