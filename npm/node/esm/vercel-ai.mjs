// @hookexec/node/vercel-ai as an ES module: the CommonJS build re-exported (one module
// instance for import and require; the adapter never imports `ai` at run time).
import cjs from '../dist/cjs/integrations/vercel-ai.js';

export const { VercelHooks, withHooks, governTools, approvedInMessages } = cjs;
export default cjs;
