#!/usr/bin/env python3
"""`make bench`: one table, one run. Every row is timed call by call (median and p90) and
set against a baseline measured in the same run, so the ratios mean something on a busy
machine even when the absolute numbers do not.

Runners:
  C floor          tests/bench/floor.c, compiled here: posix_spawn into a new process group,
                   three pipes, the payload written, stdout and stderr drained, the child reaped
  Go               core/engine from a Go program (tests/bench/gofire)
  Python           hookexec.Engine.fire
  Python async     await hookexec.Engine.fire_async
  cli-agent 1.2.6  its pure-Python HookManager.execute_hooks (loaded as tests/python/cli_agent_ref
                   loads it; skipped with a note when it cannot be installed)
  persistent       the same hook with "persistent": true, fired from Python
  policy           a `policy` hook (docs/policy.md's `rm -rf` guard, CEL and Rego) evaluated in
                   the engine, from Go and Python, in turns with a no-match fire and the
                   persistent Python guard

Environment: HOOKEXEC_BENCH_SCALE=0.2 shortens every run (iterations × scale);
HOOKEXEC_BENCH_ONLY=policy runs the policy rows alone, HOOKEXEC_BENCH_ONLY=telemetry the telemetry rows.
"""
from __future__ import annotations

import asyncio
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Callable, Dict, List, Optional

REPO = Path(__file__).resolve().parents[2]
BUILD = REPO / "build"
sys.path.insert(0, str(REPO / "tests" / "python"))

import hookexec  # noqa: E402

SCALE = float(os.environ.get("HOOKEXEC_BENCH_SCALE", "1"))
PY = sys.executable
PAYLOAD = {"tool_name": "bash_execute", "tool_input": {"command": "ls -la", "description": "list"}, "session_id": "s"}
GUARD = r'''import json
import re
import sys

try:
    data = json.load(sys.stdin)
except ValueError:  # cli-agent 1.2.6 hands some hooks no JSON
    data = {}
command = (data.get("tool_input") or data.get("tool_args") or {}).get("command", "")
for pattern, msg in [(r"\brm\s+-rf\s+/", "no rm -rf /"), (r"\bgrep\b(?!.*\|)", "use rg")]:
    if re.search(pattern, command):
        print(msg, file=sys.stderr)
        sys.exit(2)
print(json.dumps({"suppressOutput": True}))
'''
# A persistent hook in sh answering every request with an empty object: the `true` of protocol v1.
SH_TRUE = "while IFS= read -r line; do printf '{}\\n'; done"


def doc_guard(name: str) -> Dict[str, object]:
    """One guard of docs/policy.md's "Five common guards", as core/engine
    TestPolicyGuardsInTheDocs reads it: after `<!-- guard: NAME -->`, its CEL matcher group,
    its Rego matcher group and its Rego module."""
    page = (REPO / "docs" / "policy.md").read_text()
    start = page.index(f"<!-- guard: {name} -->")
    end = page.find("<!-- guard: ", start + 1)
    blocks = re.findall(r"```(json|rego)\n(.*?)\n```", page[start:end if end > 0 else len(page)], re.S)[:3]
    if [b[0] for b in blocks] != ["json", "json", "rego"]:
        raise RuntimeError(f"docs/policy.md guard {name}: want a json, a json and a rego block")
    return {"cel": json.loads(blocks[0][1]), "rego": json.loads(blocks[1][1]), "module": blocks[2][1] + "\n"}


def n(base: int) -> int:
    return max(3, int(base * SCALE))


class Row:
    def __init__(self, scenario: str, runner: str, samples: List[float], unit: str = "time"):
        self.scenario, self.runner, self.unit = scenario, runner, unit
        s = sorted(samples)
        self.median = statistics.median(s)
        self.p90 = s[min(len(s) - 1, int(len(s) * 0.9))]
        self.count = len(s)
        self.note = ""


def fmt_time(s: float) -> str:
    if s < 1e-6:
        return f"{s * 1e9:.0f} ns"
    if s < 1e-3:
        return f"{s * 1e6:.1f} µs"
    if s < 1:
        return f"{s * 1e3:.2f} ms"
    return f"{s:.2f} s"


def timed(fn: Callable[[], object], count: int, warm: int = 3) -> List[float]:
    for _ in range(warm):
        fn()
    out = []
    clock = time.perf_counter
    for _ in range(count):
        t = clock()
        fn()
        out.append(clock() - t)
    return out


def batched(fn: Callable[[], object], count: int, batch: int) -> List[float]:
    """Per-call times of very fast calls, each sample the mean of a batch."""
    for _ in range(batch):
        fn()
    out = []
    clock = time.perf_counter
    for _ in range(count):
        t = clock()
        for _ in range(batch):
            fn()
        out.append((clock() - t) / batch)
    return out


