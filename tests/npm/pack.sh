#!/usr/bin/env bash
# @hookexec/node as `npm pack` makes it in a clean clone: a copy of the files git tracks (no
# dist/, no node_modules), its dev dependencies from the lockfile, `npm pack`; the tarball is
# then installed with npm into a fresh project, required (CommonJS) and imported (ES module)
# and fired through the built binary, and type-checked from a .cts and an .mts consumer.
# Every path package.json names (main, types, exports) must be in the tarball. Packing a copy
# without its dev dependencies must fail, not ship a package without dist/.
set -euo pipefail
cd "$(dirname "$0")/../.."
repo=$PWD
bin=${HOOKEXEC_BIN:-$repo/build/hookexec}
version=$(cat VERSION)
fail() { echo "test-npm-pack: $*" >&2; exit 1; }
[ -x "$bin" ] || fail "no $bin: run make build/hookexec (or set HOOKEXEC_BIN)"
git rev-parse --is-inside-work-tree >/dev/null 2>&1 || fail "$repo is not a git work tree: the clean copy is the files git tracks"
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
npmq() { npm --no-audit --no-fund --no-update-notifier --loglevel=error "$@"; }

# The clean copy: the working tree's version of every tracked file the package build reads
# (its directory, and the repository's LICENSE it ships), nothing untracked.
clean=$root/clean
git ls-files -z -- npm/node LICENSE | while IFS= read -r -d '' f; do
	[ -e "$f" ] || continue # deleted in the working tree, not yet committed
	mkdir -p "$clean/$(dirname "$f")"
	cp -P "$f" "$clean/$f"
done
[ -f "$clean/npm/node/package.json" ] || fail "npm/node/package.json is not tracked"
cp -r "$clean" "$root/bare"
pkg=$clean/npm/node

(cd "$pkg" && npmq ci >/dev/null)
tgz=$(cd "$pkg" && npm pack --silent --pack-destination "$root")
tgz=$root/$tgz
[ -f "$tgz" ] || fail "npm pack made no tarball ($tgz)"
mkdir "$root/unpacked"
tar -xzf "$tgz" -C "$root/unpacked"
# What the package names must be there; what only builds it must not.
node - "$root/unpacked/package" <<'JS' || fail "the tarball: $(tar -tzf "$tgz" | sort | tr '\n' ' ')"
const fs = require('fs'), path = require('path');
const dir = process.argv[2];
const pkg = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'));
const named = [pkg.main, pkg.types];
const walk = (v) => (typeof v === 'string' ? named.push(v) : Object.values(v).forEach(walk));
walk(pkg.exports);
const missing = named.filter((p) => !fs.existsSync(path.join(dir, p)));
const files = [];
const list = (d) => fs.readdirSync(path.join(dir, d), { withFileTypes: true }).forEach((e) =>
  e.isDirectory() ? list(path.join(d, e.name)) : files.push(path.join(d, e.name)));
list('.');
const extra = files.filter((f) => /^(src|test|examples|scripts|node_modules|build)\//.test(f) || f.startsWith('tsconfig'));
const problems = [
  ...missing.map((p) => `package.json names ${p}, which is not in the tarball`),
  ...extra.map((f) => `${f} is in the tarball (it only builds the package)`),
  ...['LICENSE', 'README.md'].filter((f) => !files.includes(f)).map((f) => `no ${f} in the tarball`),
];
problems.forEach((p) => console.error(`test-npm-pack: ${p}`));
process.exit(problems.length ? 1 : 0);
JS

# A fresh project installs the tarball (it has no dependencies: offline) and uses it.
host=$root/host
mkdir -p "$host/hooks"
printf '{"name":"host","private":true}\n' >"$host/package.json"
(cd "$host" && npmq install --offline "$tgz" >/dev/null)
cat >"$host/config.json" <<'JSON'
{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "echo no >&2; exit 2"}]}]}}
JSON
cat >"$host/host.cjs" <<'JS'
const { open, VERSION } = require('@hookexec/node');
(async () => {
  const config = require('./config.json');
  const e = await open({ projectDir: __dirname, home: __dirname, config });
  const r = await e.fire('PreToolUse', { tool_name: 'Bash', tool_input: { command: 'rm -rf /' } });
  await e.close();
  console.log('cjs', VERSION, r.blocked, r.reason);
})().catch((err) => { console.error(err); process.exit(1); });
JS
cat >"$host/host.mjs" <<'JS'
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import hookexec, { open, VERSION, HookexecError } from '@hookexec/node';
const dir = new URL('.', import.meta.url).pathname;
const config = JSON.parse(readFileSync(dir + 'config.json', 'utf8'));
const e = await open({ projectDir: dir, home: dir, config });
const r = await e.fire('PreToolUse', { tool_name: 'Bash', tool_input: { command: 'rm -rf /' } });
await e.close();
// import and require share one module instance (one set of error classes for instanceof).
const same = createRequire(import.meta.url)('@hookexec/node').HookexecError === HookexecError && hookexec.open === open;
console.log('esm', VERSION, r.blocked, r.reason, same);
JS
out=$(cd "$host" && HOOKEXEC_BIN=$bin node host.cjs) || fail "CommonJS host: $out"
[ "$out" = "cjs $version true no" ] || fail "CommonJS host: $out"
out=$(cd "$host" && HOOKEXEC_BIN=$bin node host.mjs) || fail "ES module host: $out"
[ "$out" = "esm $version true no true" ] || fail "ES module host: $out"

