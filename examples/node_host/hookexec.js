'use strict';
// A client of `hookexec serve --stdio` for Node, standard library only: one child process,
// JSON-RPC 2.0 one message a line over its pipes, any number of requests in flight.
//
//   const { Hookexec } = require('./hookexec');
//   const hx = Hookexec.start();                       // spawns build/hookexec serve --stdio
//   const eng = await hx.open({ profile: 'claude', project_dir: '.' });
//   const r = await eng.fire('PreToolUse', { tool_name: 'Bash', tool_input: { command: 'ls' } });
//   if (r.blocked) console.log('blocked:', r.reason);
//   await hx.stop();                                    // closes engines; async hooks finish

const { spawn } = require('node:child_process');
const { EventEmitter } = require('node:events');
const path = require('node:path');
const readline = require('node:readline');

const DEFAULT_BIN = process.env.HOOKEXEC_BIN || path.join(__dirname, '..', '..', 'build', 'hookexec');

/** An error the server answered with; code is the JSON-RPC error code. */
class HookexecError extends Error {
  constructor(code, message) {
    super(message);
    this.name = 'HookexecError';
    this.code = code;
  }
}

/**
 * One serve process. Events: 'notification' (method, params) for every notification,
 * 'async' (params) for results of async hooks, 'exit' (code).
 */
class Hookexec extends EventEmitter {
  static start({ bin = DEFAULT_BIN, cwd, env } = {}) {
    const child = spawn(bin, ['serve', '--stdio'], { cwd, env: env || process.env, stdio: ['pipe', 'pipe', 'inherit'] });
    return new Hookexec(child);
  }

  constructor(child) {
    super();
    this.child = child;
    this.nextId = 0;
    this.pending = new Map(); // id → {resolve, reject}
    this.evaluators = new Map(); // engine id → async (type, hook, payload) => answer
    this.exited = new Promise((resolve, reject) => {
      child.on('error', reject);
      child.on('exit', (code) => {
        for (const { reject: fail } of this.pending.values()) fail(new HookexecError(-32000, 'hookexec serve exited'));
        this.pending.clear();
        this.emit('exit', code);
        resolve(code);
      });
    });
    readline.createInterface({ input: child.stdout }).on('line', (line) => this._receive(line));
  }

  _receive(line) {
    if (!line.trim()) return;
    const msg = JSON.parse(line);
    for (const m of Array.isArray(msg) ? msg : [msg]) {
      if (m.method !== undefined && m.id !== undefined) {
        this._serve(m);
      } else if (m.method !== undefined) {
        this.emit('notification', m.method, m.params);
        if (m.method === 'hookexec.async') this.emit('async', m.params);
      } else {
        const p = this.pending.get(m.id);
        if (!p) continue;
        this.pending.delete(m.id);
        if (m.error) p.reject(new HookexecError(m.error.code, m.error.message));
        else p.resolve(m.result);
      }
    }
  }

  // The server asks us to evaluate a prompt, agent or mcp_tool hook.
  async _serve(req) {
    const reply = (body) => this._write({ jsonrpc: '2.0', id: req.id, ...body });
    const fn = req.method === 'hookexec.evaluate' && this.evaluators.get(req.params.engine);
    if (!fn) {
      reply({ error: { code: -32601, message: `no handler for ${req.method}` } });
      return;
    }
    try {
      reply({ result: await fn(req.params.type, req.params.hook, req.params.payload) });
    } catch (err) {
      reply({ error: { code: -32000, message: String(err && err.message ? err.message : err) } });
    }
  }

  _write(msg) {
    this.child.stdin.write(JSON.stringify(msg) + '\n');
  }

  /** Sends one request; resolves with its result or rejects with a HookexecError. */
  request(method, params) {
    const id = ++this.nextId;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this._write({ jsonrpc: '2.0', id, method, params });
    });
  }

  /**
   * Opens an engine. options are hookexec_open's (profile, project_dir, home, sources,
   * config, env, ...); evaluate(type, hook, payload) answers prompt/agent/mcp_tool hooks
   * with {ok, reason} or {exit_code, stdout, stderr}.
   */
  async open(options = {}, evaluate) {
    const params = { ...options };
    if (evaluate) params.evaluate = true;
    const { engine } = await this.request('open', params);
    if (evaluate) this.evaluators.set(engine, evaluate);
    return new Engine(this, engine);
  }

  /** Ends the session: engines close (async hooks finish), then the process exits. */
  async stop() {
    this.child.stdin.end();
    return this.exited;
  }
}

class Engine {
  constructor(client, id) {
    this.client = client;
    this.id = id;
  }

  fire(event, payload = {}) {
    return this.client.request('fire', { engine: this.id, event, payload });
  }

  match(event, subject = '') {
    return this.client.request('match', { engine: this.id, event, subject });
  }

  explain(event, payload = {}) {
    return this.client.request('explain', { engine: this.id, event, payload });
  }

  config() {
    return this.client.request('config', { engine: this.id });
  }

  reload() {
    return this.client.request('reload', { engine: this.id });
  }

  async drain() {
    return (await this.client.request('drain', { engine: this.id })).output;
  }

  close() {
    this.client.evaluators.delete(this.id);
    return this.client.request('close', { engine: this.id });
  }
}

module.exports = { Hookexec, Engine, HookexecError };
