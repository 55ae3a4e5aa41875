"""hookexec as a guest in a Python host: prompt evaluators, threads, the GIL, fork, signals."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time

import pytest

import hookexec
from conftest import HANG_GUARD, REPO, hook, rendezvous, settings

SIGIGN_PIPE = 1 << (signal.SIGPIPE - 1)
SIGIGN_XFSZ = 1 << (signal.SIGXFSZ - 1)


def proc_status(field: str, pid: str = "self") -> int:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1], 16)
    raise AssertionError(f"{field} not in /proc/{pid}/status")


# --- prompt hooks ------------------------------------------------------------------------------


def test_prompt_hook_uses_the_python_evaluator(engine):
    eng = engine(config=settings("Stop", hook(type="prompt", prompt="Is <<task>> finished?")))
    r = eng.fire("Stop", {"task": "the refactor"})
    assert not r.blocked and "evaluator" in r.hooks[0].error  # none registered: a non-blocking error

    seen = []

    def evaluate(prompt, payload):
        seen.append((prompt, payload["hook_event_name"], payload["task"]))
        return {"ok": payload["task"] != "the refactor", "reason": "tests still fail"}

    eng.set_prompt_evaluator(evaluate)
    r = eng.fire("Stop", {"task": "the refactor"})
    assert r.blocked and r.reason == "tests still fail" and r.hooks[0].exec == "prompt"
    assert seen == [("Is the refactor finished?", "Stop", "the refactor")]
    assert not eng.fire("Stop", {"task": "docs"}).blocked


def test_prompt_evaluator_failures_do_not_block(engine):
    eng = engine(config=settings("Stop", hook(type="prompt", prompt="p")))
    eng.set_prompt_evaluator(lambda p, d: 1 / 0)
    r = eng.fire("Stop", {})
    assert not r.blocked and "ZeroDivisionError" in r.hooks[0].error
    eng.set_prompt_evaluator(lambda p, d: "yes")
    r = eng.fire("Stop", {})
    assert not r.blocked and "want {'ok': bool" in r.hooks[0].error


def test_prompt_evaluator_timeout(engine):
    eng = engine(config=settings("Stop", hook(type="prompt", prompt="p", timeout=0.3, fail_closed=True)))
    release = threading.Event()  # the evaluator answers only after fire returned
    eng.set_prompt_evaluator(lambda p, d: release.wait(3 * HANG_GUARD) and {"ok": True})
    t = time.monotonic()
    try:
        r = eng.fire("Stop", {})
        assert time.monotonic() - t < 0.3 + HANG_GUARD
    finally:
        release.set()
    assert r.hooks[0].timed_out and r.blocked  # fail_closed turns the timeout into a block


# --- threads and the GIL --------------------------------------------------------------------------


def test_one_engine_from_32_threads(engine):
    eng = engine(config=settings("PreToolUse", hook("printf '{\"hookSpecificOutput\":{\"additionalContext\":\"%s\"}}' <<tool_input.n>>")))
    errors = []

    def worker(i):
        try:
            for j in range(5):
                n = f"{i}-{j}"
                r = eng.fire("PreToolUse", {"tool_name": "Bash", "tool_input": {"n": n}})
                if r.additional_context != n:
                    errors.append((n, r.additional_context))
        except Exception as e:  # noqa: BLE001
            errors.append(e)

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(32)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []


def test_the_gil_is_released_while_hooks_run(engine):
    # Each fire's hook waits until all 8 fires' hooks run: with the GIL held during a fire,
    # the other threads could not even enter theirs, and the hooks would time out.
    eng = engine(config=settings("Stop", hook(rendezvous(8), timeout=30)))
    results = []
    threads = [threading.Thread(target=lambda: results.append(eng.fire("Stop", {}))) for _ in range(8)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert [r.hooks[0].timed_out for r in results] == [False] * 8, "the GIL was held during a fire"


# --- fork -----------------------------------------------------------------------------------------


def test_fork_child_gets_forkerror_at_once(engine):
    eng = engine(config=settings("Stop", hook("true")))
    eng.fire("Stop", {})
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # child: every call must fail fast with ForkError
        os.close(r)
        code = 1
        try:
            eng.fire("Stop", {})
        except hookexec.ForkError as e:
            code = 0 if "fork" in str(e) else 2
        except BaseException:  # noqa: BLE001
            code = 3
        try:
            hookexec.Engine(project_dir="/tmp", home="/tmp")
            code = 4
        except hookexec.ForkError:
            pass
        except BaseException:  # noqa: BLE001
            code = 5
        os.write(w, bytes([code]))
        os._exit(0)
    os.close(w)
    deadline = time.monotonic() + HANG_GUARD
    while time.monotonic() < deadline:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            break
        time.sleep(0.02)
    else:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        pytest.fail("the forked child hung instead of raising ForkError")
    assert os.read(r, 1) == b"\x00"
    os.close(r)
    assert eng.fire("Stop", {}).matched == 1  # the parent is unaffected


EXIT_HOST = r"""
import os, sys, time
import hookexec
d, mode = sys.argv[1], sys.argv[2]
e = hookexec.Engine(project_dir=d, home=d, close_timeout_ms=100, config={"hooks": {"Stop": [{"hooks": [
    {"command": "true"},
    {"command": "echo $$ > " + d + "/async.pid; exec sleep 60", "async": True}]}]}})
