// mycode's tool loop on @hookexec/node: hooks in .gen/settings.json (Claude Code's shape,
// timeouts in ms); `blocking: true` makes any non-zero exit block, and $FILE_PATH in a
// command is the tool's file, quoted. A PostToolUse hook formats what Write wrote.
//
//   node build/examples/mycode.mjs        (after `make npm`)
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { open, type Engine } from '@hookexec/node';

export interface Summary {
  blocked: Array<{ tool: string; reason: string }>;
  file: string;
}

const settings = {
  hooks: {
    PreToolUse: [
      { matcher: 'Bash', hooks: [{ type: 'command', command: 'grep -q sudo && { echo "no sudo here" >&2; exit 1; }; exit 0', blocking: true, timeout: 5000 }] },
    ],
    PostToolUse: [{ matcher: 'Write|Edit', hooks: [{ type: 'command', command: "sed -i 's/[ \\t]*$//' $FILE_PATH", timeout: 5000 }] }],
  },
};

async function tool(engine: Engine, summary: Summary, name: string, input: { [key: string]: string }, act: () => void): Promise<void> {
  const pre = await engine.fire('PreToolUse', { tool_name: name, tool_input: input });
  if (pre.blocked) {
    summary.blocked.push({ tool: name, reason: pre.reason });
    return;
  }
  act();
  await engine.fire('PostToolUse', { tool_name: name, tool_input: input, tool_response: 'done' });
}

export async function run(print: (line: string) => void = () => {}): Promise<Summary> {
  const project = fs.mkdtempSync(path.join(os.tmpdir(), 'mycode-'));
  try {
    fs.mkdirSync(path.join(project, '.gen'));
    fs.writeFileSync(path.join(project, '.gen', 'settings.json'), JSON.stringify(settings, null, 2));
    const engine = await open({ profile: 'mycode', projectDir: project, home: project });
    const summary: Summary = { blocked: [], file: '' };
    const file = path.join(project, 'my notes.txt'); // a space: $FILE_PATH arrives quoted
    try {
      await tool(engine, summary, 'Bash', { command: 'sudo make install' }, () => {});
      await tool(engine, summary, 'Write', { file_path: file, content: 'hello   \nworld\t\n' }, () => fs.writeFileSync(file, 'hello   \nworld\t\n'));
    } finally {
      await engine.close();
    }
    summary.file = fs.readFileSync(file, 'utf8');
    print(`blocked: ${JSON.stringify(summary.blocked)}`);
    print(`after the formatter: ${JSON.stringify(summary.file)}`);
    return summary;
  } finally {
    fs.rmSync(project, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  run((line) => console.log(line)).catch((err: unknown) => {
    console.error(`mycode: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  });
}
