// @hookexec/node/openai-agents against the real OpenAI Agents SDK (the pinned version in
// examples/frameworks/openai-agents-ts) and the fake Chat Completions API: each behaviour is
// checked by what reached the model or what the shell tool really ran.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { createRequire } from 'node:module';
import { startFakeModel, makeProject, EXAMPLES } from '../fakemodel.mjs';

const example = path.join(EXAMPLES, 'openai-agents-ts');
const require = createRequire(path.join(example, 'package.json'));
const { Agent, Runner, OpenAIProvider, tool, setTracingDisabled } = require('@openai/agents');
const { z } = require('zod');
const { Hookexec, PromptBlocked } = await import(require.resolve('@hookexec/node/openai-agents'));
const { RunStopped } = await import(require.resolve('@hookexec/node/integrations'));
const { open } = await import(require.resolve('@hookexec/node'));
setTracingDisabled(true);

const shellTurn = (command) => ({ tools: [{ name: 'shell', input: { command } }] });
const hook = (matcher, command) => [{ matcher, hooks: [{ type: 'command', command }] }];
const json = (o) => `echo '${JSON.stringify(o)}'`;

function shellTool(dir) {
  return tool({
    name: 'shell',
    description: 'Runs a shell command with sh -c in the project directory.',
    parameters: z.object({ command: z.string() }),
    execute: ({ command }) => {
      const p = spawnSync('sh', ['-c', command], { cwd: dir, encoding: 'utf8' });
      return `exit ${p.status}\n${p.stdout}${p.stderr}`;
    },
  });
}

/** A Runner whose model is the fake's Chat Completions API. */
const chatRunner = (fake) => new Runner({ modelProvider: new OpenAIProvider({ baseURL: fake.url, apiKey: 'sk-fake', useResponses: false }), tracingDisabled: true });
/** The adapter over runner, for project's hooks (its own HOME). */
const governed = (runner, project, gate = {}) => new Hookexec({ run: (a, i, o) => runner.run(a, i, o), projectDir: project.dir, engineOptions: { home: project.home }, ...gate });

/**
 * Runs one governed agent; returns the project, the fake's record, the result or the error.
 * `then(hx, result, runner)` may go on (approvals) before the fake closes.
 */
async function run(hooks, script, { gate = {}, prompt = 'go', then } = {}) {
  const fake = await startFakeModel('chat', script);
  const project = makeProject(hooks);
  const runner = chatRunner(fake);
  const agent = new Agent({ name: 'shell agent', instructions: 'Use the shell tool.', model: 'gpt-fake', tools: [shellTool(project.dir)] });
  const hx = governed(runner, project, gate);
  let result;
  let error;
  try {
    result = await hx.run(agent, prompt);
    if (then) result = await then(hx, agent, result);
  } catch (err) {
    error = err;
  } finally {
    await hx.close();
    await fake.close();
  }
  const has = (f) => fs.existsSync(path.join(project.dir, f));
  const read = (f) => fs.readFileSync(path.join(project.dir, f), 'utf8');
  return { project, result, error, has, read, requests: await fake.requests(), text: await fake.text() };
}

const ok = (r) => {
  if (r.error) throw r.error;
  return r;
};

test('a PreToolUse block: the command does not run and the reason reaches the model', async () => {
  const r = ok(await run({ PreToolUse: hook('Bash', 'echo "NO-TOUCHING-ALLOWED" >&2; exit 2') }, [shellTurn('touch ran.txt'), { text: 'ok' }]));
  assert.equal(r.has('ran.txt'), false);
  assert.equal(r.requests.length, 2);
  assert.match(JSON.stringify(r.requests[1]), /NO-TOUCHING-ALLOWED/);
});

test('updated_input: the shell tool really runs the rewritten command', async () => {
  const rewrite = json({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'allow', updatedInput: { command: 'echo rewritten > out.txt' } } });
  const r = ok(await run({ PreToolUse: hook('Bash', rewrite) }, [shellTurn('echo original > out.txt'), { text: 'ok' }]));
  assert.equal(r.read('out.txt').trim(), 'rewritten');
});

