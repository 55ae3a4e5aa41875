"""hookexec.integrations.claude_agent_sdk against the real Claude Agent SDK (0.2.189, with the
Claude Code it bundles) and the fake Anthropic API: every behaviour is checked by what reached
the model (fake.requests()) or by what Claude Code's Bash tool really ran (files it wrote)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Dict, List

import anyio
import claude_agent_sdk as sdk
import pytest
from conftest import run_example

from hookexec.integrations import Gate
from hookexec.integrations.claude_agent_sdk import governed, hookexec_hooks, query, session


# Claude Code (the SDK's bundled CLI) offline against the fake model, as the live Claude suite
# runs it (tests/live/claude): no traffic besides the model API, no first-run checks.
OFFLINE_ENV: Dict[str, str] = {
    "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
    "DISABLE_TELEMETRY": "1",
    "DISABLE_AUTOUPDATER": "1",
    "DISABLE_ERROR_REPORTING": "1",
    "IS_SANDBOX": "1",
    "ANTHROPIC_API_KEY": "sk-ant-fake-key-for-offline-tests",
}


@pytest.fixture
def offline(monkeypatch: pytest.MonkeyPatch, project: Any) -> Any:
    """Sets the offline environment (the CLI inherits it); ``offline(fake)`` points
    ANTHROPIC_BASE_URL at a fake model."""
    for k, v in OFFLINE_ENV.items():
        monkeypatch.setenv(k, v)

    def use(fake: Any) -> None:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", fake.url)

    return use


def out(obj: Dict[str, Any]) -> str:
    """A hook command printing ``obj`` as its JSON answer."""
    return "printf '%s' " + "'" + json.dumps(obj) + "'"


def pre(**specific: Any) -> str:
    return out({"hookSpecificOutput": {"hookEventName": "PreToolUse", **specific}})


def bash(command: str) -> Dict[str, Any]:
    return {"tools": [{"name": "Bash", "input": {"command": command}}]}


def isolated(**fields: Any) -> Any:
    """The tests' options: no settings file loaded by Claude Code itself (setting_sources=[]),
    so what the hooks do can only come from hookexec; test_settings_hooks_run_once_not_also_by_
    claude_code and the example run with the SDK's default sources."""
    return sdk.ClaudeAgentOptions(setting_sources=[], **fields)


def run(prompt: str = "go", options: Any = None, **gate_options: Any) -> List[Any]:
    """Runs one governed query to its end and returns its messages."""
    opts = options or isolated(permission_mode="bypassPermissions")

    async def main() -> List[Any]:
        return [m async for m in query(prompt=prompt, options=opts, **gate_options)]

    return anyio.run(main)


def result(messages: List[Any]) -> Any:
    return next(m for m in reversed(messages) if isinstance(m, sdk.ResultMessage))


def tool_results(fake: Any) -> List[str]:
    """The tool results the model received, in order (the last request has them all)."""
    reqs = fake.requests()
    texts: List[str] = []
    for msg in reqs[-1]["messages"] if reqs else []:
        if msg["role"] != "user" or not isinstance(msg["content"], list):
            continue
        for block in msg["content"]:
            if block.get("type") == "tool_result":
                c = block.get("content")
                texts.append(c if isinstance(c, str) else json.dumps(c))
    return texts


def test_block_reason_reaches_the_model_and_the_command_does_not_run(project: Any, fake_model: Any, offline: Any) -> None:
    project.settings(project.hook("PreToolUse", pre(permissionDecision="deny", permissionDecisionReason="BLOCKED-BY-HOOKEXEC: no touching"), matcher="Bash"))
    fake = fake_model("anthropic", [bash("touch ran.txt")])
    offline(fake)
    run()
    assert not (project.path / "ran.txt").exists()
    results = tool_results(fake)
    assert len(results) == 1 and "BLOCKED-BY-HOOKEXEC: no touching" in results[0]


@pytest.mark.parametrize("decision", [{"permissionDecision": "allow"}, {}], ids=["allow", "no-decision"])
def test_updated_input_is_what_bash_really_runs(project: Any, fake_model: Any, offline: Any, decision: Dict[str, Any]) -> None:
    project.settings(project.hook("PreToolUse", pre(**decision, updatedInput={"command": "echo rewritten > out.txt"}), matcher="Bash"))
    fake = fake_model("anthropic", [bash("echo original > out.txt")])
    offline(fake)
    run()
    assert (project.path / "out.txt").read_text() == "rewritten\n"


