"""Exceptions raised by hookexec.

Every failure the library reports is a :class:`HookexecError` carrying the library's status
code (``HOOKEXEC_E*`` in ``hookexec.h``) and its message. A failing *hook* is never an
exception: it is part of the :class:`~hookexec.FireResult`.
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence, Tuple, Type

__all__ = [
    "HookexecError",
    "InvalidArgumentError",
    "ConfigError",
    "ClosedError",
    "MisuseError",
    "ForkError",
    "InternalError",
    "LibraryNotFoundError",
    "VersionMismatchError",
    "error_for",
]


class HookexecError(Exception):
    """A call into libhookexec failed. ``code`` is the status code, ``message`` its text."""

    code: Optional[int] = None

    def __init__(self, message: str = "", code: Optional[int] = None) -> None:
        super().__init__(message)
        self.message = message
        if code is not None:
            self.code = code

    def __reduce__(self) -> Tuple[Any, Tuple[Any, ...]]:  # keep the code across pickling (multiprocessing, logging queues)
        return (type(self), (self.message, self.code))

    def __str__(self) -> str:
        return self.message


class InvalidArgumentError(HookexecError, ValueError):
    """HOOKEXEC_EINVAL: a malformed argument, options or payload (also a ValueError)."""

    code = 1


class ConfigError(HookexecError):
    """HOOKEXEC_ECONFIG: the options name an unusable configuration (e.g. unknown profile)."""

    code = 2


class ClosedError(HookexecError):
    """HOOKEXEC_ECLOSED: the engine was closed."""

    code = 3


class MisuseError(HookexecError):
    """HOOKEXEC_EMISUSE: a handle that hookexec_open never returned."""

    code = 4


class ForkError(HookexecError):
    """HOOKEXEC_EFORK: called in a child process after fork(); open engines after exec()."""

    code = 5


class InternalError(HookexecError):
    """HOOKEXEC_EINTERNAL: a bug in hookexec; the message says where."""

    code = 6


class TrustStoreError(HookexecError):
    """HOOKEXEC_ETRUST: the trust store cannot be read or written; the message says why."""

    code = 7


class LibraryNotFoundError(HookexecError, ImportError):
    """libhookexec.so could not be found or loaded. ``paths`` lists the locations tried."""

    def __init__(self, message: str = "", paths: Sequence[str] = ()) -> None:
        super().__init__(message)
        self.paths = list(paths)

    def __reduce__(self) -> Tuple[Any, Tuple[str, List[str]]]:
        return (type(self), (self.message, self.paths))


class VersionMismatchError(HookexecError, ImportError):
    """The loaded library's major version is not this package's (``found`` and ``expected``
    are X*1000000 + Y*1000 + Z version numbers)."""

    def __init__(self, message: str = "", found: int = 0, expected: int = 0) -> None:
        super().__init__(message)
        self.found = found
        self.expected = expected

    def __reduce__(self) -> Tuple[Any, Tuple[str, int, int]]:
        return (type(self), (self.message, self.found, self.expected))


_BY_CODE: Dict[int, Type[HookexecError]] = {
    cls.code: cls  # type: ignore[misc,unused-ignore]
    for cls in (InvalidArgumentError, ConfigError, ClosedError, MisuseError, ForkError, InternalError, TrustStoreError)
}


def error_for(code: int, message: str) -> HookexecError:
    """The exception for a status code; codes this package does not know give HookexecError."""
    cls = _BY_CODE.get(code)
    if cls is None:
        return HookexecError(message, code)
    return cls(message)