# The types, as a TypeScript consumer resolves them (node16: exports' types conditions). A
# package without its .d.ts would type as an error (TS7016), and the @ts-expect-error lines
# fail if the types stopped being checked.
cat >"$host/types.cts" <<'TS'
import hookexec = require('@hookexec/node');
export async function cjs(): Promise<boolean> {
  const e: hookexec.Engine = await hookexec.open({ projectDir: '.' });
  // @ts-expect-error: options are camelCase
  await hookexec.open({ project_dir: '.' });
  return (await e.fire('PreToolUse', {})).blocked;
}
TS
cat >"$host/types.mts" <<'TS'
import { open, type FireResult } from '@hookexec/node';
export async function esm(): Promise<FireResult> {
  const e = await open({ projectDir: '.' });
  // @ts-expect-error: fire takes an event name
  await e.fire(1, {});
  return e.fire('PreToolUse', {});
}
TS
(cd "$host" && node "$pkg/node_modules/typescript/bin/tsc" --strict --noEmit --module node16 --moduleResolution node16 \
	--target ES2022 --typeRoots "$pkg/node_modules/@types" --types node types.cts types.mts) || fail "the TypeScript consumers do not type-check"

# The vercel-ai, mastra and openai-agents adapters load (import and require) and type-check without their
# frameworks installed: optional peers, imported only as types.
cat >"$host/adapters.mjs" <<'JS'
import { createRequire } from 'node:module';
import { withHooks as vercel } from '@hookexec/node/vercel-ai';
import { withHooks as mastra } from '@hookexec/node/mastra';
import { Hookexec } from '@hookexec/node/openai-agents';
const r = createRequire(import.meta.url);
console.log(typeof vercel, typeof mastra, r('@hookexec/node/vercel-ai').withHooks === vercel, r('@hookexec/node/mastra').withHooks === mastra, r('@hookexec/node/openai-agents').Hookexec === Hookexec);
JS
out=$(cd "$host" && node adapters.mjs) || fail "the framework adapters do not load: $out"
[ "$out" = "function function true true true" ] || fail "the framework adapters: $out"
cp "$host/adapters.mjs" "$host/adapters.mts"
(cd "$host" && node "$pkg/node_modules/typescript/bin/tsc" --strict --noEmit --module node16 --moduleResolution node16 \
	--target ES2022 --typeRoots "$pkg/node_modules/@types" --types node adapters.mts) || fail "the framework adapters' types need their frameworks"

# Without its dev dependencies npm pack has nothing to build dist/ with: it must fail.
if (cd "$root/bare/npm/node" && npm pack --silent --pack-destination "$root/bare" >"$root/bare.log" 2>&1); then
	fail "npm pack without the dev dependencies succeeded: $(ls "$root/bare"/*.tgz)"
fi
ls "$root/bare"/*.tgz >/dev/null 2>&1 && fail "npm pack without the dev dependencies left a tarball"
grep -q "npm ci" "$root/bare.log" || fail "npm pack without the dev dependencies does not say what to run:"$'\n'"$(cat "$root/bare.log")"
echo "test-npm-pack: ok ($(basename "$tgz") packed from a clean copy, installed into a fresh project, required, imported and type-checked)"
