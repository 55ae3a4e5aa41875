"""Claude Code's handler types and output fields through the real library: http hooks against
a real HTTP server on 127.0.0.1, the one evaluator for prompt/agent/mcp_tool hooks, the
listener's status and rewake kinds, and the typed result fields."""

from __future__ import annotations

import json
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Dict, List

import pytest

import hookexec

from conftest import hook, settings, wait_for


class _Handler(BaseHTTPRequestHandler):
    def log_message(self, *args: Any) -> None:  # keep the test output clean
        pass

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        self.server.seen.append((self.path, dict(self.headers), json.loads(body or b"{}")))  # type: ignore[attr-defined]
        status, text = {
            "/empty": (204, b""),
            "/deny": (200, b'{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"policy"}}'),
            "/text": (200, b"deploy target is staging"),
            "/500": (500, b"backend down"),
        }.get(self.path, (404, b""))
        if self.path.startswith("/slow"):
            time.sleep(10)
            status, text = 200, b""
        self.send_response(status)
        self.send_header("Content-Length", str(len(text)))
        self.end_headers()
        self.wfile.write(text)


@pytest.fixture
def server():
    srv = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    srv.daemon_threads = True
    srv.seen = []  # type: ignore[attr-defined]
    t = threading.Thread(target=srv.serve_forever, daemon=True)
    t.start()
    yield srv
    srv.shutdown()
    srv.server_close()


def _url(srv: Any, path: str) -> str:
    return f"http://127.0.0.1:{srv.server_address[1]}{path}"


def _closed_port() -> int:
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


@pytest.mark.parametrize(
    "path, blocked, decision, context, status, error",
    [
        ("/empty", False, "none", "", 204, ""),
        ("/deny", True, "deny", "", 200, ""),
        # Claude Code 2.1.330: a 2xx body that is not JSON is a non-blocking error, not context.
        ("/text", False, "none", "", 200, "the response body is not JSON: deploy target is staging"),
        ("/500", False, "none", "", 500, "HTTP status 500: backend down"),
    ],
)
def test_http_hook_responses(engine, server, path, blocked, decision, context, status, error):
    eng = engine(profile="claude", config=settings("PreToolUse", hook(type="http", url=_url(server, path)), matcher="Bash"))
    r = eng.fire("PreToolUse", {"tool_name": "Bash", "tool_input": {"command": "ls"}})
    h = r.hooks[0]
    assert (r.blocked, r.decision, r.additional_context, h.http_status, h.exec) == (blocked, decision, context, status, "http")
    assert error in h.error if error else h.error == ""
    _, headers, body = server.seen[-1]
    assert headers["Content-Type"] == "application/json"
    assert body["tool_name"] == "Bash" and body["hook_event_name"] == "PreToolUse"


def test_http_hook_failures_do_not_block(engine, server):
    eng = engine(
        profile="claude",
        config=settings(
            "Stop",
            hook(type="http", url=f"http://127.0.0.1:{_closed_port()}/"),
            hook(type="http", url=_url(server, "/slow"), timeout=0.3),
            hook(type="http", url=_url(server, "/slow2"), timeout=0.3, fail_closed=True),
        ),
    )
    t = time.monotonic()
    r = eng.fire("Stop", {})
    assert time.monotonic() - t < 8  # hang guard: the hooks' 0.3 s timeouts end it, not the server's 10 s
    refused, slow, closed = r.hooks
    assert "request failed" in refused.error and refused.http_status == 0
    assert slow.timed_out and "timed out" in slow.error
    assert closed.timed_out
    assert r.blocked, "fail_closed turns the timeout into a block"


def test_http_hook_headers_only_from_allowed_env_vars(engine, server):
    eng = engine(
        profile="claude",
        env={"MY_TOKEN": "t0k3n", "SECRET": "never-sent"},
        config=settings(
            "Stop",
            hook(type="http", url=_url(server, "/empty"), headers={"Authorization": "Bearer $MY_TOKEN", "X-Leak": "${SECRET}"}, allowedEnvVars=["MY_TOKEN"]),
        ),
    )
    eng.fire("Stop", {})
    _, headers, _ = server.seen[-1]
    assert headers["Authorization"] == "Bearer t0k3n"
    assert headers["X-Leak"] == ""


