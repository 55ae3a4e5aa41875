#!/usr/bin/env bash
# The wheel as a new user gets it: its contents and metadata, an install into a fresh venv,
# `import hookexec` and a fire from outside the repository with no environment variable set,
# and the message a build without Go gives.
set -euo pipefail
cd "$(dirname "$0")/../.."
PYTHON=${PYTHON:-python3}
repo=$PWD
version=$(cat VERSION)
shopt -s nullglob
wheels=(build/wheel/hookexec-"$version"-py3-none-*.whl)
[ ${#wheels[@]} -eq 1 ] || { echo "test-wheel: want one build/wheel/hookexec-$version-py3-none-<platform>.whl, have: ${wheels[*]:-none}" >&2; exit 1; }
whl=$repo/${wheels[0]}
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT

"$PYTHON" - "$whl" <<'PY'
import email, sys, zipfile
z = zipfile.ZipFile(sys.argv[1])
names = z.namelist()
for want in ("hookexec/libhookexec.so", "hookexec/py.typed", "hookexec/_version.py", "hookexec/engine.py"):
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

"$PYTHON" -m venv --without-pip "$root/venv"
"$PYTHON" -m pip --python "$root/venv/bin/python" install --quiet --no-deps --no-index "$whl"
mkdir "$root/elsewhere"
cd "$root/elsewhere"
out=$(env -u HOOKEXEC_LIBRARY -u PYTHONPATH "$root/venv/bin/python" - "$root/elsewhere" <<'PY'
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
[ "$out" = "$version True no" ] || { echo "test-wheel: the installed package fired: $out" >&2; exit 1; }
cd "$repo"

# Without Go the build stops with a message that says what to install.
if GO=hookexec-no-such-go "$PYTHON" -m pip wheel --quiet --no-deps --no-build-isolation --wheel-dir "$root/nogo" ./pybind >"$root/nogo.log" 2>&1; then
	echo "test-wheel: a build without Go succeeded" >&2; exit 1
fi
grep -q "Go is needed to compile libhookexec.so" "$root/nogo.log" || { echo "test-wheel: no clear message without Go:" >&2; cat "$root/nogo.log" >&2; exit 1; }
echo "test-wheel: ok ($(basename "$whl"), installed in a fresh venv, fired from outside the repository)"
