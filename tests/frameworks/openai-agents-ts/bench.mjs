// make bench's row for @openai/agents: one shell call through the SDK's function-tool path
// without a model round trip, as the runner drives it (needsApproval, the tool input
// guardrails, invoke, the tool output guardrails), on the real tool({...}) object. Rows in
// turns: baseline (the app's tool), the governed tool with no matching hook, the governed tool
// with a persistent guard. Run: examples/frameworks/env.sh openai-agents-ts node tests/frameworks/openai-agents-ts/bench.mjs [ROUNDS]
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { createRequire } from 'node:module';
import { makeProject, EXAMPLES } from '../fakemodel.mjs';

const require = createRequire(path.join(EXAMPLES, 'openai-agents-ts', 'package.json'));
const { RunContext, tool } = require('@openai/agents');
const { z } = require('zod');
const { Hookexec } = await import(require.resolve('@hookexec/node/openai-agents'));

const rounds = Number(process.argv[2] ?? 30);
const guard = path.join(fs.mkdtempSync('/tmp/bench-guard-'), 'guard.sh');
// A persistent guard (docs/persistent.md): one JSON payload a line in, one answer a line out.
fs.writeFileSync(guard, '#!/bin/sh\nwhile read -r line; do echo "{}"; done\n', { mode: 0o755 });
const shell = tool({
  name: 'shell',
  description: 'Runs a shell command with sh -c.',
  parameters: z.object({ command: z.string() }),
  execute: ({ command }) => spawnSync('sh', ['-c', command], { encoding: 'utf8' }).stdout,
});

function governed(hooks) {
  const project = makeProject(hooks);
  const hx = new Hookexec({ run: async () => { throw new Error('bench: no run'); }, projectDir: project.dir, engineOptions: { home: project.home } });
  return { hx, tool: hx.tool(shell) };
}
const rows = {
  baseline: { tool: shell },
  'adapter, no matching hook': governed({ PreToolUse: [{ matcher: 'Write', hooks: [{ type: 'command', command: 'exit 0' }] }] }),
  'adapter, persistent guard': governed({ PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: guard, persistent: true }] }] }),
};

let n = 0;
async function once(t) {
  const ctx = new RunContext();
  const toolCall = { type: 'function_call', callId: `call_${++n}`, name: 'shell', arguments: JSON.stringify({ command: 'true' }) };
  const started = process.hrtime.bigint();
  if (await t.needsApproval(ctx, JSON.parse(toolCall.arguments), toolCall.callId)) throw new Error('bench: the call needs approval');
  for (const g of t.inputGuardrails ?? []) if ((await g.run({ context: ctx, toolCall })).behavior.type !== 'allow') throw new Error('bench: refused');
  const output = await t.invoke(ctx, toolCall.arguments, { toolCall });
  for (const g of t.outputGuardrails ?? []) if ((await g.run({ context: ctx, toolCall, output })).behavior.type !== 'allow') throw new Error('bench: output refused');
  return Number(process.hrtime.bigint() - started) / 1000;
}

for (const row of Object.values(rows)) await once(row.tool); // warm up (engines open, guard started)
const samples = Object.fromEntries(Object.keys(rows).map((k) => [k, []]));
for (let i = 0; i < rounds; i++) for (const [name, row] of Object.entries(rows)) samples[name].push(await once(row.tool));
for (const row of Object.values(rows)) await row.hx?.close();
const median = (xs) => { const s = [...xs].sort((a, b) => a - b); return s[Math.floor(s.length / 2)]; };
const base = median(samples.baseline);
for (const name of Object.keys(rows)) {
  const m = median(samples[name]);
  console.log(`framework\topenai-agents-ts\t${name}\t${Math.round(m)}\t${(m / base).toFixed(2)}`);
}
