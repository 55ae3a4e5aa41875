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
