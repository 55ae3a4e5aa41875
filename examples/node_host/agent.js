#!/usr/bin/env node
'use strict';
// A small agent loop in Node driving real hooks through `hookexec serve --stdio`, the way a
// TypeScript agent (AutoAgent, autohand, mycode) would: before each tool call it fires
// PreToolUse (a guard may block it), runs the tool, fires PostToolUse (a formatter fixes
// what the tool wrote), and when the "model" is done it fires Stop (a hook may send it back
// to work). The hooks are the demo's: examples/configs/demo/settings.json, examples/hooks/.
//
//   make build/hookexec && node examples/node_host/agent.js

const { execSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { Hookexec } = require('./hookexec');

const EXAMPLES = path.join(__dirname, '..');

function runTool(project, name, args) {
  switch (name) {
    case 'bash_execute':
      return execSync(args.command, { cwd: project, encoding: 'utf8' }).trim().split('\n').slice(0, 3);
    case 'write_file':
      fs.writeFileSync(args.file_path, args.content);
      return [`wrote ${args.content.length} bytes`];
    case 'replace_in_file':
      fs.writeFileSync(args.file_path, fs.readFileSync(args.file_path, 'utf8').replace(args.old, args.new));
      return ['replaced'];
    default:
      return [`(remote tool ${name} called)`];
  }
}

/** Runs the scripted session; returns what happened, for the tests. print(line) narrates. */
async function runAgent({ bin, print = () => {} } = {}) {
  const project = fs.mkdtempSync(path.join(os.tmpdir(), 'hookexec-node-'));
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'hookexec-node-home-'));
  const hx = Hookexec.start({ bin, cwd: project });
  const log = [];
  try {
    fs.mkdirSync(path.join(project, '.config', 'agent'), { recursive: true });
    fs.copyFileSync(path.join(EXAMPLES, 'configs', 'demo', 'settings.json'), path.join(project, '.config', 'agent', 'settings.json'));
    const app = path.join(project, 'app.py');
    const script = [
      ['bash_execute', { command: 'echo hello from the agent' }],
      ['bash_execute', { command: 'rm -rf /' }],
      ['write_file', { file_path: app, content: 'def main():   \n    return 1  \n# @unfinished: add tests\n' }],
      ['github:create_issue', { title: 'Add tests' }],
    ];
    const eng = await hx.open({
      profile: 'cli-agent', project_dir: project, home, session_id: 'node-demo',
      env: { HOOKS: path.join(EXAMPLES, 'hooks') },
    });
    for (const [name, input] of script) {
      print(`\n> model calls ${name} ${JSON.stringify(input).slice(0, 60)}`);
      const pre = await eng.fire('PreToolUse', { tool_name: name, tool_input: input });
      log.push({ event: 'PreToolUse', tool: name, blocked: pre.blocked, reason: pre.reason });
      print(`  PreToolUse: ${pre.blocked ? 'BLOCKED' : 'allowed'} (${pre.matched} hook(s))${pre.reason ? ` — ${pre.reason}` : ''}`);
      if (pre.blocked) continue;
      const args = pre.updated_input || input;
      const output = runTool(project, name, args);
      print(`  tool output: ${JSON.stringify(output)}`);
      const post = await eng.fire('PostToolUse', { tool_name: name, tool_input: args, tool_response: output.join('\n') });
      log.push({ event: 'PostToolUse', tool: name, hooks: post.hooks.map((h) => h.id) });
      print(`  PostToolUse: ${post.matched} hook(s) ${post.hooks.map((h) => h.id).join(', ')}`);
    }
    for (const attempt of [1, 2]) {
      print(`\n> model says it is done (attempt ${attempt})`);
      const stop = await eng.fire('Stop', { stop_hook_active: attempt > 1 });
      log.push({ event: 'Stop', blocked: stop.blocked, reason: stop.reason });
      print(`  Stop: ${stop.blocked ? `BLOCKED — ${stop.reason}` : 'allowed'}`);
      if (!stop.blocked) break;
      print('  agent keeps going: it finishes the @unfinished work');
      runTool(project, 'replace_in_file', { file_path: app, old: '# @unfinished: add tests\n', new: '' });
    }
    const finalApp = fs.readFileSync(app, 'utf8');
    const mcpLog = fs.readFileSync(path.join(project, 'mcp.log'), 'utf8').trim();
    print(`\nfinal app.py:\n${finalApp.split('\n').map((l) => `  | ${l}`).join('\n')}`);
    print(`mcp.log: ${mcpLog}`);
    await eng.close();
    return { log, finalApp, mcpLog };
  } finally {
    await hx.stop();
    fs.rmSync(project, { recursive: true, force: true });
    fs.rmSync(home, { recursive: true, force: true });
  }
}

module.exports = { runAgent };

if (require.main === module) {
  runAgent({ print: (line) => console.log(line) }).catch((err) => {
    console.error(`agent: ${err.message}`);
    process.exit(1);
  });
}
