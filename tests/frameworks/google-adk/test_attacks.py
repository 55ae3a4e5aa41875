"""A model trying to walk past a PreToolUse guard through the ADK plugin, the real google-adk
and the fake Gemini API."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from google.adk.code_executors import UnsafeLocalCodeExecutor
from test_google_adk import answer, drive, hooks, record, recorded

# Denies a call whose input mentions "forbidden"; lets every other one through.
GUARD = ("p=$(cat); case \"$p\" in *forbidden*) printf '%s' "
         + json.dumps(json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny",
                                                          "permissionDecisionReason": "forbidden code"}}))
         + ";; esac")


def noop() -> dict:
    """Does nothing."""
    return {}


async def shell(command: str) -> dict:
    """Runs a shell command with sh -c in the current directory (without blocking the loop)."""
    p = await asyncio.create_subprocess_exec("sh", "-c", command, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT)
    out, _ = await p.communicate()
    return {"exit_code": p.returncode, "output": out.decode()}


ashell = shell


def code(src: str) -> str:
    return f"```python\n{src}\n```"


def test_code_executor_meets_pre_tool_use(project: Any, fake_model: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    # An agent with a local code executor runs the code the model writes, with no tool call:
    # the plugin must put that code before PreToolUse (as the tool "code_execution").
    config = hooks({"PreToolUse": [{"matcher": "code_execution", "hooks": [{"type": "command", "command": GUARD}]}]})
    script = [{"text": code("open('bad', 'w').write('forbidden')")},
              {"text": code("open('good', 'w').write('ok')")},
              {"text": "finished"}]
    run, fake = drive(project, fake_model, monkeypatch, script, config, tools=[noop],
                      agent_options={"code_executor": UnsafeLocalCodeExecutor()})
    assert not (project.path / "bad").exists()
    assert (project.path / "good").read_text() == "ok"
    assert "forbidden code" in json.dumps(fake.requests()[1])


def test_code_executor_runs_updated_input(project: Any, fake_model: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    rewrite = answer({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow",
                                             "updatedInput": {"code": "open('good', 'w').write('rewritten')"}}})
    config = hooks({"PreToolUse": [{"matcher": "code_execution", "hooks": [{"type": "command", "command": rewrite}]}]})
    script = [{"text": code("open('good', 'w').write('original')")}, {"text": "finished"}]
    drive(project, fake_model, monkeypatch, script, config, tools=[noop],
          agent_options={"code_executor": UnsafeLocalCodeExecutor()})
    assert (project.path / "good").read_text() == "rewritten"


def test_calls_sharing_an_id_each_meet_post_tool_use(project: Any, fake_model: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    # The model names the call ids: two calls with one id, the second denied while the first runs. The allowed one
    # ran, so its PostToolUse must fire (the plugin skips it only for a call it answered).
    config = hooks({"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": GUARD}]}]},
                   {"PostToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": record("post")}]}]})
    script = [{"tools": [{"id": "dup", "name": "shell", "input": {"command": "sleep 0.3; echo ok > good"}},
                         {"id": "dup", "name": "shell", "input": {"command": "echo forbidden > bad"}}]},
              {"text": "finished"}]
    drive(project, fake_model, monkeypatch, script, config, tools=[ashell])
    assert not (project.path / "bad").exists()
    assert (project.path / "good").read_text() == "ok\n"
    assert [p["tool_input"]["command"] for p in recorded(project, "post")] == ["sleep 0.3; echo ok > good"]
