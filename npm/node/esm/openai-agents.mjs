// @hookexec/node/openai-agents as an ES module: the CommonJS build re-exported.
import cjs from '../dist/cjs/integrations/openai-agents.js';

export const { Hookexec, PromptBlocked, govern } = cjs;
export default cjs;
