"""The Pydantic AI adapter against the real framework (examples/frameworks/pydantic-ai pins
the version) and the fake Chat Completions API: every behaviour is checked by what reached the
model (the fake's record) or by what the shell tool really did (a file it wrote)."""

from __future__ import annotations

import asyncio
import json
import os
import shlex
import subprocess
from pathlib import Path
from typing import Any, Dict, List, Optional

import pytest
from conftest import run_example
from pydantic_ai import Agent, ModelRetry
from pydantic_ai.capabilities import Hooks
from pydantic_ai.models.openai import OpenAIChatModel
from pydantic_ai.providers.openai import OpenAIProvider
from pydantic_ai.tools import DeferredToolRequests, DeferredToolResults

from hookexec import Engine
from hookexec.integrations import Gate, RunStopped
from hookexec.integrations.pydantic_ai import HookexecHooks


def shell(command: str) -> str:
    """Run a shell command in the current directory."""
    p = subprocess.run(["sh", "-c", command], capture_output=True, text=True, timeout=60)
    return f"exit {p.returncode}\n{p.stdout}{p.stderr}"


def emit(obj: Dict[str, Any]) -> str:
    """A hook command that prints ``obj`` as its JSON answer."""
    return "printf '%s' " + shlex.quote(json.dumps(obj))


def pre(decision: str, reason: str = "", **more: Any) -> str:
    out: Dict[str, Any] = {"hookEventName": "PreToolUse", "permissionDecision": decision, **more}
    if reason:
        out["permissionDecisionReason"] = reason
    return emit({"hookSpecificOutput": out})


def context(event: str, text: str) -> str:
    return emit({"hookSpecificOutput": {"hookEventName": event, "additionalContext": text}})


def call(command: str) -> List[Dict[str, Any]]:
    """A script whose first turn calls shell with ``command``, then answers "finished"."""
    return [{"tools": [{"name": "shell", "input": {"command": command}}]}, {"text": "finished"}]


def agent(url: str, hooks: Any, tools: Optional[List[Any]] = None, **kw: Any) -> Agent[None, Any]:
    model = OpenAIChatModel("fake-model", provider=OpenAIProvider(base_url=url, api_key="fake"))
    return Agent(model, tools=tools or [shell], capabilities=[hooks, *kw.pop("capabilities", [])], **kw)


def messages(body: Dict[str, Any], role: str) -> List[str]:
    return [m["content"] if isinstance(m["content"], str) else json.dumps(m["content"])
            for m in body["messages"] if m["role"] == role]


def test_block_reason_reaches_model_and_command_does_not_run(project: Any, fake_model: Any) -> None:
    # A Claude Code matcher ("Bash") catches the framework's `shell`.
    project.settings(project.hook("PreToolUse", pre("deny", "no writes here, use a dry run"), matcher="Bash"))
    fake = fake_model("chat", call("echo ran > marker"))
    with HookexecHooks() as hooks:
        out = agent(fake.url, hooks).run_sync("write the marker")
    assert out.output == "finished"
    assert not (project.path / "marker").exists()
    reqs = fake.requests()
    assert len(reqs) == 2
    assert messages(reqs[1], "tool") == ["no writes here, use a dry run"]


def test_updated_input_is_what_the_tool_runs(project: Any, fake_model: Any) -> None:
    project.settings(project.hook("PreToolUse", pre("allow", updatedInput={"command": "echo rewritten > marker"}), matcher="Bash"))
    fake = fake_model("chat", call("echo original > marker"))
    with HookexecHooks() as hooks:
        agent(fake.url, hooks).run_sync("go")
    assert (project.path / "marker").read_text() == "rewritten\n"
    assert messages(fake.requests()[1], "tool") == ["exit 0\n"]


def test_post_tool_context_follows_the_result(project: Any, fake_model: Any) -> None:
    project.settings(project.hook("PostToolUse", context("PostToolUse", "the marker is watched"), matcher="Bash"))
    fake = fake_model("chat", call("echo ran > marker"))
    with HookexecHooks() as hooks:
        agent(fake.url, hooks).run_sync("go")
    assert (project.path / "marker").exists()
    second = fake.requests()[1]["messages"]
    roles = [m["role"] for m in second]
    i = roles.index("tool")
    assert "the marker is watched" in json.dumps(second[i + 1:])
    assert "the marker is watched" not in json.dumps(fake.requests()[0])


