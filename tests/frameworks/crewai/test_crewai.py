"""hookexec.integrations.crewai against the real CrewAI (pinned in
examples/frameworks/crewai/requirements.txt) and the fake Chat Completions API: each behaviour
is checked by what reached the model or what the shell tool really ran."""

from __future__ import annotations

import json
import os
import subprocess
from typing import Any, Dict, Iterator, List

import pytest

os.environ.setdefault("CREWAI_DISABLE_TELEMETRY", "true")
os.environ.setdefault("OTEL_SDK_DISABLED", "true")

from crewai import LLM, Agent, Crew, Task  # noqa: E402
from crewai.tools import tool  # noqa: E402

from hookexec import Engine  # noqa: E402
from hookexec.integrations import Gate, RunStopped  # noqa: E402
from hookexec.integrations.crewai import CrewAIHooks, PromptBlocked, govern, hooks_of  # noqa: E402

from conftest import run_example  # noqa: E402

# The example's venv comes from the cache env.sh already filled, not the test's own HOME.
EXAMPLE_ENV = {"HOOKEXEC_FRAMEWORK_CACHE": os.environ.get("HOOKEXEC_FRAMEWORK_CACHE", os.path.expanduser("~/.cache/hookexec/frameworks"))}


@tool("shell")
def shell(command: str) -> str:
    """Runs a shell command with sh -c in the current directory and returns its output."""
    p = subprocess.run(["sh", "-c", command], capture_output=True, text=True, timeout=60)
    if p.returncode != 0:
        raise RuntimeError(f"exit status {p.returncode}: {p.stderr.strip()}")
    return p.stdout.strip()


def answer(hook_json: Dict[str, Any]) -> str:
    return "cat >/dev/null; printf '%s' " + "'" + json.dumps(hook_json) + "'"


def pre(decision: str, reason: str = "", **more: Any) -> Dict[str, Any]:
    out: Dict[str, Any] = {"hookEventName": "PreToolUse", "permissionDecision": decision, **more}
    if reason:
        out["permissionDecisionReason"] = reason
    return {"hookSpecificOutput": out}


def call(command: str) -> Dict[str, Any]:
    return {"tools": [{"name": "shell", "input": {"command": command}}]}


def crew_for(fake: Any) -> Crew:
    llm = LLM(model="openai/fake-model", base_url=fake.url, api_key="test")
    agent = Agent(role="operator", goal="run commands", backstory="careful", tools=[shell], llm=llm, max_iter=5)
    task = Task(description="THE-TASK: do it", expected_output="a sentence", agent=agent)
    return Crew(agents=[agent], tasks=[task])


@pytest.fixture
def governed(project: Any) -> Iterator[Any]:
    """``governed(crew, **gate_options)``: the crew governed; its hooks unregistered after."""
    made: List[CrewAIHooks] = []

    def make(crew: Crew, **options: Any) -> Crew:
        govern(crew, **options)
        made.append(hooks_of(crew))
        return crew

    yield make
    for h in made:
        h.close()


def tool_message(fake: Any, n: int) -> str:
    """The tool results the n-th main request carried back to the model."""
    return json.dumps([m for m in fake.requests()[n]["messages"] if m["role"] == "tool"])


def test_block_reason_reaches_model_and_command_does_not_run(project: Any, fake_model: Any, governed: Any) -> None:
    project.settings(project.hook("PreToolUse", answer(pre("deny", "NO-TOUCHING")), matcher="Bash"))
    fake = fake_model("chat", [call("touch ran"), {"text": "finished"}])
    assert governed(crew_for(fake)).kickoff().raw == "finished"
    assert not (project.path / "ran").exists()
    assert "NO-TOUCHING" in tool_message(fake, 1)


def test_updated_input_is_what_runs(project: Any, fake_model: Any, governed: Any) -> None:
    project.settings(project.hook("PreToolUse", answer(pre("allow", updatedInput={"command": "touch rewritten"})), matcher="Bash"))
    fake = fake_model("chat", [call("touch original"), {"text": "finished"}])
    governed(crew_for(fake)).kickoff()
    assert (project.path / "rewritten").exists() and not (project.path / "original").exists()


def test_no_matching_hook_passes_untouched(project: Any, fake_model: Any, governed: Any) -> None:
    project.settings(project.hook("PreToolUse", answer(pre("deny", "NOT-FOR-SHELL")), matcher="Write"))
    fake = fake_model("chat", [call("echo OUT-$((40+2))"), {"text": "finished"}])
    governed(crew_for(fake)).kickoff()
    [m] = json.loads(tool_message(fake, 1))
    assert m["content"] == "OUT-42"


