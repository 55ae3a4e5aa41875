"""hookexec.integrations.smolagents against the real smolagents (pinned in
examples/frameworks/smolagents/requirements.txt) and the fake Chat Completions API: each
behaviour is checked by what reached the model or what the shell tool really ran."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any, Dict, List

import pytest
from smolagents import CodeAgent, OpenAIServerModel, ToolCallingAgent, tool

from hookexec import Engine
from hookexec.integrations import Gate, RunStopped
from hookexec.integrations.smolagents import PromptBlocked, SmolagentsHooks, govern

from conftest import run_example

# The example's venv comes from the cache env.sh already filled, not the test's own HOME.
EXAMPLE_ENV = {"HOOKEXEC_FRAMEWORK_CACHE": os.environ.get("HOOKEXEC_FRAMEWORK_CACHE", os.path.expanduser("~/.cache/hookexec/frameworks"))}


@tool
def shell(command: str) -> str:
    """Runs a shell command in the current directory and returns its output.

    Args:
        command: the command line, run with sh -c
    """
    p = subprocess.run(["sh", "-c", command], capture_output=True, text=True, timeout=60)
    if p.returncode != 0:
        raise RuntimeError(f"exit status {p.returncode}: {p.stderr.strip()}")
    return p.stdout.strip()


def answer(hook_json: Dict[str, Any]) -> str:
    """A hook command that reads its payload and prints ``hook_json``."""
    return "cat >/dev/null; printf '%s' " + "'" + json.dumps(hook_json) + "'"


def pre(decision: str, reason: str = "", **more: Any) -> Dict[str, Any]:
    out: Dict[str, Any] = {"hookEventName": "PreToolUse", "permissionDecision": decision, **more}
    if reason:
        out["permissionDecisionReason"] = reason
    return {"hookSpecificOutput": out}


def call(command: str) -> Dict[str, Any]:
    return {"tools": [{"name": "shell", "input": {"command": command}}]}


def final(text: str) -> Dict[str, Any]:
    return {"tools": [{"name": "final_answer", "input": {"answer": text}}]}


def agent_for(fake: Any, **gate_options: Any) -> Any:
    model = OpenAIServerModel(model_id="fake-model", api_base=fake.url, api_key="test")
    return govern(ToolCallingAgent(tools=[shell], model=model, max_steps=4, verbosity_level=-1), **gate_options)


def tool_texts(fake: Any, n: int) -> str:
    """The text of the n-th main request's messages after the task: what the model read back."""
    return json.dumps(fake.requests()[n]["messages"][2:])


def test_block_reason_reaches_model_and_command_does_not_run(project: Any, fake_model: Any) -> None:
    project.settings(project.hook("PreToolUse", answer(pre("deny", "NO-TOUCHING")), matcher="Bash"))
    fake = fake_model("chat", [call("touch ran"), final("ok")])
    agent = agent_for(fake)
    assert agent.run("make a file") == "ok"
    agent.hookexec.close()
    assert not (project.path / "ran").exists()
    assert "NO-TOUCHING" not in tool_texts(fake, 0)
    assert "NO-TOUCHING" in tool_texts(fake, 1)


def test_updated_input_is_what_runs(project: Any, fake_model: Any) -> None:
    rewrite = pre("allow", updatedInput={"command": "touch rewritten"})
    project.settings(project.hook("PreToolUse", answer(rewrite), matcher="Bash"))
    fake = fake_model("chat", [call("touch original"), final("ok")])
    agent_for(fake).run("make a file")
    assert (project.path / "rewritten").exists()
    assert not (project.path / "original").exists()


def test_no_matching_hook_passes_untouched(project: Any, fake_model: Any) -> None:
    project.settings(project.hook("PreToolUse", answer(pre("deny", "NOT-FOR-SHELL")), matcher="Write"))
    fake = fake_model("chat", [call("echo OUT-$((40+2))"), final("ok")])
    agent_for(fake).run("echo")
    text = tool_texts(fake, 1)
    assert "OUT-42" in text and "NOT-FOR-SHELL" not in text


def test_hooks_see_canonical_tool_name_and_input(project: Any, fake_model: Any) -> None:
    log = project.path / "payloads.jsonl"
    project.settings(project.hook("PreToolUse", f"cat >> {log}; echo >> {log}", matcher="Bash"))
    fake = fake_model("chat", [call("true"), final("ok")])
    agent_for(fake).run("run true")
    payloads = [json.loads(line) for line in log.read_text().splitlines() if line.strip()]
    assert [(p["tool_name"], p["tool_input"]) for p in payloads] == [("Bash", {"command": "true"})]


