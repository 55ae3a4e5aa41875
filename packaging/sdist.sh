#!/usr/bin/env bash
# The Python sdist: pybind's files with the Go sources under src/ (modules vendored, tests
# left out), so that `pip install hookexec-X.tar.gz` builds libhookexec.so where no wheel
# fits: it needs Go, a C compiler and make, and says so when Go is missing (setup.py).
set -euo pipefail
python=$1 out=$2
version=$(cat VERSION)
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
root=$stage/hookexec-$version
mkdir -p "$root/src" "$out"
cp -L pybind/pyproject.toml pybind/setup.py pybind/README.md pybind/LICENSE pybind/VERSION "$root/"
cp -r pybind/hookexec "$root/hookexec"
rm -rf "$root/hookexec/__pycache__" "$root/hookexec/libhookexec.so" "$root/hookexec/_version.py"
# What `make build/libhookexec.so` reads, and nothing else.
tar -cf - --exclude='*_test.go' --exclude=testdata Makefile packaging VERSION go.mod go.sum capi core cmd include | tar -xf - -C "$root/src"
go mod vendor -o "$root/src/vendor"
printf '%s\n' 'graft src' > "$root/MANIFEST.in"
(cd "$root" && "$python" -m build --sdist --no-isolation --outdir "$OLDPWD/$out" . >/dev/null)
echo "sdist: $out/hookexec-$version.tar.gz ($(du -h "$out/hookexec-$version.tar.gz" | cut -f1))"
