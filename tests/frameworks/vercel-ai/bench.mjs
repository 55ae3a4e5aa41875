// make bench's vercel-ai rows: `examples/frameworks/env.sh vercel-ai node tests/frameworks/vercel-ai/bench.mjs`.
// The call goes through the ai tool object's execute (what ai's executeTools calls), no model.
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';

import { bench } from '../benchtool.mjs';
import { EXAMPLES } from '../fakemodel.mjs';

const req = createRequire(path.join(EXAMPLES, 'vercel-ai', 'package.json'));
const ai = await import(pathToFileURL(req.resolve('ai')).href);
const { z } = await import(pathToFileURL(req.resolve('zod')).href);
const { governTools } = req('@hookexec/node/vercel-ai');
const { Gate } = req('@hookexec/node/integrations');

let n = 0;
await bench('vercel-ai', {
  makeTool: (dir) => ai.tool({ inputSchema: z.object({ command: z.string() }), execute: async ({ command }) => execFileSync('sh', ['-c', command], { cwd: dir, encoding: 'utf8' }) }),
  govern: async (tool, dir) => {
    const gate = new Gate({ projectDir: dir });
    return [governTools({ shell: tool }, gate).shell, () => gate.close()];
  },
  call: (tool) => tool.execute({ command: 'true' }, { toolCallId: `call_${++n}`, messages: [] }),
});
