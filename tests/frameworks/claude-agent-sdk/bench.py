"""Bench of the Claude Agent SDK adapter: Bash tool calls through the SDK's real tool-call path.

Claude Code runs the tools and calls the hook callbacks over its control protocol, so a tool
call cannot be made without the CLI: each run is one query against the fake Anthropic API
whose script makes CALLS Bash calls (`true`), and a row's number is the run's time divided by
CALLS. Rows, in turns (ABCDABCD...): baseline (the SDK alone), callbacks (the SDK with a no-op
Python callback on every event the adapter registers: the cost of Claude Code's control
channel alone, no hookexec), nomatch (governed by hookexec,
a hook on Write only), guard (a persistent command hook on Bash). Prints
framework<TAB>claude-agent-sdk<TAB>row<TAB>median_us<TAB>ratio_to_baseline.

Run: examples/frameworks/env.sh claude-agent-sdk python tests/frameworks/claude-agent-sdk/bench.py
(BENCH_ROUNDS rounds, default 5; BENCH_CALLS calls per run, default 10)."""

from __future__ import annotations

import dataclasses
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable, Dict, List

import anyio
import claude_agent_sdk as sdk

from hookexec.integrations.claude_agent_sdk import EVENTS
from hookexec.integrations.claude_agent_sdk import query as governed_query

ROOT = Path(__file__).resolve().parents[3]
ROUNDS = int(os.environ.get("BENCH_ROUNDS", "5"))
CALLS = int(os.environ.get("BENCH_CALLS", "10"))
OFFLINE_ENV = {
    "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1", "DISABLE_TELEMETRY": "1", "DISABLE_AUTOUPDATER": "1",
    "DISABLE_ERROR_REPORTING": "1", "IS_SANDBOX": "1", "ANTHROPIC_API_KEY": "sk-ant-fake-key-for-offline-tests",
}
GUARD = """import json, sys
for line in sys.stdin:
    cmd = json.loads(line).get("tool_input", {}).get("command", "")
    out = {"exit_code": 2, "stderr": "rm is not allowed"} if "rm " in cmd else {}
    print(json.dumps(out), flush=True)
"""


def settings(project: Path, hooks: Dict[str, Any]) -> None:
    (project / ".claude").mkdir(exist_ok=True)
    (project / ".claude" / "settings.json").write_text(json.dumps({"hooks": hooks}))


def main() -> None:
    tmp = Path(tempfile.mkdtemp(prefix="bench-claude-agent-sdk-"))
    os.environ.update(OFFLINE_ENV, HOME=str(tmp / "home"))
    (tmp / "home").mkdir()
    script = tmp / "script.json"
    script.write_text(json.dumps([{"tools": [{"name": "Bash", "input": {"command": "true"}}]}] * CALLS))
    fake = subprocess.Popen([str(ROOT / "build" / "fakeapi"), "-api", "anthropic", "-script", str(script)], stdout=subprocess.PIPE, text=True)
    assert fake.stdout is not None
    os.environ["ANTHROPIC_BASE_URL"] = fake.stdout.readline().strip()
    (tmp / "guard.py").write_text(GUARD)
    projects: Dict[str, Path] = {}
    for row, hooks in [
        ("baseline", {}),
        ("callbacks", {}),
        ("nomatch", {"PreToolUse": [{"matcher": "Write", "hooks": [{"type": "command", "command": "exit 2"}]}]}),
        ("guard", {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": f"{sys.executable} {tmp / 'guard.py'}", "persistent": True}]}]}),
    ]:
        projects[row] = tmp / row
        projects[row].mkdir()
        settings(projects[row], hooks)

    def runner(row: str) -> Callable[[], Any]:
        # baseline: the SDK alone, Claude Code's own hook runner off too (the project has none)
        opts = sdk.ClaudeAgentOptions(permission_mode="bypassPermissions", cwd=str(projects[row]), settings='{"disableAllHooks": true}')
        if row == "baseline":
            return lambda: sdk.query(prompt="go", options=opts)
        if row == "callbacks":
            async def noop(i: Any, t: Any, c: Any) -> Dict[str, Any]:
                return {}
            with_noop = dataclasses.replace(opts, hooks={e: [sdk.HookMatcher(hooks=[noop])] for e in EVENTS})
            return lambda: sdk.query(prompt="go", options=with_noop)
        return lambda: governed_query(prompt="go", options=opts)

    async def once(row: str) -> float:
        start = time.perf_counter()
        calls = 0
        async for m in runner(row)():
            if isinstance(m, sdk.ResultMessage):
                calls = m.num_turns - 1
        took = time.perf_counter() - start
        if calls != CALLS:
            raise SystemExit(f"bench: {row} made {calls} tool calls, not {CALLS}")
        return took / CALLS * 1e6

    times: Dict[str, List[float]] = {r: [] for r in projects}
    try:
        anyio.run(once, "baseline")  # warm-up: the CLI's first start reads more from disk
        for _ in range(ROUNDS):
            for row in projects:
                times[row].append(anyio.run(once, row))
    finally:
        fake.terminate()
        fake.wait()
    base = statistics.median(times["baseline"])
    for row, ts in times.items():
        m = statistics.median(ts)
        print(f"framework\tclaude-agent-sdk\t{row}\t{m:.0f}\t{m / base:.3f}")


if __name__ == "__main__":
    main()
