"""The Engine: one open libhookexec engine (hookexec_open ... hookexec_close).

An Engine is safe to use from many threads at once. Every call except :meth:`Engine.close`
goes straight to the library, which serialises what needs serialising; ctypes releases the
GIL during each call, so fires on different threads (and :meth:`Engine.fire_async`) run in
parallel.

Fast path (SPEC §11). A fire that matches no hook should cost about a dict lookup, so the
engine keeps the library's per-event summary (``config()["events"]``: enabled hooks and the
matcher's subject fields per canonical event) and answers such fires itself, **without
encoding the payload**. That is a deliberate, documented property: an unserialisable payload
for an event nobody listens to is not an error. The engine takes the fast path only when the
answer is certain:

- the event name is one the library knows (``config()["event_names"]``: every canonical name
  and alias → its canonical name); open-ended names always go to the library;
- the canonical event has no enabled hooks, or its hooks' matchers accept none of them for
  the payload's subject (asked through ``hookexec_match``, the library's own matcher, once
  per event and subject until the next reload);
- the payload is a dict or None (anything else goes to the library for its verdict);
- no ``pipe_output`` hook was ever configured on this engine (their queued output belongs
  to the next pre_iteration fire's ``agent_output``, which only the library holds).

After ``fork()``, in the child, every method raises :class:`~hookexec.ForkError` at once,
fast-path fires included: the library's Go runtime did not survive the fork.
"""

from __future__ import annotations

import asyncio
import atexit
import ctypes
import functools
import json
import os
import sys
import threading
import time
import traceback
import warnings
import weakref
from concurrent.futures import ThreadPoolExecutor
from ctypes import byref, c_void_p, pointer
from typing import Any, Awaitable, Callable, Dict, List, Optional, Sequence, Set, Tuple, TypeVar, Union

from . import _aio, _ffi
from .config import Config
from .errors import ClosedError, ForkError, InvalidArgumentError, MisuseError
from .events import KINDS, AsyncResult, RewakeEvent, StatusEvent
from .result import FireResult

__all__ = ["Engine", "Evaluator", "debug_live"]

# Option keys of hookexec_open besides the named parameters of Engine().
_OPTION_KEYS = frozenset(
    {
        "default_timeout_ms", "kill_grace_ms", "max_parallel", "output_cap_bytes",
        "close_timeout_ms", "session_id", "transcript_path", "env", "notifications",
        "plugins", "managed_settings", "max_stop_blocks", "trust", "trust_store", "log_file",
        "config_dialect", "audit_log", "audit_key_file", "audit_max_bytes", "telemetry",
        "bundle_config",
    }
)

# C listener thunks that the library may still call (see Engine.on_async).
_live_thunks: Dict[int, Any] = {}

# Which engine's listener the current thread is running, to refuse close() from inside it.
_in_listener = threading.local()

# Cached match counts are bounded: hosts may fire arbitrary subjects.
_MAX_CACHED = 4096
_SLOW_MATCH = 0.010  # seconds; far below the library's regex match timeout (1 s)

# The library's default of max_parallel (core/engine.Options): fire_async's pool size too.
_DEFAULT_MAX_PARALLEL = 8

Payload = Union[Dict[str, Any], str, bytes, bytearray, memoryview, None]
F = TypeVar("F", bound=Callable[..., Any])
#: fn(type, hook definition, payload) -> verdict dict, outcome dict or text, or an ``async def``
#: returning one; see Engine.set_evaluator.
Evaluator = Callable[[str, Dict[str, Any], Dict[str, Any]], Any]
#: fn(prompt, payload) -> {"ok": bool, "reason": str}, or an ``async def`` returning it.
PromptEvaluator = Callable[[str, Dict[str, Any]], Union[Dict[str, Any], Awaitable[Dict[str, Any]]]]

_FORK_MESSAGE = "hookexec: called in a child process after fork(); open a new engine after exec(), or use a spawn-based process model"
_forked = False  # set in a forked child: the library's Go runtime did not come along


def _mark_forked() -> None:
    global _forked
    _forked = True


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_mark_forked)

# Engines still open, closed at interpreter exit: once the interpreter finalizes, no thread can
# start or take the GIL, so an engine left for __del__ then could never be released (and a
# release waiting on a thread would hang the host's exit).
_open_engines: "weakref.WeakSet[Engine]" = weakref.WeakSet()


@atexit.register
def _close_open_engines() -> None:
    if _forked:
        return  # a forked child's engines are the parent's to close
    for eng in list(_open_engines):
        try:
            eng.close()
        except Exception:  # noqa: BLE001 — exit goes on; every other engine still gets closed
            pass


