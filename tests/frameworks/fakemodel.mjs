// The TypeScript twin of conftest.py's FakeModel: the fake model API (build/fakeapi) on
// 127.0.0.1, whose record of requests the tests check (what reached the model).
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const EXAMPLES = path.join(ROOT, 'examples', 'frameworks');

/** Starts the fake of `api` ("anthropic", "chat", "responses", "gemini") with a script of turns. */
export async function startFakeModel(api, script, side = '') {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fakemodel-'));
  const scriptFile = path.join(dir, 'script.json');
  const record = path.join(dir, 'record.jsonl');
  fs.writeFileSync(scriptFile, JSON.stringify(script));
  const args = ['-api', api, '-script', scriptFile, '-record', record];
  if (side) args.push('-side', side);
  const proc = spawn(path.join(ROOT, 'build', 'fakeapi'), args, { stdio: ['ignore', 'pipe', 'inherit'] });
  const [url] = await once(createInterface({ input: proc.stdout }), 'line');
  if (!String(url).startsWith('http://127.0.0.1:')) {
    proc.kill('SIGKILL');
    throw new Error(`fakeapi did not start (first line ${url}); run make build/fakeapi`);
  }
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    if (proc.exitCode === null) {
      const exited = once(proc, 'exit');
      proc.kill('SIGTERM');
      await exited;
    }
  };
  const all = async () => {
    await close();
    if (!fs.existsSync(record)) return [];
    return fs.readFileSync(record, 'utf8').split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l));
  };
  return {
    url,
    close,
    /** Every request as recorded: {path, body, main, at}; stops the server first. */
    allRequests: all,
    /** The main conversation's request bodies (requests that carried tools). */
    requests: async () => (await all()).filter((r) => r.main).map((r) => r.body),
    /** Every main request body as one JSON text. */
    text: async () => (await all()).filter((r) => r.main).map((r) => JSON.stringify(r.body)).join('\n'),
  };
}

/** A project directory with its own HOME and .claude/settings.json. */
export function makeProject(hooks, more = {}) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fwproject-'));
  const home = path.join(dir, 'home');
  fs.mkdirSync(path.join(dir, '.claude'), { recursive: true });
  fs.mkdirSync(home);
  fs.writeFileSync(path.join(dir, '.claude', 'settings.json'), JSON.stringify({ hooks, ...more }, null, 2));
  return { dir, home };
}
