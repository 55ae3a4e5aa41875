"""Each seed system's own example configuration (examples/configs/<system>/, verbatim copies
of the seed documents) loaded unchanged through its profile and the real library, and the
behaviours its document promises. The example tree is copied into a temporary directory, so
hooks that write under ~ or commit to git touch only that copy."""

from __future__ import annotations

import json
import os
import queue
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import HANG_GUARD, REPO

EXAMPLES = REPO / "examples" / "configs"
GIT_ENV = {
    "GIT_AUTHOR_NAME": "Hook Test", "GIT_AUTHOR_EMAIL": "hook@example.com",
    "GIT_COMMITTER_NAME": "Hook Test", "GIT_COMMITTER_EMAIL": "hook@example.com",
    "GIT_CONFIG_GLOBAL": "/dev/null", "GIT_CONFIG_NOSYSTEM": "1",
}


def copy_system(system: str, tmp_path: Path):
    root = tmp_path / system
    shutil.copytree(EXAMPLES / system, root, symlinks=True)
    project, home = root / "project", root / "home"
    project.mkdir(exist_ok=True)
    home.mkdir(exist_ok=True)
    return project, home


def no_warnings(eng):
    cfg = eng.config()
    assert [w for w in cfg["warnings"]] == []
    return cfg


def git(cwd: Path, *args: str) -> str:
    import os

    out = subprocess.run(["git", *args], cwd=cwd, env={**os.environ, **GIT_ENV}, check=True, capture_output=True, text=True)
    return out.stdout.strip()


def test_autohand_seed_config(engine, tmp_path):
    project, home = copy_system("autohand", tmp_path)
    # The seed describes security-guard.sh without printing it: a stand-in with its rm rule.
    guard = home / ".autohand" / "hooks" / "security-guard.sh"
    guard.write_text('#!/bin/sh\ncase "$(cat)" in *"rm -rf /"*) echo "Blocked dangerous rm command" >&2; exit 2;; esac\n')
    guard.chmod(0o755)
    eng = engine(profile="autohand", project_dir=project, home=home, env={"HOME": str(home)})
    cfg = no_warnings(eng)
    assert cfg["notifications"] is True
    assert sum(h["enabled"] for h in cfg["hooks"]) == len(cfg["hooks"]) - 1  # smart-commit ships disabled
    notes: "queue.Queue" = queue.Queue()
    eng.on_notification(notes.put)

    r = eng.fire("pre-tool", {"tool_name": "run_command", "tool_input": {"command": "rm -rf /"}, "tool_use_id": "call_1"})
    assert r.blocked and r.reason == "Blocked dangerous rm command"
    assert (home / ".autohand" / "hooks.log").read_text() == "Running tool: run_command\n"
    assert notes.get(timeout=HANG_GUARD)["method"] == "autohand.hook.preTool"

    r = eng.fire("permission-request", {"tool_name": "read_file", "path": "src/index.ts"})
    assert r.decision == "allow" and r.reason == "Read operations are safe"
    assert eng.fire("permission-request", {"tool_name": "write_file"}).matched == 0  # ^read_file$

    # filter.path: the macOS notifier wants src/**/*.ts; eslint **/*.ts; auto-format and
    # git-auto-stage their own lists.
    assert eng.fire("file-modified", {"file_path": "src/app/main.ts", "change_type": "modify"}).matched == 4
    assert eng.fire("file-modified", {"file_path": "README.md", "change_type": "modify"}).matched == 1
    assert eng.fire("file-modified", {"file_path": "notes.txt", "change_type": "modify"}).matched == 0

    eng.fire("session-start", {"session_type": "startup"})
    eng.fire("session-end", {"session_end_reason": "quit", "duration": 1234})
    log = (home / ".autohand" / "sessions.log").read_text().splitlines()
    assert log[0].startswith("Session started: startup at ")
    assert log[1] == "Session ended: quit after 1234ms"
    methods = [notes.get(timeout=HANG_GUARD)["method"] for _ in range(5)]
    assert methods == ["autohand.hook.permissionRequest", "autohand.hook.permissionRequest",
                       "autohand.hook.fileModified", "autohand.hook.fileModified", "autohand.hook.fileModified"]


