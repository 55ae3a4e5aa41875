// The package against the real hookexec binary ($HOOKEXEC_BIN, set by `make test-npm`),
// through its ES module entry point, the way a host imports it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import {
  open,
  Server,
  VERSION,
  HookexecError,
  InvalidArgumentError,
  ConfigError,
  ClosedError,
  BinaryNotFoundError,
  binaryPath,
  platformPackage,
} from '@hookexec/node';

const require = createRequire(import.meta.url);
const PKG = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const BIN = process.env.HOOKEXEC_BIN;
assert.ok(BIN, 'set HOOKEXEC_BIN to the hookexec binary (make test-npm does)');

function tempDir(t) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hookexec-npm-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

const guard = {
  PreToolUse: [
    {
      matcher: 'Bash',
      hooks: [{ type: 'command', command: 'cmd=$(cat); case "$cmd" in *"rm -rf"*) echo "no rm -rf" >&2; exit 2;; esac' }],
    },
  ],
};

function engineIn(t, dir, options = {}) {
  return open({ profile: 'claude', projectDir: dir, home: dir, sources: [], config: { hooks: guard }, ...options });
}

test('VERSION is the repository VERSION and the binary version', () => {
  const repoVersion = fs.readFileSync(path.join(PKG, '..', '..', 'VERSION'), 'utf8').trim();
  assert.equal(VERSION, repoVersion);
  assert.match(execFileSync(BIN, ['--version'], { encoding: 'utf8' }), new RegExp(repoVersion.replace(/\./g, '\\.')));
});

test('configDialect reads the inline config in another agent\'s format (Cursor\'s beforeShellExecution)', async (t) => {
  const dir = tempDir(t);
  const cursor = {
    version: 1,
    hooks: {
      beforeShellExecution: [
        { command: 'case "$(cat)" in *"rm -rf"*) echo \'{"permission":"deny","agent_message":"not here"}\';; esac' },
      ],
    },
  };
  const engine = await open({ profile: 'claude', projectDir: dir, home: dir, sources: [], config: cursor, configDialect: 'cursor' });
  try {
    const denied = await engine.fire('PreToolUse', { tool_name: 'Bash', tool_input: { command: 'rm -rf /' } });
    assert.equal(denied.blocked, true);
    assert.equal(denied.reason, 'not here');
    const allowed = await engine.fire('PreToolUse', { tool_name: 'Bash', tool_input: { command: 'ls' } });
    assert.equal(allowed.blocked, false);
  } finally {
    await engine.close();
  }
  // A dialect hookexec does not have is an error, not a config read some other way.
  await assert.rejects(open({ profile: 'claude', projectDir: dir, home: dir, sources: [], config: cursor, configDialect: 'nope' }), HookexecError);
});

test('fire returns the typed result: a guard blocks rm -rf and lets ls through', async (t) => {
  const dir = tempDir(t);
  const engine = await engineIn(t, dir);
  try {
    const denied = await engine.fire('PreToolUse', { tool_name: 'Bash', tool_input: { command: 'rm -rf /' } });
    assert.equal(denied.blocked, true);
    assert.equal(denied.decision, 'deny');
    assert.equal(denied.reason, 'no rm -rf');
    assert.equal(denied.matched, 1);
    assert.equal(denied.hooks[0].exit_code, 2);
    assert.deepEqual(denied.warnings, []);
    const allowed = await engine.fire('PreToolUse', { tool_name: 'Bash', tool_input: { command: 'ls' } });
    assert.equal(allowed.blocked, false);
    assert.equal(allowed.hooks[0].exit_code, 0);
    const other = await engine.fire('PreToolUse', { tool_name: 'Edit', tool_input: {} });
    assert.equal(other.matched, 0);
    assert.deepEqual(await engine.match('PreToolUse', 'Bash'), { count: 1, ids: [(await engine.config()).hooks[0].id] });
  } finally {
    await engine.close();
  }
});

test('CommonJS and ES module entry points are one module: same classes, same functions', () => {
  const cjs = require('@hookexec/node');
  assert.equal(cjs.open, open);
  assert.equal(cjs.HookexecError, HookexecError);
  assert.equal(cjs.VERSION, VERSION);
  assert.ok(new cjs.ConfigError('x', -32002) instanceof HookexecError);
});

test('an unknown option is an InvalidArgumentError before anything is spawned', async () => {
  await assert.rejects(open({ profile: 'claude', projectDirectory: '.' }), (err) => {
    assert.ok(err instanceof InvalidArgumentError);
    assert.match(err.message, /unknown option "projectDirectory"/);
    return true;
  });
});

