"""hookexec.integrations.langchain against the real LangChain (create_agent, ChatOpenAI) and the
fake Chat Completions API: every check reads what reached the model (the fake's record) or
what the shell tool really ran (files in the project), never only what the adapter returned."""

from __future__ import annotations

import asyncio
import shlex
from typing import Any, Dict, List

import pytest
from conftest import run_example
from langchain.agents import create_agent
from langchain.agents.middleware import before_model
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import Command
from lc_common import ASK, ask, chat_model, context, emit, example, example_env, refuse, rewrite, said, shell_turn

from hookexec.integrations import Gate
from hookexec.integrations.langchain import HookexecMiddleware

EXAMPLE = example("langchain")
build = EXAMPLE.build


def agent(fake: Any, hooks: Any, **options: Any) -> Any:
    return build(chat_model(fake), hooks, **options)


def test_block_reason_reaches_the_model_and_the_command_does_not_run(project: Any, fake_model: Any) -> None:
    # A Claude Code matcher ("Bash") catches the framework's `shell`.
    project.settings(project.hook("PreToolUse", refuse("NO-TOUCH: touching files is forbidden"), matcher="Bash"))
    fake = fake_model("chat", [shell_turn("touch ran.txt")])
    with HookexecMiddleware() as hooks:
        agent(fake, hooks).invoke(ask("make a file"))
    assert not (project.path / "ran.txt").exists()
    reqs = fake.requests()
    assert len(reqs) == 2
    assert any("NO-TOUCH: touching files is forbidden" in t for t in said(reqs[1], "tool"))


def test_updated_input_is_what_the_tool_runs(project: Any, fake_model: Any) -> None:
    project.settings(project.hook("PreToolUse", emit(rewrite("echo rewritten > out.txt")), matcher="Bash"))
    fake = fake_model("chat", [shell_turn("echo original > out.txt")])
    with HookexecMiddleware() as hooks:
        agent(fake, hooks).invoke(ask("write a file"))
    assert (project.path / "out.txt").read_text() == "rewritten\n"


def test_context_after_a_tool_and_on_the_prompt(project: Any, fake_model: Any) -> None:
    project.settings({
        **project.hook("PostToolUse", emit(context("PostToolUse", "CTX-AFTER-TOOL")), matcher="Bash"),
        **project.hook("UserPromptSubmit", emit(context("UserPromptSubmit", "CTX-ON-PROMPT"))),
    })
    fake = fake_model("chat", [shell_turn("echo hello")])
    with HookexecMiddleware() as hooks:
        agent(fake, hooks).invoke(ask("say hello"))
    first, second = fake.requests()
    assert "CTX-ON-PROMPT" in said(first, "user")
    assert said(second, "tool") == ["hello\n\nCTX-AFTER-TOOL"]


def test_a_blocked_prompt_never_reaches_the_model(project: Any, fake_model: Any) -> None:
    project.settings(project.hook("UserPromptSubmit", refuse("PROMPT-REFUSED")))
    fake = fake_model("chat", [shell_turn("touch ran.txt")])
    with HookexecMiddleware() as hooks:
        out = agent(fake, hooks).invoke(ask("secret prompt"))
    assert fake.requests() == []
    assert out["messages"][-1].text == "PROMPT-REFUSED"
    assert all("secret prompt" not in str(m.content) for m in out["messages"])


@pytest.mark.parametrize("event", ["Stop", "SubagentStop"])
def test_a_stop_block_makes_the_agent_go_on(project: Any, fake_model: Any, event: str) -> None:
    # Blocks the first stop only: stop_hook_active is true on the answer to the continuation.
    hook = "grep -Eq '\"stop_hook_active\": *true' && exit 0; echo 'KEEP-GOING: check the result' >&2; exit 2"
    project.settings(project.hook(event, hook))
    fake = fake_model("chat", [{"text": "first answer"}, {"text": "second answer"}])
    with HookexecMiddleware(subagent=event == "SubagentStop") as hooks:
        out = agent(fake, hooks).invoke(ask("do it"))
    reqs = fake.requests()
    assert len(reqs) == 2
    assert said(reqs[1], "user")[-1] == "KEEP-GOING: check the result"
    assert out["messages"][-1].text == "second answer"


