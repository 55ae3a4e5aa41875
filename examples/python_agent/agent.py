#!/usr/bin/env python3
"""A small agent loop driven through hookexec: `make demo`.

A scripted "model" asks for tool calls; before each one the agent fires PreToolUse (a guard
may block it), runs the tool for real, fires PostToolUse (a formatter fixes files the tool
wrote), and when the model is done it fires Stop (a hook may send it back to work). The
hooks live in examples/hooks/, configured in examples/configs/demo/settings.json, copied
into a fresh project as .config/agent/settings.json — where cli-agent keeps its hooks.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

import hookexec

HERE = os.path.dirname(os.path.abspath(__file__))
EXAMPLES = os.path.dirname(HERE)


def run_tool(project, name, args):
    """The agent's own tools: real effects inside the project directory."""
    if name == "bash_execute":
        out = subprocess.run(args["command"], shell=True, cwd=project, capture_output=True, text=True)
        return out.stdout.strip().splitlines()[:3]
    if name == "write_file":
        with open(args["file_path"], "w") as f:
            f.write(args["content"])
        return [f"wrote {len(args['content'])} bytes"]
    if name == "replace_in_file":
        with open(args["file_path"]) as f:
            text = f.read()
        with open(args["file_path"], "w") as f:
            f.write(text.replace(args["old"], args["new"]))
        return ["replaced"]
    return [f"(remote tool {name} called)"]


def show(label, result):
    verdict = "BLOCKED" if result.blocked else "allowed"
    print(f"  {label}: {verdict} (decision={result.decision}, {result.matched} hook(s), {result.duration_ms:.1f} ms)")
    for h in result.hooks:
        detail = h.error or (h.stderr.strip() or h.stdout.strip())[:70]
        print(f"    - hook {h.id:<16} exit={h.exit_code:<3} {h.exec:<6} decision={h.decision:<5} {detail}")
    if result.reason:
        print(f"    reason: {result.reason}")
    if result.system_message:
        print(f"    system message: {result.system_message}")


def main():
    project = tempfile.mkdtemp(prefix="hookexec-demo-")
    home = tempfile.mkdtemp(prefix="hookexec-demo-home-")
    try:
        os.makedirs(os.path.join(project, ".config", "agent"))
        shutil.copy(os.path.join(EXAMPLES, "configs", "demo", "settings.json"),
                    os.path.join(project, ".config", "agent", "settings.json"))
        app = os.path.join(project, "app.py")
        script = [
            ("bash_execute", {"command": "echo hello from the agent"}),
            ("bash_execute", {"command": "rm -rf /"}),
            ("write_file", {"file_path": app, "content": "def main():   \n    return 1  \n# @unfinished: add tests\n"}),
            ("github:create_issue", {"title": "Add tests"}),
        ]
        with hookexec.Engine(profile="cli-agent", project_dir=project, home=home,
                             env={"HOOKS": os.path.join(EXAMPLES, "hooks")}, session_id="demo") as eng:
            print(f"hookexec {hookexec.library_version()} — project {project}")
            for w in eng.config()["warnings"]:
                print("  config warning:", w["message"])
            for name, args in script:
                print(f"\n> model calls {name} {json.dumps(args)[:60]}")
                pre = eng.fire("PreToolUse", {"tool_name": name, "tool_input": args})
                show("PreToolUse", pre)
                if pre.blocked:
                    continue
                args = pre.updated_input or args
                output = run_tool(project, name, args)
                print(f"  tool output: {output}")
                show("PostToolUse", eng.fire("PostToolUse", {"tool_name": name, "tool_input": args,
                                                             "tool_response": "\n".join(output)}))
            for attempt in (1, 2):
                print(f"\n> model says it is done (attempt {attempt})")
                stop = eng.fire("Stop", {"stop_hook_active": attempt > 1})
                show("Stop", stop)
                if not stop.blocked:
                    break
                print("  agent keeps going: it finishes the @unfinished work")
                run_tool(project, "replace_in_file", {"file_path": app, "old": "# @unfinished: add tests\n", "new": ""})
            with open(app) as f:
                print("\nfinal app.py:\n" + "".join("  | " + line for line in f))
            with open(os.path.join(project, "mcp.log")) as f:
                print("mcp.log: " + f.read().strip())
    finally:
        shutil.rmtree(project, ignore_errors=True)
        shutil.rmtree(home, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
