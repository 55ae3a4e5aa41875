"""The foreign functions of libhookexec (include/hookexec.h), declared in one place.

The library is loaded lazily, on the first call to :func:`lib`, so that ``import hookexec``
works on a machine without it. Where it is looked for, in order:

1. the file named by the ``HOOKEXEC_LIBRARY`` environment variable (when set, only there);
2. ``libhookexec.so`` inside this package, where the wheel bundles it.

At load a known symbol and the version are checked: the library's major version must be
this package's (the two are built from one VERSION file), else
:class:`~hookexec.VersionMismatchError` naming both.

Strings the library allocates come back as ``c_void_p`` and are read with
``ctypes.string_at`` and released with ``hookexec_free`` (see :func:`call_string`). ctypes
releases the GIL for every call made through a ``CDLL``, so other threads run while Go works.
"""

from __future__ import annotations

import ctypes
import os
import threading
from ctypes import CFUNCTYPE, POINTER, byref, c_char_p, c_int, c_long, c_size_t, c_void_p
from pathlib import Path
from types import SimpleNamespace
from typing import Any, Callable, List, Optional, Tuple

from ._version import __version__
from .errors import LibraryNotFoundError, VersionMismatchError, error_for


def _number(version: str) -> int:
    major, minor, patch = (int(x) for x in version.split(".")[:3])
    return major * 1000000 + minor * 1000 + patch


#: X*1000000 + Y*1000 + Z of this package's version (the library's hookexec_version_number()).
HOOKEXEC_VERSION_NUMBER = _number(__version__)
#: The library's major version must be this.
VERSION_MAJOR = HOOKEXEC_VERSION_NUMBER // 1000000
LIBRARY_NAME = "libhookexec.so"
ENV_VAR = "HOOKEXEC_LIBRARY"

#: void (*hookexec_listener_fn)(void *user_data, const char *kind, const char *json)
LISTENER_FN = CFUNCTYPE(None, c_void_p, c_char_p, c_char_p)

#: int (*hookexec_prompt_fn)(void *user_data, const char *prompt, const char *payload_json,
#:                           char *reason, size_t reason_size)
PROMPT_FN = CFUNCTYPE(c_int, c_void_p, c_char_p, c_char_p, c_void_p, c_size_t)

#: void (*hookexec_evaluator_fn)(void *user_data, const char *type, const char *hook_json,
#:                               const char *payload_json, hookexec_answer *answer)
EVALUATOR_FN = CFUNCTYPE(None, c_void_p, c_char_p, c_char_p, c_char_p, c_void_p)

#: hookexec_debug_live kinds.
LIVE_ENGINES, LIVE_STRINGS = 0, 1

_lock = threading.Lock()
_lib: Optional[SimpleNamespace] = None


def candidates() -> List[Path]:
    """The paths the library is looked for at, in order."""
    override = os.environ.get(ENV_VAR)
    if override:
        return [Path(override)]
    return [Path(__file__).resolve().parent / LIBRARY_NAME]


def lib() -> SimpleNamespace:
    """The loaded library's functions, loading and checking it on first use."""
    global _lib
    if _lib is None:
        with _lock:
            if _lib is None:
                _lib = _bind(_open())
    return _lib


def _open() -> ctypes.CDLL:
    tried = candidates()
    for path in tried:
        if not path.is_file():
            continue
        try:
            dll = ctypes.CDLL(str(path))
        except OSError as e:
            raise LibraryNotFoundError(f"hookexec: cannot load {path}: {e}", [str(p) for p in tried]) from None
        if not hasattr(dll, "hookexec_open"):
            raise LibraryNotFoundError(
                f"hookexec: {path} is not libhookexec (it has no hookexec_open symbol)", [str(p) for p in tried]
            )
        return dll
    listing = "\n".join(f"  {p}" for p in tried)
    raise LibraryNotFoundError(
        "hookexec: libhookexec.so not found. An installed package bundles it: reinstall with "
        f"`pip install ./pybind` from the hookexec repository, or set {ENV_VAR} to the library's "
        f"path. Tried:\n{listing}",
        [str(p) for p in tried],
    )


# errcheck helpers: they run on the calling thread right after the call, so hookexec_errmsg()
# (thread-local in the library) still holds this call's message.


def _message(code: int) -> str:
    msg = _lib_errmsg() or b""
    if not msg:
        msg = _lib_errstr(code) or b""
    return msg.decode("utf-8", "replace")


def _check_status(rc: int, func: Any, args: Tuple[Any, ...]) -> int:
    if rc != 0:
        raise error_for(rc, _message(rc))
    return rc