@pytest.mark.parametrize("event", ["PreToolUse", "PostToolUse"])
def test_continue_false_ends_the_run(project: Any, fake_model: Any, event: str) -> None:
    project.settings(project.hook(event, emit({"continue": False, "stopReason": "HALTED"}), matcher="Bash"))
    fake = fake_model("chat", [shell_turn("touch one.txt"), shell_turn("touch two.txt")])
    with HookexecMiddleware() as hooks:
        out = agent(fake, hooks).invoke(ask("two files"))
    assert len(fake.requests()) == 1  # nothing more reached the model
    assert (project.path / "one.txt").exists() == (event == "PostToolUse")
    assert not (project.path / "two.txt").exists()
    if event == "PreToolUse":  # the call's answer is the stop reason
        assert out["messages"][-1].text == "HALTED"


def test_system_message_reaches_the_callback(project: Any, fake_model: Any) -> None:
    project.settings(project.hook("PreToolUse", emit({"systemMessage": "SYS-NOTE"}), matcher="Bash"))
    fake = fake_model("chat", [shell_turn("echo hi")])
    seen: List[str] = []
    with HookexecMiddleware(on_system_message=seen.append) as hooks:
        agent(fake, hooks).invoke(ask("hi"))
    assert seen == ["SYS-NOTE"]


@pytest.mark.parametrize("answer", [{"type": "approve"}, {"type": "reject", "message": "not now"}])
def test_ask_is_a_human_in_the_loop_interrupt(project: Any, fake_model: Any, answer: Dict[str, Any]) -> None:
    project.settings(project.hook("PreToolUse", emit(ASK), matcher="Bash"))
    fake = fake_model("chat", [shell_turn("touch asked.txt")])
    config = {"configurable": {"thread_id": "t1"}}
    with HookexecMiddleware() as hooks:
        a = agent(fake, hooks, checkpointer=InMemorySaver())
        first = a.invoke(ask("ask first"), config)
        (pending,) = first["__interrupt__"]
        assert pending.value["type"] == "tool_approval"
        assert pending.value["description"] == "ASK-REASON"
        assert not (project.path / "asked.txt").exists()
        a.invoke(Command(resume=answer), config)
    approved = answer["type"] == "approve"
    assert (project.path / "asked.txt").exists() == approved
    tool_results = said(fake.requests()[-1], "tool")
    assert ("The user refused: not now" in tool_results[0]) != approved


@pytest.mark.parametrize("yes", [True, False])
def test_ask_without_a_checkpointer_goes_to_approve(project: Any, fake_model: Any, yes: bool) -> None:
    project.settings(project.hook("PreToolUse", emit(ASK), matcher="Bash"))
    fake = fake_model("chat", [shell_turn("touch asked.txt")])
    asked: List[Any] = []
    with HookexecMiddleware(approve=lambda *a: asked.append(a) or yes) as hooks:
        agent(fake, hooks).invoke(ask("ask first"))
    assert asked == [("Bash", {"command": "touch asked.txt"}, "ASK-REASON")]
    assert (project.path / "asked.txt").exists() == yes
    assert ("ASK-REASON (approval required" in said(fake.requests()[1], "tool")[0]) != yes


def test_an_engine_error_blocks(project: Any, fake_model: Any) -> None:
    # The engine dies after the prompt (closed by another middleware before the model call):
    # the tool call's PreToolUse cannot be decided, so the call is refused, though no hook
    # would block it; the Stop that cannot be decided either sends the agent on once only.
    project.settings(project.hook("PreToolUse", "exit 0", matcher="Bash"))
    gate = Gate()

    @before_model
    def engine_dies(state: Any, runtime: Any) -> None:
        if not gate.engine.closed:
            gate.engine.close()

    fake = fake_model("chat", [shell_turn("touch ran.txt")])
    model = chat_model(fake)
    create_agent(model, tools=[EXAMPLE.shell], middleware=[HookexecMiddleware(gate=gate), engine_dies]).invoke(ask("go"))
    assert not (project.path / "ran.txt").exists()
    reqs = fake.requests()
    assert "PreToolUse could not be decided" in said(reqs[1], "tool")[0]
    assert len(reqs) == 3 and "Stop could not be decided" in said(reqs[2], "user")[-1]


