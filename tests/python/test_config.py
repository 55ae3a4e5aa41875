"""Configuration (SPEC §3): the cli-agent locations, merging, duplicates, drop-ins, warnings."""

from __future__ import annotations

from conftest import hook, settings, write_json


def test_cli_agent_locations_merge_in_precedence_order(engine, project, home):
    dup = hook("echo dup >> dup.log")  # identical in every file: runs once
    locations = {
        "local": project / ".config/agent/settings.local.json",
        "project": project / ".config/agent/settings.json",
        "home-agent": home / ".config/agent/settings.json",
        "home-cli": home / ".config/cli-agent/settings.json",
    }
    for label, path in locations.items():
        write_json(path, settings("Stop", hook(f"echo {label} > ran-{label}"), dup))
    # Drop-ins load after the four, sorted by name (b.json written first on purpose).
    write_json(home / ".config/agent/hooks/b.json", settings("Stop", hook("echo dropin-b > ran-dropin-b")))
    write_json(home / ".config/agent/hooks/a.json", settings("Stop", hook("echo dropin-a > ran-dropin-a")))

    eng = engine()
    r = eng.fire("Stop", {})

    expected = [
        "echo local > ran-local",
        "echo dup >> dup.log",
        "echo project > ran-project",
        "echo home-agent > ran-home-agent",
        "echo home-cli > ran-home-cli",
        "echo dropin-a > ran-dropin-a",
        "echo dropin-b > ran-dropin-b",
    ]
    assert [h.command for h in r.hooks] == expected
    assert [h.source for h in r.hooks][:5] == [str(locations["local"])] * 2 + [
        str(locations["project"]), str(locations["home-agent"]), str(locations["home-cli"])
    ]
    for label in list(locations) + ["dropin-a", "dropin-b"]:
        assert (project / f"ran-{label}").read_text() == f"{label}\n"
    assert (project / "dup.log").read_text() == "dup\n"

    cfg = eng.config()
    loaded = {s["path"] for s in cfg["sources"] if s["status"] == "loaded"}
    assert {str(p) for p in locations.values()} <= loaded
    assert str(home / ".config/agent/hooks/a.json") in loaded
    assert str(home / ".config/agent/hooks/b.json") in loaded
    dups = [h for h in cfg["hooks"] if h["command"] == "echo dup >> dup.log"]
    assert len(dups) == 4
    assert dups[0]["enabled"] is True and dups[0]["source"] == str(locations["local"])
    for d in dups[1:]:
        assert d["enabled"] is False
        assert d["disabled_reason"].startswith("duplicate of " + dups[0]["id"]), d["disabled_reason"]
    assert cfg["events"]["Stop"]["hooks"] == 7


def test_explicit_sources_replace_the_profile_locations(engine, project, tmp_path):
    write_json(project / ".config/agent/settings.json", settings("Stop", hook("echo profile")))
    extra = write_json(tmp_path / "extra.json", settings("Stop", hook("echo explicit")))
    eng = engine(sources=[extra])
    r = eng.fire("Stop", {})
    assert [h.command for h in r.hooks] == ["echo explicit"]


def test_empty_sources_mean_no_files(engine, project, home):
    # sources absent (or None) means the profile's files; [] means none, only the inline config.
    write_json(project / ".config/agent/settings.json", settings("Stop", hook("echo project")))
    write_json(home / ".config/agent/settings.json", settings("Stop", hook("echo user")))
    inline = settings("Stop", hook("echo inline"))
    assert [h.command for h in engine(config=inline).fire("Stop", {}).hooks] == ["echo inline", "echo project", "echo user"]
    eng = engine(config=inline, sources=[])
    assert [h.command for h in eng.fire("Stop", {}).hooks] == ["echo inline"]
    assert [s["path"] for s in eng.config()["sources"]] == ["<inline>"]


def test_ids_are_names_or_stable_hashes(engine, project, home):
    cfg = settings("Stop", hook("echo a", name="named"), hook("echo b"))
    a = engine(config=cfg).config()["hooks"]
    b = engine(config=cfg).config()["hooks"]
    assert a[0]["id"] == "named"
    assert a[1]["id"] == b[1]["id"] != ""


def test_disabled_hooks_by_id(engine):
    cfg = settings("Stop", hook("echo a", name="keep"), hook("echo b", name="drop"))
    cfg["disabledHooks"] = ["drop"]
    eng = engine(config=cfg)
    assert [h.id for h in eng.fire("Stop", {}).hooks] == ["keep"]


