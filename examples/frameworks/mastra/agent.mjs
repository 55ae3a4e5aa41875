// A Mastra agent with one tool, `shell`, governed by the hooks in the current directory's
// .claude/settings.json (`shell` is matched as Bash). The model: OPENAI_BASE_URL (Chat
// Completions; default OpenAI's), OPENAI_API_KEY, HOOKEXEC_EXAMPLE_MODEL.
import { execFileSync } from 'node:child_process';

import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { withHooks } from '@hookexec/node/mastra';
import { Agent } from '@mastra/core/agent';
import { createTool } from '@mastra/core/tools';
import { z } from 'zod';

const prompt = process.argv.slice(2).join(' ');
if (!prompt) {
  console.error('usage: run PROMPT');
  process.exit(2);
}

const shell = createTool({
  id: 'shell',
  description: 'Run a shell command (sh -c) in the current directory; returns its output.',
  inputSchema: z.object({ command: z.string() }),
  execute: async ({ command }) => {
    try {
      return execFileSync('sh', ['-c', command], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    } catch (err) {
      return `exit ${err.status}: ${err.stdout ?? ''}${err.stderr ?? ''}`;
    }
  },
});

const provider = createOpenAICompatible({
  name: 'openai',
  baseURL: process.env.OPENAI_BASE_URL || 'https://api.openai.com/v1',
  apiKey: process.env.OPENAI_API_KEY,
});

const hooks = withHooks();
const agent = new Agent({
  id: 'shell-agent',
  name: 'shell-agent',
  instructions: 'You run shell commands with the shell tool to do what the user asks.',
  model: provider.chatModel(process.env.HOOKEXEC_EXAMPLE_MODEL || 'gpt-4o-mini'),
  tools: hooks.tools({ shell }),
});
try {
  const result = await hooks.generate(agent, prompt, { maxSteps: 20 });
  console.log(result.text);
} catch (err) {
  if (err?.name !== 'RunStopped') throw err;
  console.log(`stopped by a hook: ${err.message}`);
} finally {
  await hooks.close();
}
