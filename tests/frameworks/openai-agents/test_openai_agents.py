"""hookexec.integrations.openai_agents against the real OpenAI Agents SDK (the version pinned
in examples/frameworks/openai-agents/requirements.txt) and the fake Chat Completions API:
every check is on what reached the model (fake.requests()) or what the shell tool really ran
(files in the project directory)."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any, Dict, List

import pytest
from agents import Agent, OpenAIChatCompletionsModel, OpenAIResponsesModel, UserError, function_tool, set_tracing_disabled
from openai import AsyncOpenAI

from conftest import run_example
from hookexec import Engine
from hookexec.integrations import Gate, RunStopped
from hookexec.integrations.openai_agents import Hookexec, PromptBlocked

set_tracing_disabled(True)


@function_tool
def shell(command: str) -> str:
    """Runs a shell command in the current directory."""
    p = subprocess.run(["sh", "-c", command], capture_output=True, text=True)
    return f"exit {p.returncode}\n{p.stdout}{p.stderr}"


@function_tool(failure_error_function=None)
def explode(what: str) -> str:
    """Always fails, with the exception escaping the tool."""
    raise RuntimeError(f"EXPLODED-{what}")


@function_tool
def fragile(what: str) -> str:
    """Always fails; the SDK's default failure handling answers the model."""
    raise RuntimeError(f"BROKE-{what}")


def make_agent(fake: Any, tools: List[Any] = [shell]) -> Agent[Any]:
    client = AsyncOpenAI(base_url=fake.url, api_key="test-key")
    model_class = OpenAIResponsesModel if fake.api == "responses" else OpenAIChatCompletionsModel
    return Agent(name="t", instructions="use the shell", tools=tools,
                 model=model_class(model="fake-model", openai_client=client))


def run(hx: Hookexec, agent: Any, prompt: Any) -> Any:
    return asyncio.run(hx.run(agent, prompt))


def shell_turn(command: str, text: str = "") -> Dict[str, Any]:
    return {"tools": [{"name": "shell", "input": {"command": command}}], "text": text}


def tool_messages(body: Dict[str, Any]) -> List[str]:
    return [str(m.get("content")) for m in body["messages"] if m.get("role") == "tool"]


def echo(obj: Dict[str, Any]) -> str:
    return "echo " + json.dumps(json.dumps(obj))  # a hook command printing obj as JSON


@pytest.mark.parametrize("api", ["chat", "responses"])
def test_block_reason_reaches_model_and_command_does_not_run(project: Any, fake_model: Any, api: str) -> None:
    # A Claude Code matcher on Bash catches the framework's `shell` (tool-name mapping).
    project.settings(project.hook("PreToolUse", "echo 'no touching here' >&2; exit 2", matcher="Bash"))
    fake = fake_model(api, [shell_turn("touch ran")])
    with Hookexec() as hx:
        result = run(hx, make_agent(fake), "touch a file")
    assert not (project.path / "ran").exists()
    reqs = fake.requests()
    assert len(reqs) == 2
    if api == "chat":
        assert any("no touching here" in m for m in tool_messages(reqs[1]))
    else:
        outputs = [i for i in reqs[1]["input"] if i.get("type") == "function_call_output"]
        assert len(outputs) == 1 and "no touching here" in str(outputs[0]["output"])
    assert result.final_output == "done"


def test_handoff_agents_are_governed(project: Any, fake_model: Any) -> None:
    project.settings(project.hook("PreToolUse", "echo 'HANDOFF-GUARD' >&2; exit 2", matcher="Bash"))
    fake = fake_model("chat", [{"tools": [{"name": "transfer_to_helper", "input": {}}]}, shell_turn("touch ran")])
    helper = make_agent(fake)
    helper.name = "helper"
    front = make_agent(fake, [])
    front.handoffs = [helper]
    with Hookexec() as hx:
        run(hx, front, "go")
    assert not (project.path / "ran").exists()
    assert "HANDOFF-GUARD" in fake.text()


def test_no_matching_hook_passes_untouched(project: Any, fake_model: Any) -> None:
    project.settings(project.hook("PreToolUse", "exit 2", matcher="Write"))
    fake = fake_model("chat", [shell_turn("echo hello-out > ran; cat ran")])
    with Hookexec() as hx:
        run(hx, make_agent(fake), "go")
    assert (project.path / "ran").read_text() == "hello-out\n"
    assert tool_messages(fake.requests()[1]) == ["exit 0\nhello-out\n"]


