// @hookexec/node/integrations as an ES module: the CommonJS build re-exported (one module
// instance for import and require).
import cjs from '../dist/cjs/integrations/index.js';

export const { Gate, RunStopped, BLOCKING_EVENTS, blocked, feedback, DEFAULT_TOOL_NAMES } = cjs;
export default cjs;
