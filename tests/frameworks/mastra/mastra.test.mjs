// @hookexec/node/mastra against the real @mastra/core (examples/frameworks/mastra's pin) and
// the fake Chat Completions API: each behaviour is checked by what reached the model or what
// the shell tool really ran.
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import { createRequire } from 'node:module';
import * as path from 'node:path';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';

import { EXAMPLES, makeProject, startFakeModel } from '../fakemodel.mjs';
import { hook } from '../hookscript.mjs';

const example = path.join(EXAMPLES, 'mastra');
const req = createRequire(path.join(example, 'package.json'));
const load = (name) => import(pathToFileURL(req.resolve(name)).href);
const { Agent } = await load('@mastra/core/agent');
const { createTool } = await load('@mastra/core/tools');
const { createOpenAICompatible } = await load('@ai-sdk/openai-compatible');
const { z } = await load('zod');
const { withHooks } = req('@hookexec/node/mastra');
const { Gate, RunStopped } = req('@hookexec/node/integrations');

const pre = (answer) => `return ${JSON.stringify({ hookSpecificOutput: { hookEventName: 'PreToolUse', ...answer } })};`;
const call = (command) => ({ tools: [{ name: 'shell', input: { command } }] });

async function setup(hooksOf, script, hookOptions = {}) {
  const { dir, home } = makeProject({});
  fs.writeFileSync(path.join(dir, '.claude', 'settings.json'), JSON.stringify({ hooks: Object.assign({}, ...hooksOf(dir)) }));
  process.env.HOME = home;
  const fake = await startFakeModel('chat', script);
  const h = withHooks({ projectDir: dir, ...hookOptions });
  const shell = createTool({
    id: 'shell',
    description: 'Run a shell command',
    inputSchema: z.object({ command: z.string() }),
    execute: async ({ command }) => execFileSync('sh', ['-c', command], { cwd: dir, encoding: 'utf8' }),
  });
  const agent = new Agent({
    id: 'a',
    name: 'a',
    instructions: 'use the shell',
    model: createOpenAICompatible({ name: 'openai', baseURL: fake.url, apiKey: 'x' }).chatModel('fake-model'),
    tools: h.tools({ shell }),
  });
  const done = async () => {
    await h.close();
    await fake.close();
  };
  return { dir, fake, h, run: () => h.generate(agent, 'go', { maxSteps: 8 }), done };
}

const toolMessages = (requests) => requests.at(-1).messages.filter((m) => m.role === 'tool').map((m) => m.content);

test('a PreToolUse block (Bash matcher on shell): the command does not run, the reason reaches the model', async () => {
  const s = await setup((d) => [hook(d, 'PreToolUse', `if (p.tool_name === 'Bash' && p.tool_input.command.includes('rm ')) ${pre({ permissionDecision: 'deny', permissionDecisionReason: 'rm is forbidden here' })}`, 'Bash')], [call('touch ran; rm -f x'), { text: 'ok' }]);
  try {
    assert.equal((await s.run()).text, 'ok');
    assert.ok(!fs.existsSync(path.join(s.dir, 'ran')));
    assert.deepEqual(toolMessages(await s.fake.requests()), ['rm is forbidden here']);
  } finally {
    await s.done();
  }
});

test('a call no hook matches runs untouched', async () => {
  const s = await setup((d) => [hook(d, 'PreToolUse', pre({ permissionDecision: 'deny', permissionDecisionReason: 'no' }), 'Write')], [call('touch ran; echo out'), { text: 'ok' }]);
  try {
    await s.run();
    assert.ok(fs.existsSync(path.join(s.dir, 'ran')));
    assert.deepEqual(toolMessages(await s.fake.requests()), ['out\n']);
  } finally {
    await s.done();
  }
});

test('updated_input: the tool really runs with the rewritten command', async () => {
  const s = await setup((d) => [hook(d, 'PreToolUse', pre({ permissionDecision: 'allow', updatedInput: { command: 'echo rewritten > out.txt' } }), 'Bash')], [call('echo original > out.txt'), { text: 'ok' }]);
  try {
    await s.run();
    assert.equal(fs.readFileSync(path.join(s.dir, 'out.txt'), 'utf8'), 'rewritten\n');
  } finally {
    await s.done();
  }
});

