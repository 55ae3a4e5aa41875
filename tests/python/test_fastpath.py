"""The fast path (SPEC §11): a fire that matches nothing is answered in Python without
encoding the payload.

This is a deliberate, documented property of the wrapper: for an event nobody listens to,
the payload is never looked at beyond the matcher's subject field, so even an
unserialisable payload is not an error. These tests prove the payload was not encoded by
passing one that json.dumps would reject.
"""

from __future__ import annotations

import pytest

import hookexec
from conftest import hook, settings, write_json

UNSERIALISABLE = {"tool_name": "Bash", "tool_input": {"command": "ls"}, "handle": object()}


def test_event_without_hooks_skips_encoding(engine):
    eng = engine(config=settings("PreToolUse", hook("true"), matcher="Bash"))
    r = eng.fire("PostToolUse", UNSERIALISABLE)
    assert r == hookexec.FireResult.empty("PostToolUse")
    assert (r.event, r.matched, r.blocked, r.decision, r.continue_) == ("PostToolUse", 0, False, "none", True)
    assert r.hooks == [] and r.warnings == [] and r.agent_output == [] and r.updated_input is None
    # The same empty value each time: it costs a dict lookup, and it refuses mutation.
    assert eng.fire("PostToolUse", UNSERIALISABLE) is r
    with pytest.raises(TypeError):
        r.hooks.append(None)


def test_empty_result_equals_what_the_library_returns(engine):
    eng = engine(config=settings("PreToolUse", hook("true"), matcher="Bash"))
    lib = eng._fire("PostToolUse", {"tool_name": "Bash"})  # bypasses the fast path
    fast = eng.fire("PostToolUse", {"tool_name": "Bash"})
    assert lib.raw.keys() == fast.raw.keys()
    assert {k: v for k, v in lib.raw.items() if k != "duration_ms"} == {
        k: v for k, v in fast.raw.items() if k != "duration_ms"
    }


def test_subject_that_matches_nothing_skips_encoding(engine):
    eng = engine(config=settings("PreToolUse", hook("true"), matcher="Write"))
    r = eng.fire("PreToolUse", UNSERIALISABLE)  # tool_name Bash: the library's matcher says 0
    assert r.matched == 0 and r.event == "PreToolUse"


def test_matching_subject_encodes_and_reports_unserialisable_payloads(engine):
    eng = engine(config=settings("PreToolUse", hook("true"), matcher="Bash"))
    with pytest.raises(hookexec.InvalidArgumentError, match="JSON"):
        eng.fire("PreToolUse", UNSERIALISABLE)
    assert eng.fire("PreToolUse", {"tool_name": "Bash"}).matched == 1


def test_aliases_come_from_the_library(engine):
    eng = engine(config=settings("PreToolUse", hook("true"), matcher="Bash"))
    # The library reports every alias, so an alias of an unhooked event takes the fast path.
    assert eng.config()["event_names"]["post-tool"] == "PostToolUse"
    assert eng.fire("post-tool", UNSERIALISABLE).event == "PostToolUse"
    # An open-ended event name always goes to the library (it must be encodable).
    with pytest.raises(hookexec.InvalidArgumentError):
        eng.fire("PreDeploy", UNSERIALISABLE)
    # An alias of an event that has hooks still runs them.
    assert eng.fire("pre-tool", {"tool_name": "Bash"}).matched == 1
    assert eng.fire("pre-tool", {"tool_name": "Bash"}).matched == 1


def test_reload_refreshes_the_summary(engine, project):
    path = write_json(project / ".config/agent/settings.json", settings("PreToolUse", hook("true")))
    eng = engine()
    assert eng.fire("PostToolUse", UNSERIALISABLE).matched == 0
    write_json(path, settings("PostToolUse", hook("echo post")))
    eng.reload()
    r = eng.fire("PostToolUse", {"tool_name": "Bash"})
    assert r.matched == 1 and r.hooks[0].stdout == "post\n"
    assert eng.fire("PreToolUse", UNSERIALISABLE).matched == 0


def test_piped_output_reaches_the_next_pre_iteration_even_without_hooks(engine):
    # pipe_output queues a hook's output for the next pre_iteration fire's agent_output, which
    # only the library holds; the fast path must not swallow it, even with no hook for the event.
    eng = engine(config=settings("PostIteration", hook("echo lint failed", pipe_output=True)))
    first = eng.fire("PostIteration", {})
    assert first.matched == 1 and first.agent_output == []
    assert eng.fire("Stop", {}).agent_output == []  # no other fire takes the buffer
    r = eng.fire("PreIteration", {})  # no hooks for PreIteration
    assert [s.strip() for s in r.agent_output] == ["lint failed"]
    assert eng.fire("PreIteration", {}).agent_output == []


