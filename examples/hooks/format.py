#!/usr/bin/env python3
"""PostToolUse formatter: strips trailing whitespace from the file a tool wrote.

Its argument is the file path, passed by the template <<tool_input.file_path>>."""
import json
import sys

path = sys.argv[1]
with open(path) as f:
    lines = f.read().splitlines()
fixed = [line.rstrip() for line in lines]
changed = sum(a != b for a, b in zip(lines, fixed))
with open(path, "w") as f:
    f.write("\n".join(fixed) + "\n")
print(json.dumps({"systemMessage": f"formatted {path}: {changed} line(s) fixed"}))