def test_hooks_see_canonical_tool_name(project: Any, fake_model: Any, governed: Any) -> None:
    log = project.path / "payloads.jsonl"
    project.settings(project.hook("PreToolUse", f"cat >> {log}; echo >> {log}", matcher="Bash"))
    fake = fake_model("chat", [call("true"), {"text": "finished"}])
    governed(crew_for(fake)).kickoff()
    payloads = [json.loads(line) for line in log.read_text().splitlines() if line.strip()]
    assert [(p["tool_name"], p["tool_input"]) for p in payloads] == [("Bash", {"command": "true"})]


def test_ungoverned_agents_are_left_alone(project: Any, fake_model: Any, governed: Any) -> None:
    project.settings(project.hook("PreToolUse", answer(pre("deny", "NO-TOUCHING")), matcher="Bash"))
    other = fake_model("chat", [call("touch other"), {"text": "finished"}])
    fake = fake_model("chat", [{"text": "finished"}])
    governed(crew_for(fake))
    crew_for(other).kickoff()  # not governed: CrewAI's hooks are global, the adapter's act for its agents only
    assert (project.path / "other").exists()


def test_post_tool_additional_context_follows_the_output(project: Any, fake_model: Any, governed: Any) -> None:
    ctx = {"hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": "CTX-AFTER-TOOL"}}
    project.settings(project.hook("PostToolUse", answer(ctx), matcher="Bash"))
    fake = fake_model("chat", [call("echo TOOL-OUT"), {"text": "finished"}])
    governed(crew_for(fake)).kickoff()
    [m] = json.loads(tool_message(fake, 1))
    assert m["content"] == "TOOL-OUT\n\nCTX-AFTER-TOOL"


def test_tool_failure_fires_post_tool_use_failure(project: Any, fake_model: Any, governed: Any) -> None:
    log = project.path / "failures.jsonl"
    project.settings(project.hook("PostToolUseFailure", f"cat >> {log}; echo >> {log}", matcher="Bash"))
    fake = fake_model("chat", [call("exit 3"), {"text": "finished"}])
    governed(crew_for(fake)).kickoff()
    [p] = [json.loads(line) for line in log.read_text().splitlines() if line.strip()]
    assert p["tool_name"] == "Bash" and "exit status 3" in p["error"]


def test_prompt_additional_context_reaches_the_model(project: Any, fake_model: Any, governed: Any) -> None:
    ctx = {"hookSpecificOutput": {"hookEventName": "UserPromptSubmit", "additionalContext": "CTX-ON-PROMPT"}}
    log = project.path / "prompts.jsonl"
    project.settings({**project.hook("UserPromptSubmit", answer(ctx)), **project.hook("SessionStart", f"cat >> {log}")})
    fake = fake_model("chat", [{"text": "finished"}])
    governed(crew_for(fake)).kickoff()
    [user] = [m["content"] for m in fake.requests()[0]["messages"] if m["role"] == "user"]
    assert "THE-TASK" in user and user.endswith("CTX-ON-PROMPT")
    assert json.loads(log.read_text())["hook_event_name"] == "SessionStart"


def test_prompt_block_never_calls_the_model(project: Any, fake_model: Any, governed: Any) -> None:
    project.settings(project.hook("UserPromptSubmit", answer({"decision": "block", "reason": "NO-SUCH-TASK"})))
    fake = fake_model("chat", [{"text": "finished"}])
    with pytest.raises(PromptBlocked, match="NO-SUCH-TASK"):
        governed(crew_for(fake)).kickoff()
    assert fake.all_requests() == []


def test_stop_block_makes_the_agent_redo_the_task(project: Any, fake_model: Any, governed: Any) -> None:
    hook = "grep -Eq '\"stop_hook_active\": ?true' && exit 0; printf '%s' '{\"decision\":\"block\",\"reason\":\"KEEP-GOING\"}'"
    project.settings(project.hook("Stop", hook))
    fake = fake_model("chat", [{"text": "first"}])
    out = governed(crew_for(fake)).kickoff()
    bodies = fake.requests()
    # CrewAI redoes the task with the guardrail's error (the hook's reason) in the prompt.
    assert len(bodies) == 2 and "KEEP-GOING" not in json.dumps(bodies[0]) and "KEEP-GOING" in json.dumps(bodies[1])
    assert out.raw == "first"


