"""Trust for project hooks through the real library: hooks from files inside the project run
only once approved; an approval names the entry and the hash of every project file it runs."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

import hookexec
from conftest import hook, settings, write_json

BASH = {"tool_name": "Bash", "tool_input": {"command": "ls"}}
GUARD = "import sys\nprint('guard says no', file=sys.stderr)\nsys.exit(2)\n"


@pytest.fixture
def repo(project: Path, home: Path) -> Path:
    """A freshly cloned repository: a Claude project guard in Python, and the user's own hook."""
    (project / ".claude" / "hooks").mkdir(parents=True)
    (project / ".claude" / "hooks" / "guard.py").write_text(GUARD)
    write_json(
        project / ".claude" / "settings.json",
        settings("PreToolUse", hook('python3 "$CLAUDE_PROJECT_DIR"/.claude/hooks/guard.py', name="guard"), matcher="Bash"),
    )
    write_json(home / ".claude" / "settings.json", settings("PreToolUse", hook("echo user-ran", name="user"), matcher="Bash"))
    return project


def test_approve_edit_refuse_reapprove(engine, repo: Path, home: Path):
    eng = engine(profile="claude", trust="project")
    r = eng.fire("PreToolUse", BASH)
    assert not r.blocked and r.decision == "none"
    assert [h.id for h in r.hooks] == ["user"], "user-level hooks run as before"
    assert r.awaiting_approval == [
        hookexec.AwaitingApproval(
            id="guard", source=str(repo / ".claude" / "settings.json"), event="PreToolUse", matcher="Bash",
            command='python3 "$CLAUDE_PROJECT_DIR"/.claude/hooks/guard.py', reason="new hook",
        )
    ]
    listed = eng.trust_list()
    assert listed["mode"] == "project" and listed["error"] == ""
    assert listed["store"] == str(home / ".config" / "hookexec" / "trust.json")
    (entry,) = listed["hooks"]
    assert entry["status"] == "awaiting approval" and entry["reason"] == "new hook"
    assert [f["path"] for f in entry["files"]] == [".claude/hooks/guard.py"]

    report = eng.approve("guard")
    assert report["hooks"][0]["status"] == "approved"
    r = eng.fire("PreToolUse", BASH)
    assert r.blocked and r.reason == "guard says no" and r.awaiting_approval == []

    # Edited behind the approval: refused at once, reported with the reason, never run.
    (repo / ".claude" / "hooks" / "guard.py").write_text("open('pwned', 'w').close()\n")
    r = eng.fire("PreToolUse", BASH)
    assert not r.blocked
    assert [a.reason for a in r.awaiting_approval] == ["script .claude/hooks/guard.py changed"]
    assert "guard: not run, awaiting approval (script .claude/hooks/guard.py changed)" in r.warnings
    assert not (repo / "pwned").exists()
    (cfg_hook,) = [h for h in eng.config()["hooks"] if h["id"] == "guard"]
    assert cfg_hook["trust"] == "awaiting approval"
    assert cfg_hook["trust_reason"] == "script .claude/hooks/guard.py changed"

    eng.approve(all=True)
    r = eng.fire("PreToolUse", BASH)
    assert r.awaiting_approval == [] and (repo / "pwned").exists()

    eng.revoke("guard")
    assert [a.reason for a in eng.fire("PreToolUse", BASH).awaiting_approval] == ["new hook"]


def test_command_change_revokes(engine, repo: Path):
    eng = engine(profile="claude", trust="project")
    eng.approve("guard")
    write_json(
        repo / ".claude" / "settings.json",
        settings("PreToolUse", hook('python3 "$CLAUDE_PROJECT_DIR"/.claude/hooks/guard.py --lax', name="guard"), matcher="Bash"),
    )
    eng.reload()
    r = eng.fire("PreToolUse", BASH)
    assert [a.reason for a in r.awaiting_approval] == ["command changed"]
    assert not r.blocked


def test_fast_path_reports_awaiting_hooks(engine, repo: Path):
    """The binding's no-match shortcut must not hide a hook that awaits approval."""
    write_json(
        repo / ".claude" / "settings.json",
        settings("Stop", hook("python3 .claude/hooks/guard.py", name="stop-guard")),
    )
    eng = engine(profile="claude", trust="project")
    assert eng.matches("Stop") == 0, "a hook awaiting approval would not run"
    r = eng.fire("Stop", {})
    assert [a.id for a in r.awaiting_approval] == ["stop-guard"]
    eng.approve("stop-guard")
    assert eng.matches("Stop") == 1
    assert eng.fire("Stop", {}).blocked


def test_unreadable_store_fails_closed(engine, repo: Path, tmp_path: Path):
    store = tmp_path / "elsewhere" / "trust.json"
    store.parent.mkdir()
    store.write_text("{not json")
    eng = engine(profile="claude", trust="project", trust_store=str(store))
    r = eng.fire("PreToolUse", BASH)
    assert [h.id for h in r.hooks] == ["user"] and not r.blocked
    assert "trust store unreadable" in r.awaiting_approval[0].reason
    assert any(w["source"] == str(store) and "no project-level hook runs" in w["message"] for w in eng.config()["warnings"])
    with pytest.raises(hookexec.TrustStoreError) as e:
        eng.approve("guard")
    assert e.value.code == 7 and "not valid JSON" in e.value.message
    assert store.read_text() == "{not json", "a store that cannot be read is never overwritten"
    assert "not valid JSON" in eng.trust_list()["error"]

    if os.geteuid() != 0:
        store.write_text("{}")
        store.chmod(0)
        try:
            eng.reload()
            r = eng.fire("PreToolUse", BASH)
            assert "permission denied" in r.awaiting_approval[0].reason
        finally:
            store.chmod(0o600)


def test_default_trust_all_runs_project_hooks(engine, repo: Path):
    eng = engine(profile="claude")
    assert eng.config()["trust"] == "all"
    assert eng.fire("PreToolUse", BASH).blocked
    # Approvals can be collected before a host enforces them.
    assert eng.trust_list()["hooks"][0]["status"] == "awaiting approval"
    assert eng.approve("guard")["hooks"][0]["status"] == "approved"


def test_store_is_readable_json(engine, repo: Path, home: Path):
    eng = engine(profile="claude", trust="project")
    eng.approve("guard")
    text = (home / ".config" / "hookexec" / "trust.json").read_text()
    doc = json.loads(text)
    (approval,) = doc["projects"][os.path.realpath(repo)]["approvals"]
    assert approval["source"] == ".claude/settings.json" and approval["event"] == "PreToolUse"
    assert approval["files"][".claude/hooks/guard.py"].startswith("sha256:")
    assert approval["approved_at"].endswith("Z")
    assert text.startswith('{\n  "projects"'), "indented for a person"


def test_bad_arguments(engine, repo: Path):
    eng = engine(profile="claude", trust="project")
    with pytest.raises(TypeError):
        eng.approve()
    with pytest.raises(TypeError):
        eng.approve("guard", all=True)
    with pytest.raises(hookexec.InvalidArgumentError, match="no project-level hook"):
        eng.approve("user")
    with pytest.raises(hookexec.InvalidArgumentError, match="no approval"):
        eng.revoke("guard")
    with pytest.raises(hookexec.InvalidArgumentError):
        engine(trust="sometimes")
