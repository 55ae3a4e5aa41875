// Hook commands for the TypeScript framework tests: a node script that reads the event's
// payload on stdin and prints the answer `answer(payload)` returns (nothing for null), so a
// test's hook can answer only the calls it means (e.g. commands containing "rm").
import * as fs from 'node:fs';
import * as path from 'node:path';

let n = 0;

/** A command hook entry for settings.json: `answer` is a JS function body over `p` (the payload). */
export function hook(dir, event, answerBody, matcher) {
  const file = path.join(dir, `hook${++n}.cjs`);
  fs.writeFileSync(
    file,
    `const p = JSON.parse(require('fs').readFileSync(0, 'utf8'));\n` +
      `const a = (() => { ${answerBody} })();\n` +
      `if (a != null) process.stdout.write(JSON.stringify(a));\n`,
  );
  const entry = { hooks: [{ type: 'command', command: `node ${JSON.stringify(file)}` }] };
  if (matcher !== undefined) entry.matcher = matcher;
  return { [event]: [entry] };
}
