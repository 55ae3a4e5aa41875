"""Shared fixtures of the framework adapters' tests: a project directory with its own HOME and
.claude/settings.json, and the fake model API (build/fakeapi, the Go fake the live agent
suites use) on 127.0.0.1, whose record of requests is what the tests check: what reached the
model, not what the adapter returned."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path
from typing import Any, Dict, Iterator, List, Optional

import pytest

ROOT = Path(__file__).resolve().parents[2]
FAKEAPI = ROOT / "build" / "fakeapi"
EXAMPLES = ROOT / "examples" / "frameworks"


class FakeModel:
    """A running fake model API. ``url`` is its base URL (ending in /v1 for "chat" and
    "responses"); :meth:`requests` the main conversation's request bodies so far."""

    def __init__(self, tmp: Path, api: str, script: List[Dict[str, Any]], side: str = "") -> None:
        self.api = api
        self._script = tmp / f"script-{api}-{id(self)}.json"
        self._record = tmp / f"record-{api}-{id(self)}.jsonl"
        self._script.write_text(json.dumps(script))
        args = [str(FAKEAPI), "-api", api, "-script", str(self._script), "-record", str(self._record)]
        if side:
            args += ["-side", side]
        self._proc = subprocess.Popen(args, stdout=subprocess.PIPE, text=True)
        assert self._proc.stdout is not None
        self.url = self._proc.stdout.readline().strip()
        if not self.url.startswith("http://127.0.0.1:"):
            self._proc.kill()
            raise RuntimeError(f"fakeapi did not start (first line {self.url!r}); run make build/fakeapi")

    def all_requests(self) -> List[Dict[str, Any]]:
        """Every request as recorded: {"path", "body", "main", "at"}. Waits for the record's
        flush (every 200 ms) by stopping the server first if it still runs."""
        self.close()
        if not self._record.exists():
            return []
        return [json.loads(line) for line in self._record.read_text().splitlines() if line.strip()]

    def requests(self) -> List[Dict[str, Any]]:
        """The main conversation's request bodies (requests that carried tools)."""
        return [r["body"] for r in self.all_requests() if r.get("main")]

    def text(self) -> str:
        """Every main request body as one JSON text, for "did this string reach the model"."""
        return "\n".join(json.dumps(b) for b in self.requests())

    def close(self) -> None:
        if self._proc.poll() is None:
            self._proc.send_signal(signal.SIGTERM)
            try:
                self._proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self._proc.kill()
                self._proc.wait()


class Project:
    """A project directory (the current directory during the test) with its own HOME."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.home = path / "home"
        self.home.mkdir()

    def settings(self, hooks: Dict[str, Any], **more: Any) -> Path:
        """Writes .claude/settings.json with ``{"hooks": hooks, **more}``."""
        d = self.path / ".claude"
        d.mkdir(exist_ok=True)
        f = d / "settings.json"
        f.write_text(json.dumps({"hooks": hooks, **more}, indent=2))
        return f

    def hook(self, event: str, command: str, matcher: Optional[str] = None, **handler: Any) -> Dict[str, Any]:
        """One event's entry: ``{event: [{"matcher": m, "hooks": [{"type": "command", ...}]}]}``."""
        entry: Dict[str, Any] = {"hooks": [{"type": "command", "command": command, **handler}]}
        if matcher is not None:
            entry["matcher"] = matcher
        return {event: [entry]}


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Project]:
    p = Project(tmp_path)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOME", str(p.home))
    yield p


@pytest.fixture
def fake_model(tmp_path: Path) -> Iterator[Any]:
    """``fake_model(api, script, side="")`` starts a fake; all are stopped after the test.
    A script is a list of turns: ``{"tools": [{"name", "input"}], "text"}``."""
    started: List[FakeModel] = []

    def start(api: str, script: List[Dict[str, Any]], side: str = "") -> FakeModel:
        m = FakeModel(tmp_path, api, script, side)
        started.append(m)
        return m

    yield start
    for m in started:
        m.close()


def run_example(name: str, prompt: str, env: Dict[str, str], cwd: Path, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    """Runs ``examples/frameworks/NAME/run PROMPT`` as a user would (hang guard: ``timeout``)."""
    full = {**os.environ, **env}
    # The example's env.sh finds the framework's venv in the cache the tests already use,
    # even when env sets HOME to the project's own.
    venv = os.environ.get("VIRTUAL_ENV")
    if venv and "HOOKEXEC_FRAMEWORK_CACHE" not in env:
        full.setdefault("HOOKEXEC_FRAMEWORK_CACHE", str(Path(venv).parent))
    start = time.monotonic()
    cp = subprocess.run([str(EXAMPLES / name / "run"), prompt], cwd=cwd, env=full, capture_output=True, text=True, timeout=timeout)
    cp.duration = time.monotonic() - start  # type: ignore[attr-defined]
    return cp
