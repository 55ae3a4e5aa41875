// @hookexec/node/vercel-ai against the real `ai` (examples/frameworks/vercel-ai/package.json's
// pin) and the fake Chat Completions API: each behaviour is checked by what reached the model
// or what the shell tool really ran.
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import { createRequire } from 'node:module';
import * as path from 'node:path';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';

import { EXAMPLES, makeProject, startFakeModel } from '../fakemodel.mjs';
import { hook } from '../hookscript.mjs';

const example = path.join(EXAMPLES, 'vercel-ai');
const req = createRequire(path.join(example, 'package.json'));
const load = (name) => import(pathToFileURL(req.resolve(name)).href);
const ai = await load('ai');
const { createOpenAICompatible } = await load('@ai-sdk/openai-compatible');
const { z } = await load('zod');
const { withHooks, governTools } = req('@hookexec/node/vercel-ai');
const { Gate, RunStopped } = req('@hookexec/node/integrations');

const pre = (answer) => `return ${JSON.stringify({ hookSpecificOutput: { hookEventName: 'PreToolUse', ...answer } })};`;

function shellTool(dir) {
  return ai.tool({
    description: 'Run a shell command',
    inputSchema: z.object({ command: z.string() }),
    execute: async ({ command }) => execFileSync('sh', ['-c', command], { cwd: dir, encoding: 'utf8' }),
  });
}

/** A project with `hooks(dir)`, a fake model with `script`, and a governed generateText. */
async function setup(hooksOf, script, hookOptions = {}) {
  const { dir, home } = makeProject({});
  const hooks = hooksOf(dir);
  fs.writeFileSync(path.join(dir, '.claude', 'settings.json'), JSON.stringify({ hooks: Object.assign({}, ...hooks) }));
  process.env.HOME = home;
  const fake = await startFakeModel('chat', script);
  const model = createOpenAICompatible({ name: 'openai', baseURL: fake.url, apiKey: 'x' }).chatModel('fake-model');
  const h = withHooks({ projectDir: dir, createSteering: ai.experimental_createSteering, ...hookOptions });
  const run = (more = {}) => ai.generateText(h.govern({ model, tools: { shell: shellTool(dir) }, stopWhen: ai.isStepCount(8), prompt: 'go', ...more }));
  return { dir, fake, h, run, model };
}

/** The content of the tool message answering call id in the model's requests. */
function toolMessages(requests) {
  const last = requests.at(-1);
  return last.messages.filter((m) => m.role === 'tool').map((m) => m.content);
}

const call = (command) => ({ tools: [{ name: 'shell', input: { command } }] });

test('a PreToolUse block (Bash matcher on shell): the command does not run, the reason reaches the model', async () => {
  const s = await setup((d) => [hook(d, 'PreToolUse', `if (p.tool_name === 'Bash' && p.tool_input.command.includes('rm ')) ${pre({ permissionDecision: 'deny', permissionDecisionReason: 'rm is forbidden here' })}`, 'Bash')], [call('touch ran; rm -f x'), { text: 'ok' }]);
  try {
    const r = await s.run();
    assert.equal(r.text, 'ok');
    assert.ok(!fs.existsSync(path.join(s.dir, 'ran')), 'the blocked command ran');
    assert.deepEqual(toolMessages(await s.fake.requests()), ['rm is forbidden here']);
  } finally {
    await s.h.close();
    await s.fake.close();
  }
});

test('streamText (streaming Chat Completions): a block and a Stop continuation go through the same options', async () => {
  const s = await setup(
    (d) => [
      hook(d, 'PreToolUse', pre({ permissionDecision: 'deny', permissionDecisionReason: 'STREAM-DENIED' }), 'Bash'),
      hook(d, 'Stop', `if (!p.stop_hook_active) return { decision: 'block', reason: 'GO-ON' };`),
    ],
    [call('touch ran'), { text: 'first' }, { text: 'second' }],
  );
  try {
    const r = ai.streamText(s.h.govern({ model: s.model, tools: { shell: shellTool(s.dir) }, stopWhen: ai.isStepCount(8), prompt: 'go' }));
    assert.equal(await r.text, 'second');
    const reqs = await s.fake.requests();
    assert.ok(reqs.every((q) => q.stream === true));
    assert.ok(!fs.existsSync(path.join(s.dir, 'ran')));
    assert.deepEqual(toolMessages(reqs), ['STREAM-DENIED']);
    assert.deepEqual(reqs.at(-1).messages.at(-1), { role: 'user', content: 'GO-ON' });
  } finally {
    await s.h.close();
    await s.fake.close();
  }
});

