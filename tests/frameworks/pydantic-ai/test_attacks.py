"""A model (or a tool name or argument it controls) trying to walk past a PreToolUse guard,
through the Pydantic AI adapter, the real framework and the fake Chat Completions API."""

from __future__ import annotations

import json
from typing import Any

from test_pydantic_ai import agent, emit, messages, shell

from hookexec.integrations.pydantic_ai import HookexecHooks

# Denies a Bash call whose input mentions "forbidden"; lets every other one through.
GUARD = ("p=$(cat); case \"$p\" in *forbidden*) "
         + emit({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny",
                                        "permissionDecisionReason": "forbidden command"}})
         + ";; esac")


def test_parallel_calls_each_get_their_own_verdict(project: Any, fake_model: Any) -> None:
    # Two calls in one turn: the deny lands on the forbidden one, the other one runs.
    project.settings(project.hook("PreToolUse", GUARD, matcher="Bash"))
    fake = fake_model("chat", [{"tools": [
        {"name": "shell", "input": {"command": "echo forbidden > bad"}},
        {"name": "shell", "input": {"command": "echo ok > good"}},
    ]}, {"text": "finished"}])
    with HookexecHooks() as hooks:
        agent(fake.url, hooks).run_sync("go")
    assert not (project.path / "bad").exists()
    assert (project.path / "good").read_text() == "ok\n"
    tool = {m["tool_call_id"]: m["content"] for m in fake.requests()[1]["messages"] if m["role"] == "tool"}
    calls = [c for m in fake.requests()[1]["messages"] if m["role"] == "assistant" for c in m.get("tool_calls", [])]
    by_cmd = {json.loads(c["function"]["arguments"])["command"]: tool[c["id"]] for c in calls}
    assert by_cmd == {"echo forbidden > bad": "forbidden command", "echo ok > good": "exit 0\n"}


def test_streamed_run_is_guarded(project: Any, fake_model: Any) -> None:
    project.settings(project.hook("PreToolUse", GUARD, matcher="Bash"))
    fake = fake_model("chat", [{"tools": [{"name": "shell", "input": {"command": "echo forbidden > bad"}}]},
                               {"text": "finished"}])

    async def go() -> str:
        with HookexecHooks() as hooks:
            async with agent(fake.url, hooks).run_stream("go") as r:
                return await r.get_output()

    import asyncio
    assert asyncio.run(go()) == "finished"
    assert not (project.path / "bad").exists()
    assert messages(fake.requests()[1], "tool") == ["forbidden command"]


def test_output_function_is_guarded(project: Any, fake_model: Any) -> None:
    # An output function is a tool the model calls to end the run (Pydantic AI runs it through
    # its output hooks, not its tool hooks): its call must meet PreToolUse like any other.
    project.settings(project.hook("PreToolUse", GUARD, matcher="Bash"))
    # Pydantic AI names the output tool "final_result"; hooks see the function's own name.
    fake = fake_model("chat", [{"tools": [{"name": "final_result", "input": {"command": "echo forbidden > bad"}}]},
                               {"tools": [{"name": "final_result", "input": {"command": "echo ok > good"}}]}])

    def run(command: str) -> str:
        return shell(command)

    def noop() -> str:
        """Does nothing."""
        return ""

    run.__name__ = "shell"
    with HookexecHooks() as hooks:
        out = agent(fake.url, hooks, tools=[noop], output_type=[run]).run_sync("go")
    assert not (project.path / "bad").exists()
    assert (project.path / "good").read_text() == "ok\n"
    assert out.output == "exit 0\n"
    assert "forbidden command" in json.dumps(fake.requests()[1]["messages"])


def test_output_function_runs_with_updated_input(project: Any, fake_model: Any) -> None:
    rewrite = emit({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow",
                                           "updatedInput": {"command": "echo rewritten > good"}}})
    project.settings(project.hook("PreToolUse", rewrite, matcher="Bash"))
    fake = fake_model("chat", [{"tools": [{"name": "final_result", "input": {"command": "echo original > good"}}]}])

    def run(command: str) -> str:
        return shell(command)

    def noop() -> str:
        """Does nothing."""
        return ""

    run.__name__ = "shell"
    with HookexecHooks() as hooks:
        agent(fake.url, hooks, tools=[noop], output_type=[run]).run_sync("go")
    assert (project.path / "good").read_text() == "rewritten\n"


def test_defer_does_not_run_the_tool(project: Any, fake_model: Any) -> None:
    # Claude Code's PreToolUse "defer" (pause at this call, resume later) outranks ask: the
    # tool must not run as if no hook had answered. Without an approver it is refused.
    defer = emit({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "defer",
                                         "permissionDecisionReason": "a reviewer decides later"}})
    project.settings(project.hook("PreToolUse", defer, matcher="Bash"))
    fake = fake_model("chat", [{"tools": [{"name": "shell", "input": {"command": "echo ran > bad"}}]}, {"text": "finished"}])
    with HookexecHooks() as hooks:
        agent(fake.url, hooks).run_sync("go")
    assert not (project.path / "bad").exists()
    assert "approval required" in messages(fake.requests()[1], "tool")[0]
