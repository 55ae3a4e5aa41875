"""Helpers of the LangChain and LangGraph adapters' tests (tests/frameworks/langchain and
tests/frameworks/langgraph): hook commands, fake Chat Completions turns, the example's module,
and reading what reached the model."""

from __future__ import annotations

import importlib.util
import json
import os
import shlex
import sys
from pathlib import Path
from types import ModuleType
from typing import Any, Dict, List

from conftest import EXAMPLES

# An example runs as a user would, with the project's HOME, but with this run's caches.
CACHES = {
    "HOOKEXEC_FRAMEWORK_CACHE": os.environ.get("HOOKEXEC_FRAMEWORK_CACHE") or str(Path(sys.prefix).parent),
    "GOCACHE": os.environ.get("GOCACHE") or os.path.expanduser("~/.cache/go-build"),
    "GOMODCACHE": os.environ.get("GOMODCACHE") or os.path.expanduser("~/go/pkg/mod"),
    "PIP_CACHE_DIR": os.environ.get("PIP_CACHE_DIR") or os.path.expanduser("~/.cache/pip"),
}

# PreToolUse answers.
ASK = {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "ask", "permissionDecisionReason": "ASK-REASON"}}


def rewrite(command: str) -> Dict[str, Any]:
    return {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow", "updatedInput": {"command": command}}}


def context(event: str, text: str) -> Dict[str, Any]:
    return {"hookSpecificOutput": {"hookEventName": event, "additionalContext": text}}


def emit(answer: Dict[str, Any]) -> str:
    """A hook command that prints ``answer`` as its JSON output."""
    return "printf '%s' " + shlex.quote(json.dumps(answer))


def refuse(reason: str) -> str:
    """A hook command that blocks with ``reason`` (exit 2)."""
    return f"echo {shlex.quote(reason)} >&2; exit 2"


def shell_turn(command: str, text: str = "") -> Dict[str, Any]:
    return {"tools": [{"name": "shell", "input": {"command": command}}], "text": text}


def ask(prompt: str) -> Dict[str, Any]:
    return {"messages": [{"role": "user", "content": prompt}]}


def example(name: str) -> ModuleType:
    """examples/frameworks/NAME/agent.py as a module."""
    spec = importlib.util.spec_from_file_location(f"{name.replace('-', '_')}_example_agent", EXAMPLES / name / "agent.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def chat_model(fake: Any) -> Any:
    from langchain_openai import ChatOpenAI

    return ChatOpenAI(model="fake-model", base_url=fake.url, api_key="test-key", max_retries=0)


def example_env(fake: Any) -> Dict[str, str]:
    return {**CACHES, "OPENAI_BASE_URL": fake.url, "OPENAI_API_KEY": "test-key", "HOOKEXEC_EXAMPLE_MODEL": "fake-model"}


def said(body: Dict[str, Any], role: str) -> List[str]:
    """The contents of ``role``'s messages in one Chat Completions request body."""
    out = []
    for m in body["messages"]:
        if m["role"] == role:
            c = m.get("content")
            out.append(c if isinstance(c, str) else json.dumps(c))
    return out