def test_disable_all_hooks(engine):
    cfg = settings("Stop", hook("echo a"))
    cfg["disableAllHooks"] = True
    eng = engine(config=cfg)
    assert eng.config()["disable_all"] is True
    assert eng.fire("Stop", {}).matched == 0


def test_broken_file_is_a_warning_and_the_rest_still_runs(engine, project, home):
    broken = write_json(project / ".config/agent/settings.json", '{"hooks": {"Stop": [ oops')
    write_json(home / ".config/agent/settings.json", settings("Stop", hook("echo still-here")))
    eng = engine()
    cfg = eng.config()
    assert any(w["source"] == str(broken) for w in cfg["warnings"]), cfg["warnings"]
    (src,) = [s for s in cfg["sources"] if s["path"] == str(broken)]
    assert src["status"] == "error"
    r = eng.fire("Stop", {})
    assert [h.stdout for h in r.hooks] == ["still-here\n"]


def test_validation_warns_and_disables_only_the_bad_hook(engine):
    cfg = {
        "hooks": {
            "PreToolUs": [{"hooks": [hook("echo typo", name="typo")]}],
            "PreToolUse": [
                {"matcher": "(", "hooks": [hook("echo badregex", name="badregex")]},
                {"matcher": "Bash", "hooks": [hook("echo good", name="good"), hook("echo neg", name="neg", timeout=-1)]},
            ],
            "Stop": [{"matcher": "Bash", "hooks": [hook("echo stopm", name="stopm")]}],
        }
    }
    eng = engine(config=cfg)
    c = eng.config()
    enabled = {h["id"]: h["enabled"] for h in c["hooks"]}
    assert enabled == {"typo": False, "badregex": False, "good": True, "neg": False, "stopm": False}
    by_hook = {w.get("hook"): w["message"] for w in c["warnings"]}
    assert "PreToolUse" in by_hook["typo"]  # did-you-mean
    assert {"badregex", "neg", "stopm"} <= set(by_hook)
    r = eng.fire("PreToolUse", {"tool_name": "Bash", "tool_input": {}})
    assert [h.id for h in r.hooks] == ["good"]


def test_reload_picks_up_changes(engine, project):
    path = project / ".config/agent/settings.json"
    write_json(path, settings("Stop", hook("echo one")))
    eng = engine()
    assert [h.stdout for h in eng.fire("Stop", {}).hooks] == ["one\n"]
    write_json(path, settings("Stop", hook("echo two"), matcher=None, SessionStart=[{"hooks": [hook("echo hi")]}]))
    eng.reload()
    assert [h.stdout for h in eng.fire("Stop", {}).hooks] == ["two\n"]
    assert eng.fire("SessionStart", {"source": "startup"}).matched == 1


def test_claude_profile_locations(engine, project, home):
    write_json(project / ".claude/settings.json", settings("Stop", hook("echo claude")))
    write_json(project / ".config/agent/settings.json", settings("Stop", hook("echo cli")))
    eng = engine(profile="claude")
    assert [h.stdout for h in eng.fire("Stop", {}).hooks] == ["claude\n"]
    assert eng.config()["profile"] == "claude"


def test_config_names_each_hooks_dialect_across_agents(engine, project):
    """Files of several agents in one engine (issue 18): config() names each hook's dialect
    and the event as its file spells it; a fire gets one canonical result."""
    write_json(project / ".claude/settings.json", settings("PreToolUse", hook("echo claude"), matcher="Bash"))
    write_json(project / ".cursor/hooks.json", {"version": 1, "hooks": {"beforeShellExecution": [
        {"command": "echo '{\"permission\": \"deny\", \"agent_message\": \"cursor says no\"}'"}]}})
    write_json(project / ".windsurf/hooks.json", {"hooks": {"pre_run_command": [{"command": "true"}]}})
    eng = engine(profile="claude", sources=[".claude/settings.json", ".cursor/hooks.json", ".windsurf/hooks.json"])
    hooks = eng.config().hooks
    assert [(h.dialect, h.event, h.event_as_written) for h in hooks] == [
        ("claude", "PreToolUse", ""),
        ("cursor", "PreToolUse", "beforeShellExecution"),
        ("windsurf", "PreToolUse", "pre_run_command"),
    ]
    r = eng.fire("PreToolUse", {"tool_name": "run_shell_command", "tool_input": {"command": "ls"}})
    assert r.matched == 3
    assert r.blocked and r.reason == "cursor says no"
