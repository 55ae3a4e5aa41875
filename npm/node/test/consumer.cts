// A CommonJS TypeScript consumer, type-checked with tsc --strict by `make test-npm` (the ES
// module side is checked by examples/*.mts). Each @ts-expect-error is a mistake the types
// must catch: if one stops being an error, the check fails.
import hookexec = require('@hookexec/node');
import { open, Server, ConfigError, HookexecError, type FireResult, type Decision, type Evaluator, type AsyncResult } from '@hookexec/node';
// A framework adapter's types check without its framework installed (none is, here).
import { Gate } from '@hookexec/node/integrations';
import { govern, hookexecHooks, type HookOutput } from '@hookexec/node/claude-agent-sdk';
import { Hookexec, PromptBlocked, type AgentLike } from '@hookexec/node/openai-agents';

export async function consumer(): Promise<Decision> {
  const engine = await open({ profile: 'claude', projectDir: '.', env: { CI: '1' }, maxStopBlocks: -1, trust: 'project' });
  const r: FireResult = await engine.fire('PreToolUse', { tool_name: 'Bash', tool_input: { command: 'ls' } });
  const blocked: boolean = r.blocked;
  const exitCodes: number[] = r.hooks.map((h) => h.exit_code);
  const input = r.updated_input?.['command'];
  const stop: () => void = engine.onAsync((a: AsyncResult) => void a.hook.stdout);
  stop();
  const judge: Evaluator = async (type, hook, payload) => ({ ok: type === 'prompt' && hook['prompt'] !== payload['x'], reason: 'why' });
  engine.setEvaluator(judge);
  engine.setEvaluator(null);
  const drained: string[] = await engine.drain();
  await engine.close();
  const server = hookexec.Server.start({ bin: '/usr/bin/hookexec', processEnv: { PATH: '/usr/bin' } });
  const other = await server.open({ profile: 'mycode' });
  void (await other.match('PreToolUse', 'Bash')).ids.length;
  await server.close();
  void [blocked, exitCodes, input, drained, Server];
  const governed = govern(({ prompt }: { prompt: string; options?: { cwd?: string } }) => (async function* () { yield prompt; })());
  void governed({ prompt: 'go' });
  const preToolUse = hookexecHooks(new Gate({ projectDir: '.' }))['PreToolUse'];
  const out: HookOutput | undefined = await preToolUse?.[0]?.hooks[0]?.({ hook_event_name: 'Stop' }, undefined, { signal: new AbortController().signal });
  void out;
  // @ts-expect-error: govern takes the SDK's query function
  govern('query');
  const hx = new Hookexec({ run: async (agent: AgentLike, input: unknown) => ({ agent, input, history: [] }), projectDir: '.', maxStopBlocks: 2 });
  const agent: AgentLike = { name: 'a', tools: [], clone: () => agent };
  void (await hx.run(agent, 'go').catch((e: unknown) => e instanceof PromptBlocked));
  void hx.tool({ type: 'function', name: 'shell', invoke: async () => 'ok', needsApproval: async () => false });
  await hx.close();
  // @ts-expect-error: maxStopBlocks is a number
  new Hookexec({ maxStopBlocks: 'many' });

  // @ts-expect-error: options are camelCase (projectDir)
  await open({ project_dir: '.' });
  // @ts-expect-error: trust is "all" or "project"
  await open({ trust: 'some' });
  // @ts-expect-error: a decision is none, allow, ask or deny
  const wrong: Decision = 'block';
  // @ts-expect-error: fire's payload is an object
  await engine.fire('Stop', 'payload');
  // @ts-expect-error: an evaluator answers {ok} or {exit_code}
  engine.setEvaluator(async () => ({ verdict: true }));
  // @ts-expect-error: blocked is a boolean
  const n: number = r.blocked;
  void [wrong, n];

  try {
    await open({ profile: 'nope' });
  } catch (err) {
    if (err instanceof ConfigError) return err.code === -32002 ? 'deny' : 'none';
    if (err instanceof HookexecError) return 'ask';
  }
  return r.decision;
}
