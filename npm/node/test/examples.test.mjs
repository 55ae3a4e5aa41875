// The AutoAgent, autohand and mycode hosts (examples/*.mts, compiled by `make npm` into
// build/examples) run against the real binary: each seed agent's own hook format, driven
// through the package.
import { test } from 'node:test';
import assert from 'node:assert/strict';

import * as autoagent from '../build/examples/autoagent.mjs';
import * as autohand from '../build/examples/autohand.mjs';
import * as mycode from '../build/examples/mycode.mjs';

test('AutoAgent: a WIP issue is refused before it starts; finished issues are committed by the git-commit built-in', async () => {
  const s = await autoagent.run();
  assert.deepEqual(
    s.started.map((x) => [x.issue, x.blocked]),
    [
      [1, false],
      [2, true],
      [3, false],
    ],
  );
  assert.equal(s.started[1].reason, 'issue 2 is still WIP');
  assert.deepEqual(s.commits, ['Complete issue #1: Add a README', "Complete issue #3: Fix the user's login"]);
});

test('autohand: pre-tool refuses rm -rf; every fire is announced as autohand notifications, in order', async () => {
  const s = await autohand.run();
  assert.deepEqual(
    s.calls.map((c) => [c.tool, c.blocked]),
    [
      ['read_file', false],
      ['run_command', true],
      ['run_command', false],
    ],
  );
  assert.equal(s.calls[1].reason, 'Blocked dangerous rm command');
  assert.deepEqual(s.notifications, ['autohand.hook.preTool', 'autohand.hook.postTool', 'autohand.hook.preTool', 'autohand.hook.preTool', 'autohand.hook.postTool']);
  assert.deepEqual(s.log, ['post-tool read_file', 'post-tool run_command']);
});

test('mycode: a blocking hook refuses sudo; the formatter gets the quoted $FILE_PATH of a file with a space', async () => {
  const s = await mycode.run();
  assert.deepEqual(s.blocked, [{ tool: 'Bash', reason: 'no sudo here' }]);
  assert.equal(s.file, 'hello\nworld\n');
});
