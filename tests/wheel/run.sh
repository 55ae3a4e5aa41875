#!/usr/bin/env bash
# The wheel as a new user gets it: its contents and metadata, an install into a fresh venv,
# `import hookexec` and a fire from outside the repository with no environment variable set;
# then the command docs/install.md gives (`pip install ./pybind`, an isolated build: the
# setuptools pyproject.toml asks for, never this machine's), and the message a build without
# Go gives. Every Python here is build/venv's (make venv, tests/requirements.txt) or a venv
# made from it: nothing depends on the python3 or the setuptools a machine happens to have.
set -euo pipefail
cd "$(dirname "$0")/../.."
repo=$PWD
PYTHON=${PYTHON:-$repo/build/venv/bin/python}
fail() { echo "test-wheel: $*" >&2; exit 1; }
export PIP_DISABLE_PIP_VERSION_CHECK=1
[ -x "$PYTHON" ] || fail "no $PYTHON: run make venv (or set PYTHON to a Python whose venv has tests/requirements.txt)"
version=$(cat VERSION)
shopt -s nullglob
wheels=(build/wheel/hookexec-"$version"-py3-none-*.whl)
[ ${#wheels[@]} -eq 1 ] || fail "want one build/wheel/hookexec-$version-py3-none-<platform>.whl, have: ${wheels[*]:-none}"
whl=$repo/${wheels[0]}
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT

"$PYTHON" - "$whl" <<'PY'
import email, sys, zipfile
z = zipfile.ZipFile(sys.argv[1])
names = z.namelist()
for want in ("hookexec/libhookexec.so", "hookexec/py.typed", "hookexec/_version.py", "hookexec/engine.py", "hookexec/integrations/_gate.py"):
    assert want in names, f"{want} is not in the wheel"
meta = email.message_from_bytes(z.read(next(n for n in names if n.endswith(".dist-info/METADATA"))))
assert meta["License-Expression"] == "MIT", meta["License-Expression"]
assert any(n.endswith(".dist-info/licenses/LICENSE") for n in names), "no LICENSE in the wheel"
urls = meta.get_all("Project-URL") or []
assert any(u.startswith("Homepage, https://") for u in urls) and any(u.startswith("Source, ") for u in urls), urls
assert meta["Description-Content-Type"] == "text/markdown"
assert "## Install" in meta.get_payload(), "the long description is not the README"
wheel = z.read(next(n for n in names if n.endswith(".dist-info/WHEEL"))).decode()
assert "Root-Is-Purelib: false" in wheel and "Tag: py3-none-" in wheel and "Tag: py3-none-any" not in wheel, wheel
PY

# fire VENV: import the package installed in VENV from outside the repository, with no
# HOOKEXEC_LIBRARY or PYTHONPATH, and fire a blocking hook through its bundled library.
mkdir "$root/elsewhere"
fire() {
	local out
	out=$(cd "$root/elsewhere" && env -u HOOKEXEC_LIBRARY -u PYTHONPATH "$1/bin/python" - "$root/elsewhere" <<'PY'
import pathlib, sys
import hookexec
pkg = pathlib.Path(hookexec.__file__).parent
assert "site-packages" in pkg.parts, pkg
assert hookexec.library_path() == str(pkg / "libhookexec.so"), hookexec.library_path()
assert hookexec.library_version() == hookexec.__version__
cfg = {"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "echo no >&2; exit 2"}]}]}}
with hookexec.Engine(project_dir=sys.argv[1], home=sys.argv[1], config=cfg) as eng:
    r = eng.fire("PreToolUse", {"tool_name": "Bash", "tool_input": {"command": "rm -rf /"}})
print(hookexec.__version__, r.blocked, r.reason)
PY
)
	[ "$out" = "$version True no" ] || fail "$2: the installed package fired: $out"
}

# The wheel make built, into a fresh venv (by build/venv's pip: --python needs pip >= 22.3,
# which tests/requirements.txt pins; a venv without pip is made in a fraction of a second).
"$PYTHON" -m venv --without-pip "$root/venv"
"$PYTHON" -m pip --python "$root/venv/bin/python" install --quiet --no-deps --no-index "$whl"
fire "$root/venv" "the wheel"

# The user's command: pip install ./pybind in a fresh venv, an isolated build.
"$PYTHON" -m venv --without-pip "$root/venv-src"
"$PYTHON" -m pip --python "$root/venv-src/bin/python" install --quiet ./pybind
fire "$root/venv-src" "pip install ./pybind"

# Without Go the same command stops with a message that says what to install.
if GO=hookexec-no-such-go "$PYTHON" -m pip --python "$root/venv-src/bin/python" install --quiet --force-reinstall --no-deps ./pybind >"$root/nogo.log" 2>&1; then
	fail "a build without Go succeeded"
fi
grep -q "Go is needed to compile libhookexec.so" "$root/nogo.log" || fail "no clear message without Go:"$'\n'"$(cat "$root/nogo.log")"
echo "test-wheel: ok ($(basename "$whl") and pip install ./pybind, each in a fresh venv, fired from outside the repository)"
