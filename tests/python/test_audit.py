"""The audit log from Python: audit_log (and $HOOKEXEC_AUDIT_LOG) append every decision,
hash-chained, and the built CLI verifies what the library wrote."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

import hookexec
from conftest import REPO, hook, settings

CLI = Path(os.environ.get("HOOKEXEC_BIN", REPO / "build" / "hookexec"))


def verify(log: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(CLI), "audit", "verify", "--json", *args, str(log)], capture_output=True, text=True, check=False)


def test_audit_log_option(engine, tmp_path: Path) -> None:
    log = tmp_path / "audit.jsonl"
    cfg = settings("PreToolUse", hook("echo no >&2; exit 2", name="guard"), matcher="Bash")
    eng = engine(config=cfg, audit_log=str(log))
    assert eng.fire("PreToolUse", {"session_id": "py", "tool_name": "Bash", "tool_input": {"command": "ls"}}).blocked
    eng.fire("PreToolUse", {"session_id": "py", "tool_name": "Edit"})
    eng.close()  # the writer flushes on close
    entries = [json.loads(line) for line in log.read_text().splitlines()]
    assert [e["seq"] for e in entries] == [1, 2]
    first = entries[0]
    assert first["session"] == "py" and first["tool"] == "Bash" and first["decision"] == "deny"
    assert first["hooks"][0]["id"] == "guard" and first["hooks"][0]["exit_code"] == 2
    assert entries[1]["prev"] == first["hash"]
    rep = verify(log)
    assert rep.returncode == 0, rep.stderr
    assert json.loads(rep.stdout)["fires"] == 2

    log.write_text(log.read_text().replace('"reason":"no"', '"reason":"ok"'))
    rep = verify(log)
    assert rep.returncode == 1 and json.loads(rep.stdout)["problem"]["line"] == 1


def test_audit_log_unusable_is_a_config_error(engine, tmp_path: Path) -> None:
    with pytest.raises(hookexec.ConfigError):
        engine(audit_log=str(tmp_path / "no" / "such" / "dir" / "audit.jsonl"))