def test_post_tool_additional_context_follows_the_output(project: Any, fake_model: Any) -> None:
    ctx = {"hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": "CTX-AFTER-TOOL"}}
    project.settings(project.hook("PostToolUse", answer(ctx), matcher="Bash"))
    fake = fake_model("chat", [call("echo TOOL-OUT"), final("ok")])
    agent_for(fake).run("echo")
    text = tool_texts(fake, 1)
    assert "TOOL-OUT" in text and "CTX-AFTER-TOOL" in text
    assert text.index("TOOL-OUT") < text.index("CTX-AFTER-TOOL")


def test_tool_failure_fires_post_tool_use_failure(project: Any, fake_model: Any) -> None:
    log = project.path / "failures.jsonl"
    project.settings(project.hook("PostToolUseFailure", f"cat >> {log}; echo >> {log}", matcher="Bash"))
    fake = fake_model("chat", [call("echo broken >&2; exit 3"), final("ok")])
    agent_for(fake).run("fail")
    [p] = [json.loads(line) for line in log.read_text().splitlines() if line.strip()]
    assert p["tool_name"] == "Bash" and "exit status 3" in p["error"]
    assert "exit status 3" in tool_texts(fake, 1)


def test_prompt_additional_context_reaches_the_model(project: Any, fake_model: Any) -> None:
    ctx = {"hookSpecificOutput": {"hookEventName": "UserPromptSubmit", "additionalContext": "CTX-ON-PROMPT"}}
    project.settings(project.hook("UserPromptSubmit", answer(ctx)))
    fake = fake_model("chat", [final("ok")])
    agent_for(fake).run("the task")
    first = json.dumps(fake.requests()[0]["messages"])
    assert "the task" in first and "CTX-ON-PROMPT" in first


def test_prompt_block_never_calls_the_model(project: Any, fake_model: Any) -> None:
    project.settings(project.hook("UserPromptSubmit", answer({"decision": "block", "reason": "NO-SUCH-TASK"})))
    fake = fake_model("chat", [final("ok")])
    with pytest.raises(PromptBlocked, match="NO-SUCH-TASK"):
        agent_for(fake).run("the task")
    assert fake.all_requests() == []


def test_stop_block_makes_the_agent_go_on(project: Any, fake_model: Any) -> None:
    # Blocks the first final answer only: a second Stop has stop_hook_active true.
    hook = "grep -Eq '\"stop_hook_active\": ?true' && exit 0; printf '%s' '{\"decision\":\"block\",\"reason\":\"KEEP-GOING\"}'"
    project.settings(project.hook("Stop", hook))
    fake = fake_model("chat", [final("first"), final("second")])
    assert agent_for(fake).run("answer") == "second"
    assert len(fake.requests()) == 2
    assert "KEEP-GOING" in tool_texts(fake, 1)


def test_continue_false_ends_the_run(project: Any, fake_model: Any) -> None:
    project.settings(project.hook("PreToolUse", answer({"continue": False, "stopReason": "HALT-NOW"}), matcher="Bash"))
    fake = fake_model("chat", [call("touch ran"), call("touch ran2"), final("ok")])
    with pytest.raises(RunStopped, match="HALT-NOW"):
        agent_for(fake).run("go")
    assert len(fake.requests()) == 1
    assert not (project.path / "ran").exists() and not (project.path / "ran2").exists()


def test_post_tool_continue_false_ends_the_run_after_the_tool(project: Any, fake_model: Any) -> None:
    project.settings(project.hook("PostToolUse", answer({"continue": False, "stopReason": "ENOUGH"}), matcher="Bash"))
    fake = fake_model("chat", [call("touch ran"), call("touch ran2"), final("ok")])
    with pytest.raises(RunStopped, match="ENOUGH"):
        agent_for(fake).run("go")
    assert (project.path / "ran").exists() and not (project.path / "ran2").exists()
    assert len(fake.requests()) == 1


def test_system_message_reaches_the_callback(project: Any, fake_model: Any) -> None:
    project.settings(project.hook("PreToolUse", answer({"systemMessage": "SYS-NOTE"}), matcher="Bash"))
    fake = fake_model("chat", [call("touch ran"), final("ok")])
    seen: List[str] = []
    agent_for(fake, on_system_message=seen.append).run("go")
    assert seen == ["SYS-NOTE"]
    assert (project.path / "ran").exists()