class Engine:
    """An open hook engine. Use it as a context manager, or call :meth:`close`.

    ``profile`` picks where hooks live ("cli-agent", "claude", ...); ``project_dir`` and
    ``home`` anchor those locations (home None means $HOME); ``sources`` replaces them with
    explicit files; ``config`` adds an inline config (a dict, or JSON text) of highest
    precedence. Other keyword options are those of ``hookexec_open``: default_timeout_ms,
    kill_grace_ms, max_parallel, output_cap_bytes, close_timeout_ms, session_id,
    transcript_path, env, notifications, trust ("all" or "project": see :meth:`trust_list`),
    trust_store, log_file, plugins (Claude Code plugin directories), managed_settings (path),
    max_stop_blocks, config_dialect (the dialect of ``config``: "cursor", "gemini", ...),
    audit_log, audit_key_file, audit_max_bytes (the hash-chained audit log: docs/observability.md),
    telemetry (OpenTelemetry export: ``{"enabled": True, "endpoint": "http://127.0.0.1:4318",
    "protocol": "grpc" | "http/protobuf", "service_name": ..., "headers": {...},
    "log_content": False}``; unset means $HOOKEXEC_TELEMETRY and the OTEL_* variables decide;
    see docs/observability.md),
    bundle_config (the policy bundle's bundle.json, "-" for none: docs/policy.md "Bundles").
    An unknown keyword is a TypeError; a bad value is an
    InvalidArgumentError from the library; an unknown profile is a ConfigError. Problems in
    config files are not errors: they are ``config()["warnings"]``.
    """

    def __init__(
        self,
        profile: str = "cli-agent",
        project_dir: Union[str, "os.PathLike[str]"] = ".",
        home: Union[str, "os.PathLike[str]", None] = None,
        sources: Optional[Sequence[Union[str, "os.PathLike[str]"]]] = None,
        config: Union[Dict[str, Any], str, bytes, None] = None,
        **options: Any,
    ) -> None:
        self._closed = True  # until open succeeds, so __del__ of a failed __init__ is quiet
        unknown = sorted(set(options) - _OPTION_KEYS)
        if unknown:
            raise TypeError(f"Engine() got an unexpected keyword argument {unknown[0]!r}")
        opts: Dict[str, Any] = {"profile": profile, "project_dir": os.fspath(project_dir)}
        if home is not None:
            opts["home"] = os.fspath(home)
        if sources is not None:
            if isinstance(sources, (str, bytes, os.PathLike)):
                raise TypeError("sources must be a sequence of paths, not a single path")
            opts["sources"] = [os.fspath(s) for s in sources]
        if isinstance(config, (str, bytes, bytearray)):
            try:
                config = json.loads(config)
            except ValueError as e:
                raise InvalidArgumentError(f"hookexec: config is not valid JSON: {e}") from e
        if config is not None:
            opts["config"] = config
        opts.update((k, v) for k, v in options.items() if v is not None)
        try:
            text = json.dumps(opts, separators=(",", ":"), ensure_ascii=False)
        except (TypeError, ValueError) as e:
            raise InvalidArgumentError(f"hookexec: options are not JSON-serialisable: {e}") from e

        self._lib = _ffi.lib()
        self._close_lock = threading.Lock()
        self._reload_lock = threading.Lock()  # a reload and its summary refresh are one step
        self._thunk: Any = None  # the C listener handed to the library, if any
        self._evaluator: Any = None  # the C evaluator handed to the library, if any
        self._retired: List[Any] = []  # every C evaluator handed out, kept until close
        self._handlers: Dict[str, Callable[[Any], Any]] = {}  # listener kind → host callback
        self._notifications = False  # the library announces every fire (autohand)
        self._logging = False  # the library logs or observes every fire (log_file, audit_log)
        mp = options.get("max_parallel")  # the library refuses a bad one below
        self._max_parallel = mp if isinstance(mp, int) and mp > 0 else _DEFAULT_MAX_PARALLEL
        self._executor: Optional[ThreadPoolExecutor] = None  # fire_async's, made on first use
        self._sync_firing: Set[int] = set()  # threads inside a synchronous fire (see _aio)
        # (canonical event → (enabled hooks, subject fields, hooks awaiting approval),
        #  (event, subject) → match count)
        self._summary: Tuple[Dict[str, Tuple[int, Tuple[str, ...], int]], Dict[Tuple[str, str], int]] = ({}, {})
        self._empty: Dict[str, FireResult] = {}
        # event name as fired → (subject fields or None when it has no hooks, the empty result,
        # subjects known to match nothing); see fire(). Cleared whenever _fast's inputs change.
        self._quick: Dict[str, Tuple[Any, FireResult, Any]] = {}
        self._names: Dict[str, str] = {}  # every known event name and alias → canonical
        self._piped = False
        handle = c_void_p()
        self._lib.hookexec_open(_encode(text), byref(handle), pointer(c_void_p()))
        self._h = handle
        self._closed = False
        _open_engines.add(self)
        try:
            self._refresh()
        except BaseException:
            self.close()
            raise

    # --- lifecycle -------------------------------------------------------------------------

    @property
    def closed(self) -> bool:
        return self._closed

    def close(self) -> None:
        """Closes the engine: waits for running async hooks up to close_timeout_ms, then kills
        them. A second close is a no-op; every other method then raises ClosedError."""
        if _forked:
            raise ForkError(_FORK_MESSAGE)
        if getattr(_in_listener, "engine", None) is self:
            # The library waits for async hooks, this listener call among them: a deadlock.
            raise MisuseError("hookexec: close() called from this engine's listener; close it from another thread")
        with self._close_lock:
            if self._closed:
                return
            self._closed = True  # from here on every method raises ClosedError
            _open_engines.discard(self)
            if self._executor is not None:
                # Queued fire_async calls still run, and raise ClosedError like any later call.
                self._executor.shutdown(wait=False)
            self._lib.hookexec_close(self._h)
            # Async hooks that finished while close waited were delivered; nothing is after.
            self._handlers = {}
            _live_thunks.pop(id(self._thunk), None)
            for thunk in self._retired:
                _live_thunks.pop(id(thunk), None)

    def __enter__(self) -> "Engine":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __del__(self) -> None:
        """An engine collected while open: a ResourceWarning, and a release that never blocks
        the collecting thread (closing waits for async hooks, so it happens on a thread of its
        own). Engines still open at interpreter exit are closed by an ``atexit`` hook before
        finalization; during finalization no thread can start, so nothing is started then.
        Close engines explicitly, or use ``with``."""
        if self._closed or _forked:
            return  # in a forked child the engine is the parent's to close
        self._closed = True
        if sys.is_finalizing():
            return  # no new thread can run now (it would hang the exit); the process ends
        try:
            warnings.warn(f"unclosed {self!r}", ResourceWarning, source=self)
        except Exception:  # noqa: BLE001 — interpreter shutdown
            pass
        keep = (self._thunk, *self._retired)  # C may call them until the close returns
        lib, h, executor = self._lib, self._h, self._executor

        def release() -> None:
            if executor is not None:
                executor.shutdown(wait=False)
            lib.hookexec_close(h)
            for thunk in keep:
                _live_thunks.pop(id(thunk), None)

        try:
            threading.Thread(target=release, name="hookexec-release", daemon=True).start()
        except Exception:  # noqa: BLE001 — no threads at interpreter shutdown: the process ends
            pass

    def __repr__(self) -> str:
        state = "closed" if self._closed else "open"
        return f"<hookexec.Engine {state} events={sorted(self._summary[0])}>"

    def _check_open(self) -> None:
        if _forked:
            raise ForkError(_FORK_MESSAGE)
        if self._closed:
            raise ClosedError("hookexec: engine is closed")

    # --- firing ----------------------------------------------------------------------------

    def fire(self, event: str, payload: Payload = None) -> FireResult:
        """Fires ``event`` (canonical name or alias) with ``payload`` (a dict, JSON text as
        str/bytes, or None for {}), runs the matching hooks and returns their aggregated result.
        A failing hook is part of the result, never an exception. When certainly nothing
        matches, the shared empty result is returned without encoding the payload (see the
        module doc)."""
        if self._closed or _forked:
            self._check_open()
        # What _fast has already worked out for this event name, kept flat so that a fire that
        # matches nothing costs a few dict lookups (issue 10's target: under 1 µs).
        quick = self._quick.get(event)
        known = None
        if quick is not None and (payload is None or type(payload) is dict):
            fields, empty, subjects = quick
            if fields is None:
                return empty
            known = subjects.get(_subject(payload, fields))
            if known == 0:
                return empty
        if known is None:  # else hooks match this subject: the library runs them
            fast = self._fast(event, payload)
            if fast is not None:
                return fast
        me = threading.get_ident()
        self._sync_firing.add(me)
        try:
            return self._fire(event, payload)
        finally:
            self._sync_firing.discard(me)

    async def fire_async(self, event: str, payload: Payload = None) -> FireResult:
        """:meth:`fire` for asyncio hosts: the fire runs on a thread pool of this engine, as
        many threads as ``max_parallel`` (default 8), not the loop's shared default executor;
        the GIL is released while Go works.

        Cancelling the awaiting task does not stop a fire that started: its hooks run to the
        end (or their timeout), their side effects happen, and the result is dropped. A fire
        still queued behind ``max_parallel`` others is not started at all."""
        if self._closed or _forked:
            self._check_open()
        fast = self._fast(event, payload)
        if fast is not None:
            return fast
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._pool(), functools.partial(self._fire, event, payload))

    def _pool(self) -> ThreadPoolExecutor:
        ex = self._executor
        if ex is None:
            with self._close_lock:
                self._check_open()
                ex = self._executor
                if ex is None:
                    ex = self._executor = ThreadPoolExecutor(self._max_parallel, thread_name_prefix="hookexec-fire")
        return ex

    def _fast(self, event: str, payload: Payload) -> Optional[FireResult]:
        """The result of a fire that certainly matches nothing, or None (ask the library)."""
        if self._piped or self._logging or (payload is not None and type(payload) is not dict):
            return None
        if self._notifications and "notification" in self._handlers:
            return None  # every fire is announced, matched or not
        # _refresh assigns _quick last: taken first, it is never newer than the names and
        # summary read below, so an answer worked out from an old config cannot land in the
        # new cache (it lands in the old one, which nothing reads any more).
        quick = self._quick
        canon = self._names.get(event)
        if canon is None:
            return None
        events, counts = self._summary  # one snapshot: a reload swaps both together
        summary = events.get(canon)
        fields: Optional[Tuple[str, ...]] = None  # None: the event has no hooks
        subject, known = "", True
        if summary is not None:
            n, fields, awaiting = summary
            if awaiting:
                return None  # the library reports hooks awaiting approval
            if not n:
                fields = None
            else:
                subject = _subject(payload, fields)
                # The library's own matchers decide; their answer holds until the next reload.
                key = (canon, subject)
                count = counts.get(key)
                if count is None:
                    t0 = time.perf_counter()
                    count = self._match(canon, subject)
                    # A slow answer may be a regex that hit the library's match timeout (and so
                    # "did not match"); that is not a fact to keep.
                    if len(counts) < _MAX_CACHED and time.perf_counter() - t0 < _SLOW_MATCH:
                        counts[key] = count
                if count > 0:
                    if key in counts:
                        self._remember(quick, event, fields, subject, self._empty_of(canon), count)
                    return None
                known = key in counts
        empty = self._empty_of(canon)
        if known:
            self._remember(quick, event, fields, subject, empty)
        return empty

    def _empty_of(self, canon: str) -> FireResult:
        empty = self._empty.get(canon)
        if empty is None:
            empty = self._empty[canon] = FireResult.empty(canon)
        return empty

    @staticmethod
    def _remember(
        quick: Dict[str, Tuple[Any, FireResult, Any]],
        event: str,
        fields: Optional[Tuple[str, ...]],
        subject: str,
        empty: FireResult,
        count: int = 0,
    ) -> None:
        """Keeps the library's match count for fire()'s first look, per event name as fired:
        the event has no hooks (fields None), or how many hooks match the subject (0: answered
        with the empty result; more: straight to the library, without asking _fast again)."""
        if len(quick) >= _MAX_CACHED:
            return
        if fields is None:
            quick[event] = (None, empty, None)
            return
        entry = quick.get(event)
        if entry is None:
            entry = quick[event] = (fields, empty, {})
        subjects: Dict[str, int] = entry[2]
        if len(subjects) < _MAX_CACHED:
            subjects[subject] = count

    def _fire(self, event: str, payload: Payload) -> FireResult:
        self._check_open()
        data = _payload_bytes(payload)
        raw = _ffi.call_string(self._lib.hookexec_fire, self._h, _name(event), data)
        return FireResult.from_json(raw)

    def matches(self, event: str, subject: str = "") -> int:
        """How many enabled hooks would run for ``event`` and ``subject`` (the tool name for
        tool events; "" for events without one), without running anything."""
        self._check_open()
        return self._match(event, subject)

    def match_ids(self, event: str, subject: str = "") -> List[str]:
        """The ids (as in ``config()["hooks"]``) of the enabled hooks that would run for
        ``event`` and ``subject``, in config order, without running anything."""
        self._check_open()
        raw = _ffi.call_string(self._lib.hookexec_match_ids, self._h, _name(event), _name(subject or "", "subject"))
        ids: List[str] = json.loads(raw)
        return ids

    def _match(self, event: str, subject: str) -> int:
        n: int = self._lib.hookexec_match(self._h, _name(event), _name(subject or "", "subject"))
        return n

    # --- configuration ---------------------------------------------------------------------

    def config(self) -> Config:
        """The configuration in force: profile, sources, hooks, warnings and a summary per
        event, as a typed :class:`~hookexec.Config` (``config["key"]`` reads the JSON)."""
        return Config.from_dict(self._config_json())

    def _config_json(self) -> Dict[str, Any]:
        self._check_open()
        raw = _ffi.call_string(self._lib.hookexec_config, self._h)
        d: Dict[str, Any] = json.loads(raw)
        return d

    def reload(self) -> None:
        """Re-reads every configuration source; on failure the old configuration stays."""
        with self._reload_lock:
            self._check_open()
            self._lib.hookexec_reload(self._h, pointer(c_void_p()))
            self._refresh()

    def _refresh(self) -> None:
        cfg = self._config_json()
        events = {}
        for name, s in (cfg.get("events") or {}).items():
            events[name] = (int(s.get("hooks") or 0), tuple(s.get("subject") or ()), int(s.get("awaiting") or 0))
        # Sticky: output queued by a pipe_output hook outlives a reload that removes the hook.
        self._piped = self._piped or any(h.get("pipe_output") for h in cfg.get("hooks") or ())
        self._names = dict(cfg.get("event_names") or {})
        self._notifications = bool(cfg.get("notifications"))
        self._logging = bool(cfg.get("logging"))
        self._summary = (events, {})
        self._quick = {}

    # --- trust -----------------------------------------------------------------------------

    def trust_list(self) -> Dict[str, Any]:
        """The project-level hooks (from files inside the project) and whether each is approved:
        {mode, store, project_dir, error, hooks: [{id, source, event, matcher, type, command,
        args, status ("approved" | "awaiting approval"), reason, enabled, files: [{path, tree,
        why, sha256, approved}], unpinned, approved_at}]}: ``files`` are what an approval pins
        (a file by sha256, or with ``tree`` a directory's whole tree, ``why`` saying why),
        ``unpinned`` what it cannot pin. Judged now: files are hashed again. ``error`` says
        why the trust store cannot be read ("" when it can). Works with trust "all" too."""
        self._check_open()
        report: Dict[str, Any] = json.loads(_ffi.call_string(self._lib.hookexec_trust_list, self._h))
        return report

    def approve(self, id: Optional[str] = None, *, all: bool = False) -> Dict[str, Any]:
        """Approves the project-level hook ``id`` as it is now (its entry and the hashes of
        what of the project it may run), or with ``all=True`` every hook awaiting approval; the
        configuration reloads. Returns :meth:`trust_list`'s report afterwards. Raises
        InvalidArgumentError for an id that names no project-level hook or a hook that cannot
        be approved (what it runs cannot be pinned; the message says why), TrustStoreError when
        the store cannot be read or written (it is then left as it was)."""
        if all and id is None:
            return self._trust(self._lib.hookexec_trust_approve, None)
        if all or id is None:
            raise TypeError("approve() takes a hook id or all=True, not both")
        return self._trust(self._lib.hookexec_trust_approve, _name(id, "id"))

    def revoke(self, id: str) -> Dict[str, Any]:
        """Removes the approvals of hook ``id``; it awaits approval again. Returns the report
        afterwards; InvalidArgumentError when nothing was approved under ``id``."""
        return self._trust(self._lib.hookexec_trust_revoke, _name(id, "id"))

    def _trust(self, fn: Any, id: Optional[bytes]) -> Dict[str, Any]:
        with self._reload_lock:  # the library reloaded: refresh the summary in the same step
            self._check_open()
            report: Dict[str, Any] = json.loads(_ffi.call_string(fn, self._h, id))
            self._refresh()
        return report

    def drain(self) -> List[str]:
        """Returns and clears the queued output of pipe_output hooks (session_start,
        post_iteration, on_task_complete) that no pre_iteration fire has taken yet: iteratr's
        final delivery."""
        self._check_open()
        raw = _ffi.call_string(self._lib.hookexec_drain, self._h)
        items: List[str] = json.loads(raw)
        return items

    # --- listener --------------------------------------------------------------------------

    def on_async(self, fn: Optional[Callable[[AsyncResult], Any]]) -> Optional[Callable[[AsyncResult], Any]]:
        """Registers ``fn(result)`` for the results of ``async: true`` hooks, each an
        :class:`~hookexec.AsyncResult` (the event, the hook's :class:`~hookexec.HookResult`,
        whether it would have blocked). ``fn`` runs on a thread of the library, possibly on
        several at once; an exception in it goes to ``sys.unraisablehook``, never into C.
        Nothing is delivered after close() returns (results of async hooks that finish while
        close() waits for them still are). None removes it; once that call returns, ``fn`` is
        not running. Returns ``fn`` (usable as a decorator)."""
        return self._on("async", fn)

    def on_status(self, fn: Optional[Callable[[StatusEvent], Any]]) -> Optional[Callable[[StatusEvent], Any]]:
        """Registers ``fn(event)`` for hooks with a ``statusMessage`` as they start, each a
        :class:`~hookexec.StatusEvent`: show its ``status_message`` while the hook runs. Same
        threading and error rules as :meth:`on_async`. Returns ``fn``."""
        return self._on("status", fn)

    def on_rewake(self, fn: Optional[Callable[[RewakeEvent], Any]]) -> Optional[Callable[[RewakeEvent], Any]]:
        """Registers ``fn(event)`` for ``asyncRewake`` hooks that exit 2 in the background,
        each a :class:`~hookexec.RewakeEvent`: wake the agent with its ``message``. Same
        threading and error rules as :meth:`on_async`. Returns ``fn``."""
        return self._on("rewake", fn)

    def on_notification(self, fn: Optional[Callable[[Dict[str, Any]], Any]]) -> Optional[Callable[[Dict[str, Any]], Any]]:
        """Registers ``fn(message)`` for JSON-RPC 2.0 notifications: with autohand hooks loaded
        (or ``notifications=True``), every fire is announced as
        ``{"jsonrpc": "2.0", "method": "autohand.hook.preTool", "params": {...}}``, in fire
        order, whether or not a hook matched. Same threading and error rules as
        :meth:`on_async`. None removes it. Returns ``fn``."""
        return self._on("notification", fn)

    def _on(self, kind: str, fn: Optional[F]) -> Optional[F]:
        self._check_open()
        if fn is not None and not callable(fn):
            raise TypeError(f"on_{kind}() needs a callable or None")
        handlers = dict(self._handlers)  # swapped whole: dispatch reads it without a lock
        if fn is None:
            handlers.pop(kind, None)
        else:
            handlers[kind] = fn
        self._handlers = handlers
        if kind == "notification":
            self._quick = {}  # announced fires must reach the library
        self._sync_listener()
        return fn

    def _sync_listener(self) -> None:
        """Hands the library one C listener while any Python listener is registered."""
        if not self._handlers:
            self._lib.hookexec_set_listener(self._h, _ffi.LISTENER_FN(), None)  # NULL removes it
            return
        if self._thunk is None:
            # One C thunk per engine, dispatching to the current Python listeners. It refers to
            # the engine weakly, so an engine with a listener is still collected (and closed).
            # It is kept in a module-level dict until close() succeeds: C may call it until then.
            self._thunk = _ffi.LISTENER_FN(_make_dispatch(self))
            _live_thunks[id(self._thunk)] = self._thunk
        self._lib.hookexec_set_listener(self._h, self._thunk, None)

    def set_evaluator(self, fn: Optional[Evaluator], *, loop: Optional[asyncio.AbstractEventLoop] = None) -> None:
        """Registers ``fn(type, hook, payload)`` to run the hooks the host evaluates: type
        "prompt" and "agent" (ask a model) and "mcp_tool" (call a tool of a connected MCP
        server). ``hook`` is the hook's definition (a dict: the handler as configured, with
        "prompt" rendered and "input" filled from the payload, plus "id", "event",
        "timeout_ms"); ``payload`` is what a command hook would get on stdin. Return one of:

        - ``{"ok": bool, "reason": str}``: a verdict; not ok blocks (where the event can) with
          reason;
        - ``{"exit_code": int, "stdout": str, "stderr": str}``: an outcome read exactly like a
          command hook's (exit 0 with JSON output, exit 2 to block, ...);
        - a str: the tool's text, as a command's stdout with exit 0;
        - ``{"error": str}``: the evaluation failed (e.g. the MCP server is not connected).

        That, an exception or any other return value is a non-blocking hook error carrying its
        text.
        ``fn`` runs on a library thread under the hook's timeout. None removes it; without an
        evaluator such hooks are non-blocking errors naming their type.

        ``fn`` may be an ``async def``: its coroutine runs on ``loop``, by default the loop
        running where this is called (fire with :meth:`fire_async` from it), else on a fresh
        loop in the library thread."""
        self._check_open()
        if fn is None:
            self._lib.hookexec_set_evaluator(self._h, _ffi.EVALUATOR_FN(), None)
            self._evaluator = None
            return
        if not callable(fn):
            raise TypeError("set_evaluator() needs a callable or None")
        thunk = _ffi.EVALUATOR_FN(_make_evaluator(self._lib, self._syncify(fn, loop)))
        # Kept alive with the engine (and module-wide until close): C may call it until then.
        # Earlier ones stay alive until close too: a call to one may still be running.
        self._evaluator = thunk
        self._retired.append(thunk)
        _live_thunks[id(thunk)] = thunk
        self._lib.hookexec_set_evaluator(self._h, thunk, None)

    def set_prompt_evaluator(self, fn: Optional[PromptEvaluator], *, loop: Optional[asyncio.AbstractEventLoop] = None) -> None:
        """Registers ``fn(prompt, payload) -> {"ok": bool, "reason": str}`` to decide
        ``type: "prompt"`` hooks only (None removes it): :meth:`set_evaluator` for prompt
        hooks, which replaces any evaluator set there (agent and mcp_tool hooks then fail
        saying so). ``ok`` False blocks (for events that can block) with ``reason``; an
        exception or a malformed answer is a non-blocking hook error carrying its text.
        ``fn`` may be an ``async def``, run as :meth:`set_evaluator` says."""
        if fn is None:
            self.set_evaluator(None)
            return
        if not callable(fn):
            raise TypeError("set_prompt_evaluator() needs a callable or None")

        pfn = self._syncify(fn, loop)  # an async def's coroutine is run to its answer

        def evaluate(hook_type: str, hook: Dict[str, Any], payload: Dict[str, Any]) -> Any:
            if hook_type != "prompt":
                raise TypeError(f"the host's evaluator answers prompt hooks only, not {hook_type}")
            got = pfn(hook.get("prompt", ""), payload)
            if not isinstance(got, dict) or not isinstance(got.get("ok"), bool):
                raise TypeError(f"prompt evaluator returned {got!r}, want {{'ok': bool, 'reason': str}}")
            return got

        self.set_evaluator(evaluate, loop=loop)

    def _syncify(self, fn: Callable[..., Any], loop: Optional[asyncio.AbstractEventLoop]) -> Callable[..., Any]:
        """fn as a plain function for a library thread, running what it returns when that is
        awaitable (see hookexec._aio)."""
        if loop is None:
            loop = _aio.running_loop()
        owner = threading.get_ident() if loop is not None and loop is _aio.running_loop() else None
        firing = self._sync_firing
        return _aio.syncify(fn, loop, lambda: owner is not None and owner in firing)