test('a call no hook matches runs untouched', async () => {
  const s = await setup((d) => [hook(d, 'PreToolUse', pre({ permissionDecision: 'deny', permissionDecisionReason: 'no writes' }), 'Write')], [call('echo hi > ran; echo out'), { text: 'ok' }]);
  try {
    await s.run();
    assert.ok(fs.existsSync(path.join(s.dir, 'ran')));
    assert.deepEqual(toolMessages(await s.fake.requests()), ['out\n']);
  } finally {
    await s.h.close();
    await s.fake.close();
  }
});

test('updated_input: the tool really runs with the rewritten command', async () => {
  const s = await setup((d) => [hook(d, 'PreToolUse', pre({ permissionDecision: 'allow', updatedInput: { command: 'echo rewritten > out.txt' } }), 'Bash')], [call('echo original > out.txt'), { text: 'ok' }]);
  try {
    await s.run();
    assert.equal(fs.readFileSync(path.join(s.dir, 'out.txt'), 'utf8'), 'rewritten\n');
  } finally {
    await s.h.close();
    await s.fake.close();
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
    assert.ok(JSON.stringify(reqs[0].messages).includes('CTX-PROMPT-go'), 'prompt context missing in the first request');
    assert.deepEqual(toolMessages(reqs), ['out\n\n\nCTX-AFTER-Bash']);
    assert.ok(JSON.stringify(reqs[1].messages).includes('CTX-PROMPT-go'), 'prompt context lost in a later step');
  } finally {
    await s.h.close();
    await s.fake.close();
  }
});

test('a Stop block makes the agent go on with the reason; stop_hook_active ends it', async () => {
  const s = await setup((d) => [hook(d, 'Stop', `if (!p.stop_hook_active) return { decision: 'block', reason: 'RUN-THE-TESTS ' + p.last_assistant_message };`)], [{ text: 'first answer' }, { text: 'second answer' }]);
  try {
    const r = await s.run();
    const reqs = await s.fake.requests();
    assert.equal(reqs.length, 2);
    const last = reqs[1].messages.at(-1);
    assert.deepEqual([last.role, last.content], ['user', 'RUN-THE-TESTS first answer']);
    assert.equal(r.text, 'second answer');
  } finally {
    await s.h.close();
    await s.fake.close();
  }
});

test('continue:false ends the run (RunStopped), no further request, the command not run', async () => {
  const s = await setup((d) => [hook(d, 'PreToolUse', `return { continue: false, stopReason: 'HALT-NOW' };`, 'Bash')], [call('touch ran'), { text: 'never' }]);
  try {
    await assert.rejects(s.run(), (e) => e instanceof RunStopped && e.reason === 'HALT-NOW');
    assert.ok(!fs.existsSync(path.join(s.dir, 'ran')));
    assert.equal((await s.fake.requests()).length, 1);
  } finally {
    await s.h.close();
    await s.fake.close();
  }
});

test('a UserPromptSubmit block ends the run before any request', async () => {
  const s = await setup((d) => [hook(d, 'UserPromptSubmit', `return { decision: 'block', reason: 'NOT-THIS-PROMPT' };`)], [{ text: 'never' }]);
  try {
    await assert.rejects(s.run(), (e) => e instanceof RunStopped && e.message.includes('NOT-THIS-PROMPT'));
    assert.equal((await s.fake.requests()).length, 0);
  } finally {
    await s.h.close();
    await s.fake.close();
  }
});

test('system_message reaches the callback', async () => {
  const got = [];
  const s = await setup((d) => [hook(d, 'PreToolUse', `return { systemMessage: 'NOTE-' + p.tool_input.command };`, 'Bash')], [call('echo a'), { text: 'ok' }], { onSystemMessage: (t) => got.push(t) });
  try {
    await s.run();
    assert.deepEqual(got, ['NOTE-echo a']);
  } finally {
    await s.h.close();
    await s.fake.close();
  }
});