test('additional_context after a tool, on the prompt and at SessionStart reaches the model', async () => {
  const r = ok(
    await run(
      {
        PostToolUse: hook('Bash', json({ hookSpecificOutput: { hookEventName: 'PostToolUse', additionalContext: 'CTX-AFTER-TOOL' } })),
        UserPromptSubmit: hook('', 'echo CTX-ON-PROMPT'),
        SessionStart: hook('', json({ hookSpecificOutput: { hookEventName: 'SessionStart', additionalContext: 'CTX-SESSION-START' } })),
      },
      [shellTurn('true'), { text: 'ok' }],
    ),
  );
  assert.match(JSON.stringify(r.requests[0]), /CTX-ON-PROMPT/);
  assert.match(JSON.stringify(r.requests[0]), /CTX-SESSION-START/);
  assert.doesNotMatch(JSON.stringify(r.requests[0]), /CTX-AFTER-TOOL/);
  assert.match(JSON.stringify(r.requests[1]), /CTX-AFTER-TOOL/);
});

test('PostToolUse: a block is feedback beside the output, updatedToolOutput replaces it', async () => {
  const post = json({ decision: 'block', reason: 'POST-FEEDBACK', hookSpecificOutput: { hookEventName: 'PostToolUse', updatedToolOutput: 'REDACTED-OUTPUT' } });
  const r = ok(await run({ PostToolUse: hook('Bash', post) }, [shellTurn('echo SECRET-VALUE'), { text: 'ok' }]));
  const outputs = r.requests[1].messages.filter((m) => m.role === 'tool').map((m) => m.content);
  assert.equal(outputs.length, 1);
  assert.match(outputs[0], /REDACTED-OUTPUT/);
  assert.match(outputs[0], /POST-FEEDBACK/);
  assert.doesNotMatch(outputs[0], /SECRET-VALUE/);
});

test('PostToolUseFailure fires for a tool whose invoke throws (errorFunction: null)', async () => {
  const fake = await startFakeModel('chat', [{ tools: [{ name: 'fails', input: {} }] }, { text: 'ok' }]);
  const project = makeProject({ PostToolUseFailure: hook('', 'cat > "$CLAUDE_PROJECT_DIR/failure"') });
  const runner = chatRunner(fake);
  const fails = tool({ name: 'fails', description: 'Fails.', parameters: z.object({}), errorFunction: null, execute: () => { throw new Error('TOOL-BROKE'); } });
  const agent = new Agent({ name: 'a', instructions: 'x', model: 'gpt-fake', tools: [fails] });
  const hx = governed(runner, project);
  await assert.rejects(hx.run(agent, 'go'), /TOOL-BROKE/);
  await hx.close();
  await fake.close();
  const seen = JSON.parse(fs.readFileSync(path.join(project.dir, 'failure'), 'utf8'));
  assert.equal(seen.tool_name, 'fails');
  assert.match(seen.error, /TOOL-BROKE/);
});

test('a blocked prompt never reaches the model', async () => {
  const r = await run({ UserPromptSubmit: hook('', 'echo "PROMPT-REFUSED" >&2; exit 2') }, [{ text: 'ok' }]);
  assert.ok(r.error instanceof PromptBlocked, String(r.error));
  assert.match(r.error.message, /PROMPT-REFUSED/);
  assert.equal(r.requests.length, 0);
});

test('a Stop block makes the agent go on with the reason', async () => {
  const once = `grep -q '"stop_hook_active": *true' && exit 0; ${json({ decision: 'block', reason: 'KEEP-GOING-PLEASE' })}`;
  const r = ok(await run({ Stop: hook('', once) }, [{ text: 'first' }, { text: 'second' }]));
  assert.equal(r.requests.length, 2);
  assert.match(JSON.stringify(r.requests[1]), /KEEP-GOING-PLEASE/);
  assert.equal(r.result.finalOutput, 'second');
});

test('continue:false on PreToolUse ends the run: no tool runs, the model is not asked again', async () => {
  const r = await run({ PreToolUse: hook('Bash', json({ continue: false, stopReason: 'HALTED' })) }, [shellTurn('touch ran.txt'), { text: 'ok' }]);
  assert.ok(r.error instanceof RunStopped, String(r.error));
  assert.match(r.error.message, /HALTED/);
  assert.equal(r.has('ran.txt'), false);
  assert.equal(r.requests.length, 1);
});

