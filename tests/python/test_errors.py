"""Errors: typed exceptions with the library's code and message; loading; fork; close."""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
import textwrap
import threading

import pytest

import hookexec
from conftest import REPO, hook, settings


def test_unknown_keyword_is_a_type_error_before_the_library(project):
    with pytest.raises(TypeError, match="kill_grace"):
        hookexec.Engine(project_dir=project, kill_grace=5)


@pytest.mark.parametrize(
    "options",
    [{"kill_grace_ms": -1}, {"max_parallel": "eight"}, {"default_timeout_ms": 1.5}, {"env": ["A=1"]}],
    ids=["negative", "string", "fraction", "env-list"],
)
def test_invalid_options_are_invalid_argument_errors(project, home, options):
    with pytest.raises(hookexec.InvalidArgumentError) as ei:
        hookexec.Engine(project_dir=project, home=home, **options)
    e = ei.value
    assert e.code == 1
    assert e.message and str(e) == e.message
    assert isinstance(e, ValueError)  # also catchable the Python way


def test_unknown_profile_is_a_config_error(project, home):
    with pytest.raises(hookexec.ConfigError) as ei:
        hookexec.Engine(profile="no-such-agent", project_dir=project, home=home)
    assert ei.value.code == 2
    assert "no-such-agent" in ei.value.message


@pytest.mark.parametrize("payload", ["[1, 2]", b"not json", "42", [1, 2], '{"a": 1} trailing'])
def test_payload_must_be_a_json_object(engine, payload):
    eng = engine(config=settings("PreToolUse", hook("true")))
    with pytest.raises(hookexec.InvalidArgumentError) as ei:
        eng.fire("PreToolUse", payload)
    assert ei.value.code == 1 and ei.value.message


def test_payload_as_json_text_works(engine):
    eng = engine(config=settings("PreToolUse", hook("true"), matcher="Bash"))
    assert eng.fire("PreToolUse", '{"tool_name": "Bash"}').matched == 1
    assert eng.fire("PreToolUse", b'{"tool_name": "Bash"}').matched == 1
    assert eng.fire("PreToolUse", '{"tool_name": "Other"}').matched == 0


def test_empty_event_name_is_invalid(engine):
    eng = engine()
    with pytest.raises(hookexec.InvalidArgumentError):
        eng.fire("", {})
    with pytest.raises(hookexec.InvalidArgumentError):
        eng.matches("")


def test_use_after_close(engine):
    eng = engine(config=settings("Stop", hook("true")))
    eng.close()
    assert eng.closed
    for call in (
        lambda: eng.fire("Stop", {}),
        lambda: eng.fire("PostToolUse", {}),  # the fast path checks too
        lambda: eng.matches("Stop"),
        eng.config,
        eng.reload,
        eng.drain,
        lambda: eng.on_async(lambda result: None),
    ):
        with pytest.raises(hookexec.ClosedError) as ei:
            call()
        assert ei.value.code == 3
    eng.close()  # a second close is a no-op
    eng.close()


def test_context_manager_closes(project, home):
    with hookexec.Engine(project_dir=project, home=home) as eng:
        assert not eng.closed
    assert eng.closed


def test_error_messages_are_per_thread(engine):
    # hookexec_errmsg is thread-local: each thread must see its own failure's text.
    eng = engine(config=settings("PreToolUse", hook("true")))
    closed = engine()
    closed.close()
    errors = {}
    barrier = threading.Barrier(8)

    def worker(i):
        barrier.wait()
        for _ in range(50):
            try:
                if i % 2:
                    eng.fire("PreToolUse", "[%d]" % i)
                else:
                    closed._lib.hookexec_match(closed._h, b"Stop", b"")
            except hookexec.HookexecError as e:
                errors.setdefault(i, set()).add((type(e), e.message))

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for i, seen in errors.items():
        assert len(seen) == 1, seen
        ((cls, msg),) = seen
        assert cls is (hookexec.InvalidArgumentError if i % 2 else hookexec.ClosedError), (i, cls, msg)
    assert len(errors) == 8


def test_exceptions_pickle_with_their_code():
    e = pickle.loads(pickle.dumps(hookexec.ConfigError("hookexec: bad")))
    assert type(e) is hookexec.ConfigError and e.code == 2 and e.message == "hookexec: bad"
    e = pickle.loads(pickle.dumps(hookexec.HookexecError("new", 99)))
    assert e.code == 99


