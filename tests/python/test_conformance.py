"""The shared conformance vectors (tests/conformance/<dialect>/*.json) through the C library.

tests/conformance/conformance_test.go runs the same files through the Go engine with the same
semantics; tests/conformance/README.md describes the format. Run one dialect with e.g.
``-k autohand``.
"""

from __future__ import annotations

import json
import stat
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Dict, Iterator, List, Optional

import pytest

import hookexec
from conftest import REPO

VECTORS = sorted((REPO / "tests" / "conformance").glob("*/*.json"))


def _substitute(x: Any, project: str, home: str, http: str = "") -> Any:
    """$PROJECT, $HOME and $HTTP in every string (keys included) become the temp dirs and the
    vector's HTTP server."""
    if isinstance(x, str):
        return x.replace("$PROJECT", project).replace("$HTTP", http).replace("$HOME", home)
    if isinstance(x, list):
        return [_substitute(v, project, home, http) for v in x]
    if isinstance(x, dict):
        return {_substitute(k, project, home, http): _substitute(v, project, home, http) for k, v in x.items()}
    return x


class _Routes(BaseHTTPRequestHandler):
    """Answers each path as the vector's "http" says: status (default 200), body (a string
    as-is, any other JSON value as JSON), after delay_ms."""

    def log_message(self, *args: Any) -> None:
        pass

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        rt = self.server.routes.get(self.path.lstrip("/"))  # type: ignore[attr-defined]
        if rt is None:
            self.send_response(404)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        time.sleep((rt.get("delay_ms") or 0) / 1000)
        body = rt.get("body")
        data = b"" if body is None else (body if isinstance(body, str) else json.dumps(body)).encode()
        try:
            self.send_response(rt.get("status") or 200)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
        except OSError:
            pass  # the hook timed out and hung up


def _serve(routes: Optional[Dict[str, Any]]) -> Iterator[str]:
    if not routes:
        yield ""
        return
    srv = ThreadingHTTPServer(("127.0.0.1", 0), _Routes)
    srv.daemon_threads = True
    srv.routes = routes  # type: ignore[attr-defined]
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{srv.server_address[1]}"
    finally:
        srv.shutdown()
        srv.server_close()


def _evaluator(answers: Dict[str, Any]):
    """Answers host-evaluated hooks as the vector's "evaluator" says, per type."""

    def evaluate(hook_type: str, hook: Dict[str, Any], payload: Dict[str, Any]) -> Any:
        a = answers.get(hook_type)
        if a is None:
            raise LookupError(f"the vector has no answer for {hook_type} hooks")
        return a  # the vector's forms are set_evaluator's: ok/reason, exit_code/stdout/stderr, error

    return evaluate