def test_prompt_context_and_session_start(project: Any, fake_model: Any) -> None:
    project.settings({
        **project.hook("UserPromptSubmit", context("UserPromptSubmit", "the user is on call")),
        **project.hook("SessionStart", context("SessionStart", "branch: main") + "; echo start >> session.log"),
        **project.hook("SessionEnd", "echo end >> session.log"),
    })
    fake = fake_model("chat", [{"text": "hello"}])
    with HookexecHooks() as hooks:
        a = agent(fake.url, hooks)
        a.run_sync("hi")
        a.run_sync("again")  # SessionStart fires once per capability, not per run
        assert (project.path / "session.log").read_text() == "start\n"
    assert (project.path / "session.log").read_text() == "start\nend\n"
    first = json.dumps(fake.requests()[0])
    assert "the user is on call" in first and "branch: main" in first


def test_prompt_block_ends_the_run_before_the_model(project: Any, fake_model: Any) -> None:
    project.settings(project.hook("UserPromptSubmit", emit({"decision": "block", "reason": "no secrets in prompts"})))
    fake = fake_model("chat", [{"text": "hello"}])
    with HookexecHooks() as hooks, pytest.raises(RunStopped, match="no secrets in prompts"):
        agent(fake.url, hooks).run_sync("my password is hunter2")
    assert fake.requests() == []


def test_stop_block_makes_the_agent_go_on(project: Any, fake_model: Any) -> None:
    # Blocks the first stop only: the second Stop carries stop_hook_active=true.
    guard = ("p=$(cat); echo \"$p\" > stop-$(date +%s%N).json; case \"$p\" in *'\"stop_hook_active\":true'*) exit 0;; esac; "
             + emit({"decision": "block", "reason": "run the tests before you stop"}))
    project.settings(project.hook("Stop", guard))
    fake = fake_model("chat", [{"text": "first answer"}, {"text": "tests pass"}])
    with HookexecHooks() as hooks:
        out = agent(fake.url, hooks).run_sync("fix it")
    assert out.output == "tests pass"
    reqs = fake.requests()
    assert len(reqs) == 2
    assert "run the tests before you stop" in json.dumps(reqs[1]["messages"][-1])
    stops = [json.loads(p.read_text()) for p in sorted(project.path.glob("stop-*.json"))]
    assert [(s["stop_hook_active"], s["last_assistant_message"]) for s in stops] == [(False, "first answer"), (True, "tests pass")]


def test_continue_false_ends_the_run(project: Any, fake_model: Any) -> None:
    project.settings(project.hook("PreToolUse", emit({"continue": False, "stopReason": "budget exhausted"}), matcher="Bash"))
    fake = fake_model("chat", call("echo ran > marker"))
    with HookexecHooks() as hooks, pytest.raises(RunStopped) as e:
        agent(fake.url, hooks).run_sync("go")
    assert e.value.reason == "budget exhausted"
    assert not (project.path / "marker").exists()
    assert len(fake.requests()) == 1


def test_system_message_reaches_the_callback(project: Any, fake_model: Any) -> None:
    project.settings(project.hook("PostToolUse", emit({"systemMessage": "shell used"}), matcher="Bash"))
    fake = fake_model("chat", call("true"))
    seen: List[str] = []
    with HookexecHooks(on_system_message=seen.append) as hooks:
        agent(fake.url, hooks).run_sync("go")
    assert seen == ["shell used"]


