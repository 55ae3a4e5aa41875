// make bench's mastra rows: `examples/frameworks/env.sh mastra node tests/frameworks/mastra/bench.mjs`.
// The call goes through the Mastra tool object's execute (createTool's validation included), no model.
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';

import { bench } from '../benchtool.mjs';
import { EXAMPLES } from '../fakemodel.mjs';

const req = createRequire(path.join(EXAMPLES, 'mastra', 'package.json'));
const { createTool } = await import(pathToFileURL(req.resolve('@mastra/core/tools')).href);
const { z } = await import(pathToFileURL(req.resolve('zod')).href);
const { withHooks } = req('@hookexec/node/mastra');

let n = 0;
await bench('mastra', {
  makeTool: (dir) => createTool({ id: 'shell', description: 'sh', inputSchema: z.object({ command: z.string() }), execute: async ({ command }) => execFileSync('sh', ['-c', command], { cwd: dir, encoding: 'utf8' }) }),
  govern: async (tool, dir) => {
    const hooks = withHooks({ projectDir: dir });
    return [hooks.tools({ shell: tool }).shell, () => hooks.close()];
  },
  call: (tool) => tool.execute({ command: 'true' }, { agent: { toolCallId: `call_${++n}` } }),
});