for (const approved of [true, false]) {
  test(`ask: ai's tool approval request; the user ${approved ? 'approves: the command runs' : 'refuses: it does not run, the model reads why'}`, async () => {
    const s = await setup((d) => [hook(d, 'PreToolUse', pre({ permissionDecision: 'ask', permissionDecisionReason: 'ASK-USER' }), 'Bash')], [call('touch ran; echo did'), { text: 'ok' }]);
    try {
      const first = await s.run();
      const request = first.content.find((p) => p.type === 'tool-approval-request');
      assert.ok(request, 'no tool-approval-request');
      assert.equal(request.reason, 'ASK-USER');
      assert.ok(!fs.existsSync(path.join(s.dir, 'ran')), 'ran before approval');
      const messages = [
        { role: 'user', content: 'go' },
        ...first.response.messages,
        { role: 'tool', content: [{ type: 'tool-approval-response', approvalId: request.approvalId, approved, reason: approved ? undefined : 'USER-SAID-NO' }] },
      ];
      await s.run({ prompt: undefined, messages });
      assert.equal(fs.existsSync(path.join(s.dir, 'ran')), approved);
      assert.deepEqual(toolMessages(await s.fake.requests()), [approved ? 'did\n' : 'USER-SAID-NO']);
    } finally {
      await s.h.close();
      await s.fake.close();
    }
  });
}

test('ask settled by the gate approve callback when set', async () => {
  const seen = [];
  const s = await setup((d) => [hook(d, 'PreToolUse', pre({ permissionDecision: 'ask', permissionDecisionReason: 'ASK-USER' }), 'Bash')], [call('touch ran'), { text: 'ok' }], {
    approve: (name, input, reason) => (seen.push([name, input.command, reason]), false),
  });
  try {
    await s.run();
    assert.deepEqual(seen, [['Bash', 'touch ran', 'ASK-USER']]);
    assert.ok(!fs.existsSync(path.join(s.dir, 'ran')));
    assert.match(toolMessages(await s.fake.requests())[0], /ASK-USER \(approval required; none was given\)/);
  } finally {
    await s.h.close();
    await s.fake.close();
  }
});

test('an engine error blocks: a closed engine refuses the tool call (fail closed)', async () => {
  const { dir, home } = makeProject({});
  process.env.HOME = home;
  const gate = new Gate({ projectDir: dir });
  const engine = await gate.getEngine();
  await engine.close();
  const fake = await startFakeModel('chat', [call('touch ran'), { text: 'ok' }]);
  const model = createOpenAICompatible({ name: 'openai', baseURL: fake.url, apiKey: 'x' }).chatModel('fake-model');
  await ai.generateText({ model, tools: governTools({ shell: shellTool(dir) }, gate), stopWhen: ai.isStepCount(4), prompt: 'go' });
  assert.ok(!fs.existsSync(path.join(dir, 'ran')), 'the command ran although the engine failed');
  assert.match(toolMessages(await fake.requests())[0], /PreToolUse could not be decided/);
  await gate.close();
});

test('an engine error on the prompt (engine gone) ends the run before the model', async () => {
  const { dir, home } = makeProject({});
  process.env.HOME = home;
  const gate = new Gate({ projectDir: dir });
  await (await gate.getEngine()).close();
  const fake = await startFakeModel('chat', [call('touch ran')]);
  const model = createOpenAICompatible({ name: 'openai', baseURL: fake.url, apiKey: 'x' }).chatModel('fake-model');
  const h = withHooks({ gate });
  try {
    await assert.rejects(ai.generateText(h.govern({ model, tools: { shell: shellTool(dir) }, prompt: 'go' })), (e) => e instanceof RunStopped && /UserPromptSubmit could not be decided/.test(e.message));
    assert.equal((await fake.requests()).length, 0);
  } finally {
    await gate.close();
    await fake.close();
  }
});

test('the example: its guard blocks rm -rf, the answer is printed', async () => {
  const { dir, home } = makeProject({});
  fs.writeFileSync(
    path.join(dir, '.claude', 'settings.json'),
    JSON.stringify({ hooks: hook(dir, 'PreToolUse', pre({ permissionDecision: 'deny', permissionDecisionReason: 'GUARD: no rm -rf' }), 'Bash') }),
  );
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