@pytest.mark.parametrize("answer", [True, False])
def test_ask_goes_through_approval(project: Any, fake_model: Any, answer: bool) -> None:
    project.settings(project.hook("PreToolUse", pre("ask", "writes to the repo"), matcher="Bash"))
    fake = fake_model("chat", call("echo ran > marker"))
    asked: List[Any] = []

    def approve(tool: str, tool_input: Dict[str, Any], reason: str) -> bool:
        asked.append((tool, tool_input, reason))
        return answer

    with HookexecHooks(approve=approve) as hooks:
        agent(fake.url, hooks).run_sync("go")
    assert asked == [("Bash", {"command": "echo ran > marker"}, "writes to the repo")]
    assert (project.path / "marker").exists() is answer
    tool = messages(fake.requests()[1], "tool")
    if answer:
        assert tool == ["exit 0\n"]
    else:
        assert tool == ["writes to the repo (approval required; none was given)"]


def test_ask_without_approver_denies(project: Any, fake_model: Any) -> None:
    project.settings(project.hook("PreToolUse", pre("ask", "writes to the repo"), matcher="Bash"))
    fake = fake_model("chat", call("echo ran > marker"))
    with HookexecHooks() as hooks:
        agent(fake.url, hooks).run_sync("go")
    assert not (project.path / "marker").exists()
    assert "writes to the repo" in messages(fake.requests()[1], "tool")[0]


def test_ask_deferred_to_the_app(project: Any, fake_model: Any) -> None:
    # defer_asks: the run pauses with DeferredToolRequests; the app's approval resumes it and
    # the call runs without asking again.
    project.settings(project.hook("PreToolUse", pre("ask", "writes to the repo") + "; echo >> asks.log", matcher="Bash"))
    fake = fake_model("chat", call("echo ran > marker"))
    with HookexecHooks(defer_asks=True) as hooks:
        a = agent(fake.url, hooks, output_type=[str, DeferredToolRequests])
        paused = a.run_sync("go")
        assert isinstance(paused.output, DeferredToolRequests)
        assert not (project.path / "marker").exists()
        [c] = paused.output.approvals
        assert paused.output.metadata[c.tool_call_id] == {"hookexec_reason": "writes to the repo"}
        done = a.run_sync(message_history=paused.all_messages(), deferred_tool_results=DeferredToolResults(approvals={c.tool_call_id: True}))
    assert done.output == "finished"
    assert (project.path / "marker").read_text() == "ran\n"
    assert (project.path / "asks.log").read_text().count("\n") == 2


def test_engine_error_blocks_the_prompt(project: Any, fake_model: Any) -> None:
    fake = fake_model("chat", call("echo ran > marker"))
    engine = Engine("claude", project_dir=str(project.path))
    engine.close()  # every fire now fails: the gate must refuse, never allow
    with pytest.raises(RunStopped, match="could not be decided"):
        agent(fake.url, HookexecHooks(Gate(engine))).run_sync("go")
    assert fake.requests() == []


def test_engine_error_blocks_the_tool_call(project: Any, fake_model: Any) -> None:
    project.settings(project.hook("PreToolUse", "true", matcher="Bash"))
    fake = fake_model("chat", call("echo ran > marker"))
    engine = Engine("claude", project_dir=str(project.path))

    def fail_engine(ctx: Any, *, request_context: Any, response: Any) -> Any:
        engine.close()  # after the model's tool call: PreToolUse, then Stop, cannot be decided
        return response

    with pytest.raises(RunStopped, match="Stop could not be decided"):
        agent(fake.url, HookexecHooks(Gate(engine)), capabilities=[Hooks(after_model_request=fail_engine)]).run_sync("go")
    assert not (project.path / "marker").exists()
    assert "PreToolUse could not be decided" in messages(fake.requests()[1], "tool")[0]


def test_no_match_passes_untouched(project: Any, fake_model: Any) -> None:
    project.settings(project.hook("PreToolUse", pre("deny", "no writes"), matcher="Write"))
    fake = fake_model("chat", call("echo ran > marker"))
    with HookexecHooks() as hooks:
        agent(fake.url, hooks).run_sync("go")
    assert (project.path / "marker").read_text() == "ran\n"
    assert messages(fake.requests()[1], "tool") == ["exit 0\n"]


