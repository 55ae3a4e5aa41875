"""The Python API's types and asyncio behaviour: typed config and listener events, fire_async
on the engine's own pool and its cancellation, async evaluators, and __del__ that never blocks."""

from __future__ import annotations

import asyncio
import concurrent.futures
import gc
import threading
import time
import warnings

import pytest

import hookexec
from conftest import HANG_GUARD, hook, rendezvous, settings, wait_for


def test_config_is_typed(engine, project):
    cfg_doc = settings("PreToolUse", hook("echo hi", name="greet"), matcher="Bash")
    cfg_doc["hooks"]["Stopp"] = [{"hooks": [hook("true")]}]  # misspelt: a warning
    eng = engine(config=cfg_doc)
    cfg = eng.config()
    assert isinstance(cfg, hookexec.Config)
    assert cfg.profile == "cli-agent" and cfg["profile"] == "cli-agent"
    assert cfg.project_dir == str(project)
    greet = cfg.hook("greet")
    assert isinstance(greet, hookexec.ConfiguredHook)
    assert (greet.event, greet.matcher, greet.command, greet.enabled) == ("PreToolUse", "Bash", "echo hi", True)
    assert greet.timeout_ms > 0 and greet.async_ is False
    assert cfg.events["PreToolUse"] == hookexec.EventSummary(hooks=1, subject=("tool_name",))
    assert cfg.event_names["pre-tool"] == "PreToolUse"
    assert all(isinstance(s, hookexec.Source) and s.status in ("loaded", "missing", "error") for s in cfg.sources)
    assert any("Stopp" in w.message for w in cfg.warnings)
    assert all(isinstance(w, hookexec.Warning) for w in cfg.warnings)
    with pytest.raises(TypeError):
        cfg.hooks.append(greet)  # a value, like fire results


def test_fire_async_uses_the_engines_pool_not_the_loops(engine, project):
    # Two fires whose hooks only finish once both have started: they run in parallel on the
    # engine's pool (max_parallel=2), while the loop's default executor refuses all work.
    eng = engine(config=settings("Stop", hook(rendezvous(2) + "; echo met", timeout=60)), max_parallel=2)

    class Refusing(concurrent.futures.ThreadPoolExecutor):
        def submit(self, *a, **kw):  # type: ignore[override]
            raise AssertionError("the loop's default executor was used")

    async def main():
        asyncio.get_running_loop().set_default_executor(Refusing(1))
        return await asyncio.wait_for(asyncio.gather(eng.fire_async("Stop"), eng.fire_async("Stop")), HANG_GUARD)

    a, b = asyncio.run(main())
    assert a.hooks[0].stdout == b.hooks[0].stdout == "met\n"


def test_fire_async_pool_is_sized_to_max_parallel(engine, project):
    # With one thread, two fires run one after the other: neither hook sees the other's mark.
    check = "if [ -e busy ]; then echo overlap; fi; touch busy; sleep 0.2; rm busy"
    eng = engine(config=settings("Stop", hook(check, timeout=60)), max_parallel=1)

    async def main():
        return await asyncio.gather(*(eng.fire_async("Stop") for _ in range(3)))

    results = asyncio.run(main())
    assert [r.hooks[0].stdout for r in results] == ["", "", ""]


def test_cancelling_fire_async_drops_the_result_not_the_fire(engine, project):
    run = "touch started; while [ ! -e release ]; do sleep 0.01; done; touch finished"
    eng = engine(config=settings("Stop", hook(run, timeout=60)))

    async def main():
        task = asyncio.ensure_future(eng.fire_async("Stop"))
        while not (project / "started").exists():
            await asyncio.sleep(0.01)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(main())
    assert not (project / "finished").exists()
    (project / "release").touch()
    assert wait_for(lambda: (project / "finished").exists()), "the fire ran to its end"
    assert eng.fire("Stop").matched == 1  # the engine goes on


def test_del_of_an_open_engine_warns_and_does_not_wait(project, home):
    # close() would wait for the async hook (up to 60 s); the collector must not.
    wait = "while [ ! -e release ]; do sleep 0.01; done"
    eng = hookexec.Engine(project_dir=project, home=home, close_timeout_ms=60000,
                          config=settings("Stop", hook(wait, timeout=60, **{"async": True})))
    eng.fire("Stop")
    before = hookexec.debug_live()["engines"]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        t0 = time.monotonic()
        del eng
        gc.collect()
        elapsed = time.monotonic() - t0
    assert elapsed < HANG_GUARD, "__del__ waited for the async hook"
    assert any(issubclass(w.category, ResourceWarning) and "unclosed" in str(w.message) for w in caught)
    (project / "release").touch()
    assert wait_for(lambda: hookexec.debug_live()["engines"] == before - 1), "released in the background"


