"""A model trying to walk past a PreToolUse guard through the ADK plugin, the real google-adk
and the fake Gemini API."""

from __future__ import annotations

import json
from typing import Any

import pytest
from google.adk.code_executors import UnsafeLocalCodeExecutor
from test_google_adk import answer, drive, hooks

# Denies a call whose input mentions "forbidden"; lets every other one through.
GUARD = ("p=$(cat); case \"$p\" in *forbidden*) printf '%s' "
         + json.dumps(json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny",
                                                          "permissionDecisionReason": "forbidden code"}}))
         + ";; esac")


def noop() -> dict:
    """Does nothing."""
    return {}


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
