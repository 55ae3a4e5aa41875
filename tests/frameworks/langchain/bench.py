"""Bench of hookexec.integrations.langchain: HookexecMiddleware's wrap_tool_call on
create_agent's tool path (a ToolNode calling it), rows as in tests/frameworks/lc_bench.py.

    examples/frameworks/env.sh langchain python tests/frameworks/langchain/bench.py [ROUNDS]
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from lc_bench import run  # noqa: E402

from hookexec.integrations.langchain import HookexecMiddleware  # noqa: E402

run("langchain", lambda d: HookexecMiddleware(project_dir=d))
