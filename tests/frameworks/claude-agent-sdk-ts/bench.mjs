// make bench's row for the Claude Agent SDK: one Bash call through the SDK (Claude Code's
// tool-call path runs in its own process, so the call is timed by the fake model: from the
// request that asked for the tool to the request that carries its result). Rows in turns:
// baseline (the SDK's query, no adapter), adapter with no matching hook, adapter with a
// persistent guard. Run: examples/frameworks/env.sh claude-agent-sdk-ts node tests/frameworks/claude-agent-sdk-ts/bench.mjs [ROUNDS]
import * as fs from 'node:fs';
import * as path from 'node:path';
import { createRequire } from 'node:module';
import { startFakeModel, makeProject, EXAMPLES } from '../fakemodel.mjs';

const require = createRequire(path.join(EXAMPLES, 'claude-agent-sdk-ts', 'package.json'));
const { query } = await import(require.resolve('@anthropic-ai/claude-agent-sdk'));
const { govern } = await import(require.resolve('@hookexec/node/claude-agent-sdk'));

const rounds = Number(process.argv[2] ?? 5);
const guard = path.join(fs.mkdtempSync('/tmp/bench-guard-'), 'guard.sh');
// A persistent guard (docs/persistent.md): one JSON payload a line in, one answer a line out.
fs.writeFileSync(guard, '#!/bin/sh\nwhile read -r line; do echo "{}"; done\n', { mode: 0o755 });
const rows = {
  baseline: { hooks: {}, governed: false },
  'adapter, no matching hook': { hooks: { PreToolUse: [{ matcher: 'Write', hooks: [{ type: 'command', command: 'exit 0' }] }] }, governed: true },
  'adapter, persistent guard': { hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: guard, persistent: true }] }] }, governed: true },
};

async function once(row) {
  const fake = await startFakeModel('anthropic', [{ tools: [{ name: 'Bash', input: { command: 'true' } }] }, { text: 'ok' }]);
  const project = makeProject(row.hooks);
  const env = {
    ...process.env, HOME: project.home, ANTHROPIC_BASE_URL: fake.url, ANTHROPIC_API_KEY: 'sk-ant-fake', IS_SANDBOX: '1',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1', DISABLE_TELEMETRY: '1', DISABLE_AUTOUPDATER: '1', DISABLE_ERROR_REPORTING: '1',
  };
  // The baseline keeps Claude Code's own hook runner off too (no hooks at all), as the adapter does.
  const options = { cwd: project.dir, env, permissionMode: 'bypassPermissions', allowDangerouslySkipPermissions: true, settings: { disableAllHooks: true } };
  const q = row.governed ? govern(query, { engineOptions: { home: project.home } })({ prompt: 'go', options }) : query({ prompt: 'go', options });
  for await (const _ of q) void _;
  const main = (await fake.allRequests()).filter((r) => r.main);
  if (main.length < 2) throw new Error(`bench: the tool call did not come back to the model (${main.length} requests)`);
  return (Date.parse(main[1].at) - Date.parse(main[0].at)) * 1000;
}

const samples = Object.fromEntries(Object.keys(rows).map((k) => [k, []]));
for (let i = 0; i < rounds; i++) for (const [name, row] of Object.entries(rows)) samples[name].push(await once(row));
const median = (xs) => { const s = [...xs].sort((a, b) => a - b); return s[Math.floor(s.length / 2)]; };
const base = median(samples.baseline);
for (const name of Object.keys(rows)) {
  const m = median(samples[name]);
  console.log(`framework\tclaude-agent-sdk-ts\t${name}\t${Math.round(m)}\t${(m / base).toFixed(2)}`);
}