def test_continue_false_ends_the_run(project: Any, fake_model: Any, governed: Any) -> None:
    project.settings(project.hook("PreToolUse", answer({"continue": False, "stopReason": "HALT-NOW"}), matcher="Bash"))
    fake = fake_model("chat", [call("touch ran"), call("touch ran2"), {"text": "finished"}])
    with pytest.raises(RunStopped, match="HALT-NOW"):
        governed(crew_for(fake)).kickoff()
    assert len(fake.all_requests()) == 1
    assert not (project.path / "ran").exists()


def test_system_message_reaches_the_callback(project: Any, fake_model: Any, governed: Any) -> None:
    project.settings(project.hook("PreToolUse", answer({"systemMessage": "SYS-NOTE"}), matcher="Bash"))
    fake = fake_model("chat", [call("touch ran"), {"text": "finished"}])
    seen: List[str] = []
    governed(crew_for(fake), on_system_message=seen.append).kickoff()
    assert seen == ["SYS-NOTE"] and (project.path / "ran").exists()


@pytest.mark.parametrize("approved", [True, False])
def test_ask_is_settled_by_the_approver(project: Any, fake_model: Any, governed: Any, approved: bool) -> None:
    project.settings(project.hook("PreToolUse", answer(pre("ask", "ASK-FIRST")), matcher="Bash"))
    fake = fake_model("chat", [call("touch ran"), {"text": "finished"}])
    asked: List[Any] = []

    def approve(name: str, tool_input: Dict[str, Any], reason: str) -> bool:
        asked.append((name, tool_input, reason))
        return approved

    governed(crew_for(fake), approve=approve).kickoff()
    assert asked == [("Bash", {"command": "touch ran"}, "ASK-FIRST")]
    assert (project.path / "ran").exists() == approved
    assert ("ASK-FIRST" in tool_message(fake, 1)) != approved


def test_engine_error_blocks(project: Any, fake_model: Any) -> None:
    project.settings(project.hook("PreToolUse", answer(pre("allow")), matcher="Bash"))
    fake = fake_model("chat", [call("touch ran"), {"text": "finished"}])
    engine = Engine("claude", project_dir=str(project.path))
    engine.close()  # every fire now fails
    crew = crew_for(fake)
    with CrewAIHooks(Gate(engine)) as hooks:
        hooks.govern(crew)
        with pytest.raises(PromptBlocked, match="could not be decided"):
            crew.kickoff()
    assert fake.all_requests() == []


def test_engine_error_blocks_a_tool_call(project: Any, fake_model: Any) -> None:
    from crewai.hooks import register_before_llm_call_hook, unregister_before_llm_call_hook

    project.settings({})
    fake = fake_model("chat", [call("touch ran"), {"text": "finished"}])
    engine = Engine("claude", project_dir=str(project.path))
    crew = crew_for(fake)

    def close_engine(ctx: Any) -> None:  # runs after the adapter's prompt hook
        engine.close()

    with CrewAIHooks(Gate(engine)) as hooks:
        hooks.govern(crew)
        register_before_llm_call_hook(close_engine)
        try:
            # Stop fails closed too: the task's guardrail refuses every answer.
            with pytest.raises(Exception, match="Stop could not be decided"):
                crew.kickoff()
        finally:
            unregister_before_llm_call_hook(close_engine)
    assert not (project.path / "ran").exists()
    assert "could not be decided" in tool_message(fake, 1)


def test_example_blocks_a_dangerous_command(project: Any, fake_model: Any) -> None:
    guard = "grep -q 'rm -rf' && { echo 'GUARD: no rm -rf' >&2; exit 2; }; exit 0"
    project.settings(project.hook("PreToolUse", guard, matcher="Bash"))
    (project.path / "keep").write_text("x")
    fake = fake_model("chat", [call("rm -rf keep"), call("echo hello > greeting"), {"text": "all done"}])
    env = {**EXAMPLE_ENV, "OPENAI_BASE_URL": fake.url, "OPENAI_API_KEY": "test", "HOOKEXEC_EXAMPLE_MODEL": "fake-model"}
    cp = run_example("crewai", "clean up and greet", env, project.path)
    assert cp.returncode == 0, cp.stderr
    assert cp.stdout.strip().splitlines()[-1] == "all done"
    assert (project.path / "keep").exists()
    assert (project.path / "greeting").read_text().strip() == "hello"
    assert "GUARD: no rm -rf" in tool_message(fake, 1)
