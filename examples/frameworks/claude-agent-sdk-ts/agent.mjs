// A Claude Agent SDK agent governed by hookexec: Claude Code's own Bash tool, the hooks of
// ./.claude/settings.json through hookexec (once: Claude Code's own hook runner is off), the
// model at ANTHROPIC_BASE_URL with ANTHROPIC_API_KEY, the final answer printed.
import { query } from '@anthropic-ai/claude-agent-sdk';
import { govern } from '@hookexec/node/claude-agent-sdk';

const prompt = process.argv.slice(2).join(' ');
if (!prompt) {
  console.error('usage: run PROMPT');
  process.exit(2);
}
const options = {
  cwd: process.cwd(),
  allowedTools: ['Bash'],
  permissionMode: 'bypassPermissions',
  allowDangerouslySkipPermissions: true,
  ...(process.env.HOOKEXEC_EXAMPLE_MODEL ? { model: process.env.HOOKEXEC_EXAMPLE_MODEL } : {}),
};
let answer = '';
for await (const m of govern(query)({ prompt, options })) {
  if (m.type === 'result') answer = m.subtype === 'success' ? m.result : `(${m.subtype})`;
}
console.log(answer);
