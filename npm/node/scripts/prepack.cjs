// npm pack's build (the prepack script): dist/ compiled afresh from src/ by the TypeScript
// the lockfile pins (npm ci first; never a tsc that happens to be on PATH), and the
// repository's LICENSE beside package.json. Without them npm pack fails instead of shipping
// a package whose main and types point at nothing.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { execFileSync } = require('node:child_process');

const here = path.join(__dirname, '..');
let tsc;
try {
  tsc = require.resolve('typescript/bin/tsc', { paths: [here] });
} catch {
  console.error('@hookexec/node: npm pack builds dist/ with the TypeScript in devDependencies: run npm ci first');
  process.exit(1);
}
fs.rmSync(path.join(here, 'dist'), { recursive: true, force: true });
execFileSync(process.execPath, [tsc, '-p', path.join(here, 'tsconfig.json')], { stdio: 'inherit' });
fs.copyFileSync(path.join(here, '..', '..', 'LICENSE'), path.join(here, 'LICENSE'));