test('the server errors become classes: bad options, unusable config, closed engine', async (t) => {
  const dir = tempDir(t);
  await assert.rejects(open({ profile: 'claude', projectDir: dir, maxParallel: -1 }), (err) => err instanceof InvalidArgumentError && err.code === -32602);
  await assert.rejects(open({ profile: 'no-such-agent', projectDir: dir }), (err) => {
    assert.ok(err instanceof ConfigError && err.code === -32002);
    assert.match(err.message, /unknown profile "no-such-agent"/);
    return true;
  });
  const engine = await engineIn(t, dir);
  const server = engine.server;
  await engine.close();
  await engine.close(); // twice is a no-op
  await assert.rejects(engine.fire('Stop', {}), (err) => err instanceof ClosedError);
  assert.equal(await server.exited, 0, 'an engine from open() ends its server, which exits 0');
});

test('onAsync delivers the result of an async hook; the fire does not wait for it', async (t) => {
  const dir = tempDir(t);
  const marker = path.join(dir, 'release');
  const config = {
    hooks: {
      PostToolUse: [
        { hooks: [{ type: 'command', async: true, command: `while [ ! -e '${marker}' ]; do sleep 0.05; done; echo '{"decision":"block","reason":"lint failed"}'` }] },
      ],
    },
  };
  const engine = await open({ profile: 'claude', projectDir: dir, home: dir, sources: [], config });
  try {
    const got = new Promise((resolve) => engine.onAsync(resolve));
    const r = await engine.fire('PostToolUse', { tool_name: 'Write', tool_input: {} });
    assert.equal(r.hooks[0].async, true, 'the fire returned while its async hook was still waiting');
    fs.writeFileSync(marker, '');
    const a = await got;
    assert.equal(a.event, 'PostToolUse');
    assert.equal(a.reason, 'lint failed');
    assert.equal(a.hook.exit_code, 0);
    assert.equal('engine' in a, false);
  } finally {
    await engine.close();
  }
});

test('setEvaluator (async) answers prompt hooks; without one the hook is an error, not a block', async (t) => {
  const dir = tempDir(t);
  const config = { hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'prompt', prompt: 'Is this safe? $ARGUMENTS' }] }] } };
  const engine = await open({ profile: 'claude', projectDir: dir, home: dir, sources: [], config });
  try {
    const unanswered = await engine.fire('PreToolUse', { tool_name: 'Bash', tool_input: { command: 'rm -rf /' } });
    assert.equal(unanswered.blocked, false);
    assert.match(unanswered.hooks[0].error, /no evaluator is registered/);
    const seen = [];
    engine.setEvaluator(async (type, hook, payload) => {
      seen.push([type, hook.prompt, payload.tool_input.command]);
      await new Promise((resolve) => setImmediate(resolve));
      return payload.tool_input.command.includes('rm -rf') ? { ok: false, reason: 'judged unsafe' } : { ok: true };
    });
    const judged = await engine.fire('PreToolUse', { tool_name: 'Bash', tool_input: { command: 'rm -rf /' } });
    assert.equal(judged.blocked, true);
    assert.equal(judged.reason, 'judged unsafe');
    assert.equal(judged.hooks[0].exec, 'prompt');
    assert.equal((await engine.fire('PreToolUse', { tool_name: 'Bash', tool_input: { command: 'ls' } })).blocked, false);
    assert.deepEqual(seen.map((s) => s[0]), ['prompt', 'prompt']);
    engine.setEvaluator(async () => {
      throw new Error('model unavailable');
    });
    const failed = await engine.fire('PreToolUse', { tool_name: 'Bash', tool_input: { command: 'ls' } });
    assert.match(failed.hooks[0].error, /model unavailable/);
    assert.throws(() => engine.setEvaluator('yes'), InvalidArgumentError);
  } finally {
    await engine.close();
  }
});

test('a Server shares one process between engines; fires run concurrently and are matched by id', async (t) => {
  const dir = tempDir(t);
  const gate = path.join(dir, 'gate');
  fs.mkdirSync(gate);
  const n = 6;
  // Each hook waits until all n have started: only concurrent fires can finish.
  const config = {
    hooks: { Stop: [{ hooks: [{ type: 'command', command: `touch '${gate}'/$$; while [ $(ls '${gate}' | wc -l) -lt ${n} ]; do sleep 0.05; done` }] }] },
  };
  const server = Server.start({ bin: BIN, cwd: dir });
  try {
    const a = await server.open({ profile: 'claude', projectDir: dir, home: dir, sources: [], config });
    const b = await server.open({ profile: 'claude', projectDir: dir, home: dir, sources: [], config: { hooks: guard } });
    assert.notEqual(a.id, b.id);
    const results = await Promise.all(Array.from({ length: n }, () => a.fire('Stop', {})));
    assert.deepEqual(results.map((r) => r.hooks[0].exit_code), Array(n).fill(0));
    assert.equal((await b.fire('PreToolUse', { tool_name: 'Bash', tool_input: { command: 'rm -rf /' } })).blocked, true);
    await a.close();
    assert.equal((await b.fire('PreToolUse', { tool_name: 'Bash', tool_input: { command: 'rm -rf x' } })).blocked, true, 'closing one engine leaves the other');
    await assert.rejects(server.open({ bin: BIN }), InvalidArgumentError);
  } finally {
    await server.close();
  }
  assert.equal(await server.exited, 0);
});

