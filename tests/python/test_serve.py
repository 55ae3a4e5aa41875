"""`hookexec serve --stdio` driven from Python as a host in another language would: the real
built binary (build/hookexec, or $HOOKEXEC_BIN) spoken to in JSON-RPC 2.0 over its pipes."""

from __future__ import annotations

import json
import os
import queue
import subprocess
import threading
from pathlib import Path
from typing import Any, Dict, List, Optional

import pytest

REPO = Path(__file__).resolve().parents[2]
BIN = Path(os.environ.get("HOOKEXEC_BIN", REPO / "build" / "hookexec"))

# Only a hang guard: a test that waits this long has failed. Never a speed check.
HANG = 60


class Server:
    """A JSON-RPC client of one `hookexec serve --stdio` process."""

    def __init__(self, cwd: Path) -> None:
        if not BIN.exists():
            pytest.fail(f"{BIN} is missing: run make build/hookexec")
        self.proc = subprocess.Popen(
            [str(BIN), "serve", "--stdio"],
            cwd=cwd,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env={**os.environ, "HOOKEXEC_LOG": ""},
        )
        self.responses: Dict[Any, "queue.Queue[Dict[str, Any]]"] = {}
        self.notifications: "queue.Queue[Dict[str, Any]]" = queue.Queue()
        self.requests: "queue.Queue[Dict[str, Any]]" = queue.Queue()  # the server asking us
        self.raw: "queue.Queue[Any]" = queue.Queue()  # anything without an id we sent
        self.lock = threading.Lock()
        self.next_id = 0
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            msg = json.loads(line)
            if isinstance(msg, list):
                self.raw.put(msg)
            elif "method" in msg and "id" in msg:
                self.requests.put(msg)
            elif "method" in msg:
                self.notifications.put(msg)
            else:
                self._queue(msg.get("id")).put(msg)

    def _queue(self, id_: Any) -> "queue.Queue[Dict[str, Any]]":
        with self.lock:
            return self.responses.setdefault(json.dumps(id_), queue.Queue())

    def send_line(self, line: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(line.encode() + b"\n")
        self.proc.stdin.flush()

    def send(self, method: str, params: Any = None) -> int:
        with self.lock:
            self.next_id += 1
            id_ = self.next_id
        msg: Dict[str, Any] = {"jsonrpc": "2.0", "id": id_, "method": method}
        if params is not None:
            msg["params"] = params
        self.send_line(json.dumps(msg))
        return id_

    def wait(self, id_: Any) -> Dict[str, Any]:
        return self._queue(id_).get(timeout=HANG)

    def call(self, method: str, params: Any = None) -> Any:
        resp = self.wait(self.send(method, params))
        assert resp["jsonrpc"] == "2.0"
        if "error" in resp:
            raise RPCError(resp["error"]["code"], resp["error"]["message"])
        return resp["result"]

    def notification(self) -> Dict[str, Any]:
        return self.notifications.get(timeout=HANG)

    def finish(self) -> int:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        rc = self.proc.wait(timeout=HANG)
        self.reader.join(timeout=HANG)
        return rc


class RPCError(Exception):
    def __init__(self, code: int, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


@pytest.fixture
def server(project: Path):
    s = Server(project)
    yield s
    if s.proc.poll() is None:
        s.proc.kill()
        s.proc.wait()


def claude_config(project: Path, hooks: Dict[str, List[Dict[str, Any]]]) -> None:
    d = project / ".claude"
    d.mkdir(exist_ok=True)
    (d / "settings.json").write_text(json.dumps({"hooks": hooks}))


GUARD = {
    "matcher": "Bash",
    "hooks": [
        {
            "type": "command",
            "name": "guard",
            "command": 'cmd=$(cat); case "$cmd" in *"rm -rf"*) echo "rm -rf is not allowed" >&2; exit 2;; esac',
        }
    ],
}


def test_every_method(server: Server, project: Path, home: Path) -> None:
    claude_config(project, {"PreToolUse": [GUARD]})
    eng = server.call("open", {"profile": "claude", "project_dir": str(project), "home": str(home)})["engine"]

    r = server.call("fire", {"engine": eng, "event": "PreToolUse", "payload": {"tool_name": "Bash", "tool_input": {"command": "rm -rf /"}}})
    assert r["blocked"] is True
    assert r["decision"] == "deny"
    assert r["reason"] == "rm -rf is not allowed"
    assert r["hooks"][0]["id"] == "guard"

    r = server.call("fire", {"engine": eng, "event": "PreToolUse", "payload": {"tool_name": "Bash", "tool_input": {"command": "ls"}}})
    assert r["blocked"] is False and r["matched"] == 1

    assert server.call("match", {"engine": eng, "event": "PreToolUse", "subject": "Bash"}) == {"count": 1, "ids": ["guard"]}
    assert server.call("match", {"engine": eng, "event": "PreToolUse", "subject": "Edit"}) == {"count": 0, "ids": []}

    x = server.call("explain", {"engine": eng, "event": "PreToolUse", "payload": {"tool_name": "Edit"}})
    assert x["hooks"][0]["check"] == "matcher" and x["hooks"][0]["runs"] is False

    cfg = server.call("config", {"engine": eng})
    assert [h["id"] for h in cfg["hooks"]] == ["guard"]
    assert cfg["hooks"][0]["line"] > 0

    claude_config(project, {"PreToolUse": [GUARD], "Stop": [{"hooks": [{"type": "command", "command": "true", "name": "stop"}]}]})
    assert server.call("reload", {"engine": eng}) is None
    assert server.call("match", {"engine": eng, "event": "Stop", "subject": ""})["ids"] == ["stop"]

    assert server.call("drain", {"engine": eng}) == {"output": []}
    assert server.call("close", {"engine": eng}) is None
    with pytest.raises(RPCError) as e:
        server.call("fire", {"engine": eng, "event": "Stop"})
    assert e.value.code == -32003
    assert server.finish() == 0


def test_errors(server: Server, project: Path, home: Path) -> None:
    server.send_line("this is not json")
    assert server.wait(None)["error"]["code"] == -32700
    with pytest.raises(RPCError) as e:
        server.call("nope")
    assert e.value.code == -32601 and "unknown method" in e.value.message
    with pytest.raises(RPCError) as e:
        server.call("open", {"profile": "claude", "project_dir": str(project), "colour": "blue"})
    assert e.value.code == -32602 and "colour" in e.value.message
    with pytest.raises(RPCError) as e:
        server.call("open", {"profile": "vim", "project_dir": str(project)})
    assert e.value.code == -32002
    eng = server.call("open", {"project_dir": str(project), "home": str(home)})["engine"]
    with pytest.raises(RPCError) as e:
        server.call("fire", {"engine": eng, "event": "Stop", "payload": [1, 2]})
    assert e.value.code == -32602
    with pytest.raises(RPCError) as e:
        server.call("fire", {"engine": eng})
    assert e.value.code == -32602 and "event" in e.value.message
    with pytest.raises(RPCError) as e:
        server.call("fire", {"event": "Stop"})
    assert e.value.code == -32602 and "engine" in e.value.message
    server.send_line(json.dumps({"id": 99, "method": "fire"}))
    assert server.wait(99)["error"]["code"] == -32600
    # A notification (no id) gets no response, even when it fails; the next request does.
    server.send_line(json.dumps({"jsonrpc": "2.0", "method": "fire", "params": {"engine": 12345, "event": "Stop"}}))
    assert server.call("drain", {"engine": eng}) == {"output": []}
    assert server.finish() == 0
    assert server.proc.stderr is not None
    assert server.proc.stderr.read() == b"", "serve writes nothing to stderr"


def test_batch(server: Server, project: Path, home: Path) -> None:
    eng = server.call("open", {"project_dir": str(project), "home": str(home)})["engine"]
    server.send_line(json.dumps([
        {"jsonrpc": "2.0", "id": "a", "method": "drain", "params": {"engine": eng}},
        {"jsonrpc": "2.0", "method": "drain", "params": {"engine": eng}},
        {"jsonrpc": "2.0", "id": "b", "method": "match", "params": {"engine": eng, "event": "Stop"}},
    ]))
    batch = server.raw.get(timeout=HANG)
    assert sorted(r["id"] for r in batch) == ["a", "b"], "notifications in a batch get no response"
    assert server.finish() == 0


def test_many_requests_in_flight(server: Server, project: Path, home: Path) -> None:
    """Fires run concurrently: each hook waits until all N have started (a rendezvous, not a
    clock). Run one after another, the first would wait until its timeout and report it."""
    n = 12
    gate = project / "gate"
    gate.mkdir()
    wait_all = f'touch {gate}/$$; while [ "$(ls {gate} | wc -l)" -lt {n} ]; do sleep 0.01; done; echo went'
    claude_config(project, {"Stop": [{"hooks": [{"type": "command", "command": wait_all, "timeout": 30}]}]})
    eng = server.call("open", {"profile": "claude", "project_dir": str(project), "home": str(home)})["engine"]
    ids = [server.send("fire", {"engine": eng, "event": "Stop"}) for _ in range(n)]
    for id_ in ids:
        r = server.wait(id_)["result"]
        assert r["hooks"][0]["timed_out"] is False
        assert r["hooks"][0]["stdout"] == "went\n"
    assert server.finish() == 0


def test_async_results_and_autohand_notifications(server: Server, project: Path, home: Path) -> None:
    marker = project / "async-done"
    claude_config(project, {"PostToolUse": [{"hooks": [{"type": "command", "command": f"echo later; touch {marker}", "async": True, "name": "bg"}]}]})
    eng = server.call("open", {"profile": "claude", "project_dir": str(project), "home": str(home)})["engine"]
    r = server.call("fire", {"engine": eng, "event": "PostToolUse", "payload": {"tool_name": "Bash"}})
    assert r["hooks"][0]["async"] is True
    n = server.notification()
    assert n["jsonrpc"] == "2.0" and "id" not in n
    assert n["method"] == "hookexec.async"
    assert n["params"]["engine"] == eng
    assert n["params"]["hook"]["id"] == "bg"
    assert n["params"]["hook"]["stdout"] == "later\n"

    (home / ".autohand").mkdir()
    (home / ".autohand" / "config.json").write_text(json.dumps({"hooks": {"enabled": True, "hooks": [{"event": "pre-tool", "command": "true"}]}}))
    ah = server.call("open", {"profile": "autohand", "project_dir": str(project), "home": str(home)})["engine"]
    server.call("fire", {"engine": ah, "event": "pre-tool", "payload": {"tool_name": "run_command", "toolId": "c1"}})
    n = server.notification()
    assert n["method"] == "autohand.hook.preTool"
    assert n["params"]["engine"] == ah
    assert n["params"]["toolName"] == "run_command"
    assert server.finish() == 0


def test_async_hooks_finish_when_input_ends(server: Server, project: Path, home: Path) -> None:
    marker = project / "slow-async-done"
    claude_config(project, {"Stop": [{"hooks": [{"type": "command", "command": f"sleep 0.5; touch {marker}", "async": True}]}]})
    eng = server.call("open", {"profile": "claude", "project_dir": str(project), "home": str(home)})["engine"]
    server.call("fire", {"engine": eng, "event": "Stop"})
    assert server.finish() == 0
    assert marker.exists(), "end of input closes engines, which wait for async hooks"


def test_host_evaluates_prompt_hooks(server: Server, project: Path, home: Path) -> None:
    claude_config(project, {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "prompt", "prompt": "Is this command safe? $ARGUMENTS", "name": "judge"}]}]})
    eng = server.call("open", {"profile": "claude", "project_dir": str(project), "home": str(home), "evaluate": True})["engine"]

    def host() -> None:
        for answer in ({"ok": False, "reason": "not on a Friday"}, {"exit_code": 0, "stdout": "", "stderr": ""}):
            req = server.requests.get(timeout=HANG)
            assert req["method"] == "hookexec.evaluate"
            assert req["params"]["engine"] == eng
            assert req["params"]["type"] == "prompt"
            assert "Is this command safe?" in req["params"]["hook"]["prompt"]
            assert req["params"]["payload"]["tool_name"] == "Bash"
            server.send_line(json.dumps({"jsonrpc": "2.0", "id": req["id"], "result": answer}))

    t = threading.Thread(target=host)
    t.start()
    r = server.call("fire", {"engine": eng, "event": "PreToolUse", "payload": {"tool_name": "Bash", "tool_input": {"command": "ls"}}})
    assert r["blocked"] is True and r["reason"] == "not on a Friday"
    r = server.call("fire", {"engine": eng, "event": "PreToolUse", "payload": {"tool_name": "Bash", "tool_input": {"command": "ls"}}})
    assert r["blocked"] is False and r["hooks"][0]["exit_code"] == 0
    t.join(timeout=HANG)
    assert server.finish() == 0
