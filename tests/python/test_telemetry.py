"""The telemetry option through the C API (hookexec_open's options JSON, from Python), checked
against the real OpenTelemetry Collector (build/otelcol, `make build/otelcol`; the binary is
$HOOKEXEC_OTELCOL when set) writing what it receives to files: the spans arrive, with the
agent's TRACEPARENT as their parent, over gRPC and HTTP. The Go tests (core/telemetry) check
the rest against the same collector; this is the end-to-end proof for the C library's option.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import time
from pathlib import Path
from typing import Any, Dict, Iterator, List

import pytest

import hookexec

REPO = Path(__file__).resolve().parents[2]
TRACE, PARENT = "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"
GUARD = {"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "echo 'no rm' >&2; exit 2"}]}]}}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def collector(tmp_path: Path) -> Iterator[Dict[str, Any]]:
    binary = Path(os.environ.get("HOOKEXEC_OTELCOL", REPO / "build" / "otelcol"))
    if not binary.exists():
        if os.environ.get("HOOKEXEC_REQUIRE_COLLECTOR") == "1":
            pytest.fail(f"{binary} is missing: make build/otelcol")
        pytest.skip(f"{binary} is missing: make build/otelcol")
    grpc, http = _free_port(), _free_port()
    out = tmp_path / "traces.jsonl"
    cfg = tmp_path / "otelcol.yaml"
    cfg.write_text(
        "receivers:\n  otlp:\n    protocols:\n"
        f"      grpc:\n        endpoint: 127.0.0.1:{grpc}\n      http:\n        endpoint: 127.0.0.1:{http}\n"
        f"exporters:\n  file:\n    path: {json.dumps(str(out))}\n"
        "service:\n  telemetry:\n    metrics:\n      level: none\n"
        "  pipelines:\n    traces:\n      receivers: [otlp]\n      exporters: [file]\n"
    )
    log = tmp_path / "otelcol.log"
    with open(log, "wb") as lf:
        proc = subprocess.Popen([str(binary), "--config", f"file:{cfg}"], stdout=lf, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 60
        while b"Everything is ready" not in log.read_bytes():
            assert proc.poll() is None and time.monotonic() < deadline, log.read_text()
            time.sleep(0.05)
        yield {"grpc": f"http://127.0.0.1:{grpc}", "http/protobuf": f"http://127.0.0.1:{http}", "out": out}
    finally:
        proc.terminate()
        proc.wait(timeout=15)


def _spans(out: Path) -> List[Dict[str, Any]]:
    if not out.exists():
        return []
    spans = []
    for line in out.read_text().splitlines():
        if not line.strip():
            continue
        for rs in json.loads(line).get("resourceSpans", []):
            for ss in rs.get("scopeSpans", []):
                spans.extend(ss.get("spans", []))
    return spans


@pytest.mark.parametrize("protocol", ["grpc", "http/protobuf"])
def test_spans_reach_the_collector(collector: Dict[str, Any], project: Path, home: Path, protocol: str) -> None:
    telemetry = {"enabled": True, "endpoint": collector[protocol], "protocol": protocol, "service_name": "hookexec-python"}
    with hookexec.Engine(profile="claude", project_dir=project, home=home, sources=[], config=GUARD,
                         env={"TRACEPARENT": f"00-{TRACE}-{PARENT}-01"}, telemetry=telemetry) as eng:
        r = eng.fire("PreToolUse", {"tool_name": "Bash", "tool_input": {"command": "rm -rf /"}})
        assert r.blocked
    # close() flushed; the collector writes what it received
    deadline = time.monotonic() + 30
    spans = _spans(collector["out"])
    while len(spans) < 2 and time.monotonic() < deadline:
        time.sleep(0.05)
        spans = _spans(collector["out"])
    fire = [s for s in spans if s["name"] == "fire PreToolUse"]
    assert len(fire) == 1, spans
    assert fire[0]["traceId"] == TRACE
    assert fire[0]["parentSpanId"] == PARENT
    hook = [s for s in spans if s["name"].startswith("execute_hook ")]
    assert len(hook) == 1 and hook[0]["parentSpanId"] == fire[0]["spanId"]
    attrs = {a["key"]: a["value"] for a in hook[0]["attributes"]}
    assert attrs["gen_ai.operation.name"] == {"stringValue": "execute_hook"}


def test_bad_telemetry_option_is_invalid(project: Path, home: Path) -> None:
    with pytest.raises(hookexec.InvalidArgumentError, match="protocol"):
        hookexec.Engine(project_dir=project, home=home, telemetry={"enabled": True, "protocol": "zipkin"})
    with pytest.raises(hookexec.InvalidArgumentError, match="unknown field"):
        hookexec.Engine(project_dir=project, home=home, telemetry={"enabeld": True})