def test_tool_failure_fires_post_tool_use_failure(project: Any, fake_model: Any) -> None:
    project.settings(project.hook("PostToolUseFailure", "cat > failure.json; " + context("PostToolUseFailure", "the disk is read-only"), matcher="Bash"))

    def failing_shell(command: str) -> str:
        """Run a shell command."""
        raise ModelRetry("permission denied")

    fake = fake_model("chat", [{"tools": [{"name": "failing_shell", "input": {"command": "rm x"}}]}, {"text": "finished"}])
    with HookexecHooks(tool_names={"failing_shell": "Bash"}) as hooks:
        agent(fake.url, hooks, tools=[failing_shell]).run_sync("go")
    payload = json.loads((project.path / "failure.json").read_text())
    assert payload["tool_name"] == "Bash" and "permission denied" in payload["error"]
    assert "the disk is read-only" in json.dumps(fake.requests()[1])


def test_example_runs_against_the_fake(project: Any, fake_model: Any) -> None:
    project.settings(project.hook("PreToolUse", pre("deny", "blocked by the example guard"), matcher="Bash"))
    fake = fake_model("chat", [{"tools": [{"name": "shell", "input": {"command": "echo ran > marker"}}]}, {"text": "all done"}])
    venv = os.environ.get("VIRTUAL_ENV")
    env = {"OPENAI_BASE_URL": fake.url, "OPENAI_API_KEY": "fake", "HOOKEXEC_EXAMPLE_MODEL": "fake-model"}
    if venv:  # the test's HOME is the project's: reuse the venv this test runs in
        env["HOOKEXEC_FRAMEWORK_CACHE"] = str(Path(venv).parent)
    cp = run_example("pydantic-ai", "write the marker", env, project.path)
    assert cp.returncode == 0, cp.stderr
    assert cp.stdout.strip() == "all done"
    assert not (project.path / "marker").exists()
    assert messages(fake.requests()[1], "tool") == ["blocked by the example guard"]


def test_post_tool_output_replaced_and_block_reason(project: Any, fake_model: Any) -> None:
    project.settings(project.hook("PostToolUse", emit({
        "decision": "block", "reason": "the output held a secret",
        "hookSpecificOutput": {"hookEventName": "PostToolUse", "updatedToolOutput": "[redacted]"},
    }), matcher="Bash"))
    fake = fake_model("chat", call("echo hunter$((1+1))"))
    with HookexecHooks() as hooks:
        agent(fake.url, hooks).run_sync("go")
    second = fake.requests()[1]
    assert messages(second, "tool") == ["[redacted]"]
    assert "hunter2" not in json.dumps(second)
    assert "the output held a secret" in json.dumps(second["messages"][-1]), json.dumps(fake.requests())


def test_async_run_with_async_approver(project: Any, fake_model: Any) -> None:
    project.settings(project.hook("PreToolUse", pre("ask", "writes to the repo"), matcher="Bash"))
    fake = fake_model("chat", call("echo ran > marker"))

    async def approve(tool: str, tool_input: Dict[str, Any], reason: str) -> bool:
        return tool == "Bash"

    async def main() -> str:
        async with HookexecHooks(approve=approve) as hooks:
            return (await agent(fake.url, hooks).run("go")).output

    assert asyncio.run(main()) == "finished"
    assert (project.path / "marker").read_text() == "ran\n"


def test_continue_false_with_parallel_calls_and_on_stop(project: Any, fake_model: Any) -> None:
    # Two calls in one turn run as parallel tasks: RunStopped still comes out as itself.
    project.settings(project.hook("PreToolUse", emit({"continue": False, "stopReason": "budget exhausted"}), matcher="Bash"))
    two = [{"tools": [{"name": "shell", "input": {"command": "echo a > a"}}, {"name": "shell", "input": {"command": "echo b > b"}}]}]
    fake = fake_model("chat", two)
    with HookexecHooks() as hooks, pytest.raises(RunStopped, match="budget exhausted"):
        agent(fake.url, hooks).run_sync("go")
    assert not (project.path / "a").exists() and not (project.path / "b").exists()

    project.settings(project.hook("Stop", emit({"continue": False, "stopReason": "out of time"})))
    fake = fake_model("chat", [{"text": "an answer"}])
    with HookexecHooks() as hooks, pytest.raises(RunStopped, match="out of time"):
        agent(fake.url, hooks).run_sync("go")
    assert len(fake.requests()) == 1