@pytest.mark.parametrize("approved", [True, False])
def test_ask_is_settled_by_the_approver(project: Any, fake_model: Any, approved: bool) -> None:
    project.settings(project.hook("PreToolUse", answer(pre("ask", "ASK-FIRST")), matcher="Bash"))
    fake = fake_model("chat", [call("touch ran"), final("ok")])
    asked: List[Any] = []

    def approve(name: str, tool_input: Dict[str, Any], reason: str) -> bool:
        asked.append((name, tool_input, reason))
        return approved

    agent_for(fake, approve=approve).run("go")
    assert asked == [("Bash", {"command": "touch ran"}, "ASK-FIRST")]
    assert (project.path / "ran").exists() == approved
    assert ("ASK-FIRST" in tool_texts(fake, 1)) != approved


def test_engine_error_blocks(project: Any, fake_model: Any) -> None:
    project.settings(project.hook("PreToolUse", answer(pre("allow")), matcher="Bash"))
    fake = fake_model("chat", [call("touch ran"), final("ok")])
    engine = Engine("claude", project_dir=str(project.path))
    engine.close()  # every fire now fails
    model = OpenAIServerModel(model_id="fake-model", api_base=fake.url, api_key="test")
    agent = SmolagentsHooks(Gate(engine)).govern(ToolCallingAgent(tools=[shell], model=model, max_steps=3, verbosity_level=-1))
    # A closed engine blocks the prompt first; the tool path is checked without it.
    with pytest.raises(PromptBlocked, match="could not be decided"):
        agent.run("go")
    assert fake.all_requests() == []
    hooks = SmolagentsHooks(Gate(engine))
    governed = hooks.wrap_tool(shell)
    assert "could not be decided" in governed(command="touch ran")
    assert not (project.path / "ran").exists()


def test_code_agent_tools_are_governed(project: Any, fake_model: Any) -> None:
    project.settings(project.hook("PreToolUse", answer(pre("deny", "CODE-BLOCKED")), matcher="Bash"))
    # A CodeAgent sends no tools: every request is answered with the same code.
    fake = fake_model("chat", [], side="<code>\nprint(shell(command='touch ran'))\n</code>")
    model = OpenAIServerModel(model_id="fake-model", api_base=fake.url, api_key="test")
    agent = govern(CodeAgent(tools=[shell], model=model, max_steps=2, verbosity_level=-1))
    agent.run("make a file")
    assert not (project.path / "ran").exists()
    bodies = [r["body"] for r in fake.all_requests()]
    assert len(bodies) >= 2
    assert "CODE-BLOCKED" not in json.dumps(bodies[0]) and "CODE-BLOCKED" in json.dumps(bodies[1])


def test_code_agent_runs_allowed_tools_with_updated_input(project: Any, fake_model: Any) -> None:
    rewrite = pre("allow", updatedInput={"command": "touch rewritten && echo REWRITTEN-OUT"})
    project.settings(project.hook("PreToolUse", answer(rewrite), matcher="Bash"))
    fake = fake_model("chat", [], side="<code>\nprint(shell('touch original'))\n</code>")
    model = OpenAIServerModel(model_id="fake-model", api_base=fake.url, api_key="test")
    govern(CodeAgent(tools=[shell], model=model, max_steps=1, verbosity_level=-1)).run("make a file")
    assert (project.path / "rewritten").exists() and not (project.path / "original").exists()
    assert "REWRITTEN-OUT" in json.dumps([r["body"] for r in fake.all_requests()])


def test_example_blocks_a_dangerous_command(project: Any, fake_model: Any) -> None:
    guard = "grep -q 'rm -rf' && { echo 'GUARD: no rm -rf' >&2; exit 2; }; exit 0"
    project.settings(project.hook("PreToolUse", guard, matcher="Bash"))
    (project.path / "keep").write_text("x")
    fake = fake_model("chat", [call("rm -rf keep"), call("echo hello > greeting"), final("all done")])
    env = {**EXAMPLE_ENV, "OPENAI_BASE_URL": fake.url, "OPENAI_API_KEY": "test", "HOOKEXEC_EXAMPLE_MODEL": "fake-model"}
    cp = run_example("smolagents", "clean up and greet", env, project.path)
    assert cp.returncode == 0, cp.stderr
    assert cp.stdout.strip().splitlines()[-1] == "all done"
    assert (project.path / "keep").exists()
    assert (project.path / "greeting").read_text().strip() == "hello"
    assert "GUARD: no rm -rf" in tool_texts(fake, 1)
