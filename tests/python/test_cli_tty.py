"""The hookexec command on a real terminal (a pseudo-terminal): colour only on a TTY and
never with NO_COLOR, long commands shortened to the width, and an elapsed-time line on
stderr while a slow hook runs. Piped output (the other tests) stays plain."""

from __future__ import annotations

import json
import os
import pty
import select
import subprocess
from pathlib import Path
from typing import Dict, Tuple

import pytest

REPO = Path(__file__).resolve().parents[2]
BIN = Path(os.environ.get("HOOKEXEC_BIN", REPO / "build" / "hookexec"))
HANG = 60  # a hang guard only


def run_tty(args, cwd: Path, env: Dict[str, str]) -> Tuple[str, str, int]:
    """Runs hookexec with stdout and stderr on two pseudo-terminals; returns what each got."""
    if not BIN.exists():
        pytest.fail(f"{BIN} is missing: run make build/hookexec")
    out_m, out_s = pty.openpty()
    err_m, err_s = pty.openpty()
    proc = subprocess.Popen([str(BIN), *args], cwd=cwd, stdin=subprocess.DEVNULL, stdout=out_s, stderr=err_s,
                            env={**os.environ, "HOOKEXEC_LOG": "", **env})
    os.close(out_s)
    os.close(err_s)
    got = {out_m: b"", err_m: b""}
    open_fds = [out_m, err_m]
    while open_fds:
        ready, _, _ = select.select(open_fds, [], [], HANG)
        assert ready, "hookexec hung"
        for fd in ready:
            try:
                chunk = os.read(fd, 65536)
            except OSError:  # EIO: the other side closed
                chunk = b""
            if chunk:
                got[fd] += chunk
            else:
                open_fds.remove(fd)
                os.close(fd)
    rc = proc.wait(timeout=HANG)
    return got[out_m].decode(), got[err_m].decode(), rc


@pytest.fixture
def proj(project: Path, home: Path) -> Path:
    (project / ".claude").mkdir()
    long_cmd = "echo " + "a-very-long-argument " * 8
    (project / ".claude" / "settings.json").write_text(json.dumps({"hooks": {
        "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": long_cmd, "name": "long"}]}],
        "Stop": [{"hooks": [{"type": "command", "command": "sleep 1.6; echo slept", "name": "slow"}]}],
    }}))
    return project


def base(project: Path, home: Path):
    return ["--profile", "claude", "--project", str(project), "--home", str(home)]


def test_colour_and_width_on_a_terminal(proj: Path, home: Path) -> None:
    out, _, rc = run_tty([*base(proj, home), "list"], proj, {"COLUMNS": "80", "NO_COLOR": "", "TERM": "xterm"})
    assert rc == 0
    assert "\x1b[" in out, "colour on a terminal"
    assert "…" in out, "the long command is shortened to the terminal's width"
    for line in out.splitlines():
        plain = line
        while "\x1b[" in plain:
            i = plain.index("\x1b[")
            plain = plain[:i] + plain[plain.index("m", i) + 1:]
        assert len(plain) <= 80, plain


def test_no_color(proj: Path, home: Path) -> None:
    out, err, rc = run_tty([*base(proj, home), "list"], proj, {"COLUMNS": "80", "NO_COLOR": "1", "TERM": "xterm"})
    assert rc == 0
    assert "\x1b[" not in out + err, "NO_COLOR turns colour off"
    assert "Total: 2 hooks (2 enabled, 0 disabled)" in out


def test_piped_output_is_plain_and_whole(proj: Path, home: Path) -> None:
    p = subprocess.run([str(BIN), *base(proj, home), "list"], capture_output=True, text=True,
                       env={**os.environ, "COLUMNS": "40", "NO_COLOR": ""}, timeout=HANG)
    assert p.returncode == 0
    assert "\x1b[" not in p.stdout
    assert "a-very-long-argument " * 7 in p.stdout, "not shortened when piped"


def test_elapsed_time_line_for_a_slow_hook(proj: Path, home: Path) -> None:
    out, err, rc = run_tty([*base(proj, home), "fire", "Stop"], proj, {"NO_COLOR": "1", "TERM": "xterm"})
    assert rc == 0
    assert "running Stop hooks…" in err, err
    assert err.rstrip(" ").endswith("\r\x1b[K"), "the line is erased when the fire returns"
    assert "slow stdout: slept" in out