def test_additional_context_after_a_tool_and_on_the_prompt(project: Any, fake_model: Any, offline: Any) -> None:
    project.settings({
        **project.hook("PostToolUse", out({"hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": "CTX-AFTER-TOOL"}}), matcher="Bash"),
        **project.hook("UserPromptSubmit", out({"hookSpecificOutput": {"hookEventName": "UserPromptSubmit", "additionalContext": "CTX-ON-PROMPT"}})),
    })
    fake = fake_model("anthropic", [bash("echo hi")])
    offline(fake)
    run()
    reqs = fake.requests()
    assert "CTX-ON-PROMPT" in json.dumps(reqs[0]) and "CTX-AFTER-TOOL" not in json.dumps(reqs[0])
    assert "CTX-AFTER-TOOL" in json.dumps(reqs[1])


def test_stop_block_makes_the_agent_go_on(project: Any, fake_model: Any, offline: Any) -> None:
    # Blocks the first stop only (Claude Code sets stop_hook_active on the one after a block).
    guard = project.path / "stop.sh"
    guard.write_text("tr -d ' ' | grep -q '\"stop_hook_active\":true' || " + out({"decision": "block", "reason": "KEEP-GOING-REASON"}) + "\n")
    project.settings(project.hook("Stop", f"sh {guard}"))
    fake = fake_model("anthropic", [{"text": "first answer"}, {"text": "second answer"}])
    offline(fake)
    messages = run()
    reqs = fake.requests()
    assert len(reqs) == 2
    assert "KEEP-GOING-REASON" not in json.dumps(reqs[0]) and "KEEP-GOING-REASON" in json.dumps(reqs[1])
    assert result(messages).result == "second answer"


def test_continue_false_ends_the_run(project: Any, fake_model: Any, offline: Any) -> None:
    project.settings(project.hook("PostToolUse", out({"continue": False, "stopReason": "HALTED"}), matcher="Bash"))
    fake = fake_model("anthropic", [bash("touch a.txt"), bash("touch b.txt"), {"text": "never"}])
    offline(fake)
    run()
    assert (project.path / "a.txt").exists()
    assert not (project.path / "b.txt").exists()
    assert len(fake.requests()) == 1  # the model never got the first tool's result


def test_system_message_reaches_the_callback(project: Any, fake_model: Any, offline: Any) -> None:
    project.settings(project.hook("PreToolUse", out({"systemMessage": "SYS-MSG-FOR-THE-APP"}), matcher="Bash"))
    fake = fake_model("anthropic", [bash("touch ran.txt")])
    offline(fake)
    seen: List[str] = []
    run(on_system_message=seen.append)
    assert seen == ["SYS-MSG-FOR-THE-APP"]
    assert (project.path / "ran.txt").exists()


def test_ask_settled_by_the_approver(project: Any, fake_model: Any, offline: Any) -> None:
    project.settings(project.hook("PreToolUse", pre(permissionDecision="ask", permissionDecisionReason="ASK-REASON"), matcher="Bash"))
    asked: List[Any] = []

    def approver(answer: bool) -> Any:
        def approve(tool: str, tool_input: Dict[str, Any], reason: str) -> bool:
            asked.append((tool, tool_input, reason))
            return answer
        return approve

    fake = fake_model("anthropic", [bash("touch yes.txt")])
    offline(fake)
    run(approve=approver(True))
    assert (project.path / "yes.txt").exists()
    assert asked == [("Bash", {"command": "touch yes.txt"}, "ASK-REASON")]

    fake = fake_model("anthropic", [bash("touch no.txt")])
    offline(fake)
    run(approve=approver(False))
    assert not (project.path / "no.txt").exists()
    assert "ASK-REASON" in tool_results(fake)[0]


# The SDK warns that allowed_tools shadows can_use_tool: true for its own checks, not for a
# hook's ask, which is what this test shows.
@pytest.mark.filterwarnings("ignore::claude_agent_sdk.CanUseToolShadowedWarning")
def test_ask_goes_to_can_use_tool_without_an_approver(project: Any, fake_model: Any, offline: Any) -> None:
    project.settings(project.hook("PreToolUse", pre(permissionDecision="ask", permissionDecisionReason="ASK-REASON"), matcher="Bash"))
    asked: List[str] = []

    async def can_use_tool(tool: str, tool_input: Dict[str, Any], context: Any) -> Any:
        asked.append(tool_input["command"])
        if "yes" in tool_input["command"]:
            return sdk.PermissionResultAllow()
        return sdk.PermissionResultDeny(message="USER-SAID-NO")

    async def prompt() -> Any:  # can_use_tool needs the streaming prompt
        yield {"type": "user", "message": {"role": "user", "content": "go"}}

    fake = fake_model("anthropic", [bash("touch yes.txt"), bash("touch no.txt")])
    offline(fake)
    # Bash is pre-allowed: only the hook's ask makes Claude Code ask can_use_tool.
    opts = isolated(can_use_tool=can_use_tool, allowed_tools=["Bash"])

    async def main() -> None:
        async for _ in query(prompt=prompt(), options=opts):
            pass

    anyio.run(main)
    assert asked == ["touch yes.txt", "touch no.txt"]
    assert (project.path / "yes.txt").exists() and not (project.path / "no.txt").exists()
    assert "USER-SAID-NO" in tool_results(fake)[1]


