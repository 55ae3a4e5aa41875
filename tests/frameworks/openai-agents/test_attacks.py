"""A model trying to walk past a PreToolUse guard through the OpenAI Agents SDK adapter, the
real SDK and the fake Chat Completions API."""

from __future__ import annotations

from typing import Any

import pytest
from agents import ModelBehaviorError

from test_openai_agents import echo, make_agent, run

from hookexec.integrations.openai_agents import Hookexec

# Denies a Bash call whose input mentions "forbidden"; lets every other one through.
GUARD = ("p=$(cat); case \"$p\" in *forbidden*) "
         + echo({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny",
                                        "permissionDecisionReason": "forbidden command"}})
         + ";; esac")


def test_calls_sharing_an_id_each_get_their_own_verdict(project: Any, fake_model: Any) -> None:
    # The model names the call ids: a forbidden call and a harmless one under one id. The
    # adapter keeps verdicts by call id, so the harmless call's verdict must not let the
    # forbidden one run: the SDK refuses such a response (ModelBehaviorError) before any tool.
    project.settings(project.hook("PreToolUse", GUARD, matcher="Bash"))
    fake = fake_model("chat", [{"tools": [{"id": "dup", "name": "shell", "input": {"command": "echo forbidden > bad"}},
                                          {"id": "dup", "name": "shell", "input": {"command": "echo ok > good"}}]},
                               {"text": "finished"}])
    with Hookexec() as hx, pytest.raises(ModelBehaviorError, match="reused a tool call ID"):
        run(hx, make_agent(fake), "go")
    assert not (project.path / "bad").exists()
    assert not (project.path / "good").exists()
