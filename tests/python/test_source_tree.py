"""Running from the source tree: after `make all`, `PYTHONPATH=pybind python3 -c 'import hookexec'`
works (the generated version module is part of `all`)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from conftest import REPO


def test_make_all_builds_what_a_source_tree_import_needs(tmp_path: Path) -> None:
    # A copy of the tree with the library and command already built (and newer than every
    # source), but without pybind/hookexec/_version.py: `make all` must write it.
    tree = tmp_path / "tree"
    tree.mkdir()
    for name in ("Makefile", "VERSION", "go.mod", "go.sum"):
        shutil.copy2(REPO / name, tree / name)
    for name in ("capi/exports.map", "capi/hook/hookexec-hook.c", "capi/hook/nomatch.c", "include/hookexec.h", "packaging/release.mk"):
        (tree / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(REPO / name, tree / name)
    shutil.copytree(REPO / "pybind" / "hookexec", tree / "pybind" / "hookexec",
                    ignore=shutil.ignore_patterns("_version.py", "__pycache__", "*.so"))
    # Only the built artifacts at the top of build/ (regular files and their links): never
    # its directories (a venv, release tools with a debootstrap root full of device nodes).
    (tree / "build").mkdir()
    for f in (REPO / "build").iterdir():
        if not (f.name.startswith("libhookexec.so") or f.name in ("hookexec", "hookexec-hook")):
            continue
        if f.is_symlink():
            (tree / "build" / f.name).symlink_to(os.readlink(f))
        elif f.is_file():
            shutil.copy2(f, tree / "build" / f.name)
    for f in (tree / "build").iterdir():
        if not f.is_symlink():
            os.utime(f)  # newer than the copied sources: make rebuilds nothing it need not
    make = subprocess.run(["make", "-C", str(tree), "all"], capture_output=True, text=True, timeout=600)
    assert make.returncode == 0, make.stdout + make.stderr
    assert "go build" not in make.stdout, "the test tree was meant to be up to date: " + make.stdout
    env = dict(os.environ, PYTHONPATH=str(tree / "pybind"), HOOKEXEC_LIBRARY=str(tree / "build" / "libhookexec.so"))
    p = subprocess.run([sys.executable, "-c", "import hookexec; print(hookexec.__version__, hookexec.library_version())"],
                       capture_output=True, text=True, env=env, cwd=tmp_path, timeout=120)
    assert p.returncode == 0, p.stderr
    version = (REPO / "VERSION").read_text().strip()
    assert p.stdout.split() == [version, version]