def _check_count(n: int, func: Any, args: Tuple[Any, ...]) -> int:
    if n < 0:
        raise error_for(-n, _message(-n))
    return n


def _check_error_out(rc: int, func: Any, args: Tuple[Any, ...]) -> int:
    """For functions whose last argument is a char** error_out (passed as ctypes.pointer)."""
    err = args[-1].contents if args[-1] else None
    try:
        if rc != 0:
            text = ctypes.string_at(err.value).decode("utf-8", "replace") if err and err.value else ""
            raise error_for(rc, text or _message(rc))
    finally:
        if err and err.value:
            _lib_free(err)
            err.value = None
    return rc


_lib_errmsg: Any = None
_lib_errstr: Any = None
_lib_free: Any = None


def _bind(dll: ctypes.CDLL) -> SimpleNamespace:
    ns = SimpleNamespace(path=dll._name)

    def _fn(name: str, restype: Any, argtypes: List[Any], errcheck: Optional[Callable[..., int]] = None) -> None:
        f = getattr(dll, name)
        f.restype, f.argtypes = restype, argtypes
        if errcheck is not None:
            f.errcheck = errcheck
        setattr(ns, name, f)

    engine, out = c_void_p, POINTER(c_void_p)
    _fn("hookexec_version_number", c_int, [])
    _fn("hookexec_version", c_char_p, [])
    _fn("hookexec_errstr", c_char_p, [c_int])
    _fn("hookexec_errmsg", c_char_p, [])
    _fn("hookexec_free", None, [c_void_p])
    _fn("hookexec_open", c_int, [c_char_p, POINTER(engine), out], _check_error_out)
    _fn("hookexec_fire", c_int, [engine, c_char_p, c_char_p, out], _check_status)
    _fn("hookexec_match", c_int, [engine, c_char_p, c_char_p], _check_count)
    _fn("hookexec_match_ids", c_int, [engine, c_char_p, c_char_p, out], _check_status)
    _fn("hookexec_config", c_int, [engine, out], _check_status)
    _fn("hookexec_reload", c_int, [engine, out], _check_error_out)
    _fn("hookexec_drain", c_int, [engine, out], _check_status)
    _fn("hookexec_set_listener", c_int, [engine, LISTENER_FN, c_void_p], _check_status)
    _fn("hookexec_set_prompt_evaluator", c_int, [engine, PROMPT_FN, c_void_p], _check_status)
    _fn("hookexec_set_evaluator", c_int, [engine, EVALUATOR_FN, c_void_p], _check_status)
    # Called from inside an evaluator, on the library's thread: no errcheck (nothing may raise
    # into C), the status is returned.
    _fn("hookexec_answer_output", c_int, [c_void_p, c_int, c_char_p, c_char_p])
    _fn("hookexec_answer_verdict", c_int, [c_void_p, c_int, c_char_p])
    _fn("hookexec_answer_error", c_int, [c_void_p, c_char_p])
    _fn("hookexec_trust_list", c_int, [engine, out], _check_status)
    _fn("hookexec_trust_approve", c_int, [engine, c_char_p, out], _check_status)
    _fn("hookexec_trust_revoke", c_int, [engine, c_char_p, out], _check_status)
    _fn("hookexec_close", c_int, [engine], _check_status)
    _fn("hookexec_debug_live", c_long, [c_int])

    global _lib_errmsg, _lib_errstr, _lib_free
    _lib_errmsg, _lib_errstr, _lib_free = ns.hookexec_errmsg, ns.hookexec_errstr, ns.hookexec_free

    found = ns.hookexec_version_number()
    if found // 1000000 != VERSION_MAJOR:
        raise VersionMismatchError(
            f"hookexec: {dll._name} is libhookexec {_dotted(found)}, but this hookexec package is "
            f"{__version__} and needs a {VERSION_MAJOR}.x library; install the package and the "
            f"library from one hookexec release (pip install ./pybind builds both), or point "
            f"{ENV_VAR} at a {VERSION_MAJOR}.x build",
            found,
            HOOKEXEC_VERSION_NUMBER,
        )
    return ns


def _dotted(n: int, parts: int = 3) -> str:
    return ".".join(str(x) for x in (n // 1000000, n // 1000 % 1000, n % 1000)[:parts])


def call_string(fn: Any, *args: Any) -> bytes:
    """Calls fn(*args, char **out) and returns the string it allocated, released here."""
    out = c_void_p()
    try:
        fn(*args, byref(out))
        return ctypes.string_at(out.value) if out.value else b""
    finally:
        _lib_free(out)
