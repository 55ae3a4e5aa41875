"""Walking past a PreToolUse guard through the CrewAI adapter, the real CrewAI and the fake
Chat Completions API."""

from __future__ import annotations

import os
from typing import Any

os.environ.setdefault("CREWAI_DISABLE_TELEMETRY", "true")
os.environ.setdefault("OTEL_SDK_DISABLED", "true")

from test_crewai import answer, call, crew_for, governed, pre  # noqa: E402,F401 - governed is a fixture


def test_kickoff_for_each_is_governed(project: Any, fake_model: Any, governed: Any) -> None:
    # kickoff_for_each runs a copy of the crew (new Agent objects) per input: its tool calls
    # must still meet the guard.
    project.settings(project.hook("PreToolUse", answer(pre("deny", "NO-RAN")), matcher="Bash"))
    fake = fake_model("chat", [call("touch ran"), {"text": "finished"}])
    governed(crew_for(fake)).kickoff_for_each(inputs=[{}])
    assert not (project.path / "ran").exists()
