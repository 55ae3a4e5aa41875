"""Bench of hookexec.integrations.langgraph: ToolCallHooks as a ToolNode's wrap_tool_call,
rows as in tests/frameworks/lc_bench.py.

    examples/frameworks/env.sh langgraph python tests/frameworks/langgraph/bench.py [ROUNDS]
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from lc_bench import run  # noqa: E402

from hookexec.integrations.langgraph import ToolCallHooks  # noqa: E402

run("langgraph", lambda d: ToolCallHooks(project_dir=d))