def test_updated_input_is_what_the_tool_runs(project: Any, fake_model: Any) -> None:
    project.settings(project.hook("PreToolUse", echo({"hookSpecificOutput": {
        "hookEventName": "PreToolUse", "permissionDecision": "allow",
        "updatedInput": {"command": "touch rewritten"}}}), matcher="Bash"))
    fake = fake_model("chat", [shell_turn("touch original")])
    with Hookexec() as hx:
        run(hx, make_agent(fake), "go")
    assert (project.path / "rewritten").exists()
    assert not (project.path / "original").exists()


def test_additional_context_after_a_tool(project: Any, fake_model: Any) -> None:
    project.settings(project.hook("PostToolUse", echo({"hookSpecificOutput": {
        "hookEventName": "PostToolUse", "additionalContext": "CTX-AFTER-TOOL"}}), matcher="Bash"))
    fake = fake_model("chat", [shell_turn("echo x")])
    with Hookexec() as hx:
        run(hx, make_agent(fake), "go")
    msgs = tool_messages(fake.requests()[1])
    assert len(msgs) == 1 and msgs[0].startswith("exit 0\nx\n") and "CTX-AFTER-TOOL" in msgs[0]


def test_post_tool_use_feedback_and_updated_output(project: Any, fake_model: Any) -> None:
    # PostToolUse cannot un-run a tool: its reason is feedback beside the output, and
    # updatedToolOutput replaces what the model reads.
    project.settings(project.hook("PostToolUse", echo({"decision": "block", "reason": "POST-FEEDBACK", "hookSpecificOutput": {
        "hookEventName": "PostToolUse", "updatedToolOutput": "REDACTED-OUTPUT"}}), matcher="Bash"))
    fake = fake_model("chat", [shell_turn("echo SECRET-VALUE")])
    with Hookexec() as hx:
        run(hx, make_agent(fake), "go")
    msgs = tool_messages(fake.requests()[1])
    assert len(msgs) == 1 and "REDACTED-OUTPUT" in msgs[0] and "POST-FEEDBACK" in msgs[0]
    assert "SECRET-VALUE" not in msgs[0]


def test_additional_context_on_the_prompt(project: Any, fake_model: Any) -> None:
    project.settings(project.hook("UserPromptSubmit", echo({"hookSpecificOutput": {
        "hookEventName": "UserPromptSubmit", "additionalContext": "CTX-ON-PROMPT"}})))
    fake = fake_model("chat", [{"text": "hi"}])
    with Hookexec() as hx:
        run(hx, make_agent(fake), "hello")
    first = json.dumps(fake.requests()[0])
    assert "CTX-ON-PROMPT" in first and "hello" in first


def test_prompt_block_never_calls_the_model(project: Any, fake_model: Any) -> None:
    project.settings(project.hook("UserPromptSubmit", "echo 'PROMPT-REFUSED' >&2; exit 2"))
    fake = fake_model("chat", [{"text": "hi"}])
    with Hookexec() as hx, pytest.raises(PromptBlocked, match="PROMPT-REFUSED"):
        run(hx, make_agent(fake), "hello")
    assert fake.all_requests() == []


def test_stop_block_makes_the_agent_go_on(project: Any, fake_model: Any) -> None:
    # Blocks the first Stop only (a marker file), with the reason as the instruction.
    project.settings(project.hook("Stop", "if [ -e stopped ]; then exit 0; fi; touch stopped; "
                                  + echo({"decision": "block", "reason": "GO-ON-REASON"})))
    fake = fake_model("chat", [{"text": "first answer"}, {"text": "second answer"}])
    with Hookexec() as hx:
        result = run(hx, make_agent(fake), "hello")
    assert result.final_output == "second answer"
    reqs = fake.requests()
    assert len(reqs) == 2
    last_user = [m for m in reqs[1]["messages"] if m.get("role") == "user"][-1]
    assert "GO-ON-REASON" in str(last_user["content"])


def test_continue_false_ends_the_run(project: Any, fake_model: Any) -> None:
    project.settings(project.hook("PreToolUse", echo({"continue": False, "stopReason": "HALT-NOW"}), matcher="Bash"))
    fake = fake_model("chat", [shell_turn("touch ran"), {"text": "never"}])
    with Hookexec() as hx, pytest.raises(RunStopped, match="HALT-NOW"):
        run(hx, make_agent(fake), "go")
    assert not (project.path / "ran").exists()
    assert len(fake.requests()) == 1  # the model was not called again


def test_system_message_reaches_the_callback(project: Any, fake_model: Any) -> None:
    project.settings(project.hook("PreToolUse", echo({"systemMessage": "SYS-MESSAGE"}), matcher="Bash"))
    fake = fake_model("chat", [shell_turn("touch ran")])
    seen: List[str] = []
    with Hookexec(on_system_message=seen.append) as hx:
        run(hx, make_agent(fake), "go")
    assert seen == ["SYS-MESSAGE"]
    assert (project.path / "ran").exists()