def test_permission_request_answered_by_a_hook(project: Any, fake_model: Any, offline: Any) -> None:
    # The default permission mode asks before Bash: Claude Code fires PermissionRequest first.
    answer = {"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": {"behavior": "deny", "message": "PERMISSION-DENIED-BY-HOOK"}}}
    project.settings(project.hook("PermissionRequest", out(answer), matcher="Bash"))
    fake = fake_model("anthropic", [bash("touch ran.txt")])
    offline(fake)
    run(options=isolated())
    assert not (project.path / "ran.txt").exists()
    assert "PERMISSION-DENIED-BY-HOOK" in tool_results(fake)[0]


def test_an_engine_error_blocks_the_prompt(project: Any, fake_model: Any, offline: Any) -> None:
    project.settings(project.hook("PreToolUse", "true", matcher="Bash"))
    fake = fake_model("anthropic", [bash("touch ran.txt")])
    offline(fake)
    gate = Gate()
    gate.engine.close()  # every fire now fails: UserPromptSubmit, first, blocks the prompt
    run(gate=gate)
    assert fake.requests() == []
    assert not (project.path / "ran.txt").exists()


def test_an_engine_error_blocks_a_tool_call(project: Any, fake_model: Any, offline: Any) -> None:
    project.settings(project.hook("PreToolUse", "true", matcher="Bash"))
    fake = fake_model("anthropic", [bash("echo first"), bash("touch ran.txt")])
    offline(fake)
    gate = Gate()

    async def break_engine(i: Any, t: Any, c: Any) -> Dict[str, Any]:
        gate.engine.close()  # after the first call: the second call's PreToolUse fails
        return {}

    opts = isolated(permission_mode="bypassPermissions", hooks={"PostToolUse": [sdk.HookMatcher(hooks=[break_engine])]})
    run(options=opts, gate=gate)
    assert not (project.path / "ran.txt").exists()
    results = tool_results(fake)
    assert len(results) == 2 and "PreToolUse could not be decided" in results[1]


def test_a_call_no_hook_matches_passes_untouched(project: Any, fake_model: Any, offline: Any) -> None:
    project.settings(project.hook("PreToolUse", pre(permissionDecision="deny", permissionDecisionReason="WRITES-ONLY"), matcher="Write|Edit"))
    fake = fake_model("anthropic", [bash("echo untouched > out.txt && echo printed")])
    offline(fake)
    run()
    assert (project.path / "out.txt").read_text() == "untouched\n"
    assert tool_results(fake) == ["printed"]
    assert "WRITES-ONLY" not in fake.text()


def test_mcp_tools_keep_their_canonical_names(project: Any, fake_model: Any, offline: Any) -> None:
    # Claude Code names an SDK MCP server's tool mcp__<server>__<tool>: a matcher written for
    # Claude Code catches it unchanged, and the framework-style name "shell" is not remapped.
    ran: List[str] = []

    @sdk.tool("shell", "Runs a command", {"command": str})
    async def shell(args: Dict[str, Any]) -> Dict[str, Any]:
        ran.append(args["command"])
        return {"content": [{"type": "text", "text": "ran"}]}

    project.settings(project.hook("PreToolUse", pre(permissionDecision="deny", permissionDecisionReason="MCP-SHELL-BLOCKED"), matcher="mcp__local__.*"))
    fake = fake_model("anthropic", [{"tools": [{"name": "mcp__local__shell", "input": {"command": "rm -rf /"}}]}, bash("touch bash-ran.txt")])
    offline(fake)
    server = sdk.create_sdk_mcp_server("local", tools=[shell])

    async def prompt() -> Any:  # SDK MCP servers need the streaming prompt
        yield {"type": "user", "message": {"role": "user", "content": "go"}}

    opts = isolated(permission_mode="bypassPermissions", mcp_servers={"local": server})

    async def main() -> None:
        async for _ in query(prompt=prompt(), options=opts):
            pass

    anyio.run(main)
    assert ran == []
    assert "MCP-SHELL-BLOCKED" in tool_results(fake)[0]
    assert (project.path / "bash-ran.txt").exists()


