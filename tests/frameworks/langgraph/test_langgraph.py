"""hookexec.integrations.langgraph (the ToolNode wrapper) in a real hand-built LangGraph graph
(the example's: a ChatOpenAI node and a ToolNode) against the fake Chat Completions API:
checked by what reached the model and what the shell tool really ran."""

from __future__ import annotations

import asyncio
from typing import Any, Dict, List

import pytest
from conftest import run_example
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import Command
from lc_common import ASK, ask, chat_model, context, emit, example, example_env, refuse, rewrite, said, shell_turn

from hookexec.integrations import Gate, RunStopped
from hookexec.integrations.langgraph import ToolCallHooks

build = example("langgraph").build


def graph(fake: Any, hooks: ToolCallHooks, **options: Any) -> Any:
    return build(chat_model(fake), hooks, **options)


def test_block_reason_reaches_the_model_and_the_command_does_not_run(project: Any, fake_model: Any) -> None:
    # A Claude Code matcher ("Bash") catches the graph's `shell`.
    project.settings(project.hook("PreToolUse", refuse("NO-TOUCH: refused"), matcher="Bash"))
    fake = fake_model("chat", [shell_turn("touch ran.txt")])
    with ToolCallHooks() as hooks:
        graph(fake, hooks).invoke(ask("make a file"))
    assert not (project.path / "ran.txt").exists()
    assert said(fake.requests()[1], "tool") == ["NO-TOUCH: refused"]


def test_updated_input_and_context_after_the_tool(project: Any, fake_model: Any) -> None:
    project.settings({
        **project.hook("PreToolUse", emit(rewrite("echo rewritten > out.txt; echo ok")), matcher="Bash"),
        **project.hook("PostToolUse", emit(context("PostToolUse", "CTX-AFTER-TOOL")), matcher="Bash"),
    })
    fake = fake_model("chat", [shell_turn("echo original > out.txt")])
    with ToolCallHooks() as hooks:
        graph(fake, hooks).invoke(ask("write a file"))
    assert (project.path / "out.txt").read_text() == "rewritten\n"
    assert said(fake.requests()[1], "tool") == ["ok\n\nCTX-AFTER-TOOL"]


def test_a_post_tool_block_reason_follows_the_result(project: Any, fake_model: Any) -> None:
    project.settings(project.hook("PostToolUse", refuse("POST-BLOCK: look again"), matcher="Bash"))
    fake = fake_model("chat", [shell_turn("echo ran")])
    with ToolCallHooks() as hooks:
        graph(fake, hooks).invoke(ask("go"))
    assert said(fake.requests()[1], "tool") == ["ran\n\nPOST-BLOCK: look again"]


def test_continue_false_raises_run_stopped(project: Any, fake_model: Any) -> None:
    project.settings(project.hook("PostToolUse", emit({"continue": False, "stopReason": "HALTED"}), matcher="Bash"))
    fake = fake_model("chat", [shell_turn("touch one.txt"), shell_turn("touch two.txt")])
    with ToolCallHooks() as hooks, pytest.raises(RunStopped) as stopped:
        graph(fake, hooks).invoke(ask("two files"))
    assert stopped.value.reason == "HALTED"
    assert (project.path / "one.txt").exists() and not (project.path / "two.txt").exists()
    assert len(fake.requests()) == 1


def test_system_message_reaches_the_callback(project: Any, fake_model: Any) -> None:
    project.settings(project.hook("PreToolUse", emit({"systemMessage": "SYS-NOTE"}), matcher="Bash"))
    fake = fake_model("chat", [shell_turn("echo hi")])
    seen: List[str] = []
    with ToolCallHooks(on_system_message=seen.append) as hooks:
        graph(fake, hooks).invoke(ask("hi"))
    assert seen == ["SYS-NOTE"]