def _make_evaluator(lib: Any, fn: Evaluator) -> Callable[..., None]:
    def evaluate(user_data: Any, hook_type: Optional[bytes], hook: Optional[bytes], payload: Optional[bytes], answer: int) -> None:
        try:
            got = fn(
                (hook_type or b"").decode("utf-8", "replace"),
                json.loads(hook) if hook else {},
                json.loads(payload) if payload else {},
            )
            if isinstance(got, str):
                lib.hookexec_answer_output(answer, 0, _answer_text(got), None)
            elif isinstance(got, dict) and isinstance(got.get("error"), str):
                lib.hookexec_answer_error(answer, _answer_text(got["error"]))
            elif isinstance(got, dict) and isinstance(got.get("ok"), bool):
                lib.hookexec_answer_verdict(answer, 1 if got["ok"] else 0, _answer_text(str(got.get("reason") or "")))
            elif isinstance(got, dict) and isinstance(got.get("exit_code"), int) and not isinstance(got["exit_code"], bool):
                lib.hookexec_answer_output(
                    answer, got["exit_code"], _answer_text(str(got.get("stdout") or "")), _answer_text(str(got.get("stderr") or ""))
                )
            else:
                lib.hookexec_answer_error(
                    answer, _answer_text(f"evaluator returned {got!r}, want {{'ok': bool, 'reason': str}}, {{'exit_code': int, 'stdout': str, 'stderr': str}} or a str")
                )
        except BaseException as e:  # noqa: BLE001 — nothing may propagate into C
            try:
                lib.hookexec_answer_error(answer, _answer_text(f"{type(e).__name__}: {e}"))
            except BaseException:  # noqa: BLE001
                pass

    return evaluate


