"""Persistent hooks from Python: protocol v1 hooks, and unchanged one-shot Python hook
scripts under ``python3 -m hookexec.persistent``, which must behave exactly as they do
one-shot."""

from __future__ import annotations

import json
import os
import sys

import pytest

from conftest import REPO, hook, settings
from test_process import _alive

PY = sys.executable
ENV = {"PYTHONPATH": str(REPO / "pybind")}  # so the hook's interpreter finds hookexec.persistent

# Third-party-style guard scripts, written as they are for one-shot hooks.
SCRIPTS = {
    # Claude Code's documented Bash validator shape: json.load, regex rules, stderr, exit 2.
    "bash_guard.py": r"""
        import json
        import re
        import sys

        RULES = [
            (r"\bgrep\b(?!.*\|)", "Use 'rg' (ripgrep) instead of 'grep'"),
            (r"\brm\s+-rf\s+/", "Refusing to delete from /"),
        ]

        try:
            data = json.load(sys.stdin)
        except json.JSONDecodeError as e:
            print(f"Error: invalid JSON input: {e}", file=sys.stderr)
            sys.exit(1)
        command = data.get("tool_input", {}).get("command", "")
        issues = [msg for pattern, msg in RULES if re.search(pattern, command)]
        if issues:
            for msg in issues:
                print(f"• {msg}", file=sys.stderr)
            sys.exit(2)
        print(f"checked {command!r}")
    """,
    # JSON output with a permission decision, and a main() guard.
    "permission.py": r"""
        import json
        import sys

        def main():
            event = json.loads(sys.stdin.read())
            cmd = event["tool_input"].get("command", "")
            decision = "deny" if "curl" in cmd else "allow"
            json.dump({"hookSpecificOutput": {"hookEventName": "PreToolUse",
                       "permissionDecision": decision,
                       "permissionDecisionReason": f"policy says {decision}"}}, sys.stdout)

        if __name__ == "__main__":
            main()
    """,
    # Globals that look fresh on every run, sys.exit with a message, bytes through .buffer,
    # an exception with a traceback.
    "quirks.py": r"""
        import json
        import sys

        runs = 0
        runs += 1
        payload = json.load(sys.stdin)
        cmd = payload["tool_input"]["command"]
        if cmd == "exit-text":
            sys.exit("stopping: told to")
        if cmd == "boom":
            def explode():
                raise RuntimeError("kaboom")
            explode()
        sys.stdout.write(f"runs={runs} ")
        sys.stdout.flush()
        sys.stdout.buffer.write("bytes é\n".encode())
        print("to stderr", file=sys.stderr)
        sys.exit(0 if cmd != "three" else 3)
    """,
}

COMMANDS = ["ls -la", "grep foo file", "rm -rf /tmp/x", "curl example.com", "exit-text", "boom", "three", "é ünï"]


def _view(r):
    """What a host reads of a fire (durations and ids aside)."""
    return {
        "blocked": r.blocked, "decision": r.decision, "reason": r.reason, "continue": r.continue_,
        "hooks": [(h.exit_code, h.stdout, h.stderr, h.output, h.decision, h.error) for h in r.hooks],
    }


@pytest.mark.parametrize("name", sorted(SCRIPTS))
def test_unchanged_script_behaves_identically(engine, script, name):
    path = script(name, SCRIPTS[name])
    one_shot = engine(config=settings("PreToolUse", hook(f"{PY} {path}"), matcher="Bash"), env=ENV)
    persistent = engine(
        config=settings("PreToolUse", hook(f"{PY} -m hookexec.persistent {path}", persistent=True), matcher="Bash"),
        env=ENV,
    )
    for cmd in COMMANDS:
        payload = {"tool_name": "Bash", "tool_input": {"command": cmd}, "session_id": "s1"}
        want = _view(one_shot.fire("PreToolUse", payload))
        got = _view(persistent.fire("PreToolUse", payload))
        assert got == want, cmd
    pids = {persistent.config()["hooks"][0]["process"]["pid"]}
    persistent.fire("PreToolUse", {"tool_name": "Bash", "tool_input": {"command": "ls"}})
    pids.add(persistent.config()["hooks"][0]["process"]["pid"])
    assert len(pids) == 1, "one interpreter served every fire"