test('continue:false on PostToolUse ends the run after the tool', async () => {
  const r = await run({ PostToolUse: hook('Bash', json({ continue: false, stopReason: 'HALTED-AFTER' })) }, [shellTurn('touch ran.txt'), { text: 'ok' }]);
  assert.ok(r.error instanceof RunStopped, String(r.error));
  assert.match(r.error.message, /HALTED-AFTER/);
  assert.equal(r.has('ran.txt'), true);
  assert.equal(r.requests.length, 1);
});

test('system_message reaches onSystemMessage', async () => {
  const seen = [];
  ok(await run({ PreToolUse: hook('Bash', json({ systemMessage: 'SYS-NOTE' })) }, [shellTurn('true'), { text: 'ok' }], { gate: { onSystemMessage: (t) => seen.push(t) } }));
  assert.deepEqual(seen, ['SYS-NOTE']);
});

const ask = json({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'ask', permissionDecisionReason: 'CONFIRM-THIS' } });

for (const yes of [true, false]) {
  test(`ask settled by an approve callback (${yes ? 'yes' : 'no'})`, async () => {
    const asked = [];
    const approve = (name, input, reason) => (asked.push([name, input.command, reason]), yes);
    const r = ok(await run({ PreToolUse: hook('Bash', ask) }, [shellTurn('touch ran.txt'), { text: 'ok' }], { gate: { approve } }));
    assert.deepEqual(asked, [['Bash', 'touch ran.txt', 'CONFIRM-THIS']]);
    assert.equal(r.has('ran.txt'), yes);
    if (!yes) assert.match(JSON.stringify(r.requests[1]), /CONFIRM-THIS \(approval required; none was given\)/);
  });

  test(`ask uses the SDK's approval: interruptions, then ${yes ? 'approve' : 'reject'}`, async () => {
    let interrupted = 0;
    const then = async (hx, agent, result) => {
      interrupted = result.interruptions.length;
      const state = result.state;
      for (const item of result.interruptions) yes ? state.approve(item) : state.reject(item);
      return hx.run(agent, state);
    };
    const r = ok(await run({ PreToolUse: hook('Bash', ask) }, [shellTurn('touch ran.txt'), { text: 'ok' }], { then }));
    assert.equal(interrupted, 1);
    assert.equal(r.has('ran.txt'), yes);
    assert.equal(r.requests.length, 2);
    assert.equal(r.result.finalOutput, 'ok');
  });
}

test('an engine error blocks the prompt (fail closed)', async () => {
  const project = makeProject({});
  const engine = await open({ projectDir: project.dir, home: project.home });
  await engine.close();
  const r = await run({}, [shellTurn('touch ran.txt'), { text: 'ok' }], { gate: { engine } });
  // UserPromptSubmit can block: the undecided prompt never reaches the model.
  assert.ok(r.error instanceof PromptBlocked, String(r.error));
  assert.match(r.error.message, /UserPromptSubmit could not be decided/);
  assert.equal(r.has('ran.txt'), false);
  assert.equal(r.requests.length, 0);
});

/** The real engine until `event` fires, then closed: that event cannot be decided. */
async function failingEngine(event) {
  const project = makeProject({});
  const engine = await open({ projectDir: project.dir, home: project.home });
  const fired = [];
  const proxy = new Proxy(engine, {
    get(target, prop) {
      if (prop === 'fire') {
        return async (e, payload) => {
          fired.push(e);
          if (e === event) await target.close();
          return target.fire(e, payload);
        };
      }
      const v = Reflect.get(target, prop);
      return typeof v === 'function' ? v.bind(target) : v;
    },
  });
  return { engine: proxy, fired };
}

