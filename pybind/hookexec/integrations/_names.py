"""The tool names frameworks' tools usually have, mapped to the canonical names hooks match
(Claude Code's), so that a matcher written for Claude Code applies to a framework's tools
unchanged. A gate's ``tool_names`` adds to and overrides this map."""

from __future__ import annotations

from typing import Dict

__all__ = ["DEFAULT_TOOL_NAMES"]

DEFAULT_TOOL_NAMES: Dict[str, str] = {
    # run a command
    "shell": "Bash", "bash": "Bash", "sh": "Bash", "terminal": "Bash", "run_shell": "Bash",
    "run_command": "Bash", "execute_command": "Bash", "run_shell_command": "Bash", "exec": "Bash",
    "execute": "Bash", "shell_command": "Bash", "local_shell": "Bash",
    # files
    "read_file": "Read", "read": "Read", "file_read": "Read", "view_file": "Read",
    "write_file": "Write", "write": "Write", "file_write": "Write", "create_file": "Write",
    "edit_file": "Edit", "edit": "Edit", "str_replace": "Edit", "replace_in_file": "Edit",
    "apply_patch": "Edit",
    "glob": "Glob", "find_files": "Glob", "list_files": "Glob",
    "grep": "Grep", "search_files": "Grep",
    # the web
    "web_fetch": "WebFetch", "fetch": "WebFetch", "fetch_url": "WebFetch",
    "web_search": "WebSearch", "search_web": "WebSearch",
}
