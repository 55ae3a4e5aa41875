#!/usr/bin/env bash
# make test-release: the artifacts in dist/ used the way each audience uses them, on this
# machine (x86_64 Debian) and under qemu-user. Each check fires a real hook that
# blocks and asserts the block came back: a command hook natively; under qemu-user an http
# hook (a server on 127.0.0.1), because qemu-user 7.2 answers EINVAL to the fork core/run
# makes (it asks for a pidfd, CLONE_PIDFD) and the runner has no fallback for that, so no
# command hook can start there; loading, matching, the HTTP runner and the decision are real.
#   - wheels: x86_64 installed with pip into a fresh venv; aarch64 unpacked and imported by
#     Debian's arm64 python3 under qemu-aarch64-static (a debootstrap --foreign root)
#   - sdist: pip builds it from source (Go present) and fails with a clear message without Go
#   - .deb: dpkg --root into an empty root; a C host built with pkg-config only; dpkg -r
#   - .rpm: rpm --root into an empty root (files, links, scriptlets off); the CLI runs
#   - the linux/arm64 CLI under qemu-aarch64-static; the windows/amd64 .exe is only checked
#     to be a PE32+ x86-64 program (wine 8.0 cannot start Go >= 1.24 programs)
#   - npm: the packed @hookexec/node and @hookexec/linux-x64 installed from the tarballs
#     (offline) into a fresh project; a CommonJS and an ES module host fire through them
# Needs (Debian): qemu-user-static, debootstrap, rpm, file, node/npm.
set -euo pipefail
cd "$(dirname "$0")/../.."
dist=${1:-dist}
repo=$PWD
version=$(cat VERSION)
major=${version%%.*}
HOST_PYTHON=${HOST_PYTHON:-python3}
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
fail() { echo "test-release: FAIL: $*" >&2; exit 1; }
step() { echo "== $*"; }
SECONDS=0

