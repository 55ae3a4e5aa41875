#!/usr/bin/env python3
"""PreToolUse guard: blocks destructive shell commands (exit 2, reason on stderr)."""
import json
import re
import sys

payload = json.load(sys.stdin)
command = (payload.get("tool_input") or {}).get("command", "")
for pattern, why in [
    (r"\brm\s+-[a-zA-Z]*r[a-zA-Z]*f?\s+/(\s|$)", "refusing to delete the filesystem root"),
    (r"\bgit\s+push\s+.*--force\b", "force-push needs a human"),
    (r"\bcurl\b.*\|\s*(ba)?sh\b", "piping a download into a shell"),
]:
    if re.search(pattern, command):
        print(f"blocked: {why} ({command!r})", file=sys.stderr)
        sys.exit(2)
if command.startswith("sudo "):
    # Not forbidden, but a person should confirm it.
    print(json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse",
                                             "permissionDecision": "ask",
                                             "permissionDecisionReason": "sudo needs confirmation"}}))
