"""autohand's JSON-RPC 2.0 notifications through Engine.on_notification."""

from __future__ import annotations

import queue
import threading

from conftest import HANG_GUARD, hook, settings, write_json


def _autohand(home, hooks):
    write_json(home / ".autohand" / "config.json", {"hooks": {"enabled": True, "hooks": hooks}})


def test_every_fire_is_announced_in_order(engine, home):
    _autohand(home, [{"event": "pre-tool", "command": "true", "matcher": "^run_command$"}])
    eng = engine(profile="autohand")
    assert eng.config()["notifications"] is True
    got: "queue.Queue" = queue.Queue()
    eng.on_notification(lambda msg: got.put((msg, threading.get_ident())))
    seen_async = []
    eng.on_async(lambda result: seen_async.append(result))

    r = eng.fire("pre-tool", {"tool_name": "run_command", "tool_input": {"command": "ls"}, "tool_use_id": "c1"})
    assert r.matched == 1
    # No hook for these: the fast path must not swallow the announcement.
    eng.fire("session-start", {"session_type": "resume"})
    eng.fire("Notification", {"notification_type": "idle", "notification_message": "waiting"})

    msgs = [got.get(timeout=HANG_GUARD) for _ in range(3)]
    assert all(thread != threading.get_ident() for _, thread in msgs)
    methods = [m["method"] for m, _ in msgs]
    assert methods == ["autohand.hook.preTool", "autohand.hook.sessionStart", "autohand.hook.notification"]
    first = msgs[0][0]
    assert first["jsonrpc"] == "2.0" and "id" not in first
    params = dict(first["params"])
    assert params.pop("timestamp").endswith("Z")
    assert params == {"toolId": "c1", "toolName": "run_command", "args": {"command": "ls"}}
    assert msgs[2][0]["params"]["message"] == "waiting"
    assert seen_async == [], "notifications go to on_notification only"


def test_no_notifications_without_autohand(engine):
    eng = engine(config=settings("PreToolUse", hook("true")))
    assert eng.config()["notifications"] is False
    got = []
    eng.on_notification(got.append)
    eng.fire("PreToolUse", {"tool_name": "x"})
    eng.close()
    assert got == []


def test_notifications_option_and_removal(engine):
    eng = engine(config=settings("PreToolUse", hook("true")), notifications=True)
    got: "queue.Queue" = queue.Queue()
    eng.on_notification(got.put)
    eng.fire("Stop", {"tokens_used": 3})
    assert got.get(timeout=HANG_GUARD)["method"] == "autohand.hook.stop"
    eng.on_notification(None)
    eng.fire("Stop", {"tokens_used": 4})
    eng.close()
    assert got.empty()