def interleaved(runners: Dict[str, Callable[[], float]], count: int, warm: int = 2) -> Dict[str, List[float]]:
    """Samples of several runners of one scenario taken in turns (A B C A B C ...), so that
    the load of a shared machine, which changes from second to second, hits them alike.
    Each runner returns the seconds of one fire."""
    for _ in range(warm):
        for fn in runners.values():
            fn()
    out: Dict[str, List[float]] = {name: [] for name in runners}
    for _ in range(count):
        for name, fn in runners.items():
            out[name].append(fn())
    return out


def run_lines(cmd: List[str], **kw) -> List[float]:
    p = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if p.returncode != 0:
        raise RuntimeError(f"{cmd[0]} failed: {p.stderr.strip()}")
    return [int(x) / 1e9 for x in p.stdout.split()]


def build_tools() -> Dict[str, Optional[str]]:
    tools: Dict[str, Optional[str]] = {}
    BUILD.mkdir(exist_ok=True)
    floor = BUILD / "bench-floor"
    cc = os.environ.get("CC", "cc")
    r = subprocess.run([cc, "-O2", "-o", str(floor), str(REPO / "tests" / "bench" / "floor.c")], capture_output=True, text=True)
    tools["floor"] = str(floor) if r.returncode == 0 else None
    gofire = BUILD / "bench-gofire"
    r = subprocess.run([os.environ.get("GO", "go"), "build", "-o", str(gofire), "./tests/bench/gofire"], cwd=REPO, capture_output=True, text=True)
    tools["gofire"] = str(gofire) if r.returncode == 0 else None
    return tools


def cli_agent():
    try:
        import logging

        import cli_agent_ref

        logging.disable(logging.CRITICAL)  # cli-agent logs every hook failure to stderr

        return cli_agent_ref.load(), ""
    except Exception as e:  # noqa: BLE001 — Unavailable, or anything the install threw
        return None, f"cli-agent 1.2.6 skipped: {e}"


def settings(command: str, matcher: str = "bash_execute", **fields) -> dict:
    h = {"type": "command", "command": command}
    h.update(fields)
    return {"hooks": {"PreToolUse": [{"matcher": matcher, "hooks": [h]}]}}


def rss_kb(pid: int) -> int:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def machine() -> str:
    model = ""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    return (f"{platform.system()} {platform.release()}, {os.cpu_count()} cores ({model}), load {load:.1f}; "
            f"Python {platform.python_version()}, hookexec {hookexec.library_version()}")


