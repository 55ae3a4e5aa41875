#!/usr/bin/env python3
"""PreToolUse for file writes: keeps them inside the project by rewriting the path.

cli-agent's `modified_args` answer: the agent merges it into the tool's arguments.
"""
import json
import os
import sys

payload = json.load(sys.stdin)  # hookexec hands every hook the payload on stdin
project = os.path.realpath(payload["cwd"])
path = (payload.get("tool_input") or {}).get("file_path", "")
full = os.path.realpath(os.path.join(project, path))
if os.path.commonpath([full, project]) != project:
    inside = os.path.join(project, "sandbox", os.path.basename(full))
    print(json.dumps({"modified_args": {"file_path": inside}, "reason": f"{path} is outside the project"}))
