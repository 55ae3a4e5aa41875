// The bench shared by the TypeScript framework adapters: one real tool call (the shell tool
// running `true`) through the framework's tool object, rows in turns (ABCABC...): baseline
// without the adapter, the adapter with no matching hook, the adapter with a persistent guard
// (a "persistent": true command hook, docs/persistent.md). Prints
// framework<TAB>NAME<TAB>row<TAB>median_us<TAB>ratio_to_baseline.

import { makeProject } from './fakemodel.mjs';

const GUARD = `while IFS= read -r line; do case "$line" in *'rm -rf'*) printf '{"exit_code":2,"stderr":"no"}\\n';; *) printf '{}\\n';; esac; done`;

/**
 * name: the framework; makeTool(dir): its shell tool; govern(tool, dir): [the governed tool,
 * close]; call(tool): one call of it through the framework's execute.
 */
export async function bench(name, { makeTool, govern, call, rounds = Number(process.env.BENCH_ROUNDS || 200) }) {
  const settings = {
    'no matching hook': { PreToolUse: [{ matcher: 'Write', hooks: [{ type: 'command', command: 'exit 0' }] }] },
    'persistent guard': { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: GUARD, persistent: true }] }] },
  };
  const rows = [];
  const closers = [];
  {
    const { dir } = makeProject({});
    rows.push({ row: 'baseline', tool: makeTool(dir), times: [] });
  }
  for (const [row, hooks] of Object.entries(settings)) {
    const { dir, home } = makeProject(hooks);
    process.env.HOME = home;
    const [tool, close] = await govern(makeTool(dir), dir);
    closers.push(close);
    rows.push({ row, tool, times: [] });
  }
  for (const r of rows) await call(r.tool); // warm up (engine start, persistent process)
  for (let i = 0; i < rounds; i++) {
    for (const r of rows) {
      const t0 = process.hrtime.bigint();
      await call(r.tool);
      r.times.push(Number(process.hrtime.bigint() - t0) / 1000);
    }
  }
  for (const c of closers) await c();
  const median = (a) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)];
  const base = median(rows[0].times);
  for (const r of rows) {
    const m = median(r.times);
    console.log(['framework', name, r.row, m.toFixed(0), (m / base).toFixed(2)].join('\t'));
  }
}
