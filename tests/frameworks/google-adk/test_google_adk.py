"""hookexec's Google ADK plugin against the real google-adk (examples/frameworks/google-adk/
requirements.txt) and Gemini through the real google-genai client, pointed at the fake Gemini
API (build/fakeapi -api gemini). Each test checks what reached the model or what the shell
tool really ran, not what the plugin returned."""

from __future__ import annotations

import asyncio
import json
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional

import pytest
from conftest import FakeModel, Project, run_example
from google.adk.agents import LlmAgent
from google.adk.apps import App
from google.adk.runners import InMemoryRunner
from google.genai import types

from hookexec import Engine
from hookexec.integrations.google_adk import HookexecPlugin

APP = "hookexec_test"


def answer(output: Dict[str, Any]) -> str:
    """A hook command that prints ``output`` as its JSON answer (its input is read and dropped)."""
    return f"cat >/dev/null; printf '%s' {shlex.quote(json.dumps(output))}"


def record(name: str) -> str:
    """A hook command that appends its input payload to NAME.jsonl in the project."""
    return f"cat >> {name}.jsonl; echo >> {name}.jsonl"


def recorded(project: Project, name: str) -> List[Dict[str, Any]]:
    f = project.path / f"{name}.jsonl"
    if not f.exists():
        return []
    return [json.loads(line) for line in f.read_text().splitlines() if line.strip()]


def hooks(*entries: Dict[str, Any]) -> Dict[str, Any]:
    out: Dict[str, Any] = {}
    for e in entries:
        for event, matchers in e.items():
            out.setdefault(event, []).extend(matchers)
    return out


def shell(command: str) -> dict:
    """Runs a shell command with sh -c in the current directory; returns its exit code and output."""
    p = subprocess.run(["sh", "-c", command], capture_output=True, text=True, timeout=60)
    return {"exit_code": p.returncode, "output": p.stdout + p.stderr}


class Run:
    """One agent run through the plugin: its events, the plugin, and the ADK session id."""

    def __init__(self, plugin: Any, runner: Any, session_id: str) -> None:
        self.plugin = plugin
        self.runner = runner
        self.session_id = session_id
        self.events: List[Any] = []

    async def send(self, message: Any) -> None:
        async for e in self.plugin.run(self.runner, user_id="u", session_id=self.session_id, new_message=message):
            self.events.append(e)

    def final(self) -> str:
        for e in reversed(self.events):
            if e.content and e.content.parts and any(p.text for p in e.content.parts):
                return "".join(p.text or "" for p in e.content.parts)
        return ""

    def confirmations(self) -> List[Any]:
        return [fc for e in self.events for fc in e.get_function_calls() if fc.name == "adk_request_confirmation"]


def drive(
    project: Project,
    fake_model: Callable[..., FakeModel],
    monkeypatch: pytest.MonkeyPatch,
    script: List[Dict[str, Any]],
    hook_config: Dict[str, Any],
    prompt: str = "do it",
    *,
    tools: Optional[List[Any]] = None,
    agent_options: Optional[Dict[str, Any]] = None,
    then: Optional[Callable[[Run], Any]] = None,
    **plugin_options: Any,
) -> tuple[Run, FakeModel]:
    """Runs an ADK agent (tools: shell) with HookexecPlugin against a fake Gemini answering
    ``script``; ``then(run)`` (async) runs more turns before the runner closes."""
    project.settings(hook_config)
    fake = fake_model("gemini", script)
    monkeypatch.setenv("GOOGLE_GEMINI_BASE_URL", fake.url)
    monkeypatch.setenv("GOOGLE_API_KEY", "fake-key")
    monkeypatch.delenv("GOOGLE_GENAI_USE_VERTEXAI", raising=False)

    async def go() -> Run:
        agent = LlmAgent(name="assistant", model="gemini-2.5-flash", instruction="Use the shell tool.",
                         tools=tools if tools is not None else [shell], **(agent_options or {}))
        plugin = HookexecPlugin(**plugin_options)
        runner = InMemoryRunner(app=App(name=APP, root_agent=agent, plugins=[plugin]))
        session = await runner.session_service.create_session(app_name=APP, user_id="u")
        run = Run(plugin, runner, session.id)
        try:
            await run.send(types.Content(role="user", parts=[types.Part(text=prompt)]))
            if then is not None:
                await then(run)
        finally:
            await runner.close()
        return run

    return asyncio.run(go()), fake


