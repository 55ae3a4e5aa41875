"""Claude Code's format through the real library: typed env/worktree_path results, the
plugins / managed_settings / max_stop_blocks keyword options, and the fast path staying
consistent with the library for events whose subject is reduced (FileChanged's basename)."""

from __future__ import annotations

import json
from pathlib import Path

import hookexec


def _settings(project: Path, hooks: dict) -> None:
    d = project / ".claude"
    d.mkdir(exist_ok=True)
    (d / "settings.json").write_text(json.dumps({"hooks": hooks}))


def test_env_file_and_worktree_are_typed(project: Path, home: Path) -> None:
    _settings(project, {
        "SessionStart": [{"hooks": [{"type": "command", "command": "echo 'export A=\"1 2\"' >> \"$CLAUDE_ENV_FILE\""}]}],
        "WorktreeCreate": [{"hooks": [{"type": "command", "command": "echo /tmp/wt"}]}],
    })
    with hookexec.Engine(profile="claude", project_dir=project, home=home) as eng:
        r = eng.fire("SessionStart", {"source": "startup"})
        assert r.env == {"A": "1 2"}
        assert eng.fire("WorktreeCreate", {"name": "x"}).worktree_path == "/tmp/wt"
        assert eng.fire("Stop", {}).env == {}  # the fast path's empty result has the fields too


def test_plugin_and_policy_options(project: Path, home: Path) -> None:
    plugin = project / "plug"
    (plugin / "hooks").mkdir(parents=True)
    (plugin / "hooks" / "hooks.json").write_text(json.dumps(
        {"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "echo \"$CLAUDE_PLUGIN_ROOT\""}]}]}}))
    managed = home / "managed.json"
    # Blocks unless stop_hook_active: a managed block keeps the other hooks from running.
    managed.write_text(json.dumps({"hooks": {"Stop": [{"hooks": [
        {"type": "command", "command": "grep -q 'stop_hook_active\": *true' && exit 0; exit 2"}]}]}}))
    with hookexec.Engine(profile="claude", project_dir=project, home=home, plugins=[str(plugin)],
                         managed_settings=str(managed), max_stop_blocks=1) as eng:
        hooks = eng.config()["hooks"]
        assert [h.get("managed", False) for h in hooks] == [True, False]
        assert hooks[1]["plugin"] == "plug"
        first = eng.fire("Stop", {"session_id": "s"})
        assert first.blocked and first.hooks[1].error == "not run: a managed hook blocked"
        second = eng.fire("Stop", {"session_id": "s"})
        assert not second.blocked and any("past the cap of 1" in w for w in second.warnings)
        third = eng.fire("Stop", {"session_id": "t", "stop_hook_active": True})
        assert not third.blocked and third.hooks[1].stdout == f"{plugin}\n"


def test_file_changed_matches_the_basename(project: Path, home: Path) -> None:
    _settings(project, {"FileChanged": [{"matcher": "envrc", "hooks": [{"type": "command", "command": "echo changed"}]}]})
    with hookexec.Engine(profile="claude", project_dir=project, home=home) as eng:
        assert eng.matches("FileChanged", str(project / "envrc")) == 1
        assert eng.fire("FileChanged", {"file_path": str(project / "envrc")}).matched == 1
        assert eng.fire("FileChanged", {"file_path": str(project / "other")}).matched == 0