def test_autoagent_seed_config_commits_to_a_real_repo(engine, tmp_path):
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    project, home = copy_system("autoagent", tmp_path)
    (home / ".autoagent" / "sessions").mkdir(parents=True)  # AutoAgent keeps its sessions there
    remote = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", str(remote))
    git(project, "init", "-q", "-b", "main")
    git(project, "add", "-A")
    git(project, "commit", "-q", "-m", "initial")
    git(project, "remote", "add", "origin", str(remote))
    eng = engine(profile="autoagent", project_dir=project, home=home, env={"HOME": str(home), **GIT_ENV})
    cfg = no_warnings(eng)
    assert [h["type"] for h in cfg["hooks"]][-1] == "git-commit"

    issue = {"issueNumber": 1, "issueTitle": "Implement user authentication",
             "issueFile": "issues/1-implement-user-authentication.md", "planFile": "plans/1-implement-user-authentication.md"}
    r = eng.fire("PreExecutionStart", issue)
    assert not r.blocked, r.hooks[0].stderr
    assert (home / ".autoagent" / "execution.log").read_text() == "About to start issue 1: Implement user authentication\n"

    (project / "src").mkdir()
    (project / "src" / "auth.ts").write_text("export const login = () => true;\n")
    r = eng.fire("PostExecutionEnd", {**issue, "success": True, "duration": 45000, "provider": "claude",
                                      "filesModified": ["src/auth.ts"], "output": "Created authentication module..."})
    assert [h.exit_code for h in r.hooks] == [0, 0], [h.stderr for h in r.hooks]
    stdin = json.loads(r.hooks[0].stdout.split("notify-completion: ", 1)[1])
    assert stdin["eventName"] == "PostExecutionEnd" and stdin["workspace"] == str(project)
    assert isinstance(stdin["timestamp"], int) and stdin["filesModified"] == ["src/auth.ts"]
    assert r.hooks[1].exec == "builtin"
    assert git(project, "log", "-1", "--format=%s") == "Complete issue #1: Implement user authentication"
    assert "src/auth.ts" in git(project, "show", "--name-only", "--format=")

    # The seed's Stop hook script blocks while TODO.md has open items (it needs jq: a skip
    # that says so where jq is missing, a failure in CI, which installs it).
    if shutil.which("jq") is None:
        if os.environ.get("HOOKEXEC_REQUIRE_SHELLS") == "1":
            pytest.fail("jq is not installed and HOOKEXEC_REQUIRE_SHELLS=1 (.ci/run installs it)")
        pytest.skip("jq is not installed: the seed's Stop hook script was not run (the rest passed)")
    stop = {"type": "command", "command": "bash .autoagent/hooks/check-incomplete-todos.sh"}
    (project / "TODO.md").write_text("- [ ] one\n- [x] two\n")
    with_stop = engine(profile="autoagent", project_dir=project, home=home,
                       config={"hooks": {"Stop": [stop]}}, env={"HOME": str(home)})
    r = with_stop.fire("Stop", {"reason": "completed", "issuesCompleted": 1, "issuesTotal": 1})
    assert r.blocked and r.reason.startswith("There are 1 incomplete todos remaining")


def test_mycode_seed_configs(engine, tmp_path):
    project, home = copy_system("mycode", tmp_path)
    eng = engine(profile="mycode", project_dir=project, home=home, env={"HOME": str(home)})
    cfg = no_warnings(eng)
    by_source = {}
    for h in cfg["hooks"]:
        by_source.setdefault(Path(h["source"]).parent.name, []).append(h)
    assert set(by_source) == {".gen", ".mycode", ".claude"}
    assert by_source[".gen"][0]["timeout_ms"] == 5000
    assert by_source[".claude"][0]["timeout_ms"] == 60000  # milliseconds, mycode's default

    r = eng.fire("PostToolUse", {"tool_name": "Write", "tool_input": {"file_path": "src/component.tsx"}})
    outputs = [h.stdout for h in r.hooks]
    assert "File modified: src/component.tsx\n" in outputs  # $FILE_PATH substituted inside '...'
    assert any("src/component.tsx" in o for o in outputs if o.startswith("run-linter"))


def test_iteratr_seed_config(engine, tmp_path):
    project, home = copy_system("iteratr", tmp_path)
    eng = engine(profile="iteratr", project_dir=project, home=home)
    cfg = eng.config()
    assert len(cfg["hooks"]) == 7 and all(h["enabled"] for h in cfg["hooks"])
    assert [h["timeout_ms"] for h in cfg["hooks"]] == [60000, 30000, 5000, 120000, 30000, 30000, 10000]
    r = eng.fire("on_task_complete", {"session": "demo", "task_id": "T-7", "task_content": "add login"})
    assert r.agent_output == []
    # pre_iteration hands over the pending buffer first, then its own hooks' output (the
    # lint command is not installed here: its failure is what the agent sees, as in iteratr).
    r = eng.fire("pre_iteration", {"session": "demo", "iteration": 2})
    assert r.agent_output[0] == "validate: task T-7\n"
    assert len(r.agent_output) >= 2 and len(r.hooks) == 2
    assert eng.drain() == []


def test_cli_agent_seed_config(engine, tmp_path):
    project, home = copy_system("cli-agent", tmp_path)
    eng = engine(profile="cli-agent", project_dir=project, home=home, env={"HOME": str(home)})
    no_warnings(eng)
    r = eng.fire("PreToolUse", {"tool_name": "bash_execute", "tool_args": {"command": "echo 'hi' $(id)"}})
    assert r.hooks[0].stdout == "About to execute bash command\n"
    audit = (home / ".cli-agent-audit.log").read_text()
    assert audit.endswith("BASH: echo 'hi' $(id)\n")  # the template value is data, never run