e.fire("Stop", {})
while not os.path.exists(d + "/async.pid") or not open(d + "/async.pid").read().endswith("\n"):
    time.sleep(0.01)
if mode == "fork":
    pid = os.fork()
    if pid == 0:
        sys.exit(0)  # the child exits through the interpreter's normal exit too
    _, status = os.waitpid(pid, 0)
    assert status == 0, status
# no close(): the engine is still open when the interpreter exits
"""


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


@pytest.mark.parametrize("mode", ["plain", "fork"])
def test_exit_without_close_does_not_hang_and_releases_the_engine(tmp_path, mode):
    # Finalization used to start a release thread in Engine.__del__, which never runs then:
    # the host hung at exit, also after a fork. Now an atexit hook closes open engines, so the
    # exit is prompt and the still-running async hook is ended like close() ends it.
    env = dict(os.environ, PYTHONPATH=str(REPO / "pybind"))
    try:
        p = subprocess.run([sys.executable, "-c", EXIT_HOST, str(tmp_path), mode], capture_output=True, env=env,
                           timeout=3 * HANG_GUARD)
    except subprocess.TimeoutExpired:
        pytest.fail(f"the host hung at exit ({mode}) with an engine left open")
    assert p.returncode == 0, p.stderr.decode()
    pid = int((tmp_path / "async.pid").read_text())
    deadline = time.monotonic() + HANG_GUARD
    while _alive(pid) and time.monotonic() < deadline:
        time.sleep(0.02)
    alive = _alive(pid)
    if alive:
        os.kill(pid, signal.SIGKILL)
    assert not alive, "the engine left open at exit was not closed: its async hook outlived the host"


# --- the host's environment and long answers --------------------------------------------------


def test_hooks_see_os_environ_as_it_is_at_the_fire(engine, monkeypatch):
    # The library's Go runtime copied environ when it loaded; hooks must see what the host
    # set since, as subprocess does.
    eng = engine(config=settings("Stop", hook('echo "${HX_LATE-unset}"')))
    monkeypatch.delenv("HX_LATE", raising=False)
    assert eng.fire("Stop", {}).hooks[0].stdout == "unset\n"
    monkeypatch.setenv("HX_LATE", "v1")
    assert eng.fire("Stop", {}).hooks[0].stdout == "v1\n"
    monkeypatch.setenv("HX_LATE", "v2")
    assert eng.fire("Stop", {}).hooks[0].stdout == "v2\n"
    monkeypatch.delenv("HX_LATE")
    assert eng.fire("Stop", {}).hooks[0].stdout == "unset\n"


def test_a_deny_longer_than_the_output_cap_still_denies(engine):
    # 65 KB of JSON against a 32 KiB cap: the decision is read whole, the result shows the cap.
    deny = ("printf '{\"hookSpecificOutput\":{\"permissionDecision\":\"deny\",\"permissionDecisionReason\":\"'; "
            "head -c 65000 /dev/zero | tr '\\0' r; printf '\"}}'")
    eng = engine(config=settings("PreToolUse", hook(deny), matcher="Bash"))
    r = eng.fire("PreToolUse", {"tool_name": "Bash", "tool_input": {"command": "rm -rf /"}})
    assert r.blocked and r.decision == "deny"
    assert r.reason == "r" * 65000
    assert r.hooks[0].stdout_truncated and len(r.hooks[0].stdout) == 32 << 10


# --- signals and fds --------------------------------------------------------------------------------


def test_children_start_with_default_sigpipe_and_sigxfsz(engine):
    assert signal.getsignal(signal.SIGPIPE) == signal.SIG_IGN  # Python's own setting...
    assert signal.getsignal(signal.SIGXFSZ) == signal.SIG_IGN
    eng = engine(config=settings("Stop", hook("grep SigIgn /proc/self/status"), hook("yes | head -n 1")))
    r = eng.fire("Stop", {})
    ignored = int(r.hooks[0].stdout.split()[1], 16)
    assert not ignored & SIGIGN_PIPE and not ignored & SIGIGN_XFSZ, f"SigIgn {ignored:#x}"
    assert r.hooks[1].exit_code == 0 and r.hooks[1].stdout == "y\n"  # yes died of SIGPIPE
    # ...and the host's dispositions are what they were.
    assert signal.getsignal(signal.SIGPIPE) == signal.SIG_IGN
    assert signal.getsignal(signal.SIGXFSZ) == signal.SIG_IGN
    assert proc_status("SigIgn") & SIGIGN_XFSZ


def test_ctrl_c_still_raises_keyboardinterrupt_after_a_fire(engine):
    # Python installs its Ctrl-C handler only when SIGINT is not ignored at its start: a
    # test run launched in the background of a shell without job control inherits SIGINT
    # ignored (SigIgn 0x7), and nothing would raise whatever the library does. So the test
    # starts from Python's own handler, as a terminal session has it, and puts back the one
    # it found.
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        eng = engine(config=settings("Stop", hook("true")))
        eng.fire("Stop", {})
        # Ctrl-C as a terminal sends it: to the process, so any thread (a Go one too) may
        # take it; Python raises in the main thread at its next check, which the loop gives
        # it (30 s a hang guard only).
        with pytest.raises(KeyboardInterrupt):
            os.kill(os.getpid(), signal.SIGINT)
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline:
                time.sleep(0.01)
    finally:
        signal.signal(signal.SIGINT, previous)


HOST = r"""
import os, sys
def caught():
    for line in open("/proc/self/status"):
        if line.startswith("SigCgt:"):
            return line.split()[1]
