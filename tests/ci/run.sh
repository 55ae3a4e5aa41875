#!/usr/bin/env bash
# .ci/run on a machine with only the toolchains: on a PATH holding go, python3, node and the
# basic tools but none of pkg-config, npm, zsh, busybox, mksh, jq or chromium, it must apt-get
# install exactly those, then run make ci (make test with CI's live suites) with
# HOOKEXEC_REQUIRE_SHELLS=1 and HOOKEXEC_REQUIRE_BROWSER=1 (so a test needing a shell or the browser fails rather than skips). apt-get, go and make are recorders here; apt-get
# "installs" a package by linking this machine's copy of its command onto that PATH.
set -euo pipefail
cd "$(dirname "$0")/../.."
repo=$PWD
fail() { echo "test-ci: $*" >&2; exit 1; }
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
bin=$root/bin
mkdir "$bin"
for tool in bash env id dirname node; do
	real=$(command -v "$tool") || fail "$tool is needed to run this test"
	ln -s "$real" "$bin/$tool"
done
# The interpreter itself, not a wrapper that needs more of the PATH (a pyenv shim).
ln -s "$(python3 -c 'import sys; print(sys.executable)')" "$bin/python3"
optional="pkg-config npm zsh busybox mksh jq chromium"
for tool in $optional; do
	command -v "$tool" >/dev/null || fail "$tool is needed on this machine to stand in for its Debian package"
	printf '%s=%s\n' "$tool" "$(command -v "$tool")"
done >"$root/real"
cat >"$bin/apt-get" <<'SH'
#!/bin/bash
echo "apt-get $*" >>"$LOG"
[ "$1" = install ] || exit 0
while IFS== read -r name real; do
	for arg; do [ "$arg" = "$name" ] && "$LN" -sf "$real" "$BIN/$name"; done
done <"$REAL"
exit 0
SH
printf '#!/bin/bash\necho "go $*" >>"$LOG"\n' >"$bin/go"
printf '#!/bin/bash\necho "make $* HOOKEXEC_REQUIRE_SHELLS=${HOOKEXEC_REQUIRE_SHELLS-unset} HOOKEXEC_REQUIRE_BROWSER=${HOOKEXEC_REQUIRE_BROWSER-unset}" >>"$LOG"\n' >"$bin/make"
chmod +x "$bin/apt-get" "$bin/go" "$bin/make"

run() { : >"$root/log"; env -i HOME="$root" PATH="$bin" LOG="$root/log" REAL="$root/real" BIN="$bin" LN="$(command -v ln)" bash "$repo/.ci/run" >"$root/out" 2>&1 || fail ".ci/run failed:"$'\n'"$(cat "$root/out")"; }
run
venv=""
"$bin/python3" -c 'import ensurepip' 2>/dev/null || venv=" python3-venv" # Debian's python3 without it
want_install="apt-get install -y -qq --no-install-recommends pkg-config npm$venv zsh busybox mksh jq chromium"
grep -qxF "$want_install" "$root/log" || fail "want: $want_install, .ci/run ran:"$'\n'"$(cat "$root/log")"
grep -qx "make ci HOOKEXEC_REQUIRE_SHELLS=1 HOOKEXEC_REQUIRE_BROWSER=1" "$root/log" || fail "make ci without HOOKEXEC_REQUIRE_SHELLS=1 HOOKEXEC_REQUIRE_BROWSER=1:"$'\n'"$(cat "$root/log")"
# With everything there, nothing is installed.
run
! grep -q "^apt-get" "$root/log" || fail "installed with everything present:"$'\n'"$(cat "$root/log")"
# make ci names only targets there are (CI_LIVE): a misspelt suite fails here, not after
# the hour CI takes to reach it.
dry=$(env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -n ci 2>&1) || fail "make -n ci:"$'\n'"$dry"
grep -q -- "--output-sync=target test-" <<<"$dry" || fail "make ci does not run its live suites side by side:"$'\n'"$dry"
echo "test-ci: ok (.ci/run installs $optional when missing, none when present, and runs make ci with HOOKEXEC_REQUIRE_SHELLS=1 HOOKEXEC_REQUIRE_BROWSER=1)"