ASK = {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "ask",
                              "permissionDecisionReason": "ASK-REASON"}}


@pytest.mark.parametrize("approve", [True, False])
def test_ask_uses_the_sdk_approval(project: Any, fake_model: Any, approve: bool) -> None:
    project.settings(project.hook("PreToolUse", echo(ASK), matcher="Bash"))
    fake = fake_model("chat", [shell_turn("touch ran")])
    agent = make_agent(fake)

    async def go() -> Any:
        with Hookexec() as hx:
            result = await hx.run(agent, "go")
            assert [i.tool_name for i in result.interruptions] == ["shell"]
            assert not (project.path / "ran").exists()  # nothing ran while waiting
            state = result.to_state()
            for item in result.interruptions:
                state.approve(item) if approve else state.reject(item)
            return await hx.run(agent, state)

    result = asyncio.run(go())
    assert result.final_output == "done"
    assert (project.path / "ran").exists() is approve
    if not approve:
        assert any("ASK-REASON" in m for m in tool_messages(fake.requests()[-1]))


@pytest.mark.parametrize("answer", [True, False])
def test_ask_settled_by_an_approve_callback(project: Any, fake_model: Any, answer: bool) -> None:
    project.settings(project.hook("PreToolUse", echo(ASK), matcher="Bash"))
    fake = fake_model("chat", [shell_turn("touch ran")])
    asked: List[Any] = []

    def approve(tool: str, tool_input: Dict[str, Any], reason: str) -> bool:
        asked.append((tool, tool_input, reason))
        return answer

    with Hookexec(approve=approve) as hx:
        result = run(hx, make_agent(fake), "go")
    assert not result.interruptions
    assert asked == [("Bash", {"command": "touch ran"}, "ASK-REASON")]
    assert (project.path / "ran").exists() is answer
    if not answer:
        assert any("ASK-REASON" in m for m in tool_messages(fake.requests()[1]))


def test_engine_error_blocks_the_prompt(project: Any, fake_model: Any) -> None:
    engine = Engine("claude", project_dir=str(project.path))
    engine.close()  # every fire now fails: the gate must refuse, not allow
    fake = fake_model("chat", [{"text": "hi"}])
    with pytest.raises(PromptBlocked, match="could not be decided"):
        run(Hookexec(Gate(engine)), make_agent(fake), "go")
    assert fake.all_requests() == []


def test_engine_error_blocks_a_tool_call(project: Any, fake_model: Any) -> None:
    # The engine works for the prompt, then fails (closed by the prompt hook's systemMessage
    # callback) when the tool call is decided: the call must be refused, not allowed.
    project.settings({**project.hook("UserPromptSubmit", echo({"systemMessage": "closing"})),
                      **project.hook("PreToolUse", "exit 0", matcher="Bash")})
    engine = Engine("claude", project_dir=str(project.path))
    fake = fake_model("chat", [shell_turn("touch ran")])
    hx = Hookexec(Gate(engine, on_system_message=lambda _: engine.close()))
    run(hx, make_agent(fake), "go")
    assert not (project.path / "ran").exists()
    assert any("could not be decided" in m for m in tool_messages(fake.requests()[1]))


FAILURE_HOOK = "cat >> failures.jsonl; echo >> failures.jsonl; " + echo({
    "hookSpecificOutput": {"hookEventName": "PostToolUseFailure", "additionalContext": "CTX-FAILURE"}})


def failures(project: Any) -> List[Dict[str, Any]]:
    text = (project.path / "failures.jsonl").read_text()
    return [json.loads(line) for line in text.split("\n") if line.strip()]


def test_tool_failure_fires_post_tool_use_failure(project: Any, fake_model: Any) -> None:
    project.settings(project.hook("PostToolUseFailure", FAILURE_HOOK))
    fake = fake_model("chat", [{"tools": [{"name": "fragile", "input": {"what": "a"}}]}])
    with Hookexec() as hx:
        run(hx, make_agent(fake, [fragile]), "go")
    fired = failures(project)
    assert [(f["tool_name"], f["tool_input"]) for f in fired] == [("fragile", {"what": "a"})]
    assert "BROKE-a" in fired[0]["error"]
    # The SDK's default failure handling answers the model: with the hook's context.
    assert any("CTX-FAILURE" in m for m in tool_messages(fake.requests()[1]))


def test_escaping_tool_exception_fires_post_tool_use_failure(project: Any, fake_model: Any) -> None:
    project.settings(project.hook("PostToolUseFailure", FAILURE_HOOK))
    fake = fake_model("chat", [{"tools": [{"name": "explode", "input": {"what": "b"}}]}])
    with Hookexec() as hx, pytest.raises(UserError, match="EXPLODED-b"):
        run(hx, make_agent(fake, [explode]), "go")  # failure_error_function=None: the run fails
    fired = failures(project)
    assert [(f["tool_name"], f["tool_input"]) for f in fired] == [("explode", {"what": "b"})]
    assert "EXPLODED-b" in fired[0]["error"]


