"""Soak: many fires from many threads through the real C library, over a mix of cheap hooks
and every fault of the catalogue (tests/faults), checking that nothing leaks and nothing is
lost.

Each fire's result must be valid UTF-8 JSON that says what happened to its hook (exit code,
signal, timeout, the warning about killed stragglers, ...). At the start (after a warm-up)
and at the end it prints the process's descriptors, threads, RSS, the library's goroutines,
its child processes and zombies, and the processes left of hook trees (found by a marker in
their environment); it fails unless they are flat and nothing is left.

It drives the C ABI with ctypes directly, so every fire enters the library (the Python
package's no-match fast path is not in the way). Run by `make stress`:

    HOOKEXEC_LIBRARY=build/libhookexec.so python3 tests/stress/soak.py [--fires N] [--threads N]
"""

import argparse
import ctypes
import json
import os
import random
import shutil
import sys
import tempfile
import threading
import time
from collections import Counter, defaultdict

LIVE_STRINGS, LIVE_GOROUTINES = 1, 2
MARK = "HOOKEXEC_SOAK_MARK"


def load(path):
    lib = ctypes.CDLL(path)
    lib.hookexec_open.argtypes = [ctypes.c_char_p, ctypes.POINTER(ctypes.c_void_p), ctypes.POINTER(ctypes.c_void_p)]
    lib.hookexec_open.restype = ctypes.c_int
    lib.hookexec_fire.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.POINTER(ctypes.c_void_p)]
    lib.hookexec_fire.restype = ctypes.c_int
    lib.hookexec_close.argtypes = [ctypes.c_void_p]
    lib.hookexec_close.restype = ctypes.c_int
    lib.hookexec_free.argtypes = [ctypes.c_void_p]
    lib.hookexec_free.restype = None
    lib.hookexec_debug_live.argtypes = [ctypes.c_int]
    lib.hookexec_debug_live.restype = ctypes.c_long
    return lib


def has_warning(text):
    return lambda r, h: any(text in w for w in r["warnings"])


# kind: (weight per 1000 fires, hook command or None for no hook, timeout in s, check(result, hook))
def kinds(scratch, setsid):
    noexec = os.path.join(scratch, "not-executable.sh")
    with open(noexec, "w") as f:
        f.write("#!/bin/sh\necho never\n")
    os.chmod(noexec, 0o644)
    table = {
        "nomatch": (510, None, 0, lambda r, h: r["matched"] == 0 and r["decision"] == "none"),
        "ok": (300, "true", 30, lambda r, h: h["exit_code"] == 0 and h["exec"] == "direct" and not h["error"]),
        "persistent": (40, "while read -r line; do printf '{\"exit_code\":0,\"stdout\":\"kept\"}\\n'; done", 30,
                       lambda r, h: h["exit_code"] == 0 and h["stdout"] == "kept" and not h["error"]),
        "json": (40, """printf '{"decision":"approve","reason":"fine"}'""", 30,
                 lambda r, h: h["exit_code"] == 0 and r["decision"] == "allow" and h["output"] is not None),
        "block": (40, "echo no >&2; exit 2", 30, lambda r, h: r["blocked"] and r["reason"] == "no"),
        "segv": (8, "kill -SEGV $$", 30, lambda r, h: h["signal"] == "SIGSEGV" and h["error"] == "killed by SIGSEGV"),
        "missing": (8, "hookexec-no-such-command", 30, lambda r, h: h["exit_code"] == 127 and "not found" in h["error"]),
        "noexec": (8, noexec, 30, lambda r, h: "permission denied" in (h["error"] + h["stderr"]).lower()),
        "bigout": (8, "head -c 2000000 /dev/zero", 30, lambda r, h: h["exit_code"] == 0 and h["stdout_truncated"]),
        "badutf8": (8, r"""printf '{"decision":"block","reason":"\377\376 \\u0000"}'; printf '\300\200' >&2""", 30,
                    lambda r, h: r["blocked"]),
        "garbage": (8, """printf '{"decision": '""", 30,
                    lambda r, h: h["exit_code"] == 0 and not r["blocked"]
                    and ("not valid JSON" in h["error"] or any("not valid JSON" in w for w in r["warnings"]))),
        "bigin": (8, "exit 0", 30, lambda r, h: h["exit_code"] == 0 and not h["timed_out"]),
        "closed": (8, "exec 1>&- 2>&-; exit 3", 30, lambda r, h: h["exit_code"] == 3),
        # The slow ones: they end by timeout (0.15 s) and grace (0.1 s) or by the grace alone.
        "sigterm": (2, "trap '' TERM; sleep 30 & echo started; wait", 0.15,
                    lambda r, h: h["timed_out"] and h["signal"] == "SIGKILL" and h["stdout"] == "started\n"),
        "daemon": (2, "sleep 30 & echo done", 30,
                   lambda r, h: h["exit_code"] == 0 and h["stdout"] == "done\n" and has_warning("held its output")(r, h)),
    }
    if setsid:
        # Without a cgroup nothing reaches the escaped sleep, so it sleeps 1 s only.
        table["escape"] = (2, "(setsid sleep 1 &); exec sleep 30", 0.15, lambda r, h: h["timed_out"] and h["signal"] == "SIGTERM")
    return table


