// @hookexec/node/claude-agent-sdk against the real Claude Agent SDK (the pinned version in
// examples/frameworks/claude-agent-sdk-ts, with the Claude Code it bundles) and the fake
// Anthropic API: each behaviour is checked by what reached the model or what Bash really ran.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { createRequire } from 'node:module';
import { startFakeModel, makeProject, EXAMPLES } from '../fakemodel.mjs';

const example = path.join(EXAMPLES, 'claude-agent-sdk-ts');
const require = createRequire(path.join(example, 'package.json'));
const { query } = await import(require.resolve('@anthropic-ai/claude-agent-sdk'));
const { govern } = await import(require.resolve('@hookexec/node/claude-agent-sdk'));
const { open } = await import(require.resolve('@hookexec/node'));

// What Claude Code needs offline (as tests/live/claude gives it).
const OFFLINE = {
  CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
  DISABLE_TELEMETRY: '1',
  DISABLE_AUTOUPDATER: '1',
  DISABLE_ERROR_REPORTING: '1',
  IS_SANDBOX: '1',
};

const bash = (command) => ({ tools: [{ name: 'Bash', input: { command } }] });
const hook = (matcher, command) => [{ matcher, hooks: [{ type: 'command', command }] }];
const json = (o) => `echo '${JSON.stringify(o)}'`;

/** Runs one governed query; returns the project, the fake's record and the messages. */
async function run(hooks, script, { gate = {}, prompt = 'go', options = {} } = {}) {
  const fake = await startFakeModel('anthropic', script);
  const project = makeProject(hooks);
  const messages = [];
  try {
    const q = govern(query, { engineOptions: { home: project.home }, ...gate })({
      prompt,
      options: {
        cwd: project.dir,
        permissionMode: 'bypassPermissions',
        allowDangerouslySkipPermissions: true,
        env: { ...process.env, ...OFFLINE, HOME: project.home, ANTHROPIC_BASE_URL: fake.url, ANTHROPIC_API_KEY: 'sk-ant-fake' },
        ...options,
      },
    });
    for await (const m of q) messages.push(m);
  } finally {
    await fake.close();
  }
  const has = (f) => fs.existsSync(path.join(project.dir, f));
  const read = (f) => fs.readFileSync(path.join(project.dir, f), 'utf8');
  return { project, messages, has, read, requests: await fake.requests(), text: await fake.text() };
}

test('a PreToolUse block: the command does not run and the reason reaches the model', async () => {
  const r = await run({ PreToolUse: hook('Bash', 'echo "NO-TOUCHING-ALLOWED" >&2; exit 2') }, [bash('touch ran.txt'), { text: 'ok' }]);
  assert.equal(r.has('ran.txt'), false);
  assert.match(r.text, /NO-TOUCHING-ALLOWED/);
});

test('updated_input: Bash really runs the rewritten command', async () => {
  const rewrite = json({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'allow', updatedInput: { command: 'echo rewritten > out.txt' } } });
  const r = await run({ PreToolUse: hook('Bash', rewrite) }, [bash('echo original > out.txt'), { text: 'ok' }]);
  assert.equal(r.read('out.txt').trim(), 'rewritten');
});

test('additional_context after a tool, on the prompt and at SessionStart reaches the model', async () => {
  const r = await run(
    {
      PostToolUse: hook('Bash', json({ hookSpecificOutput: { hookEventName: 'PostToolUse', additionalContext: 'CTX-AFTER-TOOL' } })),
      UserPromptSubmit: hook('', 'echo CTX-ON-PROMPT'),
      SessionStart: hook('', json({ hookSpecificOutput: { hookEventName: 'SessionStart', additionalContext: 'CTX-SESSION-START' } })),
    },
    [bash('true'), { text: 'ok' }],
  );
  assert.match(JSON.stringify(r.requests[0]), /CTX-ON-PROMPT/);
  assert.match(JSON.stringify(r.requests[0]), /CTX-SESSION-START/);
  assert.match(JSON.stringify(r.requests[1]), /CTX-AFTER-TOOL/);
});

test('a Stop block makes the agent go on with the reason', async () => {
  const once = `grep -q '"stop_hook_active": *true' && exit 0; ${json({ decision: 'block', reason: 'KEEP-GOING-PLEASE' })}`;
  const r = await run({ Stop: hook('', once) }, [{ text: 'first' }, { text: 'second' }]);
  assert.equal(r.requests.length, 2);
  assert.match(JSON.stringify(r.requests[1]), /KEEP-GOING-PLEASE/);
});

test('continue:false ends the run: no tool runs, the model is not asked again', async () => {
  const r = await run({ PreToolUse: hook('Bash', json({ continue: false, stopReason: 'HALTED' })) }, [bash('touch ran.txt'), { text: 'ok' }]);
  assert.equal(r.has('ran.txt'), false);
  assert.equal(r.requests.length, 1);
});

test('system_message reaches onSystemMessage', async () => {
  const seen = [];
  await run({ PreToolUse: hook('Bash', json({ systemMessage: 'SYS-NOTE' })) }, [bash('true'), { text: 'ok' }], { gate: { onSystemMessage: (t) => seen.push(t) } });
  assert.deepEqual(seen, ['SYS-NOTE']);
});

