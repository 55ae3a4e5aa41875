// @hookexec/node/claude-agent-sdk as an ES module: the CommonJS build re-exported.
import cjs from '../dist/cjs/integrations/claude-agent-sdk.js';

export const { CLAUDE_EVENTS, outputOf, hookexecHooks, hookexecOptions, govern } = cjs;
export default cjs;