def test_example_runs_against_the_fake(project: Any, fake_model: Any) -> None:
    project.settings(project.hook("PreToolUse", "if grep -q 'rm -f'; then echo 'EXAMPLE-GUARD: no rm' >&2; exit 2; fi", matcher="Bash"))
    fake = fake_model("chat", [shell_turn("rm -f keep"), shell_turn("echo ok > made"), {"text": "all finished"}])
    (project.path / "keep").write_text("x")
    env = {"OPENAI_BASE_URL": fake.url, "OPENAI_API_KEY": "test-key", "OPENAI_AGENTS_DISABLE_TRACING": "1",
           "HOOKEXEC_EXAMPLE_MODEL": "fake-model",
           # the venv this test runs in, not a new one under the project's HOME
           "HOOKEXEC_FRAMEWORK_CACHE": str(Path(sys.prefix).parent)}
    cp = run_example("openai-agents", "tidy up", env, project.path)
    assert cp.returncode == 0, cp.stderr
    assert cp.stdout.strip() == "all finished"
    assert (project.path / "keep").exists()
    assert (project.path / "made").read_text() == "ok\n"
    assert "EXAMPLE-GUARD" in fake.text()


def test_stop_blocks_are_bounded(project: Any, fake_model: Any) -> None:
    project.settings(project.hook("Stop", echo({"decision": "block", "reason": "NEVER-DONE"})))
    fake = fake_model("chat", [{"text": "a"}, {"text": "b"}, {"text": "c"}, {"text": "d"}, {"text": "e"}])
    with Hookexec(max_stop_blocks=2) as hx:
        result = run(hx, make_agent(fake), "hello")
    assert len(fake.requests()) == 3  # the first answer and two go-ons
    assert result.final_output == "c"


def test_session_events_and_runner_run_with_run_hooks(project: Any, fake_model: Any) -> None:
    log = "cat >> events.jsonl; echo >> events.jsonl"
    project.settings({**project.hook("SessionStart", log), **project.hook("SessionEnd", log),
                      **project.hook("Stop", log), **project.hook("PreToolUse", "exit 2", matcher="Bash")})
    fake = fake_model("chat", [shell_turn("touch ran"), {"text": "finished"}])
    from agents import Runner

    with Hookexec() as hx:
        result = asyncio.run(Runner.run(hx.govern(make_agent(fake)), "go", hooks=hx.hooks))
        assert result.final_output == "finished"
    assert not (project.path / "ran").exists()  # governed without hx.run
    events = [json.loads(line) for line in (project.path / "events.jsonl").read_text().split("\n") if line.strip()]
    assert [e["hook_event_name"] for e in events] == ["SessionStart", "Stop", "SessionEnd"]
    assert events[1]["last_assistant_message"] == "finished"
    assert len({e["session_id"] for e in events}) == 1


def test_session_start_context_reaches_the_model(project: Any, fake_model: Any) -> None:
    project.settings(project.hook("SessionStart", echo({"hookSpecificOutput": {
        "hookEventName": "SessionStart", "additionalContext": "CTX-SESSION"}})))
    fake = fake_model("chat", [{"text": "hi"}])
    with Hookexec() as hx:
        run(hx, make_agent(fake), "hello")
    assert "CTX-SESSION" in json.dumps(fake.requests()[0])


def test_a_kept_verdict_serves_only_the_same_arguments(project: Any) -> None:
    """The model picks call ids: a verdict kept for one call must not pass another call that
    reuses its id with different arguments (found by the attacker review). The SDK's guardrail
    data is built by hand here because the SDK itself skips needs_approval only on a resumed,
    approved call; the governed tool and its guardrail are the real ones."""
    from types import SimpleNamespace

    project.settings(project.hook("PreToolUse", "jq -e '.tool_input.command|test(\"rm\")' >/dev/null && { echo 'no rm' >&2; exit 2; }; exit 0", "Bash"))
    with Hookexec() as hx:
        governed = hx.tool(shell)
        assert asyncio.run(governed.needs_approval(None, {"command": "echo hi"}, "call_1")) is False
        ctx = SimpleNamespace(tool_call_id="call_1", tool_arguments=json.dumps({"command": "rm -rf x"}), is_tool_approved=lambda *_: True)
        out = asyncio.run(governed.tool_input_guardrails[0].guardrail_function(SimpleNamespace(context=ctx)))
        assert out.behavior["type"] == "reject_content" and "no rm" in out.behavior["message"]