for (const yes of [true, false]) {
  test(`ask settled by approve (${yes ? 'yes' : 'no'})`, async () => {
    const ask = json({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'ask', permissionDecisionReason: 'CONFIRM-THIS' } });
    const asked = [];
    const approve = (name, input, reason) => (asked.push([name, input.command, reason]), yes);
    const r = await run({ PreToolUse: hook('Bash', ask) }, [bash('touch ran.txt'), { text: 'ok' }], { gate: { approve } });
    assert.deepEqual(asked, [['Bash', 'touch ran.txt', 'CONFIRM-THIS']]);
    assert.equal(r.has('ran.txt'), yes);
    if (!yes) assert.match(r.text, /CONFIRM-THIS \(approval required; none was given\)/);
  });
}

test('ask without approve goes to Claude Code permissions: canUseTool decides', async () => {
  const ask = json({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'ask', permissionDecisionReason: 'CONFIRM-THIS' } });
  const asked = [];
  const canUseTool = async (name, input) => (asked.push(name), { behavior: 'deny', message: 'USER-SAID-NO' });
  const r = await run({ PreToolUse: hook('Bash', ask) }, [bash('touch ran.txt'), { text: 'ok' }], { options: { permissionMode: 'default', allowDangerouslySkipPermissions: false, canUseTool } });
  assert.deepEqual(asked, ['Bash']);
  assert.equal(r.has('ran.txt'), false);
  assert.match(r.text, /USER-SAID-NO/);
});

test('an engine error blocks (fail closed)', async () => {
  const project = makeProject({});
  const engine = await open({ projectDir: project.dir, home: project.home });
  await engine.close();
  const r = await run({}, [bash('touch ran.txt'), { text: 'ok' }], { gate: { engine } });
  // UserPromptSubmit can block: the undecided prompt never reaches the model.
  assert.equal(r.has('ran.txt'), false);
  assert.equal(r.requests.length, 0);
  assert.match(JSON.stringify(r.messages), /UserPromptSubmit could not be decided/);
});

test('a call no hook matches passes untouched; Claude Code does not run the hooks a second time', async () => {
  const r = await run(
    { PreToolUse: [...hook('Write', 'exit 2'), ...hook('Bash', 'echo x >> "$CLAUDE_PROJECT_DIR/bash-hook-runs"')] },
    [bash('echo untouched > out.txt'), { text: 'ok' }],
  );
  assert.equal(r.read('out.txt').trim(), 'untouched');
  assert.equal(r.read('bash-hook-runs'), 'x\n');
});

test('SessionStart and SessionEnd fire once each, from the adapter', async () => {
  const log = (e) => hook('', `echo ${e} >> "$CLAUDE_PROJECT_DIR/events"`);
  const r = await run({ SessionStart: log('start'), SessionEnd: log('end'), Stop: log('stop') }, [{ text: 'ok' }]);
  assert.equal(r.read('events'), 'start\nstop\nend\n');
});

test('the example: a guard blocks rm, the reason reaches the model, the answer is printed', async () => {
  const fake = await startFakeModel('anthropic', [bash('rm -rf victim'), { text: 'FINAL-ANSWER' }]);
  const project = makeProject({ PreToolUse: hook('Bash', 'grep -q "rm -rf" && { echo "NO-RM-RF" >&2; exit 2; }; exit 0') });
  fs.mkdirSync(path.join(project.dir, 'victim'));
  const out = spawnSync(path.join(example, 'run'), ['clean up'], {
    cwd: project.dir,
    encoding: 'utf8',
    env: { ...process.env, ...OFFLINE, HOME: project.home, ANTHROPIC_BASE_URL: fake.url, ANTHROPIC_API_KEY: 'sk-ant-fake' },
  });
  await fake.close();
  assert.equal(out.status, 0, out.stderr);
  assert.match(out.stdout, /FINAL-ANSWER/);
  assert.ok(fs.existsSync(path.join(project.dir, 'victim')));
  assert.match(await fake.text(), /NO-RM-RF/);
});

test('a callback that fails refuses (deny on a blocking event) and every matcher says onFailure block', async () => {
  const { hookexecHooks } = await import(require.resolve('@hookexec/node/claude-agent-sdk'));
  const { Gate } = await import(require.resolve('@hookexec/node/integrations'));
  class Broken extends Gate {
    async fire() {
      throw new Error('the gate broke');
    }
  }
  const hooks = hookexecHooks(new Broken({ projectDir: process.cwd() }));
  for (const [event, matchers] of Object.entries(hooks)) {
    for (const m of matchers) assert.equal(m.onFailure, 'block', event);
  }
  const [pre] = hooks.PreToolUse;
  const out = await pre.hooks[0]({ hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command: 'rm -rf /' } }, 'toolu_1', { signal: new AbortController().signal });
  assert.equal(out.hookSpecificOutput.permissionDecision, 'deny');
  assert.match(out.hookSpecificOutput.permissionDecisionReason, /could not be decided: the gate broke/);
  const [prompt] = hooks.UserPromptSubmit;
  assert.equal((await prompt.hooks[0]({ hook_event_name: 'UserPromptSubmit', prompt: 'hi' }, undefined, { signal: new AbortController().signal })).decision, 'block');
});