def test_guard_blocks_in_both_modes(engine, script):
    path = script("bash_guard.py", SCRIPTS["bash_guard.py"])
    eng = engine(config=settings("PreToolUse", hook(f"{PY} -m hookexec.persistent {path}", persistent=True)), env=ENV)
    r = eng.fire("PreToolUse", {"tool_name": "Bash", "tool_input": {"command": "grep -r x ."}})
    assert r.blocked and r.decision == "deny"
    assert r.reason == "• Use 'rg' (ripgrep) instead of 'grep'"
    r = eng.fire("PreToolUse", {"tool_name": "Bash", "tool_input": {"command": "ls"}})
    assert not r.blocked and r.hooks[0].stdout == "checked 'ls'\n"


def test_script_cannot_corrupt_the_protocol(engine, script):
    """Writing to fd 1 directly or reading the real stdin does not break the runner."""
    path = script("raw_fds.py", """
        import os, sys, json
        json.load(sys.stdin)
        os.write(1, b"not a protocol line\\n")
        print("real stdin:", repr(os.read(0, 100)))
    """)
    eng = engine(config=settings("PreToolUse", hook(f"{PY} -m hookexec.persistent {path}", persistent=True)), env=ENV)
    for _ in range(3):
        r = eng.fire("PreToolUse", {"tool_name": "Bash"})
        assert r.hooks[0].error == ""
        assert r.hooks[0].stdout == "real stdin: b''\n"
    assert eng.config()["hooks"][0]["process"]["starts"] == 1


PROTOCOL_HOOK = """
    import json, sys
    for line in sys.stdin:
        event = json.loads(line)
        cmd = event.get("tool_input", {}).get("command", "")
        if "rm -rf" in cmd:
            answer = {"exit_code": 2, "stderr": "rm -rf is not allowed"}
        else:
            answer = {"stdout": json.dumps({"systemMessage": "seen " + cmd})}
        print(json.dumps(answer), flush=True)
"""


def test_protocol_hook_in_python(engine, script):
    """The README's ten-line persistent hook."""
    path = script("proto.py", PROTOCOL_HOOK)
    eng = engine(config=settings("PreToolUse", hook(f"{PY} {path}", persistent=True)))
    r = eng.fire("PreToolUse", {"tool_name": "Bash", "tool_input": {"command": "rm -rf /"}})
    assert r.blocked and r.reason == "rm -rf is not allowed"
    r = eng.fire("PreToolUse", {"tool_name": "Bash", "tool_input": {"command": "ls"}})
    assert not r.blocked and r.system_message == "seen ls"
    info = eng.config()["hooks"][0]
    assert info["persistent"] is True
    assert info["process"]["state"] == "running" and info["process"]["starts"] == 1


def test_close_leaves_no_process(engine, script):
    path = script("proto.py", PROTOCOL_HOOK)
    eng = engine(config=settings("PreToolUse", hook(f"{PY} {path}", persistent=True)))
    eng.fire("PreToolUse", {"tool_name": "Bash", "tool_input": {"command": "ls"}})
    pid = eng.config()["hooks"][0]["process"]["pid"]
    assert _alive(pid)
    eng.close()
    assert not _alive(pid)


def test_reload_keeps_the_interpreter(engine, script, project):
    path = script("proto.py", PROTOCOL_HOOK)
    src = project / "hooks.json"
    src.write_text(json.dumps(settings("PreToolUse", hook(f"{PY} {path}", persistent=True))))
    eng = engine(sources=[str(src)])
    eng.fire("PreToolUse", {"tool_name": "Bash", "tool_input": {"command": "ls"}})
    pid = eng.config()["hooks"][0]["process"]["pid"]
    os.utime(src)
    eng.reload()
    r = eng.fire("PreToolUse", {"tool_name": "Bash", "tool_input": {"command": "ls"}})
    assert r.system_message == "seen ls"
    assert eng.config()["hooks"][0]["process"]["pid"] == pid


def test_runner_reports_a_broken_script(engine, script):
    path = script("broken.py", "def (:\n")
    eng = engine(config=settings("PreToolUse", hook(f"{PY} -m hookexec.persistent {path}", persistent=True)), env=ENV)
    r = eng.fire("PreToolUse", {"tool_name": "Bash"})
    assert not r.blocked
    assert "exited with status 1" in r.hooks[0].error
    assert "broken.py" in r.hooks[0].error
