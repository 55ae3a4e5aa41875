"""Fixtures for the Python suite: it drives the real libhookexec.so and runs real processes.

Every engine gets a temporary project dir and a temporary home, so no test ever reads the
machine's own hook configuration. Run with:

    make test-python
    # or: HOOKEXEC_LIBRARY=$PWD/build/libhookexec.so PYTHONPATH=$PWD/pybind python3 -m pytest -q tests/python
"""

from __future__ import annotations

import json
import os
import stat
import sys
import textwrap
import time
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "pybind"))  # the package under test, even without PYTHONPATH
os.environ.setdefault("HOOKEXEC_LIBRARY", str(REPO / "build" / "libhookexec.so"))

import hookexec  # noqa: E402


@pytest.fixture
def project(tmp_path: Path) -> Path:
    p = tmp_path / "project"
    p.mkdir()
    return p


@pytest.fixture
def home(tmp_path: Path) -> Path:
    h = tmp_path / "home"
    h.mkdir()
    return h


@pytest.fixture
def script(project: Path) -> Callable[[str, str], Path]:
    """script(name, body) writes an executable hook script under <project>/hooks/."""

    def write(name: str, body: str) -> Path:
        d = project / "hooks"
        d.mkdir(exist_ok=True)
        path = d / name
        path.write_text(textwrap.dedent(body).lstrip())
        path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
        return path

    return write


def hook(command: Optional[str] = None, **fields: Any) -> Dict[str, Any]:
    """One handler of a Claude-shaped config."""
    h: Dict[str, Any] = {"type": "command"}
    if command is not None:
        h["command"] = command
    h.update(fields)
    return h


def settings(event: str, *handlers: Dict[str, Any], matcher: Optional[str] = None, **more_events: Any) -> Dict[str, Any]:
    """A settings document with one matcher group for event (more via more_events)."""
    group: Dict[str, Any] = {"hooks": list(handlers)}
    if matcher is not None:
        group["matcher"] = matcher
    hooks: Dict[str, Any] = {event: [group]}
    hooks.update(more_events)
    return {"hooks": hooks}


def write_json(path: Path, doc: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(doc if isinstance(doc, str) else json.dumps(doc, indent=2))
    return path


@pytest.fixture
def engine(project: Path, home: Path):
    """engine(**kw) opens an Engine on the temporary project and home; all are closed after."""
    opened: List[hookexec.Engine] = []

    def open_engine(**kw: Any) -> hookexec.Engine:
        kw.setdefault("project_dir", project)
        kw.setdefault("home", home)
        e = hookexec.Engine(**kw)
        opened.append(e)
        return e

    yield open_engine
    for e in opened:
        e.close()


# The slack a time bound in this suite allows beyond what the behaviour needs: only a real
# hang exceeds it, never a loaded machine. Speed is measured in tests/bench/, not asserted.
HANG_GUARD = 10.0


def rendezvous(n: int) -> str:
    """A shell fragment that returns once n hooks running it (in one working directory) have
    all started: hooks run one at a time never get past it, and their timeout ends them."""
    return f"mkdir -p meet && touch meet/$$ && while [ $(ls meet | wc -l) -lt {n} ]; do sleep 0.01; done"


def wait_for(pred: Callable[[], Any], timeout: float = HANG_GUARD, interval: float = 0.01) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        v = pred()
        if v or time.monotonic() > deadline:
            return v
        time.sleep(interval)


@pytest.fixture(scope="session", autouse=True)
def no_leaks_at_the_end():
    """After the whole suite: every engine closed, every library string freed."""
    yield
    import gc

    gc.collect()
    live = hookexec.debug_live()
    assert live == {"engines": 0, "strings": 0}, f"the suite leaked: {live}"
