// autohand's tool loop on @hookexec/node: its hooks live in ~/.autohand/config.json with
// kebab-case events; a pre-tool hook can refuse a command, and every fire is also announced
// as autohand's JSON-RPC notification (autohand.hook.preTool, ...), which autohand forwards
// to its UI.
//
//   node build/examples/autohand.mjs      (after `make npm`)
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { open } from '@hookexec/node';

export interface Summary {
  calls: Array<{ tool: string; blocked: boolean; reason: string }>;
  notifications: string[];
  log: string[];
}

export async function run(print: (line: string) => void = () => {}): Promise<Summary> {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'autohand-'));
  const project = path.join(home, 'project');
  const logFile = path.join(home, 'tools.log');
  try {
    fs.mkdirSync(path.join(home, '.autohand'), { recursive: true });
    fs.mkdirSync(project);
    const config = {
      hooks: {
        enabled: true,
        hooks: [
          {
            event: 'pre-tool',
            description: 'Block rm -rf',
            matcher: '^run_command$',
            command: 'input=$(cat); case "$input" in *"rm -rf"*) echo "Blocked dangerous rm command" >&2; exit 2;; esac',
          },
          { event: 'post-tool', description: 'Log tool use', command: `echo "$HOOK_EVENT $HOOK_TOOL" >> '${logFile}'` },
        ],
      },
    };
    fs.writeFileSync(path.join(home, '.autohand', 'config.json'), JSON.stringify(config, null, 2));
    const engine = await open({ profile: 'autohand', projectDir: project, home });
    const summary: Summary = { calls: [], notifications: [], log: [] };
    engine.onNotification(({ method }) => summary.notifications.push(method));
    try {
      const calls: Array<[string, Record<string, unknown>]> = [
        ['read_file', { path: 'README.md' }],
        ['run_command', { command: 'rm -rf /' }],
        ['run_command', { command: 'npm test' }],
      ];
      for (const [tool, args] of calls) {
        const pre = await engine.fire('pre-tool', { tool_name: tool, tool_input: args, tool_use_id: `call-${summary.calls.length}` });
        summary.calls.push({ tool, blocked: pre.blocked, reason: pre.reason });
        print(`${tool} ${JSON.stringify(args)}: ${pre.blocked ? `refused (${pre.reason})` : 'runs'}`);
        if (!pre.blocked) await engine.fire('post-tool', { tool_name: tool, tool_input: args, tool_response: 'ok' });
      }
    } finally {
      await engine.close();
    }
    summary.log = fs.readFileSync(logFile, 'utf8').trim().split('\n');
    print(`notifications: ${summary.notifications.join(', ')}`);
    print(`tools.log: ${JSON.stringify(summary.log)}`);
    return summary;
  } finally {
    fs.rmSync(home, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  run((line) => console.log(line)).catch((err: unknown) => {
    console.error(`autohand: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  });
}