def test_async_prompt_evaluator_runs_on_the_registering_loop(engine):
    eng = engine(config=settings("Stop", hook(type="prompt", prompt="done?")))
    seen = []

    async def main():
        loop = asyncio.get_running_loop()

        async def judge(prompt, payload):
            await asyncio.sleep(0)
            seen.append((asyncio.get_running_loop() is loop, threading.get_ident()))
            return {"ok": False, "reason": f"not yet: {prompt}"}

        eng.set_prompt_evaluator(judge)
        r = await asyncio.wait_for(eng.fire_async("Stop"), HANG_GUARD)
        # A synchronous fire from the loop's own thread cannot wait for that loop: the
        # coroutine then runs on a fresh loop instead of deadlocking.
        r2 = eng.fire("Stop")
        return r, r2, threading.get_ident()

    r, r2, loop_thread = asyncio.run(main())
    assert r.blocked and r.reason == "not yet: done?"
    assert r2.blocked and r2.reason == "not yet: done?"
    assert seen[0] == (True, loop_thread)
    assert seen[1][0] is False


def test_async_prompt_evaluator_without_a_loop(engine):
    eng = engine(config=settings("Stop", hook(type="prompt", prompt="p")))

    async def judge(prompt, payload):
        await asyncio.sleep(0)
        return {"ok": True, "reason": "fine"}

    eng.set_prompt_evaluator(judge)  # no loop is running here: each call gets a fresh one
    r = eng.fire("Stop")
    assert not r.blocked and r.hooks[0].error == "" and "fine" in r.hooks[0].stdout


def _deliver(eng, kind: bytes, data: bytes) -> None:
    """What the library's listener thread does: call the engine's C thunk."""
    eng._thunk(None, kind, data)


def test_each_listener_kind_gets_its_own_type(engine):
    eng = engine()
    got = []
    eng.on_status(got.append)
    eng.on_rewake(got.append)
    eng.on_async(got.append)
    _deliver(eng, b"status", b'{"event":"PreToolUse","hook":"lint","status_message":"Linting"}')
    _deliver(eng, b"rewake", b'{"event":"Stop","hook":"ci","message":"CI failed","result":{"id":"ci","exit_code":2,"stderr":"CI failed"}}')
    _deliver(eng, b"a-kind-from-the-future", b"{}")  # ignored, as the header asks
    status, wake = got
    assert status == hookexec.StatusEvent(event="PreToolUse", hook="lint", status_message="Linting", raw={})
    assert isinstance(wake, hookexec.RewakeEvent) and wake.message == "CI failed"
    assert wake.result.exit_code == 2 and wake.result.id == "ci"
    eng.on_status(None)
    _deliver(eng, b"status", b'{"event":"Stop","hook":"x","status_message":"s"}')
    assert len(got) == 2


def test_fire_async_queued_behind_a_close_raises_closed_error(engine, project):
    eng = engine(config=settings("Stop", hook("while [ ! -e release ]; do sleep 0.01; done", timeout=60)), max_parallel=1)

    async def main():
        first = asyncio.ensure_future(eng.fire_async("Stop"))
        queued = asyncio.ensure_future(eng.fire_async("Stop"))  # waits for the one thread
        await asyncio.sleep(0.1)
        closer = asyncio.get_running_loop().run_in_executor(None, eng.close)  # waits for the first fire
        while not eng.closed:
            await asyncio.sleep(0.01)
        (project / "release").touch()
        await closer
        assert (await first).matched == 1
        with pytest.raises(hookexec.ClosedError):
            await queued

    asyncio.run(asyncio.wait_for(main(), HANG_GUARD))


def test_async_evaluator_answers_agent_and_mcp_tool_hooks(engine):
    eng = engine(
        profile="claude",
        config=settings(
            "PostToolUse",
            hook(type="agent", prompt="Check it"),
            hook(type="mcp_tool", server="scan", tool="run", input={"path": "x"}),
        ),
    )

    async def evaluate(hook_type, hook_def, payload):
        await asyncio.sleep(0)
        if hook_type == "agent":
            return {"ok": False, "reason": "the agent says no"}
        return '{"systemMessage":"scanned"}'

    async def main():
        eng.set_evaluator(evaluate)
        return await asyncio.wait_for(eng.fire_async("PostToolUse", {"tool_name": "Write"}), HANG_GUARD)

    r = asyncio.run(main())
    assert [h.error for h in r.hooks] == ["", ""]
    assert r.reason == "the agent says no" and r.system_message == "scanned"