test('an engine error on PreToolUse blocks the call; the reason reaches the model', async () => {
  const { engine, fired } = await failingEngine('PreToolUse');
  const r = ok(await run({}, [shellTurn('touch ran.txt'), { text: 'ok' }], { gate: { engine } }));
  assert.ok(fired.includes('UserPromptSubmit'));
  assert.equal(r.has('ran.txt'), false);
  assert.match(JSON.stringify(r.requests[1]), /PreToolUse could not be decided/);
});

test('an engine error on PostToolUse withholds the output', async () => {
  const { engine } = await failingEngine('PostToolUse');
  const r = ok(await run({}, [shellTurn('echo SECRET-VALUE'), { text: 'ok' }], { gate: { engine } }));
  const outputs = r.requests[1].messages.filter((m) => m.role === 'tool').map((m) => m.content);
  assert.equal(outputs.length, 1);
  assert.match(outputs[0], /PostToolUse could not be decided/);
  assert.doesNotMatch(outputs[0], /SECRET-VALUE/);
});

test('the tools of an agent listed in handoffs are governed', async () => {
  const fake = await startFakeModel('chat', [{ tools: [{ name: 'transfer_to_helper', input: {} }] }, shellTurn('touch ran.txt'), { text: 'ok' }]);
  const project = makeProject({ PreToolUse: hook('Bash', 'echo "HELPER-BLOCKED" >&2; exit 2') });
  const runner = chatRunner(fake);
  const helper = new Agent({ name: 'helper', instructions: 'Use the shell tool.', model: 'gpt-fake', tools: [shellTool(project.dir)] });
  const agent = new Agent({ name: 'front', instructions: 'Hand off.', model: 'gpt-fake', handoffs: [helper], tools: [shellTool(project.dir)] });
  const hx = governed(runner, project);
  try {
    await hx.run(agent, 'go');
  } finally {
    await hx.close();
    await fake.close();
  }
  assert.equal(fs.existsSync(path.join(project.dir, 'ran.txt')), false);
  assert.match(await fake.text(), /HELPER-BLOCKED/);
});

test('a call no hook matches passes untouched; a Bash matcher catches shell', async () => {
  const r = ok(
    await run(
      { PreToolUse: [...hook('Write', 'exit 2'), ...hook('Bash', 'cat > "$CLAUDE_PROJECT_DIR/bash-hook-input"')] },
      [shellTurn('echo untouched > out.txt'), { text: 'ok' }],
    ),
  );
  assert.equal(r.read('out.txt').trim(), 'untouched');
  const seen = JSON.parse(r.read('bash-hook-input'));
  assert.equal(seen.tool_name, 'Bash');
  assert.equal(seen.tool_input.command, 'echo untouched > out.txt');
  assert.match(JSON.stringify(r.requests[1]), /"exit 0\\n"/);
});

test('SessionStart, Stop and SessionEnd fire once each', async () => {
  const log = (e) => hook('', `echo ${e} >> "$CLAUDE_PROJECT_DIR/events"`);
  const r = ok(await run({ SessionStart: log('start'), SessionEnd: log('end'), Stop: log('stop') }, [{ text: 'ok' }]));
  assert.equal(r.read('events'), 'start\nstop\nend\n');
});

test('the example: a guard blocks rm, the reason reaches the model, the answer is printed', async () => {
  const fake = await startFakeModel('chat', [shellTurn('rm -rf victim'), { text: 'FINAL-ANSWER' }]);
  const project = makeProject({ PreToolUse: hook('Bash', 'grep -q "rm -rf" && { echo "NO-RM-RF" >&2; exit 2; }; exit 0') });
  fs.mkdirSync(path.join(project.dir, 'victim'));
  const out = spawnSync(path.join(example, 'run'), ['clean up'], {
    cwd: project.dir,
    encoding: 'utf8',
    env: { ...process.env, HOME: project.home, OPENAI_BASE_URL: fake.url, OPENAI_API_KEY: 'sk-fake', HOOKEXEC_EXAMPLE_MODEL: 'gpt-fake' },
  });
  await fake.close();
  assert.equal(out.status, 0, out.stderr);
  assert.match(out.stdout, /FINAL-ANSWER/);
  assert.ok(fs.existsSync(path.join(project.dir, 'victim')));
  assert.match(await fake.text(), /NO-RM-RF/);
});