def tool_call(command: str) -> Dict[str, Any]:
    return {"tools": [{"name": "shell", "input": {"command": command}}]}


def function_responses(fake: FakeModel) -> List[Dict[str, Any]]:
    """Every functionResponse of the last request that reached the model."""
    reqs = fake.requests()
    assert reqs, "no request reached the model"
    return [p["functionResponse"] for c in reqs[-1]["contents"] for p in c["parts"] if "functionResponse" in p]


def user_texts(body: Dict[str, Any]) -> List[str]:
    return [p["text"] for c in body["contents"] if c["role"] == "user" for p in c["parts"] if "text" in p]


DENY = {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny",
                               "permissionDecisionReason": "BLOCKED-BY-HOOK: no touching"}}


def test_block_reason_reaches_model_and_command_does_not_run(project: Project, fake_model: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    # A Bash matcher catches ADK's "shell" tool; ADK runs the after-callbacks for the blocked
    # call too, but PostToolUse must not fire for a call that never ran.
    config = hooks(project.hook("PreToolUse", answer(DENY), matcher="Bash"),
                   project.hook("PostToolUse", record("post")))
    run, fake = drive(project, fake_model, monkeypatch, [tool_call("touch ran.txt"), {"text": "ok"}], config)
    assert not (project.path / "ran.txt").exists()
    [fr] = function_responses(fake)
    assert fr["name"] == "shell" and "BLOCKED-BY-HOOK: no touching" in fr["response"]["error"]
    assert recorded(project, "post") == []
    assert run.final() == "ok"


def test_updated_input_is_what_the_tool_runs(project: Project, fake_model: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    rewrite = {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow",
                                      "updatedInput": {"command": "touch rewritten.txt"}}}
    config = hooks(project.hook("PreToolUse", answer(rewrite), matcher="Bash"), project.hook("PostToolUse", record("post")))
    drive(project, fake_model, monkeypatch, [tool_call("touch original.txt"), {"text": "ok"}], config)
    assert (project.path / "rewritten.txt").exists()
    assert not (project.path / "original.txt").exists()
    [post] = recorded(project, "post")
    assert post["tool_input"] == {"command": "touch rewritten.txt"}


def test_additional_context_after_a_tool_reaches_the_model(project: Project, fake_model: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    ctx = {"hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": "CTX-AFTER-TOOL"}}
    config = hooks(project.hook("PostToolUse", answer(ctx), matcher="Bash"))
    _, fake = drive(project, fake_model, monkeypatch, [tool_call("echo hello"), {"text": "ok"}], config)
    [fr] = function_responses(fake)
    assert fr["response"]["additional_context"] == "CTX-AFTER-TOOL"
    assert "hello" in fr["response"]["output"]


def test_post_tool_use_block_reason_reaches_the_model(project: Project, fake_model: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    config = hooks(project.hook("PostToolUse", answer({"decision": "block", "reason": "POST-BLOCK: output leaked a secret"}), matcher="Bash"))
    _, fake = drive(project, fake_model, monkeypatch, [tool_call("echo hello"), {"text": "ok"}], config)
    [fr] = function_responses(fake)
    assert fr["response"]["hook_feedback"] == "POST-BLOCK: output leaked a secret"


def test_additional_context_on_the_prompt_and_session_start(project: Project, fake_model: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    config = hooks(
        project.hook("UserPromptSubmit", answer({"hookSpecificOutput": {"hookEventName": "UserPromptSubmit", "additionalContext": "CTX-ON-PROMPT"}})),
        project.hook("SessionStart", answer({"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": "CTX-SESSION-START"}})),
    )
    _, fake = drive(project, fake_model, monkeypatch, [{"text": "ok"}], config, prompt="hello there")
    first = fake.requests()[0]
    assert user_texts(first) == ["hello there", "CTX-SESSION-START", "CTX-ON-PROMPT"]


def test_prompt_block_never_reaches_the_model(project: Project, fake_model: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    config = hooks(project.hook("UserPromptSubmit", answer({"decision": "block", "reason": "PROMPT-REFUSED"})),
                   project.hook("Stop", record("stop")))
    run, fake = drive(project, fake_model, monkeypatch, [{"text": "ok"}], config, prompt="SECRET-PROMPT")
    assert fake.requests() == []
    assert "PROMPT-REFUSED" in run.final()
    session = asyncio.run(run.runner.session_service.get_session(app_name=APP, user_id="u", session_id=run.session_id))
    assert "SECRET-PROMPT" not in json.dumps([e.model_dump(mode="json") for e in session.events])
    assert recorded(project, "stop") == []


STOP_ONCE = """import json, sys
p = json.load(sys.stdin)
with open("stop.jsonl", "a") as f:
    f.write(json.dumps(p) + "\\n")
if not p.get("stop_hook_active"):
    print(json.dumps({"decision": "block", "reason": "KEEP-GOING: run the tests first"}))
"""


def test_stop_block_makes_the_agent_go_on(project: Project, fake_model: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    (project.path / "stop.py").write_text(STOP_ONCE)
    config = hooks(project.hook("Stop", f"{shlex.quote(sys.executable)} stop.py"))
    run, fake = drive(project, fake_model, monkeypatch, [{"text": "FIRST-ANSWER"}, {"text": "SECOND-ANSWER"}], config)
    reqs = fake.requests()
    assert len(reqs) == 2
    assert user_texts(reqs[1])[-1] == "KEEP-GOING: run the tests first"
    assert run.final() == "SECOND-ANSWER"
    stops = recorded(project, "stop")
    assert [s["stop_hook_active"] for s in stops] == [False, True]
    assert stops[0]["last_assistant_message"] == "FIRST-ANSWER"


def test_continue_false_before_a_tool_ends_the_run(project: Project, fake_model: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    config = hooks(project.hook("PreToolUse", answer({"continue": False, "stopReason": "HALT-NOW"}), matcher="Bash"),
                   project.hook("Stop", record("stop")))
    run, fake = drive(project, fake_model, monkeypatch, [tool_call("touch ran.txt"), {"text": "never"}], config)
    assert len(fake.requests()) == 1
    assert not (project.path / "ran.txt").exists()
    assert run.plugin.stop_reasons[run.session_id] == "HALT-NOW"
    assert recorded(project, "stop") == []


def test_continue_false_after_a_tool_ends_the_run(project: Project, fake_model: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    config = hooks(project.hook("PostToolUse", answer({"continue": False, "stopReason": "HALT-AFTER"}), matcher="Bash"))
    run, fake = drive(project, fake_model, monkeypatch, [tool_call("touch ran.txt"), {"text": "never"}], config)
    assert (project.path / "ran.txt").exists()
    assert len(fake.requests()) == 1
    assert run.plugin.stop_reasons[run.session_id] == "HALT-AFTER"


def test_system_message_reaches_the_callback(project: Project, fake_model: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    seen: List[str] = []
    config = hooks(project.hook("PreToolUse", answer({"systemMessage": "SYS-MESSAGE"}), matcher="Bash"))
    drive(project, fake_model, monkeypatch, [tool_call("touch ran.txt"), {"text": "ok"}], config, on_system_message=seen.append)
    assert seen == ["SYS-MESSAGE"]
    assert (project.path / "ran.txt").exists()


ASK = {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "ask",
                              "permissionDecisionReason": "ASK-REASON: really touch?"}}


@pytest.mark.parametrize("confirmed", [True, False])
def test_ask_uses_adk_tool_confirmation(project: Project, fake_model: Any, monkeypatch: pytest.MonkeyPatch, confirmed: bool) -> None:
    asked: List[Any] = []

    async def then(run: Run) -> None:
        # The run paused on ADK's confirmation request; nothing ran and the model was not
        # asked again. The app answers it as ADK documents: a function response.
        assert not (project.path / "ran.txt").exists()
        [fc] = run.confirmations()
        asked.append(fc)
        reply = types.FunctionResponse(name="adk_request_confirmation", id=fc.id, response={"confirmed": confirmed})
        await run.send(types.Content(role="user", parts=[types.Part(function_response=reply)]))

    config = hooks(project.hook("PreToolUse", answer(ASK), matcher="Bash"))
    run, fake = drive(project, fake_model, monkeypatch, [tool_call("touch ran.txt"), {"text": "ok"}], config, then=then)
    [fc] = asked
    assert fc.args["toolConfirmation"]["hint"] == "ASK-REASON: really touch?"
    assert fc.args["toolConfirmation"]["payload"] == {"tool_name": "Bash", "tool_input": {"command": "touch ran.txt"}}
    assert (project.path / "ran.txt").exists() == confirmed
    [fr] = function_responses(fake)
    if confirmed:
        assert fr["response"]["exit_code"] == 0
    else:
        assert "ASK-REASON: really touch?" in fr["response"]["error"]
    assert run.final() == "ok"


@pytest.mark.parametrize("yes", [True, False])
def test_ask_settled_by_approve(project: Project, fake_model: Any, monkeypatch: pytest.MonkeyPatch, yes: bool) -> None:
    calls: List[Any] = []

    def approve(tool: str, tool_input: Dict[str, Any], reason: str) -> bool:
        calls.append((tool, tool_input, reason))
        return yes

    config = hooks(project.hook("PreToolUse", answer(ASK), matcher="Bash"))
    run, fake = drive(project, fake_model, monkeypatch, [tool_call("touch ran.txt"), {"text": "ok"}], config, approve=approve)
    assert calls == [("Bash", {"command": "touch ran.txt"}, "ASK-REASON: really touch?")]
    assert (project.path / "ran.txt").exists() == yes
    assert run.confirmations() == []
    [fr] = function_responses(fake)
    assert ("approval required" in fr["response"].get("error", "")) != yes


def test_engine_error_blocks_the_tool(project: Project, fake_model: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    # The engine dies between the prompt and the tool call (closed by a model callback):
    # PreToolUse cannot be decided, so the call is refused, never silently allowed.
    project.settings({})
    engine = Engine("claude", project_dir=project.path)

    def close_engine(callback_context: Any, llm_request: Any) -> None:
        if not engine.closed:
            engine.close()
        return None

    run, fake = drive(project, fake_model, monkeypatch, [tool_call("touch ran.txt"), {"text": "ok"}], {},
                      engine=engine, agent_options={"before_model_callback": close_engine})
    assert not (project.path / "ran.txt").exists()
    [fr] = function_responses(fake)
    assert "PreToolUse could not be decided" in fr["response"]["error"]
    assert run.final() == "ok"


def test_closed_engine_refuses_the_prompt(project: Project, fake_model: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    project.settings({})
    engine = Engine("claude", project_dir=project.path)
    engine.close()
    run, fake = drive(project, fake_model, monkeypatch, [tool_call("touch ran.txt")], {}, engine=engine)
    assert fake.requests() == []
    assert "UserPromptSubmit could not be decided" in run.final()


def test_no_match_passes_untouched(project: Project, fake_model: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    config = hooks(project.hook("PreToolUse", answer(DENY), matcher="Write"),
                   project.hook("PostToolUse", answer({"hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": "X"}}), matcher="Read"))
    _, fake = drive(project, fake_model, monkeypatch, [tool_call("touch ran.txt && echo hi"), {"text": "ok"}], config)
    assert (project.path / "ran.txt").exists()
    [fr] = function_responses(fake)
    assert fr["response"] == {"exit_code": 0, "output": "hi\n"}


def test_tool_names_map_to_canonical_names(project: Project, fake_model: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    def run_it(command: str) -> dict:
        """Runs a command."""
        return shell(command)

    config = hooks(project.hook("PreToolUse", record("pre")), project.hook("PreToolUse", answer(DENY), matcher="Bash"))
    script = [tool_call("touch a.txt"), {"tools": [{"name": "run_it", "input": {"command": "touch b.txt"}}]}, {"text": "ok"}]
    drive(project, fake_model, monkeypatch, script, config, tools=[shell, run_it], tool_names={"run_it": "Bash"})
    assert [p["tool_name"] for p in recorded(project, "pre")] == ["Bash", "Bash"]
    assert not (project.path / "a.txt").exists() and not (project.path / "b.txt").exists()


def test_tool_error_fires_post_tool_use_failure(project: Project, fake_model: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    def shell(command: str) -> dict:
        """Runs a command (this one always fails)."""
        raise RuntimeError("TOOL-EXPLODED")

    fail = {"hookSpecificOutput": {"hookEventName": "PostToolUseFailure", "additionalContext": "FAIL-CTX"}}
    config = hooks(project.hook("PostToolUseFailure", f"tee -a failure.jsonl >/dev/null; echo >> failure.jsonl; printf '%s' {shlex.quote(json.dumps(fail))}"),
                   project.hook("PostToolUse", record("post")))
    _, fake = drive(project, fake_model, monkeypatch, [tool_call("x"), {"text": "ok"}], config, tools=[shell])
    [failure] = recorded(project, "failure")
    assert failure["tool_name"] == "Bash" and "TOOL-EXPLODED" in failure["error"]
    [fr] = function_responses(fake)
    assert fr["response"]["additional_context"] == "FAIL-CTX" and "TOOL-EXPLODED" in fr["response"]["error"]
    assert recorded(project, "post") == []


def test_session_start_and_end_carry_the_adk_session(project: Project, fake_model: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    config = hooks(project.hook("SessionStart", record("session")), project.hook("SessionEnd", record("session")))
    run, _ = drive(project, fake_model, monkeypatch, [{"text": "ok"}], config)
    events = recorded(project, "session")
    assert [e["hook_event_name"] for e in events] == ["SessionStart", "SessionEnd"]
    assert {e["session_id"] for e in events} == {run.session_id}


GUARD = """import json, sys
p = json.load(sys.stdin)
if "rm " in p["tool_input"].get("command", ""):
    print(json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny",
                                             "permissionDecisionReason": "GUARD: no rm -rf"}}))
"""


def test_example_runs_with_a_guard(project: Project, fake_model: Any) -> None:
    (project.path / "guard.py").write_text(GUARD)
    project.settings(project.hook("PreToolUse", f"{shlex.quote(sys.executable)} guard.py", matcher="Bash"))
    script = [tool_call("rm -rf keep"), tool_call("echo made > out.txt"), {"text": "EXAMPLE-DONE"}]
    fake = fake_model("gemini", script)
    (project.path / "keep").mkdir()
    cp = run_example("google-adk", "clean up", {"GOOGLE_GEMINI_BASE_URL": fake.url, "GOOGLE_API_KEY": "fake-key",
                                                "HOOKEXEC_EXAMPLE_MODEL": "gemini-fake",
                                                # HOME is the project's: keep env.sh on the venv these tests run in
                                                "HOOKEXEC_FRAMEWORK_CACHE": str(Path(sys.prefix).parent)}, project.path)
    assert cp.returncode == 0, cp.stderr
    assert cp.stdout.strip().splitlines()[-1] == "EXAMPLE-DONE"
    assert (project.path / "keep").is_dir()
    assert (project.path / "out.txt").read_text() == "made\n"
    assert "GUARD: no rm -rf" in fake.text()
