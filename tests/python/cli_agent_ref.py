"""The real cli-agent hook code (PyPI ``mcp-cli-agent``), loaded for comparison tests.

``mcp-cli-agent``'s package ``__init__`` imports the whole agent (LLM SDKs, MCP clients, ...),
so the package is installed without dependencies into a repo-local, git-ignored directory and
only the stdlib-only modules the hook path needs are loaded, by file path, under their real
module names (their relative imports need that): ``cli_agent.core.event_system``,
``cli_agent.core.hooks.{hook_config,hook_executor,hook_events,hook_manager}``,
``cli_agent.utils.tool_name_utils`` and ``cli_agent.core.tool_execution_engine``. Their parent
packages are empty stand-ins, so ``cli_agent/__init__.py`` never runs.

:func:`load` installs once (cached in ``build/pydeps/``) and raises :class:`Unavailable`
with the reason when that is impossible (offline, no pip), so tests can skip.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
import tempfile
import types
from pathlib import Path
from typing import Optional

VERSION = "1.2.6"
REPO = Path(__file__).resolve().parents[2]
TARGET = REPO / "build" / "pydeps" / f"mcp-cli-agent-{VERSION}"

# Loaded in this order; each is stdlib-only apart from its siblings.
MODULES = (
    "cli_agent.core.event_system",
    "cli_agent.utils.tool_name_utils",
    "cli_agent.core.hooks.hook_config",
    "cli_agent.core.hooks.hook_executor",
    "cli_agent.core.hooks.hook_events",
    "cli_agent.core.hooks.hook_manager",
    "cli_agent.core.tool_execution_engine",
)
PACKAGES = ("cli_agent", "cli_agent.core", "cli_agent.core.hooks", "cli_agent.utils")


class Unavailable(Exception):
    """The reference package cannot be installed or loaded here; the message says why."""


def install(target: Path = TARGET) -> Path:
    """Installs mcp-cli-agent==VERSION without dependencies into ``target`` unless it is
    already there; returns ``target``."""
    marker = target / "cli_agent" / "core" / "hooks" / "hook_manager.py"
    if marker.is_file():
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=".install-", dir=target.parent))
    try:
        cmd = [
            sys.executable, "-m", "pip", "install", "--no-deps", "--no-compile", "--quiet",
            "--disable-pip-version-check", "--no-input", "--retries", "1", "--timeout", "15", "--target", str(tmp),
            f"mcp-cli-agent=={VERSION}",
        ]
        env = dict(os.environ, PIP_NO_INPUT="1")
        try:
            p = subprocess.run(cmd, capture_output=True, text=True, timeout=120, env=env)
        except (OSError, subprocess.TimeoutExpired) as e:
            raise Unavailable(f"pip install mcp-cli-agent=={VERSION} failed: {e}") from e
        if p.returncode != 0:
            tail = (p.stderr.strip() or p.stdout.strip()).splitlines()[-3:]
            raise Unavailable(f"pip install mcp-cli-agent=={VERSION} failed (offline?): " + " | ".join(tail))
        if not (tmp / "cli_agent" / "core" / "hooks" / "hook_manager.py").is_file():
            raise Unavailable(f"mcp-cli-agent=={VERSION} installed but has no cli_agent/core/hooks")
        try:
            tmp.rename(target)  # atomic: a concurrent run either sees all of it or nothing
        except OSError:
            if not marker.is_file():
                raise
        return target
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)


class Reference(types.SimpleNamespace):
    """The loaded modules: ``hook_config``, ``hook_executor``, ``hook_events``,
    ``hook_manager``, ``event_system``, ``tool_execution_engine``, plus shortcuts
    ``HookType``, ``HookConfig``, ``HookManager``, ``HookResult``, ``ToolExecutionEngine``."""


_loaded: Optional[Reference] = None


def load(target: Optional[Path] = None) -> Reference:
    """Installs (once) and loads the real hook modules; raises Unavailable if impossible."""
    global _loaded
    if _loaded is not None:
        return _loaded
    root = install(target or TARGET)
    for name in PACKAGES:
        existing = sys.modules.get(name)
        if existing is not None and not getattr(existing, "__hookexec_stub__", False):
            raise Unavailable(f"a real {name} package is already imported ({existing!r}); not shadowing it")
        pkg = types.ModuleType(name)
        pkg.__path__ = [str(root / name.replace(".", "/"))]
        pkg.__hookexec_stub__ = True  # type: ignore[attr-defined]
        sys.modules[name] = pkg
    mods = {}
    for name in MODULES:
        path = root / (name.replace(".", "/") + ".py")
        spec = importlib.util.spec_from_file_location(name, path)
        if spec is None or spec.loader is None:
            raise Unavailable(f"cannot load {path}")
        mod = importlib.util.module_from_spec(spec)
        sys.modules[name] = mod
        try:
            spec.loader.exec_module(mod)
        except Exception as e:  # noqa: BLE001 — a changed package: report, do not crash the run
            del sys.modules[name]
            raise Unavailable(f"loading {path} failed: {type(e).__name__}: {e}") from e
        parent, _, leaf = name.rpartition(".")
        setattr(sys.modules[parent], leaf, mod)
        mods[leaf] = mod
    _loaded = Reference(
        root=root,
        **mods,
        HookType=mods["hook_config"].HookType,
        HookConfig=mods["hook_config"].HookConfig,
        HookManager=mods["hook_manager"].HookManager,
        HookResult=mods["hook_executor"].HookResult,
        ToolExecutionEngine=mods["tool_execution_engine"].ToolExecutionEngine,
    )
    return _loaded