test('a server that dies rejects what is in flight with ClosedError', async (t) => {
  const dir = tempDir(t);
  const config = { hooks: { Stop: [{ hooks: [{ type: 'command', command: 'sleep 600' }] }] } };
  const engine = await open({ profile: 'claude', projectDir: dir, home: dir, sources: [], config });
  const pending = engine.fire('Stop', {});
  process.kill(engine.server.pid, 'SIGKILL');
  await assert.rejects(pending, (err) => err instanceof ClosedError && /serve exited \(signal SIGKILL\)/.test(err.message));
  await assert.rejects(engine.fire('Stop', {}), ClosedError);
  await engine.close();
});

test('binaryPath: HOOKEXEC_BIN when set, else a clear error naming the platform package', () => {
  assert.equal(binaryPath(), BIN);
  assert.equal(platformPackage('linux', 'arm64'), '@hookexec/linux-arm64');
  const run = (env) =>
    spawnSync(process.execPath, ['--input-type=module', '-e', "import { binaryPath } from '@hookexec/node'; try { console.log(binaryPath()); } catch (e) { console.log(e.name + ': ' + e.message); }"], {
      cwd: PKG,
      env,
      encoding: 'utf8',
    }).stdout.trim();
  const env = { ...process.env };
  delete env.HOOKEXEC_BIN;
  assert.match(run(env), new RegExp(`^BinaryNotFoundError: hookexec: no binary for ${process.platform}-${process.arch}: the optional dependency ${platformPackage().replace('/', '\\/')} is not installed`));
  assert.match(run({ ...env, HOOKEXEC_BIN: '/nonexistent/hookexec' }), /^BinaryNotFoundError: hookexec: HOOKEXEC_BIN=\/nonexistent\/hookexec does not exist/);
});

test('installed esbuild-style: the platform package next to it is found at run time and fires', (t) => {
  // A project's node_modules as npm lays it out: @hookexec/node and @hookexec/<platform>-<arch>.
  const dir = tempDir(t);
  const modules = path.join(dir, 'node_modules', '@hookexec');
  const main = path.join(modules, 'node');
  fs.mkdirSync(main, { recursive: true });
  for (const entry of ['package.json', 'dist', 'esm']) fs.cpSync(path.join(PKG, entry), path.join(main, entry), { recursive: true });
  const plat = path.join(modules, platformPackage().split('/')[1]);
  fs.mkdirSync(path.join(plat, 'bin'), { recursive: true });
  fs.writeFileSync(path.join(plat, 'package.json'), JSON.stringify({ name: platformPackage(), version: VERSION, os: [process.platform], cpu: [process.arch] }));
  fs.copyFileSync(BIN, path.join(plat, 'bin', 'hookexec'));
  fs.chmodSync(path.join(plat, 'bin', 'hookexec'), 0o755);
  const host = path.join(dir, 'host.cjs');
  fs.writeFileSync(
    host,
    `const { open, binaryPath } = require('@hookexec/node');
(async () => {
  const e = await open({ profile: 'claude', projectDir: __dirname, home: __dirname, sources: [], config: { hooks: ${JSON.stringify(guard)} } });
  const r = await e.fire('PreToolUse', { tool_name: 'Bash', tool_input: { command: 'rm -rf /' } });
  await e.close();
  console.log(binaryPath(), r.blocked, r.reason);
})().catch((err) => { console.error(err); process.exit(1); });
`,
  );
  const env = { ...process.env };
  delete env.HOOKEXEC_BIN;
  const out = execFileSync(process.execPath, [host], { cwd: dir, env, encoding: 'utf8' }).trim();
  assert.equal(out, `${path.join(fs.realpathSync(plat), 'bin', 'hookexec')} true no rm -rf`);
});

test('auditLog appends every decision to the hash-chained audit log, which the binary verifies', async (t) => {
  const dir = tempDir(t);
  const log = path.join(dir, 'audit.jsonl');
  const engine = await engineIn(t, dir, { auditLog: log });
  try {
    assert.equal((await engine.fire('PreToolUse', { session_id: 'ts', tool_name: 'Bash', tool_input: { command: 'rm -rf /' } })).blocked, true);
    await engine.fire('PreToolUse', { session_id: 'ts', tool_name: 'Edit', tool_input: {} });
  } finally {
    await engine.close(); // the writer flushes on close
  }
  const entries = fs.readFileSync(log, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  assert.deepEqual(entries.map((e) => [e.seq, e.session, e.tool, e.decision]), [[1, 'ts', 'Bash', 'deny'], [2, 'ts', 'Edit', 'none']]);
  assert.equal(entries[1].prev, entries[0].hash);
  const verified = JSON.parse(execFileSync(BIN, ['audit', 'verify', '--json', log], { encoding: 'utf8' }));
  assert.equal(verified.ok, true);
  assert.equal(verified.fires, 2);
});
