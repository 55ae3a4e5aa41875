"""Templates (SPEC §5): for any value in any supported context, the hook receives exactly the
value as data and no part of it runs."""

from __future__ import annotations

import pytest

from conftest import hook

HOSTILE = [
    "plain.txt",
    "with space.txt",
    "it's",
    'say "hi"',
    "both ' and \" quotes",
    "$(touch PWNED)",
    "`touch PWNED`",
    "x; touch PWNED",
    "x && touch PWNED || touch PWNED",
    "a | touch PWNED",
    "line1\nline2\ntouch PWNED",
    "back\\slash",
    "trailing\\",
    "\\'; touch PWNED; echo '",
    '"; touch PWNED; echo "',
    "'\"$(touch PWNED)\"'",
    "$HOME ${HOME} $((1+1))",
    "* ? [a] ~",
    "> PWNED",
    "-n",
    "",
    "  padded  ",
    "tab\there",
    "ünïcødé ✓",
    "%s %d %%",
    "!event",
]

# Each hook writes the value to its own file; cwd is the project dir.
CONTEXTS = {
    "out1": "printf %s <<tool_input.file_path>> > out1",
    "out2": "printf %s '<<tool_input.file_path>>' > out2",
    "out3": 'printf %s "<<tool_input.file_path>>" > out3',
    "out5": "printf %s {{tool_args.file_path}} > out5",
    "out6": "printf '%s\\n' x<<tool_input.file_path>>y > out6",  # inside a word: still one word
}
# "--" before the placeholder: without it a value starting with "-" is refused (the option rule).
ARGS_FORM = ["python3", "-c", "import sys;open('out4','w').write(sys.argv[-1])", "--", "<<tool_input.file_path>>"]


@pytest.mark.parametrize("value", HOSTILE, ids=[repr(v)[:30] for v in HOSTILE])
def test_every_context_receives_exactly_the_value(engine, project, value):
    handlers = [hook(cmd, name=name) for name, cmd in CONTEXTS.items()]
    handlers.append(hook(args=ARGS_FORM, name="out4"))
    eng = engine(config={"hooks": {"PreToolUse": [{"matcher": "Write", "hooks": handlers}]}})
    assert eng.config()["warnings"] == []

    r = eng.fire("PreToolUse", {"tool_name": "Write", "tool_input": {"file_path": value}})

    assert r.matched == 6, [h.error for h in r.hooks]
    for h in r.hooks:
        assert h.exit_code == 0, (h.id, h.command, h.stderr, h.error)
    for name in ("out1", "out2", "out3", "out4", "out5"):
        got = (project / name).read_bytes()
        assert got == value.encode(), name
    assert (project / "out6").read_bytes() == ("x" + value + "y\n").encode()
    assert not (project / "PWNED").exists()
    assert list(project.rglob("PWNED")) == []


def test_values_are_rendered_by_type(engine, project):
    cmd = "printf '%s|%s|%s|%s|%s' <<n>> <<b>> <<obj>> <<missing>> <<arr[1]>> > typed"
    eng = engine(config={"hooks": {"Stop": [{"hooks": [hook(cmd)]}]}})
    r = eng.fire("Stop", {"n": 1.5, "b": True, "obj": {"k": [1, "x"]}, "arr": ["a", "b"]})
    assert r.hooks[0].exit_code == 0, r.hooks[0].stderr
    assert (project / "typed").read_text() == '1.5|true|{"k":[1,"x"]}||b'


@pytest.mark.parametrize(
    "command",
    [
        "cat <<EOF\n<<tool_input.file_path>>\nEOF",  # heredoc body
        "printf %s $'<<tool_input.file_path>>'",  # ANSI-C quoting
        "printf %s '<<tool_input.file_path>>",  # unterminated quote
        "bash -o pipefail -c 'python3 -c \"print(<<tool_input.file_path>>)\"'",  # code in a nested script
        "echo <<tool_input.file_path>> | bash /dev/stdin",  # piped into a shell
        "echo <<tool_input.file_path>> )",  # cannot be parsed
    ],
    ids=["heredoc", "ansi-c", "unterminated", "nested-code", "piped", "unparseable"],
)
def test_unsafe_contexts_are_config_errors_not_guesses(engine, project, command):
    eng = engine(config={"hooks": {"PreToolUse": [{"hooks": [hook(command, name="bad")]}]}})
    cfg = eng.config()
    (info,) = [h for h in cfg["hooks"] if h["id"] == "bad"]
    assert info["enabled"] is False
    assert any(w.get("hook") == "bad" and w["error"] for w in cfg["warnings"]), cfg["warnings"]
    assert eng.matches("PreToolUse", "Write") == 0
    r = eng.fire("PreToolUse", {"tool_name": "Write", "tool_input": {"file_path": "$(touch PWNED)"}})
    assert r.matched == 0
    assert not (project / "PWNED").exists()


def test_a_refused_value_blocks_the_guard(engine, project):
    """A value must never decide whether a guard runs (issue 16): an option-like value or a
    NUL byte leaves the hook not run, and the PreToolUse fire is blocked."""
    eng = engine(config={"hooks": {"PreToolUse": [{"matcher": "Write", "hooks": [hook("gofmt -l <<tool_input.file_path>>; touch ran")]}]}})
    for value in ["-cpuprofile=cpu.out", "a\x00b"]:
        r = eng.fire("PreToolUse", {"tool_name": "Write", "tool_input": {"file_path": value}})
        assert r.blocked, r.hooks[0].error
        assert "<<tool_input.file_path>>" in r.hooks[0].error
        assert not (project / "ran").exists()
        assert not (project / "cpu.out").exists()
