#!/usr/bin/env python3
"""`make bench`, second table: hookexec as the one hook an agent runs (install + dispatcher +
daemon), measured as the agent sees it: exec to exit, the payload on stdin, stdout and stderr
drained (tests/bench/floor.c does exactly that for any command, once per line it prints).

Rows, each against a baseline measured in the same run:
  /bin/true                   the start of the cheapest hook an agent can run
  dispatch, no matching hook  the dispatcher for a tool no hook matches: the C client
                              (build/hookexec-hook, what install registers) answering from
                              the no-match index (core/nomatch) without the daemon, the same
                              client with the index off (HOOKEXEC_INDEX=off: a round trip to
                              the warm daemon), the Go `hookexec hook --agent claude` with the
                              warm daemon, and the Go one without it (HOOKEXEC_DAEMON=off)
  Python guard, one-shot      the guard script as the agent runs it without hookexec
  Python guard, dispatcher    the same guard, installed with "persistent": true, through the
                              dispatcher (C client, then Go) and the warm daemon
  sessions                    then 19 more sessions, each with an environment of its own (a
                              session id and a random variable, as Claude Code gives each
                              session's hooks): each one's first call, the daemon's RSS after
                              1 and after 20 sessions, its engines and its hook processes
  C client's memory           the client's maximum RSS (GNU time's %M) on a call answered
                              from the index, one through the daemon and the guard's call,
                              against /bin/true's

The rows are sampled in turns, ten calls of each row per turn, so that a machine whose load
changes from second to second loads them alike; measuring starts once the settings files
install wrote have settled (the daemon's freshness check then stats them instead of
reading them, as between a user's edits; docs/daemon.md).

Environment: HOOKEXEC_BENCH_SCALE=0.2 shortens every run (iterations × scale).
"""
from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Dict, List, Tuple

REPO = Path(__file__).resolve().parents[2]
BUILD = REPO / "build"
SCALE = float(os.environ.get("HOOKEXEC_BENCH_SCALE", "1"))
HOOKEXEC = os.environ.get("HOOKEXEC_BIN", str(BUILD / "hookexec"))
FAST = str(Path(HOOKEXEC).parent / "hookexec-hook")

GUARD = """import json, sys
def answer(event):
    cmd = event.get("tool_input", {}).get("command", "")
    if "rm -rf" in cmd:
        return {"exit_code": 2, "stderr": "rm -rf is not allowed"}
    return {}
if __name__ == "__main__":
    import os
    if os.environ.get("HOOKEXEC_PERSISTENT"):
        for line in sys.stdin:
            print(json.dumps(answer(json.loads(line))), flush=True)
    else:
        a = answer(json.load(sys.stdin))
        sys.stderr.write(a.get("stderr", ""))
        sys.exit(a.get("exit_code", 0))
"""


def n(count: int) -> int:
    return max(5, int(count * SCALE))


def floor_samples(floor: str, count: int, payload: str, argv: List[str], env: Dict[str, str], cwd: str) -> List[float]:
    p = subprocess.run([floor, str(count), payload + "\n", *argv], capture_output=True, text=True, env=env, cwd=cwd)
    if p.returncode != 0:
        raise RuntimeError(f"floor {argv[0]} failed: {p.stderr.strip()}")
    return [int(x) / 1e9 for x in p.stdout.split()]


Row = Tuple[str, int, str, List[str], Dict[str, str]]  # name, calls, payload, argv, env


def in_turns(floor: str, rows: List[Row], cwd: str) -> List[Tuple[str, List[float]]]:
    """Each row's calls, taken ten at a time from every row in turn until each has its count."""
    got: Dict[str, List[float]] = {name: [] for name, *_ in rows}
    while any(len(got[name]) < count for name, count, *_ in rows):
        for name, count, payload, argv, env in rows:
            if len(got[name]) < count:
                got[name] += floor_samples(floor, min(10, count - len(got[name])), payload, argv, env, cwd)
    return [(name, got[name]) for name, *_ in rows]


def fmt(s: float) -> str:
    return f"{s * 1e6:.0f} µs" if s < 1e-3 else f"{s * 1e3:.2f} ms"


