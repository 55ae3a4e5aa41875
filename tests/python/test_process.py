"""Running hooks (SPEC §6): timeouts kill the whole tree, parallelism, stdin, fire_async."""

from __future__ import annotations

import asyncio
import json
import os
import time

from conftest import HANG_GUARD, hook, rendezvous, settings, wait_for


def _alive(pid: int) -> bool:
    """True when pid is a live process; a zombie (dead, not yet reaped by its new parent,
    e.g. a PID 1 that does not reap) counts as dead."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            state = f.read().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError, IndexError):
        return False
    return state not in ("Z", "X")


TREE = """
    #!/bin/sh
    # The hook ignores TERM, and so do its children; a grandchild holds stdout open.
    trap '' TERM
    sh -c 'trap "" TERM; echo $$ > grandchild.pid; exec sleep 60' &
    sleep 60 &
    echo $! > child.pid
    echo $$ > hook.pid
    echo started
    wait
"""


def test_timeout_kills_the_whole_tree(engine, script, project):
    tree = script("tree.sh", TREE)
    eng = engine(config=settings("PreToolUse", hook(str(tree), timeout=1)), kill_grace_ms=1000)

    t0 = time.monotonic()
    r = eng.fire("PreToolUse", {"tool_name": "Bash", "tool_input": {}})
    elapsed = time.monotonic() - t0

    assert elapsed < 2.0 + HANG_GUARD, elapsed  # timeout 1 s + grace 1 s; the tree sleeps 60 s
    assert elapsed >= 1.0, elapsed
    h = r.hooks[0]
    assert h.timed_out is True
    assert h.error != ""
    assert r.blocked is False  # a timeout is a non-blocking error unless fail_closed
    pids = {name: int((project / f"{name}.pid").read_text()) for name in ("hook", "child", "grandchild")}
    # SIGKILL was sent to the group before fire returned; give the kernel a moment to finish.
    assert wait_for(lambda: not any(_alive(p) for p in pids.values())), {
        n: p for n, p in pids.items() if _alive(p)
    }


def test_fail_closed_timeout_blocks(engine):
    eng = engine(config=settings("PreToolUse", hook("sleep 5", timeout=1, fail_closed=True)), kill_grace_ms=100)
    r = eng.fire("PreToolUse", {"tool_name": "Bash", "tool_input": {}})
    assert r.hooks[0].timed_out is True
    assert r.blocked is True and r.decision == "deny"


def test_hooks_run_in_parallel_and_report_in_config_order(engine):
    # All four must be running at once to pass the rendezvous (one at a time, the first
    # would time out waiting); then p1 finishes last.
    sleeps = {"p1": 0.3, "p2": 0.2, "p3": 0.1, "p4": 0.2}
    handlers = [hook(f"{rendezvous(4)}; sleep {s}; echo {name}", name=name, timeout=30) for name, s in sleeps.items()]
    eng = engine(config=settings("PostToolUse", *handlers))

    r = eng.fire("PostToolUse", {"tool_name": "Bash"})

    assert [h.timed_out for h in r.hooks] == [False] * 4, "the hooks did not run in parallel"
    assert [h.id for h in r.hooks] == ["p1", "p2", "p3", "p4"]
    assert [h.stdout for h in r.hooks] == ["p1\n", "p2\n", "p3\n", "p4\n"]


def test_sequential_group_runs_one_after_another(engine, project):
    cfg = {"hooks": {"Stop": [{"sequential": True, "hooks": [
        hook("sleep 0.1; echo a >> seq.log", name="a"),
        hook("echo b >> seq.log", name="b"),
    ]}]}}
    eng = engine(config=cfg)
    r = eng.fire("Stop", {})
    assert [h.id for h in r.hooks] == ["a", "b"]
    assert (project / "seq.log").read_text() == "a\nb\n"


def test_hook_that_never_reads_stdin_does_not_block(engine):
    # The payload sits in a field no HOOK_* variable copies, so only stdin carries it.
    eng = engine(config=settings("PreToolUse", hook("sleep 0.2"), matcher="Big"))
    t0 = time.monotonic()
    r = eng.fire("PreToolUse", {"tool_name": "Big", "blob": "x" * (4 << 20)})
    assert time.monotonic() - t0 < HANG_GUARD
    h = r.hooks[0]
    assert h.exit_code == 0, (h.error, h.stderr)
    assert h.timed_out is False
    assert r.blocked is False


def test_hook_that_exits_at_once_with_a_large_payload(engine):
    eng = engine(config=settings("PreToolUse", hook("true"), matcher="Big"))
    r = eng.fire("PreToolUse", {"tool_name": "Big", "blob": "y" * (4 << 20)})
    assert r.hooks[0].exit_code == 0, r.hooks[0].error
    assert r.blocked is False


def test_large_tool_input_still_starts_the_hook(engine):
    # tool_input is also copied into HOOK_ARGS (SPEC §6 env table); a 4 MiB value there must
    # not stop the hook from starting (Linux limits one env string to 128 KiB).
    eng = engine(config=settings("PreToolUse", hook("sleep 0.2"), matcher="Big"))
    t0 = time.monotonic()
    r = eng.fire("PreToolUse", {"tool_name": "Big", "tool_input": {"content": "x" * (4 << 20)}})
    assert time.monotonic() - t0 < HANG_GUARD
    h = r.hooks[0]
    assert h.exit_code == 0, (h.error, h.stderr)
    assert r.blocked is False


def test_stdin_is_one_line_of_compact_json(engine, project):
    eng = engine(config=settings("PreToolUse", hook("cat > stdin.json"), matcher="Write"), session_id="s-1")
    payload = {"tool_name": "Write", "tool_input": {"file_path": "a.txt", "content": "hello"}, "n": [1, 2]}
    r = eng.fire("PreToolUse", payload)
    assert r.hooks[0].exit_code == 0

    data = (project / "stdin.json").read_bytes()
    assert data.endswith(b"\n")
    assert b"\n" not in data[:-1]
    doc = json.loads(data)
    assert doc["hook_event_name"] == "PreToolUse"
    assert doc["tool_name"] == "Write"
    assert doc["tool_input"] == payload["tool_input"]
    assert doc["n"] == [1, 2]
    assert doc["session_id"] == "s-1"
    assert doc["cwd"] == str(project)
    compact = json.dumps(doc, separators=(",", ":"), ensure_ascii=False).encode()
    assert len(data) == len(compact) + 1  # no insignificant whitespace


def test_stdin_carries_a_large_payload_whole(engine, project):
    eng = engine(config=settings("PreToolUse", hook("cat > big.json"), matcher="Big"))
    big = "z" * (4 << 20)
    r = eng.fire("PreToolUse", {"tool_name": "Big", "blob": big})
    assert r.hooks[0].exit_code == 0, r.hooks[0].error
    assert json.loads((project / "big.json").read_bytes())["blob"] == big


def test_output_is_capped_and_drained(engine):
    eng = engine(config=settings("Stop", hook("head -c 100000 /dev/zero | tr '\\0' a")), output_cap_bytes=1000)
    r = eng.fire("Stop", {})
    h = r.hooks[0]
    assert h.exit_code == 0
    assert h.stdout_truncated is True
    assert len(h.stdout) == 1000


def test_env_and_cwd(engine, project):
    cmd = 'printf "%s|%s|%s|%s" "$HOOK_EVENT" "$TOOL_NAME" "$MY_OPT" "$(pwd)" > env.txt'
    eng = engine(config=settings("PreToolUse", hook(cmd)), env={"MY_OPT": "from-options"})
    eng.fire("PreToolUse", {"tool_name": "Bash", "tool_input": {}})
    event, tool, opt, cwd = (project / "env.txt").read_text().split("|")
    assert (event, tool, opt) == ("PreToolUse", "Bash", "from-options")
    assert os.path.realpath(cwd) == os.path.realpath(project)


def test_fire_async_runs_concurrently(engine):
    # Each fire's hook waits for the other three fires' hooks: serialised (by the GIL or
    # a lock) they would time out instead.
    eng = engine(config=settings("PostToolUse", hook(rendezvous(4), timeout=30)))

    async def main():
        return await asyncio.gather(*(eng.fire_async("PostToolUse", {"tool_name": f"T{i}"}) for i in range(4)))

    results = asyncio.run(main())
    assert [r.matched for r in results] == [1, 1, 1, 1]
    assert [r.hooks[0].timed_out for r in results] == [False] * 4, "the fires did not run concurrently"
    assert all(r.hooks[0].exit_code == 0 for r in results)


def test_fire_async_fast_path_and_errors(engine):
    eng = engine(config=settings("PreToolUse", hook("true"), matcher="Bash"))

    async def main():
        empty = await eng.fire_async("Stop", {"x": object()})
        ran = await eng.fire_async("PreToolUse", {"tool_name": "Bash"})
        return empty, ran

    empty, ran = asyncio.run(main())
    assert empty.matched == 0 and empty.event == "Stop"
    assert ran.matched == 1


def test_direct_exec_and_shell_give_the_same_output(engine, project):
    (project / "f.txt").write_text("content\n")
    eng = engine(config=settings("Stop", hook("cat f.txt", name="direct"), hook("cat f.txt | cat", name="shell")))
    r = eng.fire("Stop", {})
    by_id = {h.id: h for h in r.hooks}
    assert by_id["direct"].exec == "direct"
    assert by_id["shell"].exec == "shell"
    assert by_id["direct"].stdout == by_id["shell"].stdout == "content\n"


def test_missing_program_reports_like_the_shell(engine):
    eng = engine(config=settings("Stop", hook("definitely-not-a-program-xyz --flag")))
    r = eng.fire("Stop", {})
    h = r.hooks[0]
    assert h.exit_code == 127
    assert "not found" in h.stderr
    assert r.blocked is False