def test_a_closed_engine_blocks_the_prompt(project: Any, fake_model: Any) -> None:
    project.settings({})
    gate = Gate()
    gate.engine.close()
    fake = fake_model("chat", [shell_turn("touch ran.txt")])
    out = agent(fake, HookexecMiddleware(gate=gate)).invoke(ask("go"))
    assert fake.requests() == []
    assert "UserPromptSubmit could not be decided" in out["messages"][-1].text


def test_a_call_no_hook_matches_passes_untouched(project: Any, fake_model: Any) -> None:
    project.settings(project.hook("PreToolUse", refuse("READ-BLOCKED"), matcher="Read"))
    fake = fake_model("chat", [shell_turn("echo untouched > u.txt; cat u.txt")])
    with HookexecMiddleware() as hooks:
        agent(fake, hooks).invoke(ask("go"))
    assert (project.path / "u.txt").read_text() == "untouched\n"
    assert said(fake.requests()[1], "tool") == ["untouched\n"]


def test_a_failed_call_fires_post_tool_use_failure(project: Any, fake_model: Any) -> None:
    project.settings(project.hook("PostToolUseFailure", emit(context("PostToolUseFailure", "FAIL-CTX")), matcher="Bash"))
    fake = fake_model("chat", [{"tools": [{"name": "shell", "input": {"cmd": "no such argument"}}]}])
    with HookexecMiddleware() as hooks:
        agent(fake, hooks).invoke(ask("go"))
    (result,) = said(fake.requests()[1], "tool")
    assert "command" in result and result.endswith("FAIL-CTX")


def test_async_run_blocks_and_rewrites(project: Any, fake_model: Any) -> None:
    project.settings({
        **project.hook("PreToolUse", emit(rewrite("echo async > a.txt")), matcher="Bash"),
        **project.hook("UserPromptSubmit", emit(context("UserPromptSubmit", "ASYNC-CTX"))),
    })
    fake = fake_model("chat", [shell_turn("echo sync > a.txt")])

    async def run() -> None:
        with HookexecMiddleware() as hooks:
            await agent(fake, hooks).ainvoke(ask("async"))

    asyncio.run(run())
    assert (project.path / "a.txt").read_text() == "async\n"
    assert "ASYNC-CTX" in said(fake.requests()[0], "user")


def test_session_events_fire_once(project: Any, fake_model: Any) -> None:
    log = project.path / "sessions.log"
    hook = f"sed -n 's/.*\"hook_event_name\": *\"\\([A-Za-z]*\\)\".*/\\1/p' >> {shlex.quote(str(log))}"
    project.settings({**project.hook("SessionStart", hook), **project.hook("SessionEnd", hook)})
    fake = fake_model("chat", [{"text": "one"}, {"text": "two"}])
    with HookexecMiddleware() as hooks:
        a = agent(fake, hooks)
        a.invoke(ask("first"))
        a.invoke(ask("second"))
        assert log.read_text().split() == ["SessionStart"]
    assert log.read_text().split() == ["SessionStart", "SessionEnd"]


def test_the_example_runs_with_a_guard(project: Any, fake_model: Any) -> None:
    (project.path / "keep.txt").write_text("precious")
    project.settings(project.hook("PreToolUse", "grep -q 'rm ' && { echo 'GUARD: no rm' >&2; exit 2; }; exit 0", matcher="Bash"))
    fake = fake_model("chat", [shell_turn("rm keep.txt"), shell_turn("ls"), {"text": "all done"}])
    cp = run_example("langchain", "clean up", example_env(fake), project.path)
    assert cp.returncode == 0, cp.stderr
    assert cp.stdout.strip() == "all done"
    assert (project.path / "keep.txt").read_text() == "precious"
    reqs = fake.requests()
    assert "GUARD: no rm" in said(reqs[1], "tool")[0]
    assert "keep.txt" in said(reqs[2], "tool")[-1]
