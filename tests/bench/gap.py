"""Where a persistent hook's fire from Python spends its time over the same fire from Go
(issue 21; docs/performance.md, "A matching fire from Python").

    HOOKEXEC_LIBRARY=build/libhookexec.so PYTHONPATH=pybind build/venv/bin/python tests/bench/gap.py [guard|sh]

Part 1, the call: the same fire from Go (tests/bench/gofire), from a C program through the
C API (tests/bench/chost.c: a thread Go did not start), as the bare ctypes call and as
`Engine.fire`, in turns. Part 2, after the call: the result's decode right after the call,
the same decode again at once, after evicting 1 and 4 MiB of data, after sleeping 40 µs,
and right after the same hook answered a Python host over plain pipes (no hookexec), all in
one loop. Medians in µs; the load average is printed, since it moves every figure.
"""

import ctypes
import json
import os
import select
import statistics
import subprocess
import sys
import tempfile
import time
from ctypes import byref, c_void_p
from pathlib import Path
from typing import Callable, Dict, List

REPO = Path(__file__).resolve().parents[2]
BUILD = REPO / "build"
sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_fire as B  # noqa: E402
import hookexec  # noqa: E402
from hookexec import _ffi  # noqa: E402
from hookexec.result import FireResult  # noqa: E402

PY = sys.executable
N = max(50, int(300 * float(os.environ.get("HOOKEXEC_BENCH_SCALE", "1"))))
ROUNDS = 8
ns = time.perf_counter_ns


def lines(cmd: List[str], env: Dict[str, str]) -> List[float]:
    p = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if p.returncode != 0:
        raise RuntimeError(f"{cmd[0]} failed: {p.stderr.strip()}")
    return [int(x) / 1e3 for x in p.stdout.split()]


def report(title: str, got: Dict[str, List[float]]) -> None:
    print(f"{title} (load {os.getloadavg()[0]:.1f})")
    for k, v in got.items():
        v.sort()
        print(f"  {k:44s} median {statistics.median(v):7.1f} µs   p90 {v[int(len(v) * 0.9)]:7.1f} µs")


def main() -> None:
    which = sys.argv[1] if len(sys.argv) > 1 else "guard"
    tmp = Path(tempfile.mkdtemp(prefix="hookexec-gap-"))
    (tmp / "guard.py").write_text(B.GUARD)
    (tmp / "t.sh").write_text(B.SH_TRUE)
    argv = [PY, "-m", "hookexec.persistent", str(tmp / "guard.py")] if which == "guard" else ["/bin/sh", str(tmp / "t.sh")]
    cfg = B.settings(" ".join(argv), persistent=True)
    hook_env = {"PYTHONPATH": str(REPO / "pybind")}
    env = dict(os.environ, **hook_env)
    payload = json.dumps(B.PAYLOAD)
    data = payload.encode()
    chost = BUILD / "bench-chost"
    subprocess.run([os.environ.get("CC", "cc"), "-O2", "-I", str(REPO / "include"), "-o", str(chost), str(REPO / "tests/bench/chost.c"),
                    "-L", str(BUILD), "-lhookexec", f"-Wl,-rpath,{BUILD}"], check=True)
    gofire = BUILD / "bench-gofire"
    subprocess.run([os.environ.get("GO", "go"), "build", "-o", str(gofire), "./tests/bench/gofire"], cwd=REPO, check=True)
    (tmp / "go.json").write_text(json.dumps(cfg))
    opts = json.dumps({"project_dir": str(tmp), "home": str(tmp), "config": cfg, "env": hook_env})

    eng = hookexec.Engine(project_dir=tmp, home=tmp, config=cfg, env=hook_env)
    lib, h = eng._lib, eng._h
    for _ in range(3):
        eng.fire("PreToolUse", B.PAYLOAD)

    def call() -> bytes:
        out = c_void_p()
        lib.hookexec_fire(h, b"PreToolUse", data, byref(out))
        try:
            return ctypes.string_at(out.value)
        finally:
            _ffi._lib_free(out)

    got: Dict[str, List[float]] = {"Go": [], "C host (cgo from a foreign thread)": [], "Python, the bare ctypes call": [], "Python, Engine.fire": []}
    for _ in range(ROUNDS):
        got["Go"] += lines([str(gofire), "-config", str(tmp / "go.json"), "-project", str(tmp), "-payload", payload, "-n", str(N)], env)
        got["C host (cgo from a foreign thread)"] += lines([str(chost), opts, "PreToolUse", payload, str(N)], env)
        for _ in range(N):
            out = c_void_p()
            t = ns()
            lib.hookexec_fire(h, b"PreToolUse", data, byref(out))
            got["Python, the bare ctypes call"].append((ns() - t) / 1e3)
            _ffi._lib_free(out)
        for _ in range(N):
            t = ns()
            eng.fire("PreToolUse", B.PAYLOAD)
            got["Python, Engine.fire"].append((ns() - t) / 1e3)
    report(f"1. the call ({which}, {ROUNDS} rounds of {N} in turns)", got)

    # The request line the hook reads, to drive it over plain pipes.
    cap = tmp / "stdin.json"
    with hookexec.Engine(project_dir=tmp, home=tmp, config=B.settings(f"cat > {cap}"), env=hook_env) as e:
        e.fire("PreToolUse", B.PAYLOAD)
    line = cap.read_bytes().rstrip(b"\n") + b"\n"
    direct = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=dict(env, HOOKEXEC_PERSISTENT="1"))
    assert direct.stdin is not None and direct.stdout is not None
    wfd, rfd = direct.stdin.fileno(), direct.stdout.fileno()
    raw = call()
    big = bytearray(4 << 20)
    buf = (ctypes.c_char * len(big)).from_buffer(big)
    memset = ctypes.CDLL(None).memset

    def timed(before: Callable[[], object]) -> float:
        before()
        t = ns()
        FireResult.from_json(raw)
        return (ns() - t) / 1e3

    after: Dict[str, List[float]] = {k: [] for k in ["right after the call", "the same decode again at once", "after evicting 1 MiB of data",
                                                     "after evicting 4 MiB of data", "after sleeping 40 µs", "after the hook answered over plain pipes"]}
    for i in range(ROUNDS * N):
        after["right after the call"].append(timed(call))
        after["the same decode again at once"].append(timed(lambda: None))
        after["after evicting 1 MiB of data"].append(timed(lambda: memset(buf, i & 255, 1 << 20)))
        after["after evicting 4 MiB of data"].append(timed(lambda: memset(buf, i & 255, 4 << 20)))
        after["after sleeping 40 µs"].append(timed(lambda: select.select([], [], [], 40e-6)))
        after["after the hook answered over plain pipes"].append(timed(lambda: (os.write(wfd, line), os.read(rfd, 65536))))
    report(f"2. FireResult.from_json of the result ({which}, {ROUNDS * N} in one loop)", after)
    direct.stdin.close()
    direct.wait()
    eng.close()


if __name__ == "__main__":
    main()