def main() -> int:
    floor = str(BUILD / "bench-floor")
    r = subprocess.run([os.environ.get("CC", "cc"), "-O2", "-o", floor, str(REPO / "tests" / "bench" / "floor.c")], capture_output=True, text=True)
    if r.returncode != 0:
        print("bench_dispatch: cannot compile tests/bench/floor.c:", r.stderr, file=sys.stderr)
        return 1
    with tempfile.TemporaryDirectory(prefix="hookexec-bench-") as root:
        project, home, run = Path(root, "project"), Path(root, "home"), Path(root, "run")
        for d in (project / ".claude", home):
            d.mkdir(parents=True)
        guard = project / "guard.py"
        guard.write_text(GUARD)
        python = sys.executable
        settings = {"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
            {"type": "command", "command": f"{python} {guard}", "persistent": True}]}]}}
        (project / ".claude" / "settings.json").write_text(json.dumps(settings, indent=2) + "\n")
        env = dict(os.environ, HOME=str(home), CLAUDE_PROJECT_DIR=str(project), HOOKEXEC_RUNTIME_DIR=str(run),
                   HOOKEXEC_DAEMON="", HOOKEXEC_DAEMON_IDLE="5m", HOOKEXEC_LOG="")
        inst = subprocess.run([HOOKEXEC, "--project", str(project), "install", "--agent", "claude"], capture_output=True, text=True, env=env)
        if inst.returncode != 0:
            print("bench_dispatch: install failed:", inst.stderr, file=sys.stderr)
            return 1
        bash = json.dumps({"hook_event_name": "PreToolUse", "session_id": "bench", "cwd": str(project), "tool_name": "Bash",
                           "tool_input": {"command": "ls -la"}})
        read = json.dumps({"hook_event_name": "PreToolUse", "session_id": "bench", "cwd": str(project), "tool_name": "Read",
                           "tool_input": {"file_path": "x"}})
        hook = [HOOKEXEC, "hook", "--agent", "claude"]
        fast = [FAST, "--agent", "claude"] if os.access(FAST, os.X_OK) else None
        # Start the daemon and warm the guard: the first call starts it; wait until it answers.
        subprocess.run(hook, input=bash, capture_output=True, text=True, env=env, cwd=project)
        deadline = time.time() + 60
        while subprocess.run([HOOKEXEC, "daemon", "--ask", "status"], capture_output=True, env=env).returncode != 0:
            if time.time() > deadline:
                print("bench_dispatch: the daemon did not start", file=sys.stderr)
                return 1
            time.sleep(0.05)
        subprocess.run(hook, input=bash, capture_output=True, text=True, env=env, cwd=project)
        time.sleep(2.5)  # the files install wrote settle (core/dispatch settleTime)
        # A call the daemon answers after that writes the no-match index (core/nomatch).
        subprocess.run(hook, input=read, capture_output=True, text=True, env=env, cwd=project)
        if fast and not list(run.glob("nomatch-*")):
            print("bench_dispatch: no no-match index was written; the index row goes through the daemon", file=sys.stderr)
        try:
            off = dict(env, HOOKEXEC_DAEMON="off")
            plan: List[Row] = [("/bin/true", n(400), read, ["/bin/true"], env)]
            noindex = dict(env, HOOKEXEC_INDEX="off")
            if fast:
                plan.append(("dispatch, no matching hook (C client, index)", n(400), read, fast, env))
                plan.append(("dispatch, no matching hook (C client + daemon)", n(400), read, fast, noindex))
            plan += [
                ("dispatch, no matching hook (Go + daemon)", n(400), read, hook, env),
                ("dispatch, no matching hook (Go, in-process)", n(200), read, hook, off),
                ("Python guard, one-shot", n(100), bash, [python, str(guard)], env),
            ]
            if fast:
                plan.append(("Python guard, C client + daemon", n(400), bash, fast, env))
            plan.append(("Python guard, Go + daemon", n(400), bash, hook, env))
            load = os.getloadavg()[0]
            rows = in_turns(floor, plan, str(project))
            load = max(load, os.getloadavg()[0])
            sessions = session_rows(fast or hook, env, project, bash)
            memory = [(label, max_rss_kib(argv, payload, e, project)) for label, argv, payload, e in (
                ("/bin/true", ["/bin/true"], read, env),
                ("no matching hook, from the index", fast, read, env), ("no matching hook, through the daemon", fast, read, noindex),
                ("Python guard, through the daemon", fast, bash, env))] if fast else []
        finally:
            subprocess.run([HOOKEXEC, "daemon", "--ask", "shutdown"], capture_output=True, env=env)
    med = {name: statistics.median(s) for name, s in rows}
    print()
    print(f"hookexec as the agent's one hook: exec to exit, payload on stdin, rows in turns (tests/bench/bench_dispatch.py); load {load:.1f}")
    print(f"{'':48}{'median':>10}{'p90':>10}  ratio")
    base = med["/bin/true"]
    for name, s in rows:
        s = sorted(s)
        p90 = s[min(len(s) - 1, int(len(s) * 0.9))]
        ratio = med[name] / base
        print(f"{name:48}{fmt(med[name]):>10}{fmt(p90):>10}  {ratio:.2f}× /bin/true")
    best = "C client" if fast else "Go"
    guard_d, guard_1 = med[f"Python guard, {best} + daemon"], med["Python guard, one-shot"]
    none = med["dispatch, no matching hook (C client, index)" if fast else "dispatch, no matching hook (Go + daemon)"]
    if fast:
        idx, via = med["dispatch, no matching hook (C client, index)"], med["dispatch, no matching hook (C client + daemon)"]
        print(f"no matching hook, C client: from the index {fmt(idx)}, through the daemon {fmt(via)}: {idx / via:.2f}×")
    targets = [
        f"persistent guard through the dispatcher ≤ 3 ms median: {fmt(guard_d)} {'met' if guard_d <= 3e-3 else 'MISSED'}",
        f"≥ 10× faster than one-shot: {guard_1 / guard_d:.1f}× {'met' if guard_1 / guard_d >= 10 else 'MISSED'}",
        f"no matching hook ≤ 1.5× /bin/true: {none / base:.2f}× {'met' if none / base <= 1.5 else 'MISSED'}",
    ]
    print(f"targets ({best} dispatcher): " + "; ".join(targets))
    print_sessions(sessions, med[f"Python guard, {best} + daemon"])
    if memory:
        print()
        print("C client's maximum RSS (tests/bench/bench_dispatch.py, GNU time's %M): " +
              "; ".join(f"{label} {kib} KiB" for label, kib in memory))
    return 0


