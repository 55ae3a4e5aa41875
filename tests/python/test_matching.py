"""matches() (SPEC §4): names, globs over tool identities, regexes, aliases."""

from __future__ import annotations

import time

import pytest

import hookexec
from conftest import HANG_GUARD, hook

MATCHERS = {
    "all": "",
    "star": "*",
    "builtins": "builtin:*",
    "mcp": "mcp__*",
    "github": "mcp__github__*",
    "names": "Bash|Write, Edit",
    "regex": "^Notebook.*Edit$",
}


@pytest.fixture
def eng(engine):
    groups = [{"matcher": m, "hooks": [hook(f"echo {name}", name=name)]} for name, m in MATCHERS.items()]
    e = engine(config={"hooks": {"PreToolUse": groups}})
    assert e.config()["warnings"] == []
    return e


@pytest.mark.parametrize(
    "subject, expected",
    [
        ("Bash", {"all", "star", "builtins", "names"}),
        ("Write", {"all", "star", "builtins", "names"}),
        ("Edit", {"all", "star", "builtins", "names"}),
        ("BASH", {"all", "star", "builtins"}),  # case-sensitive
        ("bash", {"all", "star", "builtins", "names"}),  # Copilot CLI's Bash (core/vocab)
        ("bash_execute", {"all", "star", "builtins", "names"}),  # cli-agent's Bash
        ("builtin:bash_execute", {"all", "star", "builtins", "names"}),
        ("run_shell_command", {"all", "star", "builtins", "names"}),  # Gemini's Bash
        ("read_file", {"all", "star", "builtins"}),  # Read: not in the names
        ("builtin:Bash", {"all", "star", "builtins", "names"}),  # a plain name matches however spelt
        ("mcp__github__create_issue", {"all", "star", "mcp", "github"}),
        ("mcp__slack__post", {"all", "star", "mcp"}),
        ("github:create_issue", {"all", "star", "mcp", "github"}),  # cli-agent's MCP spelling
        ("NotebookEdit", {"all", "star", "builtins", "regex"}),
        ("NotebookEditX", {"all", "star", "builtins"}),
    ],
)
def test_matches_counts_what_fire_runs(eng, subject, expected):
    assert eng.matches("PreToolUse", subject) == len(expected)
    assert eng.matches("pre-tool", subject) == len(expected)  # aliases normalise
    r = eng.fire("PreToolUse", {"tool_name": subject, "tool_input": {}})
    assert {h.id for h in r.hooks} == expected
    # match_ids names the same hooks, in config order (the order of MATCHERS).
    assert eng.match_ids("PreToolUse", subject) == [n for n in MATCHERS if n in expected]
    assert eng.match_ids("pre-tool", subject) == [h.id for h in r.hooks]


def test_match_ids_errors(eng):
    assert eng.match_ids("Stop") == []
    with pytest.raises(hookexec.InvalidArgumentError):
        eng.match_ids("")
    eng.close()
    with pytest.raises(hookexec.ClosedError):
        eng.match_ids("PreToolUse", "Bash")


def test_builtin_glob_does_not_match_a_missing_tool(eng):
    # No tool_name is no tool at all: only the match-everything matchers apply.
    assert eng.matches("PreToolUse", "") == 2
    assert {h.id for h in eng.fire("PreToolUse", {}).hooks} == {"all", "star"}


def test_matches_for_events_without_hooks(eng):
    assert eng.matches("Stop") == 0
    assert eng.matches("PostToolUse", "Bash") == 0
    assert eng.matches("SomethingCustom") == 0


def test_pathological_regex_cannot_hang(engine):
    e = engine(config={"hooks": {"PreToolUse": [{"matcher": "^(a+)+$", "hooks": [hook("true")]}]}})
    t0 = time.monotonic()
    n = e.matches("PreToolUse", "a" * 40 + "!")
    assert n == 0
    assert time.monotonic() - t0 < HANG_GUARD  # unbounded, this backtracking takes hours
