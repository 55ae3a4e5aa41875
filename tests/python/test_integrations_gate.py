"""The gate every framework adapter shares (hookexec.integrations.Gate), against the real
library and real hook processes: what a hook answers becomes the verdict an adapter acts on;
an engine that fails makes a blocking event deny (fail closed)."""

from __future__ import annotations

import asyncio
import json
import logging
from pathlib import Path
from typing import Any, Dict, List

import pytest

from hookexec import Engine
from hookexec.integrations import BLOCKING_EVENTS, DEFAULT_TOOL_NAMES, Gate, Verdict


def settings(project: Path, hooks: Dict[str, Any]) -> None:
    (project / ".claude").mkdir(exist_ok=True)
    (project / ".claude" / "settings.json").write_text(json.dumps({"hooks": hooks}))


def answer(event: str, out: Dict[str, Any], matcher: str = "") -> Dict[str, Any]:
    """A hook printing ``out`` as its JSON answer."""
    entry: Dict[str, Any] = {"hooks": [{"type": "command", "command": "cat >/dev/null; printf '%s' " + _q(json.dumps(out))}]}
    if matcher:
        entry["matcher"] = matcher
    return {event: [entry]}


def _q(s: str) -> str:
    return "'" + s.replace("'", "'\\''") + "'"


def gate(project: Path, home: Path, **kw: Any) -> Gate:
    return Gate(project_dir=project, home=home, **kw)


def test_block_reason_and_tool_name_map(project: Path, home: Path) -> None:
    settings(project, {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "cat >/dev/null; echo 'no shells here' >&2; exit 2"}]}]})
    with gate(project, home, tool_names={"run_it": "Bash"}) as g:
        v = g.pre_tool("shell", {"command": "ls"})  # shell → Bash by default
        assert v.blocked and v.reason.startswith("no shells here") and v.feedback() == v.reason
        assert g.pre_tool("run_it", {"command": "ls"}).blocked  # the gate's own map
        untouched = g.pre_tool("lookup", {"q": "x"})
        assert untouched.decision == "none" and not untouched.blocked and untouched.updated_input is None


