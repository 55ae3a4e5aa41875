#!/usr/bin/env bash
# Prepares what a framework example needs from the project's own build and runs a command in
# it: `examples/frameworks/env.sh NAME CMD...`.
#
# - builds libhookexec.so, the hookexec CLI and (for TypeScript) @hookexec/node with make;
# - Python (NAME has a requirements.txt): a venv with exactly those pinned packages, cached in
#   ${HOOKEXEC_FRAMEWORK_CACHE:-~/.cache/hookexec/frameworks}/NAME-<hash of the file and the
#   Python version and $HOOKEXEC_FRAMEWORK_EXTRA>, built in a temporary directory and renamed into place (never half-built);
#   CMD runs with that venv's python first on PATH (run its tools as `python -m TOOL`) and
#   hookexec importable from pybind/;
# - TypeScript (NAME has a package.json): `npm ci` into the example's node_modules when the
#   lockfile changed; CMD runs with HOOKEXEC_BIN set to the built CLI.
set -euo pipefail
name=${1:?usage: env.sh NAME CMD...}
shift
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
dir=$here/$name
[ -d "$dir" ] || { echo "env.sh: no example named $name in $here" >&2; exit 2; }
make -s -C "$root" build/libhookexec.so build/hookexec pybind/hookexec/_version.py >&2

export HOOKEXEC_LIBRARY=$root/build/libhookexec.so
export HOOKEXEC_BIN=$root/build/hookexec
export PYTHONPATH=$root/pybind${PYTHONPATH:+:$PYTHONPATH}

if [ -f "$dir/requirements.txt" ]; then
	py=${HOOKEXEC_HOST_PYTHON:-python3}
	extra=${HOOKEXEC_FRAMEWORK_EXTRA:-} # more pinned packages (the tests add pytest)
	key=$( (cat "$dir/requirements.txt"; echo "$extra"; "$py" -c 'import sys; print(sys.version)') | sha256sum | cut -c1-16)
	cache=${HOOKEXEC_FRAMEWORK_CACHE:-$HOME/.cache/hookexec/frameworks}
	venv=$cache/$name-$key
	if [ ! -x "$venv/bin/python" ]; then
		mkdir -p "$cache"
		tmp=$(mktemp -d "$cache/.$name.XXXXXX")
		trap 'rm -rf "$tmp"' EXIT
		echo "env.sh: installing $name's pinned packages into $venv (once)" >&2
		"$py" -m venv "$tmp/venv"
		"$tmp/venv/bin/python" -m pip install --quiet --disable-pip-version-check -r "$dir/requirements.txt" $extra >&2
		# Moved into place whole, so a venv under that name is complete. Its console scripts
		# keep the temporary path in their first line: run its tools as `python -m TOOL`.
		mv -T "$tmp/venv" "$venv" 2>/dev/null || [ -x "$venv/bin/python" ]
		rm -rf "$tmp"
		trap - EXIT
	fi
	export PATH=$venv/bin:$PATH VIRTUAL_ENV=$venv
elif [ -f "$dir/package.json" ]; then
	make -s -C "$root" npm >&2
	stamp=$dir/node_modules/.hookexec-lock
	if [ ! -f "$stamp" ] || ! cmp -s "$dir/package-lock.json" "$stamp"; then
		echo "env.sh: npm ci in $dir" >&2
		(cd "$dir" && npm ci --silent --no-audit --no-fund >&2)
		cp "$dir/package-lock.json" "$stamp"
	fi
	export PATH=$dir/node_modules/.bin:$PATH
fi
exec "$@"