@pytest.mark.parametrize(
    "answer,ran",
    [({"type": "approve"}, "touch asked.txt"), ({"type": "edit", "edited_action": {"name": "shell", "args": {"command": "touch edited.txt"}}}, "touch edited.txt"), ({"type": "reject"}, "")],
)
def test_ask_interrupts_the_graph(project: Any, fake_model: Any, answer: Dict[str, Any], ran: str) -> None:
    project.settings(project.hook("PreToolUse", emit(ASK), matcher="Bash"))
    fake = fake_model("chat", [shell_turn("touch asked.txt")])
    config = {"configurable": {"thread_id": "t1"}}
    with ToolCallHooks() as hooks:
        g = graph(fake, hooks, checkpointer=InMemorySaver())
        (pending,) = g.invoke(ask("ask first"), config)["__interrupt__"]
        assert (pending.value["name"], pending.value["description"]) == ("shell", "ASK-REASON")
        g.invoke(Command(resume=answer), config)
    made = sorted(p.name for p in project.path.glob("*.txt"))
    assert made == ([ran.split()[1]] if ran else [])
    if not ran:
        assert "the user refused" in said(fake.requests()[1], "tool")[0]


def test_ask_without_a_checkpointer_or_approver_is_refused(project: Any, fake_model: Any) -> None:
    project.settings(project.hook("PreToolUse", emit(ASK), matcher="Bash"))
    fake = fake_model("chat", [shell_turn("touch asked.txt")])
    with ToolCallHooks() as hooks:
        graph(fake, hooks).invoke(ask("ask first"))
    assert not (project.path / "asked.txt").exists()
    assert "ASK-REASON (approval required" in said(fake.requests()[1], "tool")[0]


def test_a_closed_engine_blocks_the_tool(project: Any, fake_model: Any) -> None:
    project.settings(project.hook("PreToolUse", "exit 0", matcher="Bash"))
    gate = Gate()
    gate.engine.close()
    fake = fake_model("chat", [shell_turn("touch ran.txt")])
    graph(fake, ToolCallHooks(gate)).invoke(ask("go"))
    assert not (project.path / "ran.txt").exists()
    assert "PreToolUse could not be decided" in said(fake.requests()[1], "tool")[0]


def test_a_call_no_hook_matches_passes_untouched(project: Any, fake_model: Any) -> None:
    project.settings(project.hook("PreToolUse", refuse("READ-BLOCKED"), matcher="Read"))
    fake = fake_model("chat", [shell_turn("echo untouched > u.txt; cat u.txt")])
    with ToolCallHooks() as hooks:
        graph(fake, hooks).invoke(ask("go"))
    assert said(fake.requests()[1], "tool") == ["untouched\n"]


def test_async_graph_blocks(project: Any, fake_model: Any) -> None:
    project.settings(project.hook("PreToolUse", refuse("ASYNC-REFUSED"), matcher="Bash"))
    fake = fake_model("chat", [shell_turn("touch ran.txt")])

    async def run() -> None:
        with ToolCallHooks() as hooks:
            await graph(fake, hooks).ainvoke(ask("go"))

    asyncio.run(run())
    assert not (project.path / "ran.txt").exists()
    assert said(fake.requests()[1], "tool") == ["ASYNC-REFUSED"]


def test_the_example_runs_with_a_guard(project: Any, fake_model: Any) -> None:
    (project.path / "keep.txt").write_text("precious")
    project.settings(project.hook("PreToolUse", "grep -q 'rm ' && { echo 'GUARD: no rm' >&2; exit 2; }; exit 0", matcher="Bash"))
    fake = fake_model("chat", [shell_turn("rm keep.txt"), shell_turn("ls"), {"text": "all done"}])
    cp = run_example("langgraph", "clean up", example_env(fake), project.path)
    assert cp.returncode == 0, cp.stderr
    assert cp.stdout.strip() == "all done"
    assert (project.path / "keep.txt").read_text() == "precious"
    reqs = fake.requests()
    assert said(reqs[1], "tool") == ["GUARD: no rm"]
    assert "keep.txt" in said(reqs[2], "tool")[-1]
