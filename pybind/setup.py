"""Builds the hookexec wheel: compiles libhookexec.so with Go and bundles it in the package.

The static metadata is in pyproject.toml. This file adds the build step: ``build_py``
builds the library through the repository's Makefile (``make build/libhookexec.so``, which
reuses an up-to-date build) and copies it, with ``_version.py`` written from VERSION, into
the package; ``bdist_wheel`` tags the wheel ``py3-none-<platform>``, since the package is
plain Python around one native library and works with any Python 3 on that platform.

Building needs the Go sources (a clone of the repository, or the ``src/`` tree an sdist
carries, its modules vendored), Go and a C compiler (cgo), and make.

Two environment variables serve the release build (``make wheels``), which compiles the
library once per platform with ``zig cc`` and packs it here:
``HOOKEXEC_PREBUILT_LIBRARY`` names a library to bundle instead of building one, and
``HOOKEXEC_PLATFORM_TAG`` the wheel's platform tag (``manylinux2014_x86_64``, ...).
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.dist import Distribution

HERE = Path(__file__).resolve().parent
# A clone has the Go sources one level up; an sdist carries them in src/.
REPO = HERE / "src" if (HERE / "src" / "capi").is_dir() else HERE.parent
LIBRARY = "libhookexec.so"
PREBUILT_ENV = "HOOKEXEC_PREBUILT_LIBRARY"
PLATFORM_ENV = "HOOKEXEC_PLATFORM_TAG"


class BuildError(SystemExit):
    """Ends the build with a message meant for the person running pip."""

    def __init__(self, message: str) -> None:
        super().__init__(f"\nhookexec: cannot build the wheel: {message}\n")


def version() -> str:
    return (REPO / "VERSION").read_text(encoding="utf-8").strip()


def build_library() -> Path:
    """Builds (or reuses) the repository's libhookexec.so and returns its path."""
    prebuilt = os.environ.get(PREBUILT_ENV)
    if prebuilt:
        if not Path(prebuilt).is_file():
            raise BuildError(f"{PREBUILT_ENV}={prebuilt} is not a file")
        return Path(prebuilt)
    if not (REPO / "capi").is_dir() or not (REPO / "Makefile").is_file():
        raise BuildError(f"{REPO} is not the hookexec repository; build from a clone of it (pip install ./pybind)")
    go = os.environ.get("GO") or "go"
    if shutil.which(go) is None:
        raise BuildError(
            f"Go is needed to compile {LIBRARY} and `{go}` is not on PATH. Install Go (the version "
            "go.mod names, https://go.dev/dl/) and a C compiler, or set GO to the go binary, then retry."
        )
    make = shutil.which("make")
    if make is None:
        raise BuildError("`make` is needed to compile the library and is not on PATH")
    target = f"build/{LIBRARY}"
    proc = subprocess.run([make, "-C", str(REPO), target, f"GO={go}"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if proc.returncode != 0:
        raise BuildError(f"`make {target}` failed:\n{proc.stdout}")
    return REPO / target


class BuildPy(build_py):
    def run(self) -> None:
        super().run()
        pkg = Path(self.build_lib) / "hookexec"
        pkg.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(build_library(), pkg / LIBRARY)  # the real file behind the links
        os.chmod(pkg / LIBRARY, 0o755)
        (pkg / "_version.py").write_text(version_module(version()), encoding="utf-8")


def version_module(v: str) -> str:
    return f'"""Written from the repository\'s VERSION file by the build."""\n\n__version__ = "{v}"\n'


cmdclass = {"build_py": BuildPy}

try:  # setuptools >= 70.1 has it; older ones get it from the wheel package
    from setuptools.command.bdist_wheel import bdist_wheel
except ImportError:  # pragma: no cover
    try:
        from wheel.bdist_wheel import bdist_wheel  # type: ignore[no-redef]
    except ImportError:
        bdist_wheel = None  # type: ignore[misc,assignment]

if bdist_wheel is not None:

    class PlatformWheel(bdist_wheel):  # type: ignore[misc,valid-type]
        def get_tag(self) -> tuple[str, str, str]:
            _, _, plat = super().get_tag()
            return "py3", "none", os.environ.get(PLATFORM_ENV) or plat

    cmdclass["bdist_wheel"] = PlatformWheel


class NativeDistribution(Distribution):
    """A distribution with a native library inside: installed to platlib, wheel not pure."""

    def has_ext_modules(self) -> bool:
        return True


setup(cmdclass=cmdclass, distclass=NativeDistribution)
