// The telemetry option of @hookexec/node (its engine runs in `hookexec serve --stdio`),
// checked against the real OpenTelemetry Collector (build/otelcol, `make build/otelcol`;
// $HOOKEXEC_OTELCOL when set) writing what it receives to a file: the fire's span and its
// hook's span arrive, under the host's TRACEPARENT, over gRPC and HTTP. The Go tests
// (core/telemetry, tests/otelcoltest) check the rest against the same collector; this is the
// end-to-end proof for the TypeScript binding's option, as tests/python/test_telemetry.py is
// for the C library's.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { open } from '@hookexec/node';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const COLLECTOR = process.env.HOOKEXEC_OTELCOL || path.join(REPO, 'build', 'otelcol');
const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const PARENT = '00f067aa0ba902b7';
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

// startCollector runs the collector on two free ports with a file exporter; stopped at t's end.
async function startCollector(t, dir) {
  const [grpc, http] = [await freePort(), await freePort()];
  const out = path.join(dir, 'traces.jsonl');
  const cfg = path.join(dir, 'otelcol.yaml');
  fs.writeFileSync(cfg, 'receivers:\n  otlp:\n    protocols:\n'
    + `      grpc:\n        endpoint: 127.0.0.1:${grpc}\n      http:\n        endpoint: 127.0.0.1:${http}\n`
    + `exporters:\n  file:\n    path: ${JSON.stringify(out)}\n`
    + 'service:\n  telemetry:\n    metrics:\n      level: none\n'
    + '  pipelines:\n    traces:\n      receivers: [otlp]\n      exporters: [file]\n');
  const child = spawn(COLLECTOR, ['--config', `file:${cfg}`], { stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  let exited = false;
  child.stdout.on('data', (b) => { log += b; });
  child.stderr.on('data', (b) => { log += b; });
  child.on('exit', () => { exited = true; });
  t.after(() => { if (!exited) child.kill('SIGTERM'); });
  for (const deadline = Date.now() + 60_000; !log.includes('Everything is ready');) { // a hang guard
    assert.ok(!exited && Date.now() < deadline, `the collector did not start:\n${log}`);
    await sleep(50);
  }
  return { grpc: `http://127.0.0.1:${grpc}`, 'http/protobuf': `http://127.0.0.1:${http}`, out };
}

function spans(file) {
  if (!fs.existsSync(file)) return [];
  const all = [];
  for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
    if (!line.trim()) continue;
    for (const rs of JSON.parse(line).resourceSpans ?? []) {
      for (const ss of rs.scopeSpans ?? []) all.push(...(ss.spans ?? []));
    }
  }
  return all;
}

for (const protocol of ['grpc', 'http/protobuf']) {
  test(`telemetry over ${protocol} reaches the real collector under the host's TRACEPARENT`, async (t) => {
    if (!fs.existsSync(COLLECTOR)) {
      if (process.env.HOOKEXEC_REQUIRE_COLLECTOR === '1') assert.fail(`${COLLECTOR} is missing: make build/otelcol`);
      t.skip(`${COLLECTOR} is missing: make build/otelcol`);
      return;
    }
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hookexec-npm-otel-'));
    t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
    const collector = await startCollector(t, dir);
    const engine = await open({
      profile: 'claude', projectDir: dir, home: dir, sources: [],
      config: { hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: "echo 'no rm' >&2; exit 2" }] }] } },
      env: { TRACEPARENT: `00-${TRACE}-${PARENT}-01` },
      telemetry: { enabled: true, endpoint: collector[protocol], protocol, serviceName: 'hookexec-node' },
    });
    const r = await engine.fire('PreToolUse', { tool_name: 'Bash', tool_input: { command: 'rm -rf /' } });
    assert.equal(r.blocked, true);
    await engine.close(); // flushes
    let got = spans(collector.out);
    for (const deadline = Date.now() + 30_000; got.length < 2 && Date.now() < deadline;) { // a hang guard
      await sleep(50);
      got = spans(collector.out);
    }
    const fire = got.filter((s) => s.name === 'fire PreToolUse');
    assert.equal(fire.length, 1, JSON.stringify(got));
    assert.equal(fire[0].traceId, TRACE);
    assert.equal(fire[0].parentSpanId, PARENT);
    const hook = got.filter((s) => s.name.startsWith('execute_hook '));
    assert.equal(hook.length, 1);
    assert.equal(hook[0].parentSpanId, fire[0].spanId);
    const attrs = Object.fromEntries(hook[0].attributes.map((a) => [a.key, a.value]));
    assert.deepEqual(attrs['gen_ai.operation.name'], { stringValue: 'execute_hook' });
  });
}
