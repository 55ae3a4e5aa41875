// AutoAgent's issue loop on @hookexec/node: before working an issue it fires
// PreExecutionStart (a hook may refuse the issue), after it PostExecutionEnd, where the
// git-commit built-in commits the work as "Complete issue #N: title". The hooks are
// AutoAgent's own format, in the workspace's .autoagent/config.json.
//
//   node build/examples/autoagent.mjs     (after `make npm`)
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { open, type FireResult } from '@hookexec/node';

interface Issue {
  number: number;
  title: string;
}

export interface Summary {
  started: Array<{ issue: number; blocked: boolean; reason: string }>;
  commits: string[];
}

const config = {
  hooks: {
    PreExecutionStart: [
      // AutoAgent blocks a Pre* event on exit 2; {{issueTitle}} is substituted, quoted.
      { type: 'command', command: `case {{issueTitle}} in WIP*) echo "issue {{issueNumber}} is still WIP" >&2; exit 2;; esac` },
    ],
    PostExecutionEnd: [{ type: 'git-commit', message: 'Complete issue #{{issueNumber}}: {{issueTitle}}' }],
  },
};

export async function run(print: (line: string) => void = () => {}): Promise<Summary> {
  const workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'autoagent-'));
  const git = (...args: string[]): string => execFileSync('git', args, { cwd: workspace, encoding: 'utf8' }).trim();
  try {
    git('init', '-q');
    git('config', 'user.email', 'agent@example.com');
    git('config', 'user.name', 'AutoAgent');
    fs.mkdirSync(path.join(workspace, '.autoagent'));
    fs.writeFileSync(path.join(workspace, '.autoagent', 'config.json'), JSON.stringify(config, null, 2));
    const engine = await open({ profile: 'autoagent', projectDir: workspace, home: workspace, sessionId: 'autoagent-demo' });
    const summary: Summary = { started: [], commits: [] };
    try {
      const issues: Issue[] = [
        { number: 1, title: 'Add a README' },
        { number: 2, title: 'WIP: rewrite everything' },
        { number: 3, title: "Fix the user's login" },
      ];
      for (const issue of issues) {
        const pre: FireResult = await engine.fire('PreExecutionStart', { issueNumber: issue.number, issueTitle: issue.title });
        summary.started.push({ issue: issue.number, blocked: pre.blocked, reason: pre.reason });
        print(`issue #${issue.number}: ${pre.blocked ? `refused (${pre.reason})` : 'started'}`);
        if (pre.blocked) continue;
        fs.writeFileSync(path.join(workspace, `issue-${issue.number}.md`), `${issue.title}\n`);
        const post = await engine.fire('PostExecutionEnd', { issueNumber: issue.number, issueTitle: issue.title, success: true });
        print(`  PostExecutionEnd: ${post.hooks.map((h) => `${h.exec} exit ${h.exit_code}`).join(', ')}`);
      }
    } finally {
      await engine.close();
    }
    summary.commits = git('log', '--format=%s', '--reverse').split('\n');
    print(`git log: ${JSON.stringify(summary.commits)}`);
    return summary;
  } finally {
    fs.rmSync(workspace, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  run((line) => console.log(line)).catch((err: unknown) => {
    console.error(`autoagent: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  });
}
