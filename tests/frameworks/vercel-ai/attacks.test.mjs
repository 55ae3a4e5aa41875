// A model trying to walk past a PreToolUse guard through @hookexec/node/vercel-ai, the real
// `ai` and the fake Chat Completions API.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import { createRequire } from 'node:module';
import * as path from 'node:path';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';

import { EXAMPLES, makeProject, startFakeModel } from '../fakemodel.mjs';
import { hook } from '../hookscript.mjs';

const req = createRequire(path.join(EXAMPLES, 'vercel-ai', 'package.json'));
const load = (name) => import(pathToFileURL(req.resolve(name)).href);
const ai = await load('ai');
const { createOpenAICompatible } = await load('@ai-sdk/openai-compatible');
const { z } = await load('zod');
const { withHooks } = req('@hookexec/node/vercel-ai');

const deny = `if (p.tool_input.command.includes('forbidden')) return { hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: 'forbidden command' } };`;

test('two calls sharing a model-given id: the harmless one\'s verdict does not let the forbidden one run', async () => {
  const { dir, home } = makeProject({});
  fs.writeFileSync(path.join(dir, '.claude', 'settings.json'), JSON.stringify({ hooks: hook(dir, 'PreToolUse', deny, 'Bash') }));
  process.env.HOME = home;
  const fake = await startFakeModel('chat', [
    { tools: [{ id: 'dup', name: 'shell', input: { command: 'echo forbidden > bad' } }, { id: 'dup', name: 'shell', input: { command: 'echo ok > good' } }] },
    { text: 'finished' },
  ]);
  const model = createOpenAICompatible({ name: 'openai', baseURL: fake.url, apiKey: 'x' }).chatModel('fake-model');
  const h = withHooks({ projectDir: dir });
  const shell = ai.tool({
    description: 'Run a shell command',
    inputSchema: z.object({ command: z.string() }),
    execute: async ({ command }) => execFileSync('sh', ['-c', command], { cwd: dir, encoding: 'utf8' }),
  });
  try {
    await ai.generateText(h.govern({ model, tools: { shell }, stopWhen: ai.isStepCount(4), prompt: 'go' })).catch(() => {});
    assert.ok(!fs.existsSync(path.join(dir, 'bad')), 'the forbidden command ran');
  } finally {
    await h.close();
    await fake.close();
  }
});

test('an approval serves only the call it was given for: the same id with another input is not approved', async () => {
  const { approvedInMessages } = await load('@hookexec/node/vercel-ai');
  const turn = (id, input, approvalId) => ({
    role: 'assistant',
    content: [
      { type: 'tool-call', toolCallId: id, toolName: 'shell', input },
      { type: 'tool-approval-request', approvalId, toolCallId: id },
    ],
  });
  const answer = (approvalId, approved) => ({ role: 'tool', content: [{ type: 'tool-approval-response', approvalId, approved }] });
  const safe = { command: 'ls' };
  const evil = { command: 'rm -rf ~' };
  const approvedSafe = [{ role: 'user', content: 'go' }, turn('c1', safe, 'a1'), answer('a1', true)];
  assert.equal(approvedInMessages(approvedSafe, 'c1', safe), true);
  // The model reuses the approved call's id for another input: not approved.
  assert.equal(approvedInMessages(approvedSafe, 'c1', evil), false);
  // A later request for the same id, not yet answered, is what counts: not approved.
  assert.equal(approvedInMessages([...approvedSafe, turn('c1', evil, 'a2')], 'c1', evil), false);
  assert.equal(approvedInMessages([...approvedSafe, turn('c1', evil, 'a2'), answer('a2', false)], 'c1', evil), false);
  assert.equal(approvedInMessages([...approvedSafe, turn('c1', evil, 'a2'), answer('a2', true)], 'c1', evil), true);
});
