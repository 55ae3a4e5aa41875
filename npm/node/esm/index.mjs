// The ES module entry point: the CommonJS build re-exported, so that `import` and `require`
// share one module instance (one set of error classes for instanceof, one VERSION).
import cjs from '../dist/cjs/index.js';

export const {
  VERSION,
  HookexecError,
  InvalidArgumentError,
  ConfigError,
  ClosedError,
  ProtocolError,
  BinaryNotFoundError,
  platformPackage,
  binaryPath,
  Server,
  Engine,
  open,
} = cjs;
export default cjs;
