#!/usr/bin/env python3
"""Stop hook: keeps the agent working while an @unfinished marker is left in the project."""
import json
import os
import sys

json.load(sys.stdin)  # the payload; this hook only looks at the files
root = os.environ["CLAUDE_PROJECT_DIR"]
left = []
for name in sorted(os.listdir(root)):
    path = os.path.join(root, name)
    if name.endswith(".py") and os.path.isfile(path):
        with open(path) as f:
            if "@unfinished" in f.read():
                left.append(name)
if left:
    print(json.dumps({"decision": "block", "reason": "unfinished work in " + ", ".join(left)}))
