// @hookexec/node/mastra as an ES module: the CommonJS build re-exported (one module instance
// for import and require; the adapter never imports @mastra/core at run time).
import cjs from '../dist/cjs/integrations/mastra.js';

export const { MastraHooks, withHooks } = cjs;
export default cjs;