def _run(code: str, **env: str) -> subprocess.CompletedProcess:
    full_env = dict(os.environ, PYTHONPATH=str(REPO / "pybind"), **env)
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], env=full_env, capture_output=True, text=True, timeout=30
    )


def test_import_works_without_the_library_and_engine_says_what_to_do(tmp_path):
    missing = tmp_path / "nope" / "libhookexec.so"
    p = _run(
        """
        import hookexec
        print(hookexec.__version__)
        try:
            hookexec.Engine()
        except hookexec.LibraryNotFoundError as e:
            assert isinstance(e, ImportError)
            print(e.paths)
            print(e)
        """,
        HOOKEXEC_LIBRARY=str(missing),
    )
    assert p.returncode == 0, p.stderr
    assert p.stdout.startswith(hookexec.__version__ + "\n")
    assert str(missing) in p.stdout
    assert "pip install ./pybind" in p.stdout and "HOOKEXEC_LIBRARY" in p.stdout


def test_a_file_that_is_not_the_library_is_refused(tmp_path):
    other = "/lib/x86_64-linux-gnu/libz.so.1"
    if not os.path.exists(other):
        pytest.skip("no libz to stand in for a foreign library")
    p = _run(
        """
        import hookexec
        try:
            hookexec.Engine()
        except hookexec.LibraryNotFoundError as e:
            print(e)
        """,
        HOOKEXEC_LIBRARY=other,
    )
    assert p.returncode == 0, p.stderr
    assert "hookexec_open" in p.stdout


def test_version_mismatch_is_detected_at_load():
    p = _run(
        """
        import hookexec, hookexec._ffi as ffi
        # pretend the package is 7.0.0: the library's major version differs
        ffi.HOOKEXEC_VERSION_NUMBER, ffi.VERSION_MAJOR, ffi.__version__ = 7000000, 7, "7.0.0"
        try:
            hookexec.Engine()
        except hookexec.VersionMismatchError as e:
            print(e.found, e.expected)
            print(e)
        """
    )
    assert p.returncode == 0, p.stderr
    first, message = p.stdout.split("\n", 1)
    assert first == f"{hookexec.HOOKEXEC_VERSION_NUMBER} 7000000"
    # the message names both versions
    assert f"libhookexec {hookexec.__version__}" in message and "package is 7.0.0" in message and "7.x" in message


def test_another_minor_version_of_the_library_loads():
    p = _run(
        """
        import hookexec, hookexec._ffi as ffi
        ffi.HOOKEXEC_VERSION_NUMBER += 5000  # the same major version, a later minor one
        with hookexec.Engine() as eng:
            print(eng.fire("Stop", {}).matched)
        """
    )
    assert p.returncode == 0, p.stderr
    assert p.stdout.split() == ["0"]


def test_library_version():
    assert hookexec.library_version() == hookexec.__version__
    assert hookexec.library_path().endswith("libhookexec.so")


def test_calls_in_a_forked_child_fail_fast_with_fork_error(tmp_path):
    p = _run(
        f"""
        import os, sys, hookexec
        eng = hookexec.Engine(project_dir={str(tmp_path)!r}, home={str(tmp_path)!r},
                              config={{"hooks": {{"Stop": [{{"hooks": [{{"type": "command", "command": "true"}}]}}]}}}})
        pid = os.fork()
        if pid == 0:
            code = 1
            try:
                eng.fire("Stop", {{}})
            except hookexec.ForkError as e:
                code = 0 if e.code == 5 and "fork" in e.message else 2
            # every call, including fires the fast path would answer without the library
            calls = [lambda: eng.fire("PreToolUse", {{"tool_name": "Nothing"}}), lambda: eng.fire("SessionEnd"),
                     eng.config, eng.drain, lambda: eng.matches("Stop"), lambda: eng.on_async(None), eng.close]
            for i, call in enumerate(calls):
                try:
                    call()
                    code = 10 + i
                except hookexec.ForkError:
                    pass
            try:
                hookexec.Engine(project_dir={str(tmp_path)!r})
                code = 3
            except hookexec.ForkError:
                pass
            os._exit(code)
        _, status = os.waitpid(pid, 0)
        print(os.waitstatus_to_exitcode(status))
        print(eng.fire("Stop", {{}}).matched)  # the parent is unaffected
        eng.close()
        """
    )
    assert p.returncode == 0, p.stderr
    assert p.stdout.split() == ["0", "1"]