def test_drain_returns_piped_output(engine):
    eng = engine(config=settings("PostIteration", hook("echo <<n>>", pipe_output=True)))
    assert eng.fire("PostIteration", {"n": "one"}).agent_output == []
    assert eng.fire("PostIteration", {"n": "two"}).agent_output == []
    assert [s.strip() for s in eng.drain()] == ["one", "two"]  # FIFO
    assert eng.drain() == []
    assert eng.fire("PreIteration", {}).agent_output == []


def test_non_dict_payloads_always_reach_the_library(engine):
    eng = engine()
    with pytest.raises(hookexec.InvalidArgumentError):
        eng.fire("Stop", [1, 2])
    with pytest.raises(hookexec.InvalidArgumentError):
        eng.fire("Stop", "not json")


def test_cached_match_counts_are_dropped_on_reload(engine, project):
    path = write_json(project / ".config/agent/settings.json", settings("PreToolUse", hook("true"), matcher="Write"))
    eng = engine()
    assert eng.fire("PreToolUse", UNSERIALISABLE).matched == 0  # Bash: counted 0, cached
    write_json(path, settings("PreToolUse", hook("echo now"), matcher="Bash"))
    eng.reload()
    r = eng.fire("PreToolUse", {"tool_name": "Bash"})
    assert r.matched == 1 and r.hooks[0].stdout == "now\n"


def test_matching_subject_is_remembered_and_still_fires(engine, project):
    """A subject known to match goes straight to the library on later fires, and every such
    fire still runs its hook; a reload forgets what was known."""
    eng = engine(config=settings("PreToolUse", hook("echo ran >> fired.log"), matcher="Bash"))
    payload = {"tool_name": "Bash", "tool_input": {"command": "ls"}}
    for _ in range(3):
        assert eng.fire("PreToolUse", payload).matched == 1
    assert eng.fire("PreToolUse", {"tool_name": "Read"}).matched == 0
    assert (project / "fired.log").read_text() == "ran\n" * 3
    # A matching subject's payload is encoded: an unserialisable one is an error, remembered or not.
    with pytest.raises(hookexec.InvalidArgumentError):
        eng.fire("PreToolUse", dict(UNSERIALISABLE))
    write_json(project / ".config" / "agent" / "settings.json", settings("PreToolUse", hook("true"), matcher="Read"))
    eng.reload()
    # The inline config still holds Bash; Read now matches too.
    assert eng.fire("PreToolUse", {"tool_name": "Read"}).matched == 1


def test_result_decode_fills_what_the_library_leaves_out():
    """Results decode the same whether the library sends every key (the fast constructor) or
    adds keys this package does not know (the field-by-field one), and missing keys take
    their neutral values: an older or newer library never breaks parsing."""
    full = {
        "event": "PreToolUse", "matched": 1, "blocked": True, "decision": "deny", "reason": "no",
        "continue": False, "stop_reason": "s", "updated_input": {"a": 1}, "additional_context": "c",
        "system_message": "m", "agent_output": ["o"], "env": {"K": "V"}, "worktree_path": "",
        "duration_ms": 1, "warnings": ["w"], "hooks": [{
            "id": "h", "source": "<inline>", "matcher": "Bash", "command": "true", "exec": "direct",
            "exit_code": 2, "signal": "", "timed_out": False, "duration_ms": 0, "stdout": "",
            "stderr": "no", "stdout_truncated": False, "stderr_truncated": False, "output": None,
            "decision": "deny", "error": "", "async": True, "http_status": 0, "status_message": "",
        }],
        "updated_tool_output": None, "updated_permissions": None, "interrupt": False, "retry": False,
        "session_title": "", "initial_user_message": "", "watch_paths": [], "reload_skills": False,
        "terminal_sequence": "", "classifier_context": [], "awaiting_approval": [],
    }
    fast = hookexec.FireResult.from_dict(full)
    slow = hookexec.FireResult.from_dict(dict(full, added_by_a_newer_library=1))
    assert fast == slow and repr(fast) == repr(slow)
    assert fast.hooks[0] == hookexec.HookResult.from_dict(dict(full["hooks"][0], newer=1))
    assert (fast.continue_, fast.hooks[0].async_, fast.duration_ms, fast.hooks[0].duration_ms) == (False, True, 1.0, 0.0)
    assert type(fast.duration_ms) is float and fast.env == {"K": "V"} and fast.raw == full
    with pytest.raises(TypeError):
        fast.warnings.append("x")
    with pytest.raises(TypeError):
        fast.env["K"] = "W"
    assert hookexec.FireResult.from_dict({"event": "Stop"}) == hookexec.FireResult.from_dict({"event": "Stop", "new": 1})
    sparse = hookexec.FireResult.from_dict({"event": "Stop", "hooks": [{"id": "h"}]})
    assert (sparse.continue_, sparse.decision, sparse.hooks[0].exit_code, sparse.hooks[0].exec, sparse.warnings) == (
        True, "none", -1, "direct", [])
