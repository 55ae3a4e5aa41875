// The gate every framework adapter shares (@hookexec/node/integrations), against the real
// hookexec binary and real hook processes: a hook's answer becomes the verdict an adapter acts
// on; an engine that fails makes a blocking event deny (fail closed).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { open } from '@hookexec/node';
import { Gate, BLOCKING_EVENTS, DEFAULT_TOOL_NAMES, blocked, feedback } from '@hookexec/node/integrations';

assert.ok(process.env.HOOKEXEC_BIN, 'set HOOKEXEC_BIN to the hookexec binary (make test-npm does)');

function project(t, hooks) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hookexec-gate-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  fs.mkdirSync(path.join(dir, '.claude'));
  fs.mkdirSync(path.join(dir, 'home'));
  fs.writeFileSync(path.join(dir, '.claude', 'settings.json'), JSON.stringify({ hooks }));
  return dir;
}

const q = (s) => `'${s.replace(/'/g, `'\\''`)}'`;
const answer = (out, matcher) => [{ ...(matcher ? { matcher } : {}), hooks: [{ type: 'command', command: `cat >/dev/null; printf '%s' ${q(JSON.stringify(out))}` }] }];

function gate(dir, options = {}) {
  return new Gate({ projectDir: dir, engineOptions: { home: path.join(dir, 'home') }, ...options });
}

test('a block, its reason and the tool-name map', async (t) => {
  const dir = project(t, { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: "cat >/dev/null; echo 'no shells here' >&2; exit 2" }] }] });
  const g = gate(dir, { toolNames: { run_it: 'Bash' } });
  t.after(() => g.close());
  const v = await g.preTool('shell', { command: 'ls' });
  assert.ok(blocked(v));
  assert.match(v.reason, /^no shells here/);
  assert.equal(feedback(v), v.reason);
  assert.ok(blocked(await g.preTool('run_it', { command: 'ls' })));
  const none = await g.preTool('lookup', { q: 'x' });
  assert.equal(none.decision, 'none');
  assert.equal(none.updatedInput, null);
});

test('rewrite, context, continue:false and a Stop block', async (t) => {
  const dir = project(t, {
    PreToolUse: answer({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'allow', updatedInput: { command: 'echo safe' } } }, 'Bash'),
    PostToolUse: answer({ hookSpecificOutput: { hookEventName: 'PostToolUse', additionalContext: 'ran in the sandbox' } }, 'Bash'),
    UserPromptSubmit: answer({ continue: false, stopReason: 'out of budget' }),
    Stop: answer({ decision: 'block', reason: 'run the tests first' }),
  });
  const messages = [];
  const g = gate(dir, { onSystemMessage: (m) => messages.push(m) });
  t.after(() => g.close());
  const pre = await g.preTool('shell', { command: 'rm -rf /' });
  assert.equal(pre.decision, 'allow');
  assert.deepEqual(pre.updatedInput, { command: 'echo safe' });
  assert.equal((await g.postTool('shell', { command: 'echo safe' }, 'safe\n')).additionalContext, 'ran in the sandbox');
  const up = await g.userPrompt('go');
  assert.equal(up.continue, false);
  assert.equal(up.stopReason, 'out of budget');
  const stop = await g.stop('all done');
  assert.ok(blocked(stop));
  assert.equal(stop.reason, 'run the tests first');
});

test('ask: approve settles it, else it blocks with the reason', async (t) => {
  const dir = project(t, { PreToolUse: answer({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'ask', permissionDecisionReason: 'deletes files' } }, 'Bash') });
  const g = gate(dir);
  t.after(() => g.close());
  const v = await g.preTool('shell', { command: 'rm x' });
  assert.equal(v.decision, 'ask');
  const no = await g.settleAsk(v, 'shell', { command: 'rm x' });
  assert.ok(blocked(no));
  assert.match(no.reason, /deletes files.*approval/);
  const calls = [];
  g.approve = async (name, input, reason) => (calls.push([name, input, reason]), true);
  assert.equal((await g.settleAsk(v, 'shell', { command: 'rm x' })).decision, 'allow');
  assert.deepEqual(calls, [['Bash', { command: 'rm x' }, 'deletes files']]);
  g.approve = () => {
    throw new Error('approver down');
  };
  assert.ok(blocked(await g.settleAsk(v, 'shell', { command: 'rm x' })));
});

test('an engine error fails closed on every event that can block', async (t) => {
  const dir = project(t, {});
  const engine = await open({ profile: 'claude', projectDir: dir, home: path.join(dir, 'home') });
  const g = new Gate({ engine });
  await engine.close();
  const calls = {
    PreToolUse: () => g.preTool('shell', { command: 'ls' }),
    PostToolUse: () => g.postTool('shell', {}, 'out'),
    UserPromptSubmit: () => g.userPrompt('hi'),
    Stop: () => g.stop(),
    SubagentStop: () => g.stop(undefined, { subagent: true }),
    PreCompact: () => g.preCompact(),
  };
  assert.deepEqual(new Set(Object.keys(calls)), BLOCKING_EVENTS);
  for (const [event, call] of Object.entries(calls)) {
    const v = await call();
    assert.ok(blocked(v) && v.error && /could not be decided/.test(v.reason), event);
  }
  const failed = await g.toolFailed('shell', {}, 'exit 1');
  assert.ok(failed.error && !blocked(failed));
  // A gate whose engine cannot even open fails closed too.
  const broken = new Gate({ projectDir: dir, profile: 'no-such-profile' });
  assert.ok(blocked(await broken.preTool('shell', { command: 'ls' })));
});

test('SessionStart and SessionEnd fire once each; names map', async (t) => {
  const dir = project(t, {});
  const log = path.join(dir, 'events.log');
  const cmd = `jq -r .hook_event_name >> ${log}`;
  fs.writeFileSync(path.join(dir, '.claude', 'settings.json'), JSON.stringify({ hooks: { SessionStart: [{ hooks: [{ type: 'command', command: cmd }] }], SessionEnd: [{ hooks: [{ type: 'command', command: cmd }] }] } }));
  const g = gate(dir, { toolNames: { shell: 'Terminal' } });
  await g.sessionEnd();
  await g.sessionStart();
  await g.sessionStart();
  await g.close();
  assert.deepEqual(fs.readFileSync(log, 'utf8').split(/\s+/).filter(Boolean), ['SessionStart', 'SessionEnd']);
  assert.equal(g.canonical('shell'), 'Terminal');
  assert.equal(g.canonical('read_file'), DEFAULT_TOOL_NAMES.read_file);
  assert.equal(g.canonical('query', 'db'), 'mcp__db__query');
});
