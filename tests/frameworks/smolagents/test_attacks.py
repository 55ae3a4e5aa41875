"""A model trying to walk past a PreToolUse guard through the smolagents adapter, the real
smolagents and the fake Chat Completions API."""

from __future__ import annotations

from typing import Any

import pytest
from smolagents import CodeAgent, OpenAIServerModel
from test_smolagents import answer, pre, shell

from hookexec.integrations.smolagents import govern


@pytest.mark.parametrize("code", [
    "shell.inner(command='touch ran')",  # the wrapped tool, reached through the wrapper
    "shell._hooks.gate.tool_names['shell'] = 'NotBash'\nshell(command='touch ran')",  # the name map, rewritten
    "shell._hooks.gate.engine = None\nshell(command='touch ran')",
])
def test_code_agent_cannot_reach_past_the_wrapper(project: Any, fake_model: Any, code: str) -> None:
    # A CodeAgent's code may read any attribute that is not a dunder: the governed tool must
    # not hand it the tool it wraps or the gate's state.
    project.settings(project.hook("PreToolUse", answer(pre("deny", "CODE-BLOCKED")), matcher="Bash"))
    fake = fake_model("chat", [], side=f"<code>\n{code}\n</code>")
    model = OpenAIServerModel(model_id="fake-model", api_base=fake.url, api_key="test")
    agent = govern(CodeAgent(tools=[shell], model=model, max_steps=2, verbosity_level=-1))
    agent.run("make a file")
    assert not (project.path / "ran").exists()