def test_payload_is_claude_shaped(project: Path, home: Path, tmp_path: Path) -> None:
    seen = tmp_path / "seen.json"
    settings(project, {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": f"cat > {seen}"}]}]})
    with gate(project, home, session_id="s-1") as g:
        g.pre_tool("shell", {"command": "echo hi"}, "call_7")
    p = json.loads(seen.read_text())
    assert p["tool_name"] == "Bash" and p["tool_input"] == {"command": "echo hi"} and p["tool_use_id"] == "call_7"
    assert p["session_id"] == "s-1" and p["cwd"] == str(project) and p["hook_event_name"] == "PreToolUse"


def test_rewrite_context_and_stop(project: Path, home: Path) -> None:
    hooks: Dict[str, Any] = {}
    hooks.update(answer("PreToolUse", {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow", "updatedInput": {"command": "echo safe"}}}, "Bash"))
    hooks.update(answer("PostToolUse", {"hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": "ran in the sandbox"}}, "Bash"))
    hooks.update(answer("UserPromptSubmit", {"continue": False, "stopReason": "out of budget"}))
    hooks.update(answer("Stop", {"decision": "block", "reason": "run the tests first"}))
    settings(project, hooks)
    with gate(project, home) as g:
        pre = g.pre_tool("shell", {"command": "rm -rf /"})
        assert pre.decision == "allow" and pre.updated_input == {"command": "echo safe"}
        post = g.post_tool("shell", {"command": "echo safe"}, "safe\n")
        assert post.additional_context == "ran in the sandbox"
        up = g.user_prompt("go")
        assert up.stops and up.stop_reason == "out of budget"
        stop = g.stop("all done")
        assert stop.blocked and stop.reason == "run the tests first"


def test_system_message_goes_to_the_callback_or_the_log(project: Path, home: Path, caplog: pytest.LogCaptureFixture) -> None:
    settings(project, answer("PreToolUse", {"systemMessage": "careful"}, "Bash"))
    got: List[str] = []
    with gate(project, home, on_system_message=got.append) as g:
        g.pre_tool("shell", {"command": "ls"})
    assert got == ["careful"]
    with caplog.at_level(logging.WARNING, logger="hookexec.integrations"), gate(project, home) as g:
        g.pre_tool("shell", {"command": "ls"})
    assert "careful" in caplog.text
    boom: List[str] = []

    def broken(text: str) -> None:
        boom.append(text)
        raise RuntimeError("the app's callback failed")

    with gate(project, home, on_system_message=broken) as g:  # a broken callback never breaks a fire
        assert g.pre_tool("shell", {"command": "ls"}).decision == "none"
    assert boom == ["careful"]


def test_ask_is_settled_by_approve_else_blocks(project: Path, home: Path) -> None:
    settings(project, answer("PreToolUse", {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "ask", "permissionDecisionReason": "deletes files"}}, "Bash"))
    calls: List[Any] = []
    with gate(project, home) as g:
        v = g.pre_tool("shell", {"command": "rm x"})
        assert v.asks
        no = g.settle_ask(v, "shell", {"command": "rm x"})
        assert no.blocked and "deletes files" in no.reason and "approval" in no.reason
        g.approve = lambda name, inp, reason: calls.append((name, inp, reason)) or True
        assert g.settle_ask(v, "shell", {"command": "rm x"}).decision == "allow"
        assert calls == [("Bash", {"command": "rm x"}, "deletes files")]

        def raises(*_: Any) -> bool:
            raise RuntimeError("approver down")

        g.approve = raises
        assert g.settle_ask(v, "shell", {"command": "rm x"}).blocked  # a failing approver refuses

        async def yes(*_: Any) -> bool:
            return True

        g.approve = yes
        assert asyncio.run(g.asettle_ask(v, "shell", {"command": "rm x"})).decision == "allow"
        with pytest.raises(TypeError):
            g.settle_ask(v, "shell", {"command": "rm x"})
        # A verdict that does not ask passes unchanged.
        plain = Verdict(event="PreToolUse")
        assert g.settle_ask(plain, "shell", {}) is plain


def test_engine_error_fails_closed_on_blocking_events(project: Path, home: Path) -> None:
    settings(project, {})
    engine = Engine("claude", project_dir=project, home=home)
    g = Gate(engine)
    engine.close()  # every fire now raises ClosedError
    for event, call in [
        ("PreToolUse", lambda: g.pre_tool("shell", {"command": "ls"})),
        ("PostToolUse", lambda: g.post_tool("shell", {}, "out")),
        ("UserPromptSubmit", lambda: g.user_prompt("hi")),
        ("Stop", lambda: g.stop()),
        ("SubagentStop", lambda: g.stop(subagent=True)),
        ("PreCompact", lambda: g.pre_compact()),
    ]:
        v = call()
        assert event in BLOCKING_EVENTS
        assert v.blocked and v.error and "could not be decided" in v.reason, event
    # An event that cannot block reports the error and refuses nothing.
    v = g.tool_failed("shell", {}, "exit 1")
    assert v.error and not v.blocked
    v = asyncio.run(g.apre_tool("shell", {"command": "ls"}))
    assert v.blocked and v.error


def test_session_events_fire_once(project: Path, home: Path, tmp_path: Path) -> None:
    log = tmp_path / "events.log"
    cmd = f"jq -r .hook_event_name >> {log}"
    settings(project, {e: [{"hooks": [{"type": "command", "command": cmd}]}] for e in ("SessionStart", "SessionEnd")})
    g = gate(project, home)
    g.session_end()  # not started: nothing
    g.session_start()
    g.session_start()
    asyncio.run(g.asession_start())
    g.close()
    g.session_end()
    assert log.read_text().split() == ["SessionStart", "SessionEnd"]


def test_a_gate_does_not_close_an_engine_it_was_given(project: Path, home: Path) -> None:
    settings(project, {})
    with Engine("claude", project_dir=project, home=home) as engine:
        with Gate(engine) as g:
            g.session_start()
        assert not engine.closed
        with pytest.raises(TypeError):
            Gate(engine, trust="all")


def test_default_map_and_mcp_names(project: Path, home: Path) -> None:
    settings(project, {})
    with gate(project, home, tool_names={"shell": "Terminal"}) as g:
        assert g.canonical("shell") == "Terminal"  # the app's map wins over the defaults
        assert g.canonical("read_file") == DEFAULT_TOOL_NAMES["read_file"] == "Read"
        assert g.canonical("query", server="db") == "mcp__db__query"
        assert g.canonical("Unknown") == "Unknown"


@pytest.mark.parametrize(
    "tool_input",
    [
        ["rm", "-rf", "/"],  # not an object: passed as {"input": ...}
        {"command": {"rm -rf /"}},  # not JSON-serialisable
        {"command": b"rm -rf /"},
        {"command": "rm -rf /\ud800"},  # a lone surrogate
        {"command": "rm -rf /\x00"},
        {"command": "rm -rf / " + "x" * 2_000_000},
    ],
    ids=["list", "set", "bytes", "surrogate", "nul", "2MB"],
)
def test_hostile_inputs_never_turn_a_guard_into_an_allow(project: Path, home: Path, tool_input: Any) -> None:
    settings(project, {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "jq -c .tool_input | grep -q rm && { echo 'no rm' >&2; exit 2; }; exit 0"}]}]})
    with gate(project, home) as g:
        assert g.pre_tool("shell", tool_input).blocked


def test_a_payload_too_deep_to_encode_is_refused(project: Path, home: Path) -> None:
    # With a hook to run, the payload must be encoded, and one too deep to encode is refused
    # (with no hook matching, nothing is encoded and nothing is refused: nothing guards it).
    settings(project, {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "exit 0"}]}]})
    deep: Dict[str, Any] = {"command": "rm -rf /"}
    for _ in range(100_000):
        deep = {"a": deep}
    with gate(project, home) as g:
        v = g.pre_tool("shell", deep)
    assert v.blocked and v.error