import hookexec
hookexec._ffi.lib()                      # load the library (the Go runtime starts here)
before = caught()
with hookexec.Engine(project_dir=sys.argv[1], home=sys.argv[1], sources=["broken.json"],
                     config={"hooks": {"Stop": [{"hooks": [{"command": "echo out; echo err >&2; exit 3"},
                                                           {"command": "no-such-program-xyz"}]}]}}) as e:
    r = e.fire("Stop", {})
    assert r.hooks[0].stdout == "out\n" and r.hooks[1].exit_code == 127, r
    try:
        e.fire("Stop", "[not an object]")
    except hookexec.InvalidArgumentError:
        pass
after = caught()
os.write(int(sys.argv[2]), f"{before} {after}".encode())
"""


def test_no_handlers_installed_and_nothing_written_to_fd_1_or_2(tmp_path):
    (tmp_path / "broken.json").write_text("{ not json")
    r, w = os.pipe()
    env = dict(os.environ, PYTHONPATH=str(REPO / "pybind"))
    p = subprocess.run([sys.executable, "-c", HOST, str(tmp_path), str(w)], capture_output=True, env=env,
                       pass_fds=(w,), timeout=30)
    os.close(w)
    report = os.read(r, 200).decode()
    os.close(r)
    assert p.returncode == 0, p.stderr.decode()
    assert p.stdout == b"" and p.stderr == b"", (p.stdout, p.stderr)
    before, after = report.split()
    assert before == after, f"signal handlers changed while using the engine: SigCgt {before} -> {after}"