def _answer_text(text: str) -> bytes:
    """Text for the library: a NUL would cut it short, so it is escaped visibly."""
    return text.encode("utf-8", "replace").replace(b"\0", b"\\0")


def debug_live() -> Dict[str, int]:
    """Live engines and library strings not yet freed, for leak checks in tests."""
    lib = _ffi.lib()
    return {"engines": lib.hookexec_debug_live(_ffi.LIVE_ENGINES), "strings": lib.hookexec_debug_live(_ffi.LIVE_STRINGS)}


def _make_dispatch(engine: Engine) -> Callable[[Any, Optional[bytes], Optional[bytes]], None]:
    ref = weakref.ref(engine)

    def dispatch(user_data: Any, kind: Optional[bytes], data: Optional[bytes]) -> None:
        fn = None
        try:
            eng = ref()
            if eng is None:
                return
            k = (kind or b"").decode("utf-8", "replace")
            fn = eng._handlers.get(k)
            make = KINDS.get(k)
            if fn is None or make is None:
                return  # a kind this package does not know yet, or nobody listens
            value = make(json.loads(data) if data else {})
            _in_listener.engine = eng
            try:
                fn(value)
            finally:
                _in_listener.engine = None
        except BaseException as e:  # noqa: BLE001 — nothing may propagate into C
            _unraisable(e, fn if fn is not None else dispatch)

    return dispatch


