'use strict';
// Node's built-in test runner against the real hookexec binary (make test-node).
const { test } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const { Hookexec, HookexecError } = require('../hookexec');
const { runAgent } = require('../agent');

function project(hooks) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hookexec-node-test-'));
  fs.mkdirSync(path.join(dir, '.claude'));
  fs.writeFileSync(path.join(dir, '.claude', 'settings.json'), JSON.stringify({ hooks }));
  return dir;
}

const guard = {
  matcher: 'Bash',
  hooks: [{ type: 'command', name: 'guard', command: 'cmd=$(cat); case "$cmd" in *"rm -rf"*) echo "no rm -rf" >&2; exit 2;; esac' }],
};

test('the example agent: guard blocks, formatter and MCP log run, Stop sends it back once', async () => {
  const { log, finalApp, mcpLog } = await runAgent();
  const pre = log.filter((e) => e.event === 'PreToolUse');
  assert.deepEqual(pre.map((e) => e.blocked), [false, true, false, false]);
  assert.match(pre[1].reason, /rm -rf/);
  assert.deepEqual(log.filter((e) => e.event === 'Stop').map((e) => e.blocked), [true, false]);
  assert.equal(finalApp, 'def main():\n    return 1\n', 'the formatter stripped trailing spaces; the agent removed the marker');
  assert.equal(mcpLog, 'mcp call: github:create_issue');
});

test('fire, match, explain, config, reload, drain, close', async () => {
  const dir = project({ PreToolUse: [guard] });
  const hx = Hookexec.start({ cwd: dir });
  try {
    const eng = await hx.open({ profile: 'claude', project_dir: dir, home: path.join(dir, 'no-home') });
    const r = await eng.fire('PreToolUse', { tool_name: 'Bash', tool_input: { command: 'rm -rf /' } });
    assert.equal(r.blocked, true);
    assert.equal(r.reason, 'no rm -rf');
    assert.deepEqual(await eng.match('PreToolUse', 'Bash'), { count: 1, ids: ['guard'] });
    const x = await eng.explain('PreToolUse', { tool_name: 'Edit' });
    assert.equal(x.hooks[0].runs, false);
    assert.equal(x.hooks[0].check, 'matcher');
    assert.deepEqual((await eng.config()).hooks.map((h) => h.id), ['guard']);
    assert.equal(await eng.reload(), null);
    assert.deepEqual(await eng.drain(), []);
    await eng.close();
    await assert.rejects(eng.fire('Stop'), (err) => err instanceof HookexecError && err.code === -32003);
  } finally {
    assert.equal(await hx.stop(), 0);
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('many requests in flight, answered by id', async () => {
  // Every hook waits until all of them have started: only concurrent fires can finish.
  const n = 10;
  const dir = project({});
  const gate = path.join(dir, 'gate');
  fs.mkdirSync(gate);
  const cmd = `touch ${gate}/$$; while [ "$(ls ${gate} | wc -l)" -lt ${n} ]; do sleep 0.01; done; echo ok`;
  fs.writeFileSync(path.join(dir, '.claude', 'settings.json'), JSON.stringify({ hooks: { Stop: [{ hooks: [{ type: 'command', command: cmd, timeout: 30 }] }] } }));
  const hx = Hookexec.start({ cwd: dir });
  try {
    const eng = await hx.open({ profile: 'claude', project_dir: dir, home: path.join(dir, 'no-home') });
    const results = await Promise.all(Array.from({ length: n }, () => eng.fire('Stop')));
    for (const r of results) {
      assert.equal(r.hooks[0].timed_out, false);
      assert.equal(r.hooks[0].stdout, 'ok\n');
    }
  } finally {
    await hx.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('async results arrive as notifications; errors are HookexecErrors', async () => {
  const dir = project({ PostToolUse: [{ hooks: [{ type: 'command', command: 'echo later', async: true, name: 'bg' }] }] });
  const hx = Hookexec.start({ cwd: dir });
  try {
    const eng = await hx.open({ profile: 'claude', project_dir: dir, home: path.join(dir, 'no-home') });
    const got = new Promise((resolve) => hx.once('async', resolve));
    await eng.fire('PostToolUse', { tool_name: 'Bash' });
    const params = await got;
    assert.equal(params.engine, eng.id);
    assert.equal(params.hook.id, 'bg');
    assert.equal(params.hook.stdout, 'later\n');
    await assert.rejects(eng.fire('Stop', [1]), (err) => err.code === -32602);
    await assert.rejects(hx.open({ profile: 'vim' }), (err) => err.code === -32002);
    await assert.rejects(hx.request('nope', {}), (err) => err.code === -32601);
  } finally {
    await hx.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('the host answers prompt hooks', async () => {
  const dir = project({ PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'prompt', prompt: 'Safe? $ARGUMENTS', name: 'judge' }] }] });
  const hx = Hookexec.start({ cwd: dir });
  try {
    const seen = [];
    const eng = await hx.open({ profile: 'claude', project_dir: dir, home: path.join(dir, 'no-home') }, async (type, hook, payload) => {
      seen.push([type, hook.id, payload.tool_input.command]);
      return payload.tool_input.command.includes('rm') ? { ok: false, reason: 'looks destructive' } : { ok: true };
    });
    const bad = await eng.fire('PreToolUse', { tool_name: 'Bash', tool_input: { command: 'rm x' } });
    assert.equal(bad.blocked, true);
    assert.equal(bad.reason, 'looks destructive');
    const good = await eng.fire('PreToolUse', { tool_name: 'Bash', tool_input: { command: 'ls' } });
    assert.equal(good.blocked, false);
    assert.deepEqual(seen, [['prompt', 'judge', 'rm x'], ['prompt', 'judge', 'ls']]);
  } finally {
    await hx.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
