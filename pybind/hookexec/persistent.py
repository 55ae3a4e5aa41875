"""Run an ordinary one-shot Python hook script as a persistent hook.

    python3 -m hookexec.persistent SCRIPT [ARGS...]

Configure it as ``{"command": "python3 -m hookexec.persistent guard.py", "persistent": true}``.
The interpreter starts once and compiles SCRIPT once; each request (one JSON line on stdin,
protocol v1) then runs the script's code afresh as ``__main__`` with:

- ``sys.stdin`` holding exactly the payload a one-shot run gets (the line, ending in "\\n"),
- ``sys.stdout`` and ``sys.stderr`` captured (``.buffer`` works too),
- ``sys.argv`` = [SCRIPT, ARGS...],
- the exit code a one-shot run would have: 0 at the end, ``sys.exit(n)``'s n (0-255),
  1 with the message for ``sys.exit("text")``, 1 with the traceback for an exception,

and answers ``{"exit_code": N, "stdout": "...", "stderr": "..."}`` on one line.

What persists between requests is the interpreter: imported modules (which is where the
speed comes from), their state, threads the script started, changes to os.environ and the
working directory. A script must not rely on those being fresh, must not fork or call
``os._exit`` (that ends the runner: the fire gets an error and a new runner starts), and must
not read the process's real stdin (fd 0 is /dev/null here; the payload is ``sys.stdin``).
Per-fire environment variables (HOOK_TOOL, TOOL_NAME, ...) are not set: read the payload.
What the script or its child processes write to fd 1 directly, bypassing ``sys.stdout``,
goes to stderr, which hookexec drains but does not return.
"""

from __future__ import annotations

import builtins
import io
import json
import os
import sys
import traceback
from typing import Any, BinaryIO, List, Optional, Tuple

__all__ = ["main", "run_once"]


def _exit_code(code: Any, stderr: Any) -> int:
    """The exit status the interpreter gives for ``sys.exit(code)``."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    print(code, file=stderr)
    return 1


class _In(io.StringIO):
    """The payload as sys.stdin: text, with ``.buffer`` for scripts that read bytes."""

    encoding = "utf-8"

    def __init__(self, line: bytes) -> None:
        super().__init__(line.decode("utf-8", "surrogateescape"))
        self._line = line

    @property
    def buffer(self) -> BinaryIO:
        # Bytes not yet read as text: a script reads one way or the other.
        return io.BytesIO(self.getvalue()[self.tell():].encode("utf-8", "surrogateescape"))


class _Bytes:
    """``sys.stdout.buffer``: bytes written through to the text stream, in order."""

    def __init__(self, text: "_Out") -> None:
        self._text = text

    def write(self, b: bytes) -> int:
        self._text.write(bytes(b).decode("utf-8", "surrogateescape"))
        return len(b)

    def flush(self) -> None:
        pass

    def writable(self) -> bool:
        return True


class _Out(io.StringIO):
    """A captured sys.stdout or sys.stderr. Lighter than a TextIOWrapper over BytesIO,
    which costs more to build than a typical guard script takes to run."""

    encoding = "utf-8"

    @property
    def buffer(self) -> _Bytes:  # type: ignore[override]  # a text stream's bytes view, enough for hooks
        return _Bytes(self)


def _text(s: str) -> str:
    """What the one-shot run's bytes would read as: invalid UTF-8 replaced."""
    try:
        s.encode("utf-8")
        return s
    except UnicodeEncodeError:
        return s.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


def run_once(code: Any, script: str, args: List[str], line: bytes) -> Tuple[int, str, str]:
    """Runs compiled ``code`` once as ``__main__`` with ``line`` as its stdin and returns its
    exit code, stdout and stderr."""
    stdin, stdout, stderr = _In(line), _Out(), _Out()
    saved = sys.stdin, sys.stdout, sys.stderr, sys.argv
    sys.stdin, sys.stdout, sys.stderr, sys.argv = stdin, stdout, stderr, [script, *args]
    g = {"__name__": "__main__", "__file__": script, "__builtins__": builtins, "__doc__": None,
         "__package__": None, "__spec__": None, "__loader__": None, "__cached__": None}
    status = 0
    try:
        exec(code, g)
    except SystemExit as e:
        status = _exit_code(e.code, sys.stderr)
    except BaseException as e:  # noqa: BLE001 — a crashing script is a hook failing, as one-shot
        # Without this runner's own frame, so the traceback reads as a one-shot run's.
        traceback.print_exception(type(e), e, e.__traceback__.tb_next if e.__traceback__ else None, file=sys.stderr)
        status = 1
    finally:
        for f in (sys.stdout, sys.stderr):
            try:
                f.flush()
            except Exception:  # noqa: BLE001 — a script that closed its stdout
                pass
        sys.stdin, sys.stdout, sys.stderr, sys.argv = saved
    g.clear()  # the script's globals go now, not at the next collection
    return status, _text(stdout.getvalue()), _text(stderr.getvalue())


def serve(code: Any, script: str, args: List[str], requests: BinaryIO, answers: BinaryIO) -> None:
    """Answers requests until stdin closes."""
    dumps = json.dumps
    while True:
        line = requests.readline()
        if not line:
            return
        status, out, err = run_once(code, script, args, line)
        answers.write(dumps({"exit_code": status, "stdout": out, "stderr": err}).encode() + b"\n")
        answers.flush()


def main(argv: Optional[List[str]] = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if not argv or argv[0] in ("-h", "--help"):
        print("usage: python3 -m hookexec.persistent SCRIPT [ARGS...]", file=sys.stderr)
        return 2
    script, args = argv[0], argv[1:]
    try:
        with open(script, "rb") as f:
            code = compile(f.read(), script, "exec")
    except (OSError, SyntaxError, ValueError) as e:
        # The process exits: hookexec reports this text as the hook's error.
        print(f"hookexec.persistent: {script}: {e}", file=sys.stderr)
        return 1
    # As `python3 SCRIPT` does: the script's directory first on sys.path.
    sys.path[0] = os.path.dirname(os.path.abspath(script))
    # The protocol gets private descriptors; fd 0 becomes /dev/null and fd 1 a copy of fd 2,
    # so nothing the script does behind sys.stdin/sys.stdout can corrupt it.
    requests = os.fdopen(os.dup(0), "rb")
    answers = os.fdopen(os.dup(1), "wb")
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    os.dup2(2, 1)
    serve(code, script, args, requests, answers)
    return 0


if __name__ == "__main__":
    sys.exit(main())