def _json_equal(a: Any, b: Any) -> bool:
    """Equality of decoded JSON values, with true != 1 (as in Go)."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_json_equal(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_json_equal(x, y) for x, y in zip(a, b))
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    return type(a) is type(b) and a == b


def _match(at: str, got: Dict[str, Any], want: Dict[str, Any]) -> List[str]:
    """The subset check: X_contains is a substring test on string field X (or on any element
    of list field X, such as agent_output), hooks is compared
    element-wise (same length) with these rules, any other key must be JSON-equal."""
    errs: List[str] = []
    for k, w in want.items():
        if k == "hooks":
            gl = got.get(k) or []
            if len(gl) != len(w):
                errs.append(f"{at}.hooks: {len(gl)} hooks, want {len(w)}")
                continue
            for i, (g, x) in enumerate(zip(gl, w)):
                errs += _match(f"{at}.hooks[{i}]", g, x)
        elif k.endswith("_contains"):
            field = k[: -len("_contains")]
            s = got.get(field)
            items = s if isinstance(s, list) else [s]
            if not any(isinstance(x, str) and w in x for x in items):
                errs.append(f"{at}.{field} = {json.dumps(s)}, want it to contain {w!r}")
        elif not _json_equal(got.get(k), w):
            errs.append(f"{at}.{k} = {json.dumps(got.get(k))}, want {json.dumps(w)}")
    return errs


def _check_config(want: Dict[str, Any], cfg: Dict[str, Any]) -> None:
    texts = [f"{w.get('source')}: {w.get('message')}" for w in cfg.get("warnings") or []]
    for s in want.get("warnings_contain", []):
        assert any(s in t for t in texts), f"no config warning contains {s!r}; warnings: {texts}"
    hooks = cfg.get("hooks") or []
    if "hooks" in want:
        assert len(hooks) == want["hooks"], "config hooks"
    if "timeout_ms" in want:
        assert [h.get("timeout_ms") for h in hooks] == want["timeout_ms"], "config hooks' timeout_ms in config order"
    if "enabled" in want:
        assert sum(1 for h in hooks if h.get("enabled") is True) == want["enabled"], "enabled config hooks"
    if "hook_fields" in want:
        errs = _match("config", {"hooks": hooks}, {"hooks": want["hook_fields"]})
        assert not errs, "\n".join(errs)


@pytest.mark.parametrize("path", VECTORS, ids=[f"{p.parent.name}/{p.stem}" for p in VECTORS])
def test_conformance(path: Path, tmp_path: Path) -> None:
    home, project = tmp_path / "home", tmp_path / "project"
    home.mkdir()
    project.mkdir()
    raw = json.loads(path.read_text())
    server = _serve(raw.get("http"))
    try:
        _run(_substitute(raw, str(project), str(home), next(server)), project, home)
    finally:
        server.close()


def _run(v: Dict[str, Any], project: Path, home: Path) -> None:
    assert v.get("description"), "every vector says what it checks"

    for name, content in (v.get("files") or {}).items():
        top, _, rest = name.partition("/")
        assert top in ("home", "project"), f"file {name!r}: must start with home/ or project/"
        dst = (home if top == "home" else project) / rest
        dst.parent.mkdir(parents=True, exist_ok=True)
        dst.write_text(content if isinstance(content, str) else json.dumps(content, indent=2, ensure_ascii=False))
        if name.endswith(".sh") or (isinstance(content, str) and content.startswith("#!")):
            dst.chmod(dst.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)

    options = dict(v.get("options") or {})
    options["env"] = {**(options.get("env") or {}), "HOME": str(home)}
    with hookexec.Engine(profile=v.get("profile") or "cli-agent", project_dir=project, home=home, **options) as eng:
        if v.get("evaluator") is not None:
            eng.set_evaluator(_evaluator(v["evaluator"]))
        heard: List[Dict[str, Any]] = []
        if v.get("listener") is not None:
            for kind, on in (("async", eng.on_async), ("status", eng.on_status), ("rewake", eng.on_rewake)):
                on(lambda event, kind=kind: heard.append({**event.raw, "kind": kind}))
        if v.get("config") is not None:
            _check_config(v["config"], eng.config())
        for i, f in enumerate(v["fires"]):
            if f.get("drain"):
                errs = _match(f"fires[{i}]", {"agent_output": eng.drain()}, f.get("expect") or {})
                assert not errs, f"drain {i}:\n  " + "\n  ".join(errs)
                continue
            r = eng.fire(f["event"], f.get("payload") or {})
            errs = _match(f"fires[{i}]", dict(r.raw), f.get("expect") or {})
            assert not errs, f"fire {i} ({f['event']}):\n  " + "\n  ".join(errs) + f"\nresult: {json.dumps(r.raw)}"
        # Each listener expectation is met by some message of its kind (10 s: a hang guard only).
        for i, want in enumerate(v.get("listener") or []):
            deadline = time.monotonic() + 10
            while not any(not _match("", m, want) for m in list(heard)) and time.monotonic() < deadline:
                time.sleep(0.005)
            assert any(not _match("", m, want) for m in list(heard)), f"listener[{i}]: no message matches {want}; heard {heard}"