def proc_stats(lib, me):
    status = dict(line.split(":", 1) for line in open(f"/proc/{me}/status") if ":" in line)
    children = zombies = 0
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            stat = open(f"/proc/{pid}/stat").read()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2:].split()
        if fields[1] == str(me):
            children += 1
            zombies += fields[0] == "Z"
    return {
        "fds": len(os.listdir(f"/proc/{me}/fd")),
        "threads": int(status["Threads"]),
        "rss_mb": round(int(status["VmRSS"].split()[0]) / 1024, 1),
        "goroutines": lib.hookexec_debug_live(LIVE_GOROUTINES),
        "children": children,
        "zombies": zombies,
        "hook_processes": len(marked(me)),
        "strings": lib.hookexec_debug_live(LIVE_STRINGS),
    }


def marked(me):
    needle = f"{MARK}={me}\0".encode()
    out = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            if needle in open(f"/proc/{pid}/environ", "rb").read():
                out.append(pid)
        except OSError:
            pass
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--fires", type=int, default=int(os.environ.get("STRESS_FIRES", 100000)))
    ap.add_argument("--threads", type=int, default=8)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    lib = load(os.environ["HOOKEXEC_LIBRARY"])
    me = os.getpid()
    scratch = tempfile.mkdtemp(prefix="hookexec-soak-")
    table = kinds(scratch, shutil.which("setsid") is not None)
    groups = []
    for name, (_, command, timeout, _) in table.items():
        if command is not None:
            hook = {"type": "command", "command": command, "timeout": timeout}
            if name == "persistent":
                hook["persistent"] = True  # one long-lived process answers every fire
            groups.append({"matcher": name, "hooks": [hook]})
    options = {
        "profile": "cli-agent", "project_dir": scratch, "home": scratch, "sources": [],
        "config": {"hooks": {"PreToolUse": groups}}, "kill_grace_ms": 100, "env": {MARK: str(me)},
    }
    eng = ctypes.c_void_p()
    err = ctypes.c_void_p()
    rc = lib.hookexec_open(json.dumps(options).encode(), ctypes.byref(eng), ctypes.byref(err))
    if rc != 0:
        sys.exit(f"hookexec_open: {rc} {ctypes.string_at(err.value) if err.value else ''}")

    rng = random.Random(args.seed)
    names = list(table)
    weights = [table[n][0] for n in names]
    plan = rng.choices(names, weights, k=args.fires)
    small = json.dumps({"tool_name": "", "tool_input": {"command": "ls"}})
    big_input = "x" * (1 << 20)

    counts, failures = Counter(), defaultdict(list)
    lock = threading.Lock()
    cursor = iter(range(len(plan)))

    def fire(kind):
        if kind == "bigin":
            payload = json.dumps({"tool_name": kind, "tool_input": {"command": big_input}})
        else:
            payload = small.replace('"tool_name": ""', f'"tool_name": "{kind}"', 1)
        out = ctypes.c_void_p()
        rc = lib.hookexec_fire(eng, b"PreToolUse", payload.encode(), ctypes.byref(out))
        try:
            raw = ctypes.string_at(out.value) if out.value else b""
        finally:
            lib.hookexec_free(out)
        if rc != 0:
            return f"rc {rc}"
        try:
            r = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError) as e:
            return f"result is not UTF-8 JSON: {e}: {raw[:200]!r}"
        hooks = r.get("hooks", [])
        if table[kind][1] is not None and len(hooks) != 1:
            return f"want one hook result, got {len(hooks)}: {raw[:300]!r}"
        h = hooks[0] if hooks else {}
        if not table[kind][3](r, h):
            return f"result does not say what happened: {raw[:400]!r}"
        return None

    def worker():
        while True:
            with lock:
                i = next(cursor, None)
            if i is None:
                return
            kind = plan[i]
            why = fire(kind)
            with lock:
                counts[kind] += 1
                if why is not None:
                    failures[kind].append(why)

    # Warm up: the pools, threads and run cgroups reach their working size first.
    warm = [threading.Thread(target=lambda: [fire(k) for k in names for _ in range(3)]) for _ in range(args.threads)]
    for t in warm:
        t.start()
    for t in warm:
        t.join()
    time.sleep(0.5)
    start = proc_stats(lib, me)
    t0 = time.monotonic()
    threads = [threading.Thread(target=worker) for _ in range(args.threads)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    took = time.monotonic() - t0
    time.sleep(0.5)
    end = proc_stats(lib, me)
    # The persistent hook's process lives while the engine is open; close stops it.
    lib.hookexec_close(eng)
    closed = proc_stats(lib, me)
    # A process that left the group without a cgroup to catch it sleeps 1 s; anything else
    # still there after 3 s is a leak.
    deadline = time.monotonic() + 3
    while marked(me) and time.monotonic() < deadline:
        time.sleep(0.1)
    left_later = len(marked(me))
    shutil.rmtree(scratch, ignore_errors=True)

    total = sum(counts.values())
    print(f"soak: {total} fires from {args.threads} threads in {took:.1f} s ({total / took:.0f} fires/s)")
    print("  " + ", ".join(f"{k} {counts[k]}" for k in names))
    print(f"  {'':14}{'start':>10}{'end':>10}{'closed':>10}")
    for k in start:
        print(f"  {k:14}{start[k]:>10}{end[k]:>10}{closed[k]:>10}")
    print(f"  hook processes left 3 s after close: {left_later}")

    problems = []
    if total != args.fires:
        problems.append(f"{args.fires - total} fires lost")
    for k, whys in failures.items():
        problems.append(f"{len(whys)} {k} fires: {whys[0]}")
    if end["fds"] > start["fds"] + 4:
        problems.append(f"descriptors grew {start['fds']} -> {end['fds']}")
    if end["threads"] > start["threads"] + 4:
        problems.append(f"threads grew {start['threads']} -> {end['threads']}")
    if end["goroutines"] > start["goroutines"] + 4:
        problems.append(f"goroutines grew {start['goroutines']} -> {end['goroutines']}")
    if end["rss_mb"] > start["rss_mb"] * 1.5 + 32:
        problems.append(f"RSS grew {start['rss_mb']} -> {end['rss_mb']} MB")
    if end["zombies"] or end["children"] > start["children"]:
        problems.append(f"children grew {start['children']} -> {end['children']} ({end['zombies']} zombies)")
    if closed["children"]:
        problems.append(f"{closed['children']} children left after close")
    if end["strings"] != start["strings"]:
        problems.append(f"library strings not freed: {start['strings']} -> {end['strings']}")
    if left_later:
        problems.append(f"{left_later} processes of hook trees left")
    if problems:
        print("FAIL:\n  " + "\n  ".join(problems))
        sys.exit(1)
    print(f"ok: flat, no zombie, nothing lost ({closed['hook_processes']} hook processes right after close, none 3 s later)")


if __name__ == "__main__":
    main()