test('additional_context after a tool and on the prompt reaches the model', async () => {
  const s = await setup(
    (d) => [
      hook(d, 'PostToolUse', `return { hookSpecificOutput: { hookEventName: 'PostToolUse', additionalContext: 'CTX-AFTER-' + p.tool_name } };`, 'Bash'),
      hook(d, 'UserPromptSubmit', `return { hookSpecificOutput: { hookEventName: 'UserPromptSubmit', additionalContext: 'CTX-PROMPT-' + p.prompt } };`),
    ],
    [call('echo out'), { text: 'ok' }],
  );
  try {
    await s.run();
    const reqs = await s.fake.requests();
    assert.ok(JSON.stringify(reqs[0].messages).includes('CTX-PROMPT-go'));
    assert.deepEqual(toolMessages(reqs), ['out\n\n\nCTX-AFTER-Bash']);
  } finally {
    await s.done();
  }
});

test('a Stop block makes the agent go on with the reason; stop_hook_active ends it', async () => {
  const s = await setup((d) => [hook(d, 'Stop', `if (!p.stop_hook_active) return { decision: 'block', reason: 'RUN-THE-TESTS ' + p.last_assistant_message };`)], [{ text: 'first answer' }, { text: 'second answer' }]);
  try {
    assert.equal((await s.run()).text, 'second answer');
    const reqs = await s.fake.requests();
    assert.equal(reqs.length, 2);
    assert.deepEqual(reqs[1].messages.at(-1), { role: 'user', content: 'RUN-THE-TESTS first answer' });
  } finally {
    await s.done();
  }
});

test('continue:false ends the run (RunStopped), no further request, the command not run', async () => {
  const s = await setup((d) => [hook(d, 'PreToolUse', `return { continue: false, stopReason: 'HALT-NOW' };`, 'Bash')], [call('touch ran'), { text: 'never' }]);
  try {
    await assert.rejects(s.run(), (e) => e instanceof RunStopped && e.reason === 'HALT-NOW');
    assert.ok(!fs.existsSync(path.join(s.dir, 'ran')));
    assert.equal((await s.fake.requests()).length, 1);
  } finally {
    await s.done();
  }
});

test('a UserPromptSubmit block ends the run before any request', async () => {
  const s = await setup((d) => [hook(d, 'UserPromptSubmit', `return { decision: 'block', reason: 'NOT-THIS-PROMPT' };`)], [{ text: 'never' }]);
  try {
    await assert.rejects(s.run(), (e) => e instanceof RunStopped && e.message.includes('NOT-THIS-PROMPT'));
    assert.equal((await s.fake.requests()).length, 0);
  } finally {
    await s.done();
  }
});

test('system_message reaches the callback', async () => {
  const got = [];
  const s = await setup((d) => [hook(d, 'PreToolUse', `return { systemMessage: 'NOTE-' + p.tool_input.command };`, 'Bash')], [call('echo a'), { text: 'ok' }], { onSystemMessage: (t) => got.push(t) });
  try {
    await s.run();
    assert.deepEqual(got, ['NOTE-echo a']);
  } finally {
    await s.done();
  }
});

for (const yes of [true, false]) {
  test(`ask: settled by the approve callback (${yes ? 'yes: the command runs' : 'no: refused, the model reads why'})`, async () => {
    const seen = [];
    const s = await setup((d) => [hook(d, 'PreToolUse', pre({ permissionDecision: 'ask', permissionDecisionReason: 'ASK-USER' }), 'Bash')], [call('touch ran; echo did'), { text: 'ok' }], {
      approve: (name, input, reason) => (seen.push([name, input.command, reason]), yes),
    });
    try {
      await s.run();
      assert.deepEqual(seen, [['Bash', 'touch ran; echo did', 'ASK-USER']]);
      assert.equal(fs.existsSync(path.join(s.dir, 'ran')), yes);
      const [msg] = toolMessages(await s.fake.requests());
      if (yes) assert.equal(msg, 'did\n');
      else assert.match(msg, /ASK-USER \(approval required; none was given\)/);
    } finally {
      await s.done();
    }
  });
}

