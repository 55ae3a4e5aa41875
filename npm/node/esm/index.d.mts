// Types of the ES module entry point: the CommonJS build's (esm/index.mjs re-exports it).
export * from '../dist/cjs/index.js';
import * as cjs from '../dist/cjs/index.js';
export default cjs;