def max_rss_kib(cmd: List[str], payload: str, env: Dict[str, str], cwd: Path) -> int:
    """The maximum RSS of one run of cmd in KiB, the largest of five runs, as GNU time reports
    it (its %M: the process's own high-water mark; a process forked from Python would carry
    the interpreter's pages until its exec into it). 0 without /usr/bin/time."""
    if not os.access("/usr/bin/time", os.X_OK):
        return 0
    most = 0
    with tempfile.NamedTemporaryFile(prefix="hookexec-rss-") as out:
        for _ in range(5):
            subprocess.run(["/usr/bin/time", "-f", "%M", "-o", out.name, *cmd], input=payload, capture_output=True, text=True, env=env, cwd=cwd)
            most = max(most, int(Path(out.name).read_text().split()[-1]))
    return most


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def daemon_state(env: Dict[str, str]) -> Tuple[int, int, int, int, int]:
    """The daemon's pid, engines, RSS in KiB, number of child processes (its persistent
    hooks) and their RSS in KiB."""
    st = json.loads(subprocess.run([HOOKEXEC, "daemon", "--ask", "status"], capture_output=True, text=True, env=env).stdout)
    pid = st["pid"]
    children = kids_rss = 0
    for d in Path("/proc").iterdir():
        try:
            if d.name.isdigit() and int((d / "stat").read_text().rsplit(")", 1)[1].split()[1]) == pid:
                children += 1
                kids_rss += rss_kib(int(d.name))
        except (OSError, IndexError, ValueError):
            pass
    return pid, st["engines"], rss_kib(pid), children, kids_rss


def session_rows(cmd: List[str], env: Dict[str, str], project: Path, bash: str) -> Dict[str, object]:
    """The daemon after the session measured so far, then after 19 more, each with an
    environment of its own; each new session's first call and one warm call after it."""
    out: Dict[str, object] = {"one": daemon_state(env)}
    first: List[float] = []
    warm: List[float] = []
    for i in range(2, 21):
        senv = dict(env, CLAUDE_CODE_SESSION_ID=f"bench-{i}-{os.urandom(4).hex()}", BENCH_RANDOM=os.urandom(8).hex())
        payload = bash.replace('"session_id": "bench"', f'"session_id": "bench-{i}"')
        for samples in (first, warm):
            t0 = time.perf_counter()
            subprocess.run(cmd, input=payload, capture_output=True, text=True, env=senv, cwd=project)
            samples.append(time.perf_counter() - t0)
    out["twenty"] = daemon_state(env)
    out["first"], out["warm"] = statistics.median(first), statistics.median(warm)
    return out


def print_sessions(s: Dict[str, object], warm_guard: float) -> None:
    print()
    print("sessions: 20 sessions with environments of their own through the daemon (tests/bench/bench_dispatch.py)")
    for label, key in (("after 1 session", "one"), ("after 20 sessions", "twenty")):
        _, engines, rss, children, kids = s[key]
        print(f"daemon {label:20} RSS {rss / 1024:6.1f} MiB, {engines} engine(s), {children} hook process(es) of {kids / 1024:.1f} MiB")
    one, twenty = s["one"][2], s["twenty"][2]
    print(f"daemon RSS 20 sessions / 1 session: {twenty / one:.2f}×")
    first, warm = s["first"], s["warm"]
    print(f"a session's first call {fmt(first)}, its second {fmt(warm)} (spawn of the exec, median of 19 sessions): "
          f"{first / warm:.2f}× (target ≤ 1.2×; guard row's median {fmt(warm_guard)})")


if __name__ == "__main__":
    sys.exit(main())
