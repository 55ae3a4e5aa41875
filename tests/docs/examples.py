"""Every shell or code example in docs/ and the README is executed by a test, or says why not.

Each fenced block in a code language (sh, bash, console, python, c, cpp, go, ts, js, ...) must
have, on the line before its opening fence, one of:

    <!-- example: run -->                         this script runs it (sh/bash and python)
    <!-- example: tested by PATH[#NAME] -->       PATH (and NAME in it) runs it, or its full form
    <!-- example: not runnable: REASON -->         why no test can run it

`run` blocks run in a fresh temporary directory (also $HOME) with build/ first on PATH (so `hookexec` is
the built command), the repository in $REPO, and the Python package on PYTHONPATH with
HOOKEXEC_LIBRARY naming build/libhookexec.so; sh blocks under `bash -euo pipefail`. Blocks in
data languages (json, yaml, text, an unnamed fence) are not examples and need no marker.
Exit status 1 with one line per problem.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import List, Optional

REPO = Path(__file__).resolve().parents[2]
DOCS = REPO / "docs"
CODE = {"sh", "bash", "shell", "console", "python", "py", "c", "cpp", "c++", "go", "ts", "typescript", "js", "javascript", "mjs"}
RUNNABLE = {"sh", "bash", "shell", "python", "py"}
MARKER = re.compile(r"^<!--\s*example:\s*(run|tested by\s+(\S.*?)|not runnable:\s*(.+?))\s*-->\s*$")
FENCE = re.compile(r"^(\s*)(`{3,}|~{3,})\s*([\w+-]*)")
TIMEOUT_S = 300  # a hang guard only


@dataclass
class Block:
    path: Path
    line: int
    lang: str
    body: str
    marker: Optional[str]


def blocks(path: Path) -> List[Block]:
    out: List[Block] = []
    lines = path.read_text(encoding="utf-8").splitlines()
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        fence, lang = m.group(2), m.group(3).lower()
        start = i
        i += 1
        body: List[str] = []
        while i < len(lines) and not lines[i].strip().startswith(fence):
            body.append(lines[i][len(m.group(1)) :] if lines[i].startswith(m.group(1)) else lines[i])
            i += 1
        i += 1
        prev = start - 1
        while prev >= 0 and not lines[prev].strip():
            prev -= 1
        marker = lines[prev].strip() if prev >= 0 and lines[prev].strip().startswith("<!--") else None
        out.append(Block(path, start + 1, lang, "\n".join(body) + "\n", marker))
    return out


def run(block: Block) -> Optional[str]:
    env = dict(os.environ)
    env["PATH"] = f"{REPO / 'build'}{os.pathsep}{env.get('PATH', '')}"
    env["REPO"] = str(REPO)
    env["PYTHONPATH"] = str(REPO / "pybind")
    env["HOOKEXEC_LIBRARY"] = str(REPO / "build" / "libhookexec.so")
    with tempfile.TemporaryDirectory(prefix="hookexec-docs-") as tmp:
        env["HOME"] = tmp  # user-level hooks of this machine stay out of it
        if block.lang in ("python", "py"):
            argv = [sys.executable, "-c", block.body]
        else:
            argv = ["bash", "-euo", "pipefail", "-c", block.body]
        try:
            p = subprocess.run(argv, cwd=tmp, env=env, capture_output=True, text=True, timeout=TIMEOUT_S)
        except subprocess.TimeoutExpired:
            return f"did not finish within {TIMEOUT_S}s"
        if p.returncode != 0:
            return f"exit {p.returncode}:\n{p.stdout}{p.stderr}"
    return None


def check(block: Block) -> Optional[str]:
    if block.lang not in CODE:
        return None
    where = f"{block.path.relative_to(REPO)}:{block.line}: ```{block.lang}"
    if block.marker is None:
        return f"{where}: no <!-- example: run | tested by PATH[#NAME] | not runnable: REASON --> before it"
    m = MARKER.match(block.marker)
    if not m:
        return f"{where}: cannot read the marker {block.marker!r}"
    if m.group(1) == "run":
        if block.lang not in RUNNABLE:
            return f"{where}: `run` runs sh and python blocks only"
        failure = run(block)
        return f"{where}: {failure}" if failure else None
    if m.group(2):
        target, _, name = m.group(2).partition("#")
        f = REPO / target
        if not f.is_file():
            return f"{where}: tested by {target}, which does not exist"
        if name and name not in f.read_text(encoding="utf-8"):
            return f"{where}: tested by {target}#{name}, which does not contain {name!r}"
    return None


def main() -> int:
    problems: List[str] = []
    count = {"run": 0, "tested": 0, "not runnable": 0}
    for path in [REPO / "README.md", *sorted(DOCS.glob("**/*.md"))]:
        for block in blocks(path):
            problem = check(block)
            if problem:
                problems.append(problem)
            elif block.lang in CODE and block.marker:
                kind = MARKER.match(block.marker)
                assert kind is not None
                count["run" if kind.group(1) == "run" else "tested" if kind.group(2) else "not runnable"] += 1
    for p in problems:
        print(p, file=sys.stderr)
    if problems:
        return 1
    print(f"docs examples: {count['run']} run here, {count['tested']} run by named tests, {count['not runnable']} not runnable (reasons given)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
