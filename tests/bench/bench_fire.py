#!/usr/bin/env python3
"""Fire-path benchmarks for the Python host, each printed as a ratio to a baseline measured
in the same run (SPEC §11): `make bench`.

  no-match fire   vs  a Python dict lookup       (the price of an event nobody hooks)
  matched, no run vs  a Python dict lookup       (matcher says no: payload never encoded)
  one hook fire   vs  subprocess.run(/bin/true)  (what a pure-Python hook path pays to spawn)
  one hook fire   vs  os.posix_spawn(/bin/true)  (the floor: a bare spawn and wait)
  8 threads firing a 50 ms hook  vs  one such fire  (1x: the GIL is released during fires)
"""
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time

import hookexec

PAYLOAD = {"tool_name": "bash_execute", "tool_input": {"command": "ls -la", "description": "list"}}


def per_call(fn, n, repeat=5):
    """Median seconds per call over `repeat` batches of n calls."""
    samples = []
    for _ in range(repeat):
        t = time.perf_counter()
        for _ in range(n):
            fn()
        samples.append((time.perf_counter() - t) / n)
    return statistics.median(samples)


def fmt(s):
    return f"{s * 1e6:9.2f} µs" if s < 1e-3 else f"{s * 1e3:9.3f} ms"


def row(label, value, base_label, base):
    print(f"  {label:<34} {fmt(value)}   {base_label:<26} {fmt(base)}   ratio {value / base:7.2f}x")


def main():
    project = tempfile.mkdtemp(prefix="hookexec-bench-")
    cfg = {"hooks": {
        "PreToolUse": [{"matcher": "bash_execute", "hooks": [{"type": "command", "command": "/bin/true <<tool_input.command>>"}]}],
        "PostToolUse": [{"matcher": "write_file|mcp__*", "hooks": [{"type": "command", "command": "true"}]}],
    }}
    table = {"PreToolUse": 1}
    with hookexec.Engine(project_dir=project, home=project, config=cfg) as eng:
        print(f"hookexec {hookexec.library_version()}, Python {sys.version.split()[0]}, {os.cpu_count()} cores")
        dict_lookup = per_call(lambda: table.get("Stop"), 200_000)
        row("fire, no hooks for the event", per_call(lambda: eng.fire("Stop", PAYLOAD), 50_000), "dict lookup", dict_lookup)
        row("fire, hooks but none match", per_call(lambda: eng.fire("PostToolUse", PAYLOAD), 20_000), "dict lookup", dict_lookup)
        spawn = per_call(lambda: subprocess.run(["/bin/true", "ls -la"]), 300)
        fire = per_call(lambda: eng.fire("PreToolUse", PAYLOAD), 300)
        row("fire, one direct hook", fire, "subprocess.run(/bin/true)", spawn)

        def posix_spawn():
            pid = os.posix_spawn("/bin/true", ["/bin/true", "ls -la"], os.environ)
            os.waitpid(pid, 0)
        row("fire, one direct hook", fire, "os.posix_spawn + waitpid", per_call(posix_spawn, 300))
        payload_json = json.dumps(PAYLOAD)
        row("fire, one direct hook (JSON str)", per_call(lambda: eng.fire("PreToolUse", payload_json), 300),
            "subprocess.run(/bin/true)", spawn)

    with hookexec.Engine(project_dir=project, home=project,
                         config={"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "sleep 0.05"}]}]}}) as eng:
        def eight_threads():
            ts = [threading.Thread(target=eng.fire, args=("Stop", {})) for _ in range(8)]
            for t in ts:
                t.start()
            for t in ts:
                t.join()
        row("8 threads fire a 50 ms hook", per_call(eight_threads, 5), "one fire of it", per_call(lambda: eng.fire("Stop", {}), 5))


if __name__ == "__main__":
    main()
