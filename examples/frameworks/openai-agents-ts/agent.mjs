// An OpenAI Agents SDK agent governed by hookexec: one tool `shell` ({command}) run with sh -c
// in the current directory, the hooks of ./.claude/settings.json (shell → Bash), the model at
// OPENAI_BASE_URL with OPENAI_API_KEY over Chat Completions (HOOKEXEC_EXAMPLE_MODEL names it),
// the final answer printed.
import { spawnSync } from 'node:child_process';
import { Agent, run, setOpenAIAPI, setTracingDisabled, tool } from '@openai/agents';
import { Hookexec } from '@hookexec/node/openai-agents';
import { z } from 'zod';

const prompt = process.argv.slice(2).join(' ');
if (!prompt) {
  console.error('usage: run PROMPT');
  process.exit(2);
}
setOpenAIAPI('chat_completions');
setTracingDisabled(true);

const shell = tool({
  name: 'shell',
  description: 'Runs a shell command with sh -c in the current directory.',
  parameters: z.object({ command: z.string() }),
  execute: ({ command }) => {
    const p = spawnSync('sh', ['-c', command], { encoding: 'utf8' });
    return `exit ${p.status}\n${p.stdout}${p.stderr}`;
  },
});
const agent = new Agent({
  name: 'shell agent',
  instructions: 'Use the shell tool to do what the user asks.',
  tools: [shell],
  ...(process.env.HOOKEXEC_EXAMPLE_MODEL ? { model: process.env.HOOKEXEC_EXAMPLE_MODEL } : {}),
});
const hx = new Hookexec({ run }); // hooks of ./.claude/settings.json
try {
  console.log((await hx.run(agent, prompt)).finalOutput);
} finally {
  await hx.close(); // SessionEnd
}