def _unraisable(exc: BaseException, obj: Any) -> None:
    """Reports an exception from a listener the way Python reports unraisable ones."""
    msg = "Exception ignored in hookexec listener"
    try:
        if sys.unraisablehook is not sys.__unraisablehook__:
            # A custom hook (pytest, an app's error reporter) gets the documented attributes;
            # the args type itself cannot be constructed from Python.
            sys.unraisablehook(_UnraisableArgs(type(exc), exc, exc.__traceback__, msg, obj))
            return
    except BaseException:  # noqa: BLE001
        pass
    try:
        print(f"{msg}: {obj!r}", file=sys.stderr)
        traceback.print_exception(type(exc), exc, exc.__traceback__, file=sys.stderr)
    except BaseException:  # noqa: BLE001 — stderr closed: drop it rather than raise into C
        pass


class _UnraisableArgs:
    __slots__ = ("exc_type", "exc_value", "exc_traceback", "err_msg", "object")

    def __init__(self, exc_type: Any, exc_value: Any, exc_traceback: Any, err_msg: Optional[str], obj: Any) -> None:
        self.exc_type, self.exc_value, self.exc_traceback = exc_type, exc_value, exc_traceback
        self.err_msg, self.object = err_msg, obj


def _encode(text: str) -> bytes:
    b = text.encode("utf-8")
    if b"\0" in b:
        raise InvalidArgumentError("hookexec: text passed to the library contains a NUL byte")
    return b