def main() -> None:
    tools = build_tools()
    ref, ref_note = cli_agent()
    tmp = Path(tempfile.mkdtemp(prefix="hookexec-bench-"))
    project = tmp / "project"
    project.mkdir()
    guard = project / "guard.py"
    guard.write_text(GUARD)
    sh_true = project / "true.sh"
    sh_true.write_text(SH_TRUE)
    payload_json = json.dumps(PAYLOAD, separators=(",", ":"))
    rows: List[Row] = []
    notes: List[str] = []
    if ref_note:
        notes.append(ref_note)
    only = os.environ.get("HOOKEXEC_BENCH_ONLY")
    if only in ("policy", "telemetry"):  # the policy rows, or the telemetry rows, alone
        if only == "policy":
            policy_rows(rows, tools, tmp, project, guard)
        else:
            telemetry_rows(rows, project, sh_true)
        shutil.rmtree(tmp, ignore_errors=True)
        report(rows, notes)
        return
    loop = asyncio.new_event_loop()

    def engine(cfg: dict) -> hookexec.Engine:
        return hookexec.Engine(project_dir=project, home=project, config=cfg, env={"PYTHONPATH": str(REPO / "pybind")})

    def go(scenario: str, cfg: dict, count: int, event: str = "PreToolUse", payload: str = payload_json) -> None:
        if not tools["gofire"]:
            return
        path = tmp / "go.json"
        path.write_text(json.dumps(cfg))
        rows.append(Row(scenario, "Go", run_lines([tools["gofire"], "-config", str(path), "-project", str(project),
                                                  "-event", event, "-payload", payload, "-n", str(count)],
                                                 env=dict(os.environ, PYTHONPATH=str(REPO / "pybind")))))

    def floor_once(argv: List[str]) -> Callable[[], float]:
        return lambda: run_lines([tools["floor"] or "", "1", payload_json + "\n", *argv], cwd=project)[0]

    one_fire = timed_fire

    def cli_once(cfg: dict) -> Optional[Callable[[], float]]:
        if ref is None:
            return None
        path = tmp / "cli-agent.json"
        path.write_text(json.dumps(cfg))
        mgr = ref.HookManager(ref.HookConfig.load_from_file(path))
        ctx = {"tool_name": PAYLOAD["tool_name"], "tool_args": PAYLOAD["tool_input"], "session_id": "s"}
        return one_fire(lambda: loop.run_until_complete(mgr.execute_hooks(ref.HookType.PRE_TOOL_USE, dict(ctx))))

    def one_shot(scenario: str, cfg: dict, argv: List[str], count: int) -> None:
        """The C floor, Python and cli-agent sampled in turns (the Go row runs in its own
        process before them)."""
        go(scenario, cfg, count)
        with engine(cfg) as eng:
            runners: Dict[str, Callable[[], float]] = {}
            if tools["floor"]:
                runners["C floor"] = floor_once(argv)
            runners["Python"] = one_fire(lambda: eng.fire("PreToolUse", PAYLOAD))
            c = cli_once(cfg)
            if c is not None:
                runners["cli-agent 1.2.6"] = c
            for runner, samples in interleaved(runners, count).items():
                rows.append(Row(scenario, runner, samples))

    def python(scenario: str, cfg: dict, count: int, runner: str = "Python") -> hookexec.Engine:
        eng = engine(cfg)
        rows.append(Row(scenario, runner, timed(lambda: eng.fire("PreToolUse", PAYLOAD), count)))
        return eng

    def python_async(scenario: str, cfg: dict, count: int) -> None:
        with engine(cfg) as eng:
            async def many():
                out = []
                for i in range(count + 3):
                    t = time.perf_counter()
                    await eng.fire_async("PreToolUse", PAYLOAD)
                    if i >= 3:
                        out.append(time.perf_counter() - t)
                return out
            rows.append(Row(scenario, "Python async", loop.run_until_complete(many())))

    # What hooks read on stdin for PAYLOAD (the envelope's fields and the payload, one line):
    # the persistent floor writes the very same line.
    capture = project / "stdin.json"
    with engine(settings(f"cat > {capture}")) as eng:
        eng.fire("PreToolUse", PAYLOAD)
    stdin_line = capture.read_text()

    def gofire_samples(cfg: dict, count: int) -> List[float]:
        path = tmp / "go.json"
        path.write_text(json.dumps(cfg))
        return run_lines([tools["gofire"] or "", "-config", str(path), "-project", str(project), "-event", "PreToolUse",
                          "-payload", payload_json, "-n", str(count)], env=dict(os.environ, PYTHONPATH=str(REPO / "pybind")))

    def persistent_rows(scenario: str, cfg: dict, argv: List[str], count: int, rounds: int = 5) -> hookexec.Engine:
        """A persistent hook from the C floor (the pipe round trip to the same program, the
        same stdin line: tests/bench/floor.c -p), from Go and from Python, in turns: `rounds`
        runs of each, so that the load of the machine hits the three alike."""
        eng = engine(cfg)
        per = max(count // rounds, 10)
        got: Dict[str, List[float]] = {"C floor": [], "Go": [], "Python": []}
        for _ in range(rounds):
            if tools["floor"]:
                got["C floor"] += run_lines([tools["floor"], "-p", str(per + 3), stdin_line, *argv], cwd=project,
                                            env=dict(os.environ, PYTHONPATH=str(REPO / "pybind"), HOOKEXEC_PERSISTENT="1"))[3:]
            if tools["gofire"]:
                got["Go"] += gofire_samples(cfg, per)
            got["Python"] += timed(lambda: eng.fire("PreToolUse", PAYLOAD), per)
        for runner, samples in got.items():
            if samples:
                rows.append(Row(scenario, runner, samples))
        return eng

    def cli(scenario: str, cfg: dict, count: int) -> None:
        if ref is None:
            return
        path = tmp / "cli-agent.json"
        path.write_text(json.dumps(cfg))
        mgr = ref.HookManager(ref.HookConfig.load_from_file(path))
        ctx = {"tool_name": PAYLOAD["tool_name"], "tool_args": PAYLOAD["tool_input"], "session_id": "s"}

        async def many():
            out = []
            for i in range(count + 3):
                t = time.perf_counter()
                await mgr.execute_hooks(ref.HookType.PRE_TOOL_USE, dict(ctx))
                if i >= 3:
                    out.append(time.perf_counter() - t)
            return out
        rows.append(Row(scenario, "cli-agent 1.2.6", loop.run_until_complete(many())))

    # 1 and 2: one matching hook that does nothing, and one that prints.
    # The C floor, Python and cli-agent are sampled in turns: rows measured one after the
    # other on a shared machine see different loads (the cli-agent row of issue 21 was
    # faster than the C floor running the very same command only because of that).
    for scenario, command, argv in [("1 hook `true`", "true", ["/bin/true"]),
                                    ("1 hook `/usr/bin/printf ok`", "/usr/bin/printf ok", ["/usr/bin/printf", "ok"])]:
        cfg = settings(command)
        one_shot(scenario, cfg, argv, n(300))
        python_async(scenario, cfg, n(400))
        if command == "true":
            with python(scenario, settings(f"sh {sh_true}", persistent=True), n(20000), "persistent (sh)"):
                pass

    # A persistent hook that does no work (sh answering {}): what hookexec adds to the pipe
    # round trip, from Go and from Python.
    with persistent_rows("persistent `sh` answering {}", settings(f"sh {sh_true}", persistent=True),
                         ["/bin/sh", str(sh_true)], n(20000)):
        pass

    # Hooks see the environment as it is at the fire: what re-reading it costs when
    # the host changed it since the last fire, measured alternating with the same
    # fire on an unchanged environment (one loop, so that load hits both alike).
    with engine(settings("true")) as eng:
        plain: List[float] = []
        changed: List[float] = []
        clock = time.perf_counter
        for i in range(n(400)):
            t = clock()
            eng.fire("PreToolUse", PAYLOAD)
            plain.append(clock() - t)
            t = clock()
            os.environ["HOOKEXEC_BENCH_ENV"] = str(i)
            eng.fire("PreToolUse", PAYLOAD)
            changed.append(clock() - t)
        env_scenario = "1 hook `true`, host env changes"
        rows.append(Row(env_scenario, "Python, env unchanged", plain))
        rows.append(Row(env_scenario, "Python, env set each fire", changed))

    telemetry_rows(rows, project, sh_true)

    # 3: a Python guard script, one-shot and persistent (the same file, unchanged).
    scenario = "Python guard script"
    one_shot(scenario, settings(f"{PY} {guard}"), [PY, str(guard)], n(50))
    persistent_cfg = settings(f"{PY} -m hookexec.persistent {guard}", persistent=True)
    pers = persistent_rows(scenario + " persistent", persistent_cfg, [PY, "-m", "hookexec.persistent", str(guard)], n(20000))
    # RSS over 100 000 persistent fires: the host (Python + Go heap) and the hook process.
    hook_pid = pers.config()["hooks"][0]["process"]["pid"]
    marks = []
    for i in range(10):
        for _ in range(int(10000 * SCALE) or 1):
            pers.fire("PreToolUse", PAYLOAD)
        if i in (0, 9):
            marks.append((rss_kb(os.getpid()), rss_kb(hook_pid)))
    pers.close()
    fires = 10 * (int(10000 * SCALE) or 1)
    rss_note = (f"RSS over {fires} persistent fires (after the first tenth → at the end): host "
                f"{marks[0][0] / 1024:.1f} → {marks[1][0] / 1024:.1f} MiB, hook {marks[0][1] / 1024:.1f} → {marks[1][1] / 1024:.1f} MiB")

    # 4: eight matching `sleep 0.05` hooks (parallel in hookexec).
    scenario = "8 hooks `sleep 0.05`"
    cfg = {"hooks": {"PreToolUse": [{"matcher": "bash_execute", "hooks": [{"type": "command", "command": f"sleep 0.05 # {i}"} for i in range(8)]}]}}
    go(scenario, cfg, n(30))
    python(scenario, cfg, n(30)).close()
    cli(scenario, cfg, n(10))

    # 5: a fire that matches none of 100 hooks.
    scenario = "no match among 100 hooks"
    cfg = {"hooks": {"PreToolUse": [{"matcher": f"tool_{i}", "hooks": [{"type": "command", "command": "true"}]} for i in range(100)]}}
    go(scenario, cfg, n(20000))
    with engine(cfg) as eng:
        rows.append(Row(scenario, "Python", batched(lambda: eng.fire("PreToolUse", PAYLOAD), n(200), 1000)))
    cli(scenario, cfg, n(2000))

    policy_rows(rows, tools, tmp, project, guard)

    # 6: eight threads firing scenario 1, in fires per second. One thread and eight take
    # turns, five rounds, and every runner's row is the median of its rounds: a single
    # timing of each moved by 1.0–1.5× between runs with the machine's load.
    scenario = "8 threads, 1 hook `true`"
    rounds = 5

    def fires_per_second(fire: Callable[[], object], threads: int, per: int) -> float:
        def work() -> None:
            for _ in range(per // threads):
                fire()
        t = time.perf_counter()
        ts = [threading.Thread(target=work) for _ in range(threads)]
        for th in ts:
            th.start()
        for th in ts:
            th.join()
        return (per // threads) * threads / (time.perf_counter() - t)

    for label, cfg in [("Python", settings("true")), ("persistent (sh)", settings(f"sh {sh_true}", persistent=True)),
                       ("2 workers (sh)", settings(f"sh {sh_true}", persistent=True, workers=2))]:
        with engine(cfg) as eng:
            per = max(n(120) if label == "Python" else n(2000), 32)  # at least four fires a thread

            def fire() -> None:
                eng.fire("PreToolUse", PAYLOAD)
            fire()
            rates: Dict[int, List[float]] = {1: [], 8: []}
            for _ in range(rounds):
                for threads in (1, 8):
                    rates[threads].append(fires_per_second(fire, threads, per))
            for threads, samples in rates.items():
                rows.append(Row(scenario, f"{label}, {threads} thread{'s' if threads > 1 else ''}", samples, unit="rate"))

    # What the machine itself allows: the C floor spawning `true` from one process, and from
    # eight at once (fires per second over all of them), in turns as above.
    if tools["floor"]:
        per = max(n(120), 32)
        floor_rates: Dict[int, List[float]] = {1: [], 8: []}
        for _ in range(rounds):
            for procs in (1, 8):
                argv = [tools["floor"], str(per // procs), payload_json + "\n", "/bin/true"]
                t = time.perf_counter()
                ps = [subprocess.Popen(argv, cwd=project, stdout=subprocess.DEVNULL) for _ in range(procs)]
                for p in ps:
                    p.wait()
                floor_rates[procs].append((per // procs) * procs / (time.perf_counter() - t))
        for procs, samples in floor_rates.items():
            rows.append(Row(scenario, f"C floor, {procs} thread{'s' if procs > 1 else ''}", samples, unit="rate"))

    # The GIL is released during fires: eight threads each firing a 50 ms hook take about as
    # long as one fire of it.
    scenario = "8 threads × 1 hook `sleep 0.05`"
    with engine({"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "sleep 0.05"}]}]}}) as eng:
        rows.append(Row(scenario, "Python, 1 fire", timed(lambda: eng.fire("Stop", {}), n(10))))

        def eight_threads():
            ts = [threading.Thread(target=eng.fire, args=("Stop", {})) for _ in range(8)]
            for th in ts:
                th.start()
            for th in ts:
                th.join()
        rows.append(Row(scenario, "Python, 8 threads at once", timed(eight_threads, n(10))))

    # 7: config load of 4 sources × 250 hooks.
    scenario = "load 4 sources × 250 hooks"
    srcs = []
    for s in range(4):
        path = tmp / f"src{s}.json"
        path.write_text(json.dumps({"hooks": {"PreToolUse": [
            {"matcher": f"tool_{s}_{i}|other_{i}", "hooks": [{"type": "command", "command": f"echo {s} {i} <<tool_input.command>>", "timeout": 5}]}
            for i in range(250)]}}))
        srcs.append(str(path))
    if tools["gofire"]:
        rows.append(Row(scenario, "Go", run_lines([tools["gofire"], "-sources", ",".join(srcs), "-project", str(project), "-open", "-n", str(n(30))])))

    def open_close():
        hookexec.Engine(project_dir=project, home=project, sources=srcs).close()
    rows.append(Row(scenario, "Python", timed(open_close, n(30))))
    if ref is not None:
        def cli_load():
            for s in srcs:
                ref.HookConfig.load_from_file(Path(s))
        rows.append(Row(scenario, "cli-agent 1.2.6", timed(cli_load, n(30))))

    grows = growth(project)
    loop.close()
    shutil.rmtree(tmp, ignore_errors=True)
    report(rows, notes + [rss_note])
    print_growth(grows)


def telemetry_rows(rows: List[Row], project: Path, sh_true: Path) -> None:
    """Telemetry off and on (core/telemetry), the same matching fire from two engines in turns,
    one-shot `true` and a persistent sh hook: what a fire pays to hand its record to the
    exporter's queue, and what the exporting goroutine takes from the fires on a machine whose
    cores are busy. The exporter points at a port where nothing listens, so every export fails
    (invisibly, as with a collector that is down) while the fires go on."""
    telemetry_on = {"enabled": True, "endpoint": "http://127.0.0.1:9", "protocol": "http/protobuf"}
    env = {"PYTHONPATH": str(REPO / "pybind")}
    for tscen, tcfg, count in (("1 hook `true`, telemetry", settings("true"), n(400)),
                               ("persistent `sh`, telemetry", settings(f"sh {sh_true}", persistent=True), n(20000))):
        with hookexec.Engine(project_dir=project, home=project, config=tcfg, env=env) as off, \
                hookexec.Engine(project_dir=project, home=project, config=tcfg, env=env, telemetry=telemetry_on) as on:
            got = interleaved({"Python, telemetry off": timed_fire(lambda: off.fire("PreToolUse", PAYLOAD)),
                               "Python, telemetry on": timed_fire(lambda: on.fire("PreToolUse", PAYLOAD))}, count)
            for runner, samples in got.items():
                rows.append(Row(tscen, runner, samples))


def timed_fire(fn: Callable[[], object]) -> Callable[[], float]:
    """A runner for interleaved: the seconds of one call of fn."""
    def one() -> float:
        t = time.perf_counter()
        fn()
        return time.perf_counter() - t
    return one


def policy_rows(rows: List[Row], tools: Dict[str, Optional[str]], tmp: Path, project: Path, guard: Path) -> None:
    """A policy guard in the engine: docs/policy.md's `rm -rf` rule in CEL and in Rego, set
    against a fire that matches no hook (the baseline of issue 27's targets) and against the
    persistent Python guard (GUARD, an `rm -rf` rule of its own), for a call the rule lets
    through (`ls -la`, no answer) and one it denies. Python's runners take turns batch by
    batch in one process; Go's (tests/bench/gofire) take turns fire by fire in another, run
    between Python's rounds."""
    g = doc_guard("rmrf")
    (project / "guards").mkdir(exist_ok=True)
    (project / "guards" / "rmrf.rego").write_text(str(g["module"]))  # the group's path, inline: from the project
    cel, rego = g["cel"], g["rego"]
    cfgs = {"no-match fire": {"hooks": {"PreToolUse": [dict(cel, matcher="Write")]}},
            "CEL policy": {"hooks": {"PreToolUse": [cel]}},
            "Rego policy": {"hooks": {"PreToolUse": [rego]}}}
    pers_cfg = {"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
        {"type": "command", "command": f"{PY} -m hookexec.persistent {guard}", "persistent": True}]}]}}
    gopaths = []
    for i, cfg in enumerate(cfgs.values()):
        path = tmp / f"policy{i}.json"
        path.write_text(json.dumps(cfg))
        gopaths.append(str(path))
    env = dict(os.environ, PYTHONPATH=str(REPO / "pybind"))
    batch, rounds = 10, 5
    for verdict, command in (("no answer", "ls -la"), ("deny", "rm -rf /tmp/elsewhere")):
        scenario = f"policy `rm -rf` guard, {verdict}"
        payload = {"session_id": "s", "cwd": str(project), "tool_name": "Bash", "tool_input": {"command": command}}
        engines = {k: hookexec.Engine(profile="claude", project_dir=project, home=project, config=c,
                                      env={"PYTHONPATH": str(REPO / "pybind")})
                   for k, c in list(cfgs.items()) + [("persistent Python guard", pers_cfg)]}
        want = "deny" if verdict == "deny" else "none"
        for k, eng in engines.items():  # a guard that errs or decides otherwise measures nothing
            r = eng.fire("PreToolUse", payload)
            errs = [h.error for h in r.hooks if h.error]
            expect = "none" if k == "no-match fire" else want
            if errs or r.decision != expect:
                raise RuntimeError(f"{scenario}: {k}: decision {r.decision} (want {expect}) {errs}")

        def runner(eng: hookexec.Engine, per: int) -> Callable[[], float]:
            def one() -> float:
                t = time.perf_counter()
                for _ in range(per):
                    eng.fire("PreToolUse", payload)
                return (time.perf_counter() - t) / per
            return one

        got: Dict[str, List[float]] = {}
        for _ in range(rounds):
            if tools["gofire"]:
                lines = subprocess.run([tools["gofire"], "-config", ",".join(gopaths), "-project", str(project),
                                        "-profile", "claude", "-payload", json.dumps(payload), "-n", str(n(3000) // rounds),
                                        "-batch", str(batch)],
                                       capture_output=True, text=True, env=env)
                if lines.returncode != 0:
                    raise RuntimeError(f"gofire: {lines.stderr.strip()}")
                for line in lines.stdout.splitlines():
                    for name, ns in zip(cfgs, line.split()):
                        got.setdefault(f"Go, {name}", []).append(int(ns) / 1e9)
            # The persistent guard's round trip is tens of µs: one fire per turn.
            per_round = interleaved({f"Python, {k}": runner(eng, 1 if k.startswith("persistent") else batch)
                                     for k, eng in engines.items()}, n(3000) // rounds)
            for name, samples in per_round.items():
                got.setdefault(name, []).extend(samples)
        for eng in engines.values():
            eng.close()
        for name in sorted(got, key=lambda x: (not x.startswith("Go"), x != "Go, no-match fire" and x != "Python, no-match fire")):
            rows.append(Row(scenario, name, got[name]))


# How cost grows: (dimension, [(size, work units, samples)]). Work is what the fire must do
# in proportion: hooks run, payload bytes, hooks loaded, fires.
Growth = List[tuple]


def growth(project: Path) -> Growth:
    out: Growth = []

    def open_engine(cfg: dict) -> hookexec.Engine:
        return hookexec.Engine(project_dir=project, home=project, config=cfg)

    # Matching hooks per fire, each a one-shot `true`, run in parallel.
    steps = []
    for k in (1, 10, 100):
        cfg = {"hooks": {"PreToolUse": [{"matcher": "bash_execute", "hooks": [{"type": "command", "command": f"true # {i}"} for i in range(k)]}]}}
        with open_engine(cfg) as eng:
            steps.append((f"{k} hooks", k, timed(lambda: eng.fire("PreToolUse", PAYLOAD), n(30 if k < 100 else 8), warm=1)))
    out.append(("matching hooks per fire (`true`)", steps))

    # Payload size: one hook reading its whole stdin.
    steps = []
    with open_engine(settings("cat >/dev/null")) as eng:
        for label, size in (("1 KB", 1 << 10), ("1 MB", 1 << 20), ("16 MB", 16 << 20)):
            payload = dict(PAYLOAD, tool_input={"command": "x" * size})
            steps.append((label, size, timed(lambda: eng.fire("PreToolUse", payload), n(30 if size < 1 << 24 else 6), warm=1)))
    out.append(("payload size (hook `cat`)", steps))

    # Configuration size: load (open + close), and a fire that matches none of the hooks.
    load_steps, miss_steps = [], []
    for k in (10, 1000, 10000):
        cfg = {"hooks": {"PreToolUse": [{"matcher": f"tool_{i}", "hooks": [{"type": "command", "command": f"echo {i}"}]} for i in range(k)]}}
        load_steps.append((f"{k} hooks", k, timed(lambda: open_engine(cfg).close(), n(10 if k < 10000 else 4), warm=1)))
        with open_engine(cfg) as eng:
            miss_steps.append((f"{k} hooks", k, batched(lambda: eng.fire("PreToolUse", PAYLOAD), n(30), 20)))
    out.append(("config size: load", load_steps))
    out.append(("config size: no-match fire", miss_steps))

    # Concurrent fires of one `true` hook from that many threads: the wall time of them all.
    steps = []
    with open_engine(settings("true")) as eng:
        for k in (1, 8, 64):
            def burst(k: int = k) -> None:
                ts = [threading.Thread(target=eng.fire, args=("PreToolUse", PAYLOAD)) for _ in range(k)]
                for th in ts:
                    th.start()
                for th in ts:
                    th.join()
            steps.append((f"{k} fires", k, timed(burst, n(20 if k < 64 else 6), warm=1)))
    out.append(("concurrent fires (`true`, threads)", steps))
    return out


def print_growth(grows: Growth) -> None:
    """The table: each size's median, its ratio to the smallest size, and the slope: the
    exponent b of time ∝ work^b between the smallest and the largest size (1: linear in the
    work, below 1: the fixed cost still dominates, above 1: grows faster than the work)."""
    import math

    print()
    print("how cost grows (medians; ratio to the smallest size; slope b of time ∝ work^b, smallest → largest)")
    print(f"{'dimension':<36} {'size':<12} {'median':>10}  {'ratio':>8}  {'slope from the size before':>26}")
    print("-" * 100)
    for dim, steps in grows:
        first = statistics.median(steps[0][2])
        for i, (label, work, samples) in enumerate(steps):
            m = statistics.median(samples)
            step = ""
            if i > 0:
                before = statistics.median(steps[i - 1][2])
                step = f"{math.log(m / before) / math.log(work / steps[i - 1][1]):.2f}"
            print(f"{dim if i == 0 else '':<36} {label:<12} {fmt_time(m):>10}  {m / first:>7.2f}×  {step:>26}".rstrip())
        last = statistics.median(steps[-1][2])
        b = math.log(last / first) / math.log(steps[-1][1] / steps[0][1])
        print(f"{'':<36} {'slope':<12} {'':>10}  {b:>7.2f}")
    print("-" * 100)


# Each scenario's ratios are against this runner when present.
BASE = {"1 hook `true`": "C floor", "1 hook `true`, host env changes": "Python, env unchanged", "1 hook `/usr/bin/printf ok`": "C floor", "Python guard script": "Python",
        "Python guard script persistent": "C floor", "persistent `sh` answering {}": "C floor", "8 hooks `sleep 0.05`": "Python",
        "no match among 100 hooks": "Python", "8 threads, 1 hook `true`": "Python, 1 thread",
        "8 threads × 1 hook `sleep 0.05`": "Python, 1 fire",
        "load 4 sources × 250 hooks": "Python", "1 hook `true`, telemetry": "Python, telemetry off",
        "persistent `sh`, telemetry": "Python, telemetry off",
        "policy `rm -rf` guard, no answer": "Python, no-match fire", "policy `rm -rf` guard, deny": "Python, no-match fire"}


def report(rows: List[Row], notes: List[str]) -> None:
    by = {(r.scenario, r.runner): r for r in rows}
    print(f"hookexec benchmark — {machine()}")
    print(f"{'scenario':<32} {'runner':<26} {'median':>10} {'p90':>10}  ratio")
    print("-" * 98)
    last = None
    for r in rows:
        scen = r.scenario.replace(" persistent", "") if r.scenario.endswith(" persistent") else r.scenario
        base = by.get((r.scenario, BASE.get(r.scenario, ""))) or by.get((scen, BASE.get(scen, "")))
        label = r.scenario if r.scenario != last else ""
        last = r.scenario
        if r.unit == "rate":
            b = by.get((r.scenario, r.runner.split(",")[0] + ", 1 thread"))
            ratio = f"{r.median / b.median:.2f}× its 1 thread" if b and b is not r else ""
            print(f"{label:<32} {r.runner:<26} {r.median:>8.0f}/s {'':>10}  {ratio}".rstrip())
            continue
        ratio = ""
        if base is not None and base is not r:
            q = r.median / base.median
            ratio = f"{q:.2f}× {base.runner}" if q >= 0.1 else f"1/{1 / q:.0f} of {base.runner}"
        print(f"{label:<32} {r.runner:<26} {fmt_time(r.median):>10} {fmt_time(r.p90):>10}  {ratio}".rstrip())
    print("-" * 98)
    for note in notes:
        print(note)
    targets(by)


def targets(by) -> None:
    def get(s, r):
        return by.get((s, r))

    lines = []
    for scen in ("1 hook `true`", "1 hook `/usr/bin/printf ok`"):
        one, floor = get(scen, "Python"), get(scen, "C floor")
        if one and floor:
            q = one.median / floor.median
            lines.append(f"one-shot {scen[7:]} via Python ≤ 1.10× C floor: {q:.2f}× {'met' if q <= 1.10 else 'MISSED'}")
    one, cli = get("1 hook `/usr/bin/printf ok`", "Python"), get("1 hook `/usr/bin/printf ok`", "cli-agent 1.2.6")
    if one and cli:
        q = cli.median / one.median
        lines.append(f"cli-agent ≥ 2× slower than hookexec: {q:.2f}× {'met' if q >= 2 else 'MISSED'}")
    scen = "Python guard script persistent"
    pers, gopers, shot = get(scen, "Python"), get(scen, "Go"), get("Python guard script", "Python")
    if gopers:
        lines.append(f"persistent guard from Go ≤ 50 µs median: {fmt_time(gopers.median)} {'met' if gopers.median <= 50e-6 else 'MISSED'}")
    if pers and shot:
        lines.append(f"from Python ≤ 60 µs: {fmt_time(pers.median)} {'met' if pers.median <= 60e-6 else 'MISSED'}; "
                     f"≥ 300× faster than one-shot: {shot.median / pers.median:.0f}× {'met' if shot.median / pers.median >= 300 else 'MISSED'}")
    for scen, label in (("persistent `sh` answering {}", "sh {}"), ("Python guard script persistent", "guard")):
        py, gor = get(scen, "Python"), get(scen, "Go")
        if py and gor:
            d = py.median - gor.median
            lines.append(f"a matching fire ({label}) from Python ≤ 25 µs over Go: {d * 1e6:.1f} µs {'met' if d <= 25e-6 else 'MISSED'}")
    toff, ton = get("1 hook `true`, telemetry", "Python, telemetry off"), get("1 hook `true`, telemetry", "Python, telemetry on")
    if toff and ton:
        q = ton.median / toff.median
        lines.append(f"telemetry on ≤ 1.03× off on a matching fire: {q:.3f}× {'met' if q <= 1.03 else 'MISSED'}")
    nm = get("no match among 100 hooks", "Python")
    if nm:
        lines.append(f"no-match from Python ≤ 1 µs: {fmt_time(nm.median)} {'met' if nm.median <= 1e-6 else 'MISSED'}")
    for verdict in ("no answer", "deny"):
        scen = f"policy `rm -rf` guard, {verdict}"
        base = get(scen, "Python, no-match fire")
        for lang, bound in (("CEL", 5e-6), ("Rego", 50e-6)):
            r = get(scen, f"Python, {lang} policy")
            if base and r:
                d = r.median - base.median
                lines.append(f"{lang} policy ({verdict}) from Python ≤ {bound * 1e6:.0f} µs over a no-match fire: "
                             f"{fmt_time(d)} {'met' if d <= bound else 'MISSED'}")
    t1, t8 = get("8 threads, 1 hook `true`", "Python, 1 thread"), get("8 threads, 1 hook `true`", "Python, 8 threads")
    if t1 and t8:
        q = t8.median / t1.median
        lines.append(f"8 threads ≥ 1.5× one thread's fires/s: {q:.2f}× {'met' if q >= 1.5 else 'MISSED'}")
    c1, c8 = get("8 threads, 1 hook `true`", "C floor, 1 thread"), get("8 threads, 1 hook `true`", "C floor, 8 threads")
    if c1 and c8:
        lines.append(f"(the C floor itself, 8 processes: {c8.median / c1.median:.2f}× one)")
    w1, w8 = get("8 threads, 1 hook `true`", "2 workers (sh), 1 thread"), get("8 threads, 1 hook `true`", "2 workers (sh), 8 threads")
    if w1 and w8:
        q = w8.median / w1.median
        lines.append(f"8 threads on 2 workers ≥ 1.6× one thread: {q:.2f}× {'met' if q >= 1.6 else 'MISSED'}")
    print("targets: " + "; ".join(lines))


if __name__ == "__main__":
    main()