# A hook that blocks every Bash call, in Claude Code's format.
mkdir -p "$root/project/.claude"
cat >"$root/project/.claude/settings.json" <<'JSON'
{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "echo denied by hook >&2; exit 2"}]}]}}
JSON
payload='{"tool_name":"Bash","tool_input":{"command":"ls"}}'
# Under qemu the hook is http: a server answering {"decision": "block"} on an ephemeral port.
cat >"$root/server.py" <<'PY'
import http.server, json, sys
class Hook(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        body = json.dumps({"decision": "block", "reason": "denied by hook"}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    def log_message(self, *args): pass
server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Hook)
with open(sys.argv[1] + ".tmp", "w") as f:
    f.write(str(server.server_address[1]))
import os; os.rename(sys.argv[1] + ".tmp", sys.argv[1])
server.serve_forever()
PY
"$HOST_PYTHON" "$root/server.py" "$root/port" &
server_pid=$!
trap 'kill $server_pid 2>/dev/null; rm -rf "$root"' EXIT
for _ in $(seq 100); do [ -f "$root/port" ] && break; sleep 0.1; done
port=$(cat "$root/port")
mkdir -p "$root/httpproject/.claude"
printf '{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "http", "url": "http://127.0.0.1:%s/hook"}]}]}}\n' "$port" >"$root/httpproject/.claude/settings.json"

fire_py='
import json, sys, hookexec
cfg = {"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "echo denied by hook >&2; exit 2"}]}]}}
if len(sys.argv) > 2:
    cfg = json.load(open(sys.argv[2]))
with hookexec.Engine(profile="claude", project_dir=sys.argv[1], home=sys.argv[1], sources=[], config=cfg) as eng:
    r = eng.fire("PreToolUse", {"tool_name": "Bash", "tool_input": {"command": "ls"}})
import platform
print(platform.machine(), hookexec.library_version(), r.blocked, r.reason)
'

step "wheel manylinux2014 x86_64: pip install into a fresh venv, fire"
whl=$dist/python/hookexec-$version-py3-none-manylinux_2_17_x86_64.manylinux2014_x86_64.whl
"$HOST_PYTHON" -m venv "$root/venv"
"$root/venv/bin/python" -m pip install --quiet --no-deps --no-index "$whl"
out=$(cd "$root" && env -u HOOKEXEC_LIBRARY -u PYTHONPATH "$root/venv/bin/python" -c "$fire_py" "$root/project")
[ "$out" = "x86_64 $version True denied by hook" ] || fail "x86_64 wheel: $out"

step "wheel manylinux2014 aarch64: Debian's arm64 python3 under qemu-aarch64-static"
arm64_root=build/tools/arm64-root
if [ ! -x "$arm64_root/usr/bin/python3" ]; then
	rm -rf "$arm64_root"
	debootstrap --foreign --arch=arm64 --variant=minbase --include=python3 bookworm "$arm64_root" http://deb.debian.org/debian >/dev/null
	# --foreign unpacks only the base; python3 and its libraries are unpacked from the cache.
	for d in "$arm64_root"/var/cache/apt/archives/*.deb; do dpkg-deb -x "$d" "$arm64_root"; done
fi
whl=$dist/python/hookexec-$version-py3-none-manylinux_2_17_aarch64.manylinux2014_aarch64.whl
"$HOST_PYTHON" -m zipfile -e "$whl" "$root/arm64-site"
out=$(env -u HOOKEXEC_LIBRARY PYTHONPATH="$root/arm64-site" qemu-aarch64-static -L "$arm64_root" "$arm64_root/usr/bin/python3" -c "$fire_py" "$root/httpproject" "$root/httpproject/.claude/settings.json")
[ "$out" = "aarch64 $version True denied by hook" ] || fail "aarch64 wheel: $out"

step "sdist: pip builds libhookexec.so from source; without Go it says so"
sdist=$dist/python/hookexec-$version.tar.gz
"$HOST_PYTHON" -m venv "$root/venv-sdist"
"$root/venv-sdist/bin/python" -m pip install --quiet "$sdist"
out=$(cd "$root" && env -u HOOKEXEC_LIBRARY -u PYTHONPATH "$root/venv-sdist/bin/python" -c "$fire_py" "$root/project")
[ "$out" = "x86_64 $version True denied by hook" ] || fail "sdist: $out"
if GO=hookexec-no-such-go "$root/venv-sdist/bin/python" -m pip install --quiet --no-cache-dir --force-reinstall "$sdist" >"$root/nogo.log" 2>&1; then
	fail "the sdist built without Go"
fi
grep -q "Go is needed to compile libhookexec.so" "$root/nogo.log" || fail "no clear message without Go: $(cat "$root/nogo.log")"

step ".deb (amd64): dpkg --root into an empty root, a C host with pkg-config, dpkg -r"
deb=$dist/packages/hookexec_${version}-1_amd64.deb
dpkg_root=$root/debroot
mkdir -p "$dpkg_root/var/lib/dpkg/info" "$dpkg_root/var/lib/dpkg/updates"
touch "$dpkg_root/var/lib/dpkg/status"
dpkg --root="$dpkg_root" --force-not-root -i "$deb" >/dev/null
libdir=/usr/lib/x86_64-linux-gnu
for f in /usr/bin/hookexec $libdir/libhookexec.so.$version /usr/include/hookexec.h /usr/include/hookexec.hpp $libdir/pkgconfig/hookexec.pc; do
	[ -f "$dpkg_root$f" ] || fail ".deb did not install $f"
done
[ "$(readlink "$dpkg_root$libdir/libhookexec.so.$major")" = "libhookexec.so.$version" ] || fail ".deb SONAME link"
[ "$(readlink "$dpkg_root$libdir/libhookexec.so")" = "libhookexec.so.$major" ] || fail ".deb development link"
export PKG_CONFIG_SYSROOT_DIR=$dpkg_root PKG_CONFIG_LIBDIR=$dpkg_root$libdir/pkgconfig
[ "$(pkg-config --modversion hookexec)" = "$version" ] || fail "pkg-config --modversion"
# shellcheck disable=SC2046 # pkg-config's flags are words
cc -std=c11 -Wall -Werror -o "$root/host" tests/install/host.c $(pkg-config --cflags --libs hookexec)
unset PKG_CONFIG_SYSROOT_DIR PKG_CONFIG_LIBDIR
out=$(LD_LIBRARY_PATH=$dpkg_root$libdir "$root/host" "$root/project")
[ "$out" = "hookexec $version: blocked" ] || fail ".deb C host: $out"
"$dpkg_root/usr/bin/hookexec" --version | grep -qF "$version" || fail ".deb hookexec --version"
dpkg --root="$dpkg_root" --force-not-root -r hookexec >/dev/null
left=$(find "$dpkg_root" -path "$dpkg_root/var" -prune -o \( -type f -o -type l \) -print)
[ -z "$left" ] || fail "left after dpkg -r: $left"

step ".rpm (x86_64): rpm --root into an empty root, the CLI fires"
rpm_root=$root/rpmroot
# Debian's rpm warns that it is not the system's package manager; only a failure is shown.
rpm --root "$rpm_root" --initdb
rpm --root "$rpm_root" -i --nodeps --noscripts "$dist/packages/hookexec-$version-1.x86_64.rpm" 2>"$root/rpm.log" ||
	fail "rpm -i: $(cat "$root/rpm.log")"
for f in /usr/bin/hookexec /usr/lib64/libhookexec.so.$version /usr/lib64/pkgconfig/hookexec.pc /usr/include/hookexec.h; do
	[ -f "$rpm_root$f" ] || fail ".rpm did not install $f"
done
grep -qx "libdir=/usr/lib64" "$rpm_root/usr/lib64/pkgconfig/hookexec.pc" || fail ".rpm hookexec.pc libdir"
set +e
out=$("$rpm_root/usr/bin/hookexec" --profile claude --project "$root/project" --home "$root/project" fire PreToolUse --payload "$payload" 2>&1)
rc=$?
set -e
[ $rc -eq 2 ] && grep -q "denied by hook" <<<"$out" || fail ".rpm hookexec fire (exit $rc): $out"

step "linux/arm64 CLI (from its archive) under qemu-aarch64-static"
tar -C "$root" -xzf "$dist/archives/hookexec_${version}_linux_arm64.tar.gz"
arm_cli=$root/hookexec_${version}_linux_arm64/hookexec
file -b "$arm_cli" | grep -q "ARM aarch64" || fail "the arm64 archive holds $(file -b "$arm_cli")"
qemu-aarch64-static "$arm_cli" --version | grep -qF "$version" || fail "arm64 --version"
set +e
out=$(qemu-aarch64-static "$arm_cli" --profile claude --project "$root/httpproject" --home "$root/httpproject" fire PreToolUse --payload "$payload" 2>&1)
rc=$?
set -e
[ $rc -eq 2 ] && grep -q "denied by hook" <<<"$out" || fail "arm64 fire (exit $rc): $out"

step "windows/amd64 hookexec.exe (from its zip): a PE32+ x86-64 console program"
# Not run under wine: Debian 12's wine 8.0 has no bcryptprimitives.dll, which the runtime of
# Go >= 1.24 loads at start ("fatal error: bcryptprimitives.dll not found"); docs/install.md.
"$HOST_PYTHON" -m zipfile -e "$dist/archives/hookexec_${version}_windows_amd64.zip" "$root"
exe=$root/hookexec_${version}_windows_amd64/hookexec.exe
file -b "$exe" | grep -q "PE32+ executable (console) x86-64" || fail "hookexec.exe is $(file -b "$exe")"

step "npm: @hookexec/node and @hookexec/linux-x64 from their tarballs, CommonJS and ESM hosts"
mkdir -p "$root/npmhost"
(cd "$root/npmhost" && printf '{"name":"host","private":true}\n' >package.json &&
	npm install --offline --no-audit --no-fund --loglevel=error --omit=optional \
		"$repo/$dist/npm/hookexec-linux-x64-$version.tgz" "$repo/$dist/npm/hookexec-node-$version.tgz" >/dev/null)
cat >"$root/npmhost/host.cjs" <<'JS'
const { open, binaryPath } = require('@hookexec/node');
(async () => {
  const e = await open({ profile: 'claude', projectDir: process.argv[2], home: process.argv[2] });
  const r = await e.fire('PreToolUse', { tool_name: 'Bash', tool_input: { command: 'ls' } });
  await e.close();
  console.log(binaryPath().includes('@hookexec/linux-x64'), r.blocked, r.reason);
})().catch((err) => { console.error(err); process.exit(1); });
JS
cat >"$root/npmhost/host.mjs" <<'JS'
import { open, VERSION } from '@hookexec/node';
const e = await open({ profile: 'claude', projectDir: process.argv[2], home: process.argv[2] });
const r = await e.fire('PreToolUse', { tool_name: 'Bash', tool_input: { command: 'ls' } });
await e.close();
console.log(VERSION, r.blocked, r.reason);
JS
out=$(cd "$root/npmhost" && env -u HOOKEXEC_BIN node host.cjs "$root/project")
[ "$out" = "true true denied by hook" ] || fail "npm CommonJS host: $out"
out=$(cd "$root/npmhost" && env -u HOOKEXEC_BIN node host.mjs "$root/project")
[ "$out" = "$version true denied by hook" ] || fail "npm ES module host: $out"
grep -q "\"@hookexec/darwin-arm64\": \"$version\"" "$root/npmhost/node_modules/@hookexec/node/package.json" || fail "@hookexec/node does not list its platform packages"

step "checksums.txt"
(cd "$dist" && sha256sum --quiet -c checksums.txt) || fail "checksums.txt does not match dist/"

echo "test-release: ok in ${SECONDS}s (wheels x86_64 + aarch64/qemu, sdist, .deb, .rpm, arm64 CLI/qemu, .exe file type, npm)"
