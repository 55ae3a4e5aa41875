"""The async listener and thread safety."""

from __future__ import annotations

import gc
import queue
import sys
import threading
import time

import pytest

import hookexec
from conftest import HANG_GUARD, hook, settings, wait_for


def test_async_hook_result_goes_to_the_listener(engine, project):
    # The hook cannot finish before the test creates "release", after fire returned: a fire
    # that awaited it would end only at the hook's timeout, with no "later" in its output.
    wait = "while [ ! -e release ]; do sleep 0.01; done; echo later"
    eng = engine(config=settings("PostToolUse", hook(wait, name="bg", timeout=60, **{"async": True})))
    got: "queue.Queue" = queue.Queue()
    assert eng.on_async(lambda result: got.put((result, threading.get_ident()))) is not None

    r = eng.fire("PostToolUse", {"tool_name": "Bash"})
    assert r.hooks[0].async_ is True
    assert got.empty()  # not awaited
    (project / "release").touch()

    result, thread = got.get(timeout=HANG_GUARD)
    assert isinstance(result, hookexec.AsyncResult)
    assert result.event == "PostToolUse"
    assert isinstance(result.hook, hookexec.HookResult)
    assert result.hook.id == "bg"
    assert result.hook.stdout == "later\n"
    assert result.hook.exit_code == 0
    assert result.blocked is False and result.decision == "none"
    assert result.raw["hook"]["id"] == "bg"
    assert thread != threading.get_ident()


def test_listener_exceptions_are_unraisable_not_fatal(engine, monkeypatch):
    eng = engine(config=settings("Stop", hook("true", **{"async": True})))
    seen = []
    monkeypatch.setattr(sys, "unraisablehook", lambda args: seen.append(args))

    @eng.on_async
    def boom(result):
        raise RuntimeError("listener bug")

    eng.fire("Stop", {})
    assert wait_for(lambda: seen)
    args = seen[0]
    assert args.exc_type is RuntimeError and str(args.exc_value) == "listener bug"
    assert "hookexec listener" in args.err_msg
    assert args.object is boom
    # The engine keeps working.
    eng.on_async(None)
    assert eng.fire("Stop", {}).matched == 1


def test_results_finishing_during_close_are_delivered_and_none_after(engine):
    eng = engine(config=settings("Stop", hook("sleep 0.3; echo done", **{"async": True})), close_timeout_ms=3000)
    got = []
    eng.on_async(got.append)
    eng.fire("Stop", {})
    eng.close()  # waits for the async hook
    assert [r.hook.stdout for r in got] == ["done\n"]
    n = len(got)
    time.sleep(0.2)
    assert len(got) == n


def test_close_kills_async_hooks_after_the_deadline(engine):
    eng = engine(config=settings("Stop", hook("sleep 30", **{"async": True})), close_timeout_ms=200, kill_grace_ms=100)
    eng.fire("Stop", {})
    t0 = time.monotonic()
    eng.close()
    # close_timeout_ms + kill_grace_ms + slack; the hook would sleep 30 s.
    assert time.monotonic() - t0 < 0.3 + HANG_GUARD


def test_close_from_the_listener_is_refused_not_a_deadlock(engine):
    eng = engine(config=settings("Stop", hook("true", **{"async": True})))
    errors = []

    def listener(result):
        try:
            eng.close()
        except hookexec.MisuseError as e:
            errors.append(e)

    eng.on_async(listener)
    eng.fire("Stop", {})
    assert wait_for(lambda: errors)
    assert not eng.closed


def test_listener_can_be_removed(engine):
    eng = engine(config=settings("Stop", hook("true", **{"async": True})))
    got = []
    eng.on_async(got.append)
    eng.on_async(None)
    eng.fire("Stop", {})
    time.sleep(0.3)
    assert got == []


def test_engine_with_listener_is_collected_and_closed(project, home):
    eng = hookexec.Engine(project_dir=project, home=home)
    eng.on_async(lambda result: None)
    lib, h = eng._lib, eng._h
    del eng
    gc.collect()
    with pytest.raises(hookexec.ClosedError):
        lib.hookexec_match(h, b"Stop", b"")


def test_many_threads_fire_while_another_closes(engine):
    # close() waits for the fires in flight, so none sees its hook killed; later ones are closed.
    eng = engine(config=settings("Stop", hook("sleep 0.02")))
    outcomes = []
    start = threading.Barrier(9)

    def worker():
        start.wait()
        for _ in range(30):
            try:
                r = eng.fire("Stop", {})
                outcomes.append(r.matched if r.hooks[0].error == "" else r.hooks[0].error)
            except hookexec.ClosedError:
                outcomes.append("closed")
            except Exception as e:  # noqa: BLE001 — anything else is a failure
                outcomes.append(e)

    threads = [threading.Thread(target=worker) for _ in range(8)]
    for t in threads:
        t.start()
    start.wait()
    assert wait_for(lambda: outcomes)  # fires are under way
    eng.close()
    for t in threads:
        t.join(timeout=3 * HANG_GUARD)
    assert all(o in (1, "closed") for o in outcomes), [o for o in outcomes if o not in (1, "closed")]
    assert 1 in outcomes and "closed" in outcomes
