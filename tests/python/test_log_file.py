"""The debug log from Python: log_file (and $HOOKEXEC_LOG) append one JSON line per fire
with every hook considered and why it ran or not; nothing reaches the host's stdout/stderr."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import hookexec
from conftest import REPO, hook, settings


def lines(path: Path):
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_log_file_option(engine, tmp_path: Path, capfd) -> None:
    log = tmp_path / "fires.jsonl"
    cfg = settings("PreToolUse", hook("echo <<tool_input.command>> >&2; exit 2", name="guard"), matcher="Bash")
    eng = engine(config=cfg, log_file=str(log))
    r = eng.fire("PreToolUse", {"tool_name": "Bash", "tool_input": {"command": "rm -rf /"}})
    assert r.blocked
    eng.fire("PreToolUse", {"tool_name": "Edit"})
    first, second = lines(log)
    assert first["event"] == "PreToolUse" and first["blocked"] is True
    g = first["hooks"][0]
    assert g["id"] == "guard" and g["ran"] is True and g["exit_code"] == 2
    assert g["command"] == "echo 'rm -rf /' >&2; exit 2", "the command line after substitution"
    assert g["check"] == "matcher" and "matches" in g["reason"]
    assert second["hooks"][0]["ran"] is False
    assert 'does not match tool_name "Edit"' in second["hooks"][0]["reason"]
    out, err = capfd.readouterr()
    assert out == "" and err == "", "the log goes to its file only"


def test_log_from_environment(project: Path, home: Path, tmp_path: Path) -> None:
    """HOOKEXEC_LOG is read from the environment the process started with (the library
    reads its environment when it loads), so the host here is a fresh Python."""
    log = tmp_path / "env.jsonl"
    program = (
        "import hookexec, sys\n"
        "with hookexec.Engine(project_dir=sys.argv[1], home=sys.argv[2],"
        " config={'hooks': {'Stop': [{'hooks': [{'type': 'command', 'command': 'true', 'name': 't'}]}]}}) as e:\n"
        "    e.fire('Stop', {})\n"
        "    e.fire('SessionStart', {})\n"
    )
    env = {**os.environ, "HOOKEXEC_LOG": str(log), "PYTHONPATH": str(REPO / "pybind")}
    p = subprocess.run([sys.executable, "-c", program, str(project), str(home)], env=env, capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    got = lines(log)
    assert [h["id"] for h in got[0]["hooks"]] == ["t"]
    assert got[1]["event"] == "SessionStart" and got[1]["hooks"] == [], "a fire with no hooks is logged too"


def test_unusable_log_file_is_an_invalid_argument(project: Path, home: Path, tmp_path: Path) -> None:
    with pytest.raises(hookexec.InvalidArgumentError):
        hookexec.Engine(project_dir=project, home=home, log_file=str(tmp_path / "no" / "dir" / "x.log"))