def test_session_start_and_end_fire_once(project: Any, fake_model: Any, offline: Any) -> None:
    log = project.path / "sessions.log"
    project.settings({
        **project.hook("SessionStart", f"echo start >> {log}; " + out({"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": "CTX-SESSION-START"}})),
        **project.hook("SessionEnd", f"echo end >> {log}"),
    })
    fake = fake_model("anthropic", [bash("echo hi")])
    offline(fake)
    run()
    assert log.read_text() == "start\nend\n"
    assert "CTX-SESSION-START" in json.dumps(fake.requests()[0])


def test_session_governs_a_client_and_ends_the_session(project: Any, fake_model: Any, offline: Any) -> None:
    log = project.path / "sessions.log"
    project.settings({
        **project.hook("SessionStart", f"echo start >> {log}"),
        **project.hook("SessionEnd", f"echo end >> {log}"),
        **project.hook("PreToolUse", pre(permissionDecision="deny", permissionDecisionReason="CLIENT-BLOCKED"), matcher="Bash"),
    })
    fake = fake_model("anthropic", [bash("touch ran.txt")])
    offline(fake)

    async def main() -> None:
        async with session(isolated(permission_mode="bypassPermissions")) as client:
            await client.query("go")
            async for _ in client.receive_response():
                pass
            assert log.read_text() == "start\n"  # the session is still open

    anyio.run(main)
    assert log.read_text() == "start\nend\n"
    assert not (project.path / "ran.txt").exists()
    assert "CLIENT-BLOCKED" in tool_results(fake)[0]


def test_settings_hooks_run_once_not_also_by_claude_code(project: Any, fake_model: Any, offline: Any) -> None:
    count = project.path / "count.log"
    project.settings(project.hook("PreToolUse", f"echo fired >> {count}", matcher="Bash"))
    fake = fake_model("anthropic", [bash("echo hi")])
    offline(fake)
    run(options=sdk.ClaudeAgentOptions(permission_mode="bypassPermissions"))  # the SDK's default sources
    assert count.read_text() == "fired\n"


def test_governed_keeps_the_apps_hooks_and_settings(project: Any, tmp_path: Path) -> None:
    async def mine(i: Any, t: Any, c: Any) -> Dict[str, Any]:
        return {}

    opts = sdk.ClaudeAgentOptions(hooks={"PreToolUse": [sdk.HookMatcher(matcher="Bash", hooks=[mine])]}, settings='{"model": "x"}')
    hooks = hookexec_hooks()
    g = governed(opts, hooks=hooks)
    assert g.hooks["PreToolUse"][0].hooks == [mine] and len(g.hooks["PreToolUse"]) == 2
    assert json.loads(g.settings) == {"model": "x", "disableAllHooks": True}
    assert opts.settings == '{"model": "x"}'  # the app's options are not changed
    (tmp_path / "s.json").write_text('{"env": {"A": "1"}}')
    assert json.loads(governed(sdk.ClaudeAgentOptions(settings="s.json", cwd=str(tmp_path)), hooks=hooks).settings) == {"env": {"A": "1"}, "disableAllHooks": True}
    anyio.run(hooks.aclose)


def test_example_blocks_rm_with_the_guard(project: Any, fake_model: Any) -> None:
    guard = "tr -d ' ' | grep -q '\"command\":\"rm' && " + pre(permissionDecision="deny", permissionDecisionReason="EXAMPLE-GUARD: rm is not allowed")
    project.settings(project.hook("PreToolUse", guard + "; true", matcher="Bash"))
    (project.path / "keep.txt").write_text("precious")
    fake = fake_model("anthropic", [bash("rm keep.txt"), bash("echo safe > safe.txt"), {"text": "FINAL-ANSWER"}])
    env = {"ANTHROPIC_BASE_URL": fake.url, "HOME": str(project.home), **OFFLINE_ENV}
    cp = run_example("claude-agent-sdk", "clean up", env, project.path)
    assert cp.returncode == 0, cp.stderr
    assert "FINAL-ANSWER" in cp.stdout
    assert (project.path / "keep.txt").read_text() == "precious"
    assert (project.path / "safe.txt").exists()
    assert "EXAMPLE-GUARD: rm is not allowed" in fake.text()