def test_one_evaluator_for_prompt_agent_and_mcp_tool(engine):
    eng = engine(
        profile="claude",
        config=settings(
            "PostToolUse",
            hook(type="prompt", prompt="Fine? $ARGUMENTS"),
            hook(type="agent", prompt="verify"),
            hook(type="mcp_tool", server="scan", tool="security_scan", input={"file_path": "${tool_input.file_path}"}),
            matcher="Write",
        ),
    )
    payload = {"tool_name": "Write", "tool_input": {"file_path": "/src/a.py"}}
    r = eng.fire("PostToolUse", payload)
    assert [h.error.split(";")[0] for h in r.hooks] == [
        "prompt hook needs the host's evaluator, and no prompt evaluator is registered",
        "agent hook needs the host's evaluator, and no agent evaluator is registered",
        "mcp_tool hook needs the host's evaluator, and no mcp_tool evaluator is registered",
    ]

    calls: List[Any] = []

    def evaluate(hook_type: str, hook_def: Dict[str, Any], data: Dict[str, Any]) -> Any:
        calls.append((hook_type, hook_def, data))
        if hook_type == "prompt":
            return {"ok": True, "reason": "looks fine"}
        if hook_type == "agent":
            return {"exit_code": 0, "stdout": '{"systemMessage":"agent checked"}', "stderr": ""}
        return '{"hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"scan clean"}}'

    eng.set_evaluator(evaluate)
    r = eng.fire("PostToolUse", payload)
    assert [h.exec for h in r.hooks] == ["prompt", "agent", "mcp_tool"]
    assert all(h.error == "" for h in r.hooks), [h.error for h in r.hooks]
    assert r.system_message == "agent checked" and r.additional_context == "scan clean"
    by_type = {c[0]: c for c in calls}
    assert by_type["prompt"][1]["prompt"].startswith("Fine? {") and '"file_path":"/src/a.py"' in by_type["prompt"][1]["prompt"]
    assert by_type["prompt"][1]["timeout_ms"] == 30000 and by_type["agent"][1]["timeout_ms"] == 60000
    assert by_type["mcp_tool"][1]["input"] == {"file_path": "/src/a.py"}
    assert by_type["mcp_tool"][1]["server"] == "scan" and by_type["mcp_tool"][2]["tool_name"] == "Write"

    eng.set_evaluator(lambda t, h, d: {"ok": False, "reason": "not safe"} if t == "agent" else 1 / 0)
    r = eng.fire("PostToolUse", payload)
    assert "ZeroDivisionError" in r.hooks[0].error and r.hooks[1].exit_code == 2
    assert r.reason == "not safe"
    eng.set_evaluator(lambda t, h, d: 42)
    assert "want {'ok': bool" in eng.fire("PostToolUse", payload).hooks[2].error

    eng.set_prompt_evaluator(lambda prompt, data: {"ok": True, "reason": ""})
    r = eng.fire("PostToolUse", payload)
    assert r.hooks[0].error == "" and "answers prompt hooks only, not agent" in r.hooks[1].error
    eng.set_evaluator(None)
    assert "no mcp_tool evaluator" in eng.fire("PostToolUse", payload).hooks[2].error


def test_status_and_rewake_reach_the_listener(engine):
    eng = engine(
        profile="claude",
        config=settings(
            "PostToolUse",
            hook("echo 'tests broke' >&2; exit 2", asyncRewake=True, statusMessage="Running tests"),
            hook("true", statusMessage="Linting"),
        ),
    )
    got: List[Any] = []
    eng.on_status(got.append)  # each kind has its own typed callback
    eng.on_rewake(got.append)
    r = eng.fire("PostToolUse", {"tool_name": "Write"})
    assert r.hooks[0].async_ and r.hooks[0].status_message == "Running tests"
    assert wait_for(lambda: any(isinstance(e, hookexec.RewakeEvent) for e in got))
    statuses = [e.status_message for e in got if isinstance(e, hookexec.StatusEvent)]
    assert statuses == ["Running tests", "Linting"]
    assert all(e.event == "PostToolUse" and e.hook for e in got)
    wake = next(e for e in got if isinstance(e, hookexec.RewakeEvent))
    assert wake.message == "tests broke" and wake.event == "PostToolUse"
    assert isinstance(wake.result, hookexec.HookResult) and wake.result.exit_code == 2


def test_output_fields_are_typed(engine):
    out = {
        "hookSpecificOutput": {
            "hookEventName": "SessionStart",
            "sessionTitle": "auth-refactor",
            "initialUserMessage": "hello",
            "watchPaths": ["/p/.envrc"],
            "reloadSkills": True,
        },
        "terminalSequence": "\x1b]777;notify;Claude Code;done\x07",
    }
    eng = engine(
        profile="claude",
        config=settings(
            "SessionStart",
            hook(f"printf '%s' '{json.dumps(out)}'"),
            PermissionRequest=[{"hooks": [hook("""printf '%s' '{"hookSpecificOutput":{"decision":{"behavior":"deny","message":"no","interrupt":true}}}'""")]}],
            PostToolUse=[{"hooks": [hook("""printf '%s' '{"hookSpecificOutput":{"updatedToolOutput":{"stdout":"[redacted]"}}}'""")]}],
            PreToolUse=[{"hooks": [hook("""printf '%s' '{"hookSpecificOutput":{"permissionDecision":"defer"}}'"""),
                                   hook("""printf '%s' '{"hookSpecificOutput":{"permissionDecision":"ask"}}'""")]}],
        ),
    )
    r = eng.fire("SessionStart", {"source": "startup"})
    assert (r.session_title, r.initial_user_message, list(r.watch_paths), r.reload_skills) == ("auth-refactor", "hello", ["/p/.envrc"], True)
    assert r.terminal_sequence == "\x1b]777;notify;Claude Code;done\x07"
    r = eng.fire("PermissionRequest", {"tool_name": "Bash"})
    assert r.blocked and r.reason == "no" and r.interrupt
    assert eng.fire("PostToolUse", {"tool_name": "Bash"}).updated_tool_output == {"stdout": "[redacted]"}
    assert eng.fire("PreToolUse", {"tool_name": "Bash"}).decision == "defer"