def _name(s: str, what: str = "event") -> bytes:
    if not isinstance(s, str):
        raise TypeError(f"{what} must be a str, not {type(s).__name__}")
    return _encode(s)


def _subject(payload: Optional[Dict[str, Any]], fields: Tuple[str, ...]) -> str:
    """The matcher's subject: the first of the event's subject fields holding a non-empty string."""
    if payload:
        for f in fields:
            v = payload.get(f)
            if isinstance(v, str) and v:
                return v
    return ""


# One encoder for every payload: json.dumps with options builds a new one per call.
_dumps = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False).encode


def _payload_bytes(payload: Payload) -> Optional[bytes]:
    if type(payload) is dict:
        try:
            # JSON text never holds a raw NUL (control characters are escaped): no scan needed.
            return _dumps(payload).encode("utf-8")
        except (TypeError, ValueError) as e:  # UnicodeEncodeError (lone surrogates) is a ValueError
            raise InvalidArgumentError(f"hookexec: payload is not JSON-serialisable: {e}") from e
    if payload is None:
        return None
    if isinstance(payload, str):
        return _encode(payload)
    if isinstance(payload, (bytes, bytearray, memoryview)):
        b = bytes(payload)
        if b"\0" in b:
            raise InvalidArgumentError("hookexec: payload contains a NUL byte")
        return b
    try:
        # JSON text never holds a raw NUL (control characters are escaped): no scan needed.
        return _dumps(payload).encode("utf-8")
    except (TypeError, ValueError) as e:  # UnicodeEncodeError (lone surrogates) is a ValueError
        raise InvalidArgumentError(f"hookexec: payload is not JSON-serialisable: {e}") from e
