"""hookexec: run the shell hooks users attach to an AI agent's lifecycle events.

A Python host opens an :class:`Engine`, fires events with a payload dict and reads one
aggregated :class:`FireResult`::

    with hookexec.Engine(profile="cli-agent", project_dir=".") as eng:
        r = eng.fire("PreToolUse", {"tool_name": "bash_execute", "tool_input": {"command": "ls"}})
        if r.blocked:
            ...

The engine is libhookexec.so (Go) loaded with ctypes on first use; this package needs
nothing but the standard library. See ``hookexec._ffi`` for where the library is looked for.
"""

from __future__ import annotations

from ._ffi import HOOKEXEC_VERSION_NUMBER
from .engine import Engine, debug_live
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
from .result import AwaitingApproval, FireResult, HookResult

__version__ = "0.1.0"

__all__ = [
    "Engine",
    "debug_live",
    "FireResult",
    "HookResult",
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

    return _ffi.lib().hookexec_version().decode("ascii")


def library_path() -> str:
    """The path of the loaded library (loads it if needed)."""
    from . import _ffi

    return _ffi.lib().path