test('an engine error blocks: a closed engine refuses the tool call and the prompt (fail closed)', async () => {
  const { dir, home } = makeProject({});
  process.env.HOME = home;
  const gate = new Gate({ projectDir: dir });
  await (await gate.getEngine()).close();
  const fake = await startFakeModel('chat', [call('touch ran'), { text: 'ok' }]);
  const h = withHooks({ gate });
  const shell = createTool({ id: 'shell', description: 'sh', inputSchema: z.object({ command: z.string() }), execute: async ({ command }) => execFileSync('sh', ['-c', command], { cwd: dir, encoding: 'utf8' }) });
  const agent = new Agent({ id: 'a', name: 'a', instructions: 'x', model: createOpenAICompatible({ name: 'openai', baseURL: fake.url, apiKey: 'x' }).chatModel('m'), tools: h.tools({ shell }) });
  try {
    await assert.rejects(h.generate(agent, 'go'), (e) => e instanceof RunStopped && /UserPromptSubmit could not be decided/.test(e.message));
    await agent.generate('go', { maxSteps: 4 });
    assert.ok(!fs.existsSync(path.join(dir, 'ran')), 'the command ran although the engine failed');
    assert.match(toolMessages(await fake.requests())[0], /PreToolUse could not be decided/);
  } finally {
    await gate.close();
    await fake.close();
  }
});

test('the example: its guard blocks rm -rf, the answer is printed', async () => {
  const { dir, home } = makeProject({});
  fs.writeFileSync(path.join(dir, '.claude', 'settings.json'), JSON.stringify({ hooks: hook(dir, 'PreToolUse', pre({ permissionDecision: 'deny', permissionDecisionReason: 'GUARD: no rm -rf' }), 'Bash') }));
  const fake = await startFakeModel('chat', [call('touch ran; rm -rf ./x'), { text: 'FINAL ANSWER' }]);
  const r = spawnSync(path.join(example, 'run'), ['clean up'], {
    cwd: dir,
    env: { ...process.env, HOME: home, OPENAI_BASE_URL: fake.url, OPENAI_API_KEY: 'x', HOOKEXEC_EXAMPLE_MODEL: 'fake-model' },
    encoding: 'utf8',
    timeout: 300_000,
  });
  await fake.close();
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout.trim(), 'FINAL ANSWER');
  assert.ok(!fs.existsSync(path.join(dir, 'ran')));
  assert.deepEqual(toolMessages(await fake.requests()), ['GUARD: no rm -rf']);
});

test('two runs of one hooks object at once: a continue:false ends its own run, not the other', async () => {
  const s = await setup((d) => [hook(d, 'PreToolUse', `if (p.tool_input.command.includes('halt-me')) { const t = Date.now(); while (Date.now() - t < 1500); return { continue: false, stopReason: 'HALT-A' }; }`, 'Bash')], [call('touch a-ran halt-me'), { text: 'A never' }]);
  const other = await startFakeModel('chat', [call('touch b-ran'), { text: 'B done' }]);
  try {
    const agentB = new Agent({
      id: 'b',
      name: 'b',
      instructions: 'use the shell',
      model: createOpenAICompatible({ name: 'openai', baseURL: other.url, apiKey: 'x' }).chatModel('fake-model'),
      tools: s.h.tools({
        shell: createTool({
          id: 'shell',
          description: 'Run a shell command',
          inputSchema: z.object({ command: z.string() }),
          execute: async ({ command }) => execFileSync('sh', ['-c', command], { cwd: s.dir, encoding: 'utf8' }),
        }),
      }),
    });
    // A starts first, B second; A's hook answers after 1.5 s, when B's run is the latest (or
    // already over): either way only a per-run stop ends A.
    const a = s.run();
    const b = s.h.generate(agentB, 'go', { maxSteps: 8 });
    const [ra, rb] = await Promise.allSettled([a, b]);
    assert.equal(ra.status, 'rejected');
    assert.ok(ra.reason instanceof RunStopped && ra.reason.reason === 'HALT-A');
    assert.equal(rb.status, 'fulfilled', String(rb.reason));
    assert.equal(rb.value.text, 'B done');
    assert.ok(fs.existsSync(path.join(s.dir, 'b-ran')));
  } finally {
    await other.close();
    await s.done();
  }
});
