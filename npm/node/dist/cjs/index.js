"use strict";
// @hookexec/node: hookexec for Node and TypeScript hosts.
//
// An engine is a `hookexec serve --stdio` child process speaking JSON-RPC 2.0, one message a
// line (docs/serve.md); this module is its client, shaped like the Python binding:
//
//   import { open } from '@hookexec/node';
//   const engine = await open({ profile: 'claude', projectDir: '.' });
//   const r = await engine.fire('PreToolUse', { tool_name: 'Bash', tool_input: { command: 'ls' } });
//   if (r.blocked) console.log('blocked:', r.reason);
//   await engine.close();
//
// The binary is found the way esbuild finds its own: $HOOKEXEC_BIN when set (and only then),
// else the `hookexec` inside the platform package (@hookexec/linux-x64, ...) npm installed
// from optionalDependencies. The module does not run hooks itself, does not parse hook
// configuration, and never writes to the host's stdout or stderr.
var __createBinding = (this && this.__createBinding) || (Object.create ? (function(o, m, k, k2) {
    if (k2 === undefined) k2 = k;
    var desc = Object.getOwnPropertyDescriptor(m, k);
    if (!desc || ("get" in desc ? !m.__esModule : desc.writable || desc.configurable)) {
      desc = { enumerable: true, get: function() { return m[k]; } };
    }
    Object.defineProperty(o, k2, desc);
}) : (function(o, m, k, k2) {
    if (k2 === undefined) k2 = k;
    o[k2] = m[k];
}));
var __setModuleDefault = (this && this.__setModuleDefault) || (Object.create ? (function(o, v) {
    Object.defineProperty(o, "default", { enumerable: true, value: v });
}) : function(o, v) {
    o["default"] = v;
});
var __importStar = (this && this.__importStar) || (function () {
    var ownKeys = function(o) {
        ownKeys = Object.getOwnPropertyNames || function (o) {
            var ar = [];
            for (var k in o) if (Object.prototype.hasOwnProperty.call(o, k)) ar[ar.length] = k;
            return ar;
        };
        return ownKeys(o);
    };
    return function (mod) {
        if (mod && mod.__esModule) return mod;
        var result = {};
        if (mod != null) for (var k = ownKeys(mod), i = 0; i < k.length; i++) if (k[i] !== "default") __createBinding(result, mod, k[i]);
        __setModuleDefault(result, mod);
        return result;
    };
})();
Object.defineProperty(exports, "__esModule", { value: true });
exports.Engine = exports.Server = exports.BinaryNotFoundError = exports.ProtocolError = exports.ClosedError = exports.ConfigError = exports.InvalidArgumentError = exports.HookexecError = exports.VERSION = void 0;
exports.platformPackage = platformPackage;
exports.binaryPath = binaryPath;
exports.open = open;
const node_child_process_1 = require("node:child_process");
const fs = __importStar(require("node:fs"));
const path = __importStar(require("node:path"));
const readline = __importStar(require("node:readline"));
/** This package's version; the binary it finds is the same release. */
exports.VERSION = readVersion();
function readVersion() {
    const pkg = JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', 'package.json'), 'utf8'));
    return pkg.version;
}
// ---------------------------------------------------------------------------------------
// Errors
/** Every error this package raises; `code` is the JSON-RPC error code (0 for local errors). */
class HookexecError extends Error {
    code;
    constructor(message, code = 0) {
        super(message);
        this.name = new.target.name;
        this.code = code;
    }
}
exports.HookexecError = HookexecError;
/** -32602: the options or a method's params were rejected (unknown option, bad type, ...). */
class InvalidArgumentError extends HookexecError {
}
exports.InvalidArgumentError = InvalidArgumentError;
/** -32002: the options name a configuration that cannot be used (bad JSON, bad matcher, ...). */
class ConfigError extends HookexecError {
}
exports.ConfigError = ConfigError;
/** -32001 or -32003: the engine was closed (or its server is gone). */
class ClosedError extends HookexecError {
}
exports.ClosedError = ClosedError;
/** The server broke the protocol or failed inside (-32700, -32600, -32601, -32603, ...). */
class ProtocolError extends HookexecError {
}
exports.ProtocolError = ProtocolError;
/** No hookexec binary: neither $HOOKEXEC_BIN nor a platform package; `tried` lists where. */
class BinaryNotFoundError extends HookexecError {
    tried;
    constructor(message, tried) {
        super(message);
        this.tried = tried;
    }
}
exports.BinaryNotFoundError = BinaryNotFoundError;
function errorFor(code, message) {
    switch (code) {
        case -32602:
            return new InvalidArgumentError(message, code);
        case -32002:
            return new ConfigError(message, code);
        case -32001:
        case -32003:
            return new ClosedError(message, code);
        default:
            return new ProtocolError(message, code);
    }
}
const OPTION_NAMES = {
    profile: 'profile',
    projectDir: 'project_dir',
    home: 'home',
    sources: 'sources',
    config: 'config',
    defaultTimeoutMs: 'default_timeout_ms',
    killGraceMs: 'kill_grace_ms',
    maxParallel: 'max_parallel',
    outputCapBytes: 'output_cap_bytes',
    closeTimeoutMs: 'close_timeout_ms',
    sessionId: 'session_id',
    transcriptPath: 'transcript_path',
    env: 'env',
    notifications: 'notifications',
    plugins: 'plugins',
    managedSettings: 'managed_settings',
    maxStopBlocks: 'max_stop_blocks',
    logFile: 'log_file',
    trust: 'trust',
    trustStore: 'trust_store',
};
const CLIENT_OPTIONS = new Set(['bin', 'cwd', 'processEnv', 'evaluator']);
/** The options as the server's `open` takes them; unknown names are an error, as in hookexec_open. */
function wireOptions(options) {
    const out = {};
    for (const [key, value] of Object.entries(options)) {
        if (value === undefined)
            continue;
        const wire = OPTION_NAMES[key];
        if (wire !== undefined)
            out[wire] = value;
        else if (!CLIENT_OPTIONS.has(key))
            throw new InvalidArgumentError(`hookexec: unknown option "${key}"`);
    }
    return out;
}
// ---------------------------------------------------------------------------------------
// Finding the binary
/** The platform package for this machine, esbuild-style: @hookexec/<platform>-<arch>. */
function platformPackage(platform = process.platform, arch = process.arch) {
    return `@hookexec/${platform}-${arch}`;
}
/** The hookexec binary: $HOOKEXEC_BIN (only there, when set), else the platform package's. */
function binaryPath() {
    const override = process.env.HOOKEXEC_BIN;
    if (override) {
        if (!fs.existsSync(override))
            throw new BinaryNotFoundError(`hookexec: HOOKEXEC_BIN=${override} does not exist`, [override]);
        return override;
    }
    const pkg = platformPackage();
    const exe = process.platform === 'win32' ? 'hookexec.exe' : 'hookexec';
    let dir;
    try {
        dir = path.dirname(require.resolve(`${pkg}/package.json`));
    }
    catch {
        throw new BinaryNotFoundError(`hookexec: no binary for ${process.platform}-${process.arch}: the optional dependency ${pkg} is not installed ` +
            `(reinstall without --no-optional / --omit=optional, or set HOOKEXEC_BIN to a hookexec binary)`, [pkg]);
    }
    const bin = path.join(dir, 'bin', exe);
    if (!fs.existsSync(bin))
        throw new BinaryNotFoundError(`hookexec: ${pkg} has no ${path.join('bin', exe)}`, [bin]);
    return bin;
}
/**
 * One `hookexec serve --stdio` process. `open()` starts one per engine; start a Server to
 * share a process between engines (each `server.open()` is its own engine).
 */
class Server {
    child;
    nextId = 0;
    pending = new Map();
    engines = new Map();
    exitError;
    stderrTail = '';
    /** Resolves with the exit code once the process ended. */
    exited;
    static start(options = {}) {
        return new Server(options);
    }
    constructor(options) {
        const bin = options.bin ?? binaryPath();
        this.child = (0, node_child_process_1.spawn)(bin, ['serve', '--stdio'], { cwd: options.cwd, env: options.processEnv ?? process.env, stdio: ['pipe', 'pipe', 'pipe'] });
        this.child.stderr.setEncoding('utf8');
        this.child.stderr.on('data', (chunk) => {
            this.stderrTail = (this.stderrTail + chunk).slice(-4096);
        });
        // A write after the process died is reported through the pending requests.
        this.child.stdin.on('error', () => { });
        this.exited = new Promise((resolve) => {
            const fail = (err, code) => {
                this.exitError = err;
                for (const p of this.pending.values())
                    p.reject(err);
                this.pending.clear();
                resolve(code);
            };
            this.child.on('error', (err) => fail(new ProtocolError(`hookexec: cannot run ${bin}: ${err.message}`), null));
            this.child.on('close', (code, signal) => {
                const why = signal ? `signal ${signal}` : `status ${code}`;
                const tail = this.stderrTail.trim();
                fail(new ClosedError(`hookexec: serve exited (${why})${tail ? `: ${tail}` : ''}`, -32001), code);
            });
        });
        readline.createInterface({ input: this.child.stdout, crlfDelay: Infinity }).on('line', (line) => this.receive(line));
    }
    /** The server process's id. */
    get pid() {
        return this.child.pid;
    }
    /** Opens an engine on this server (bin, cwd and processEnv are the server's: not allowed here). */
    open(options = {}) {
        for (const key of ['bin', 'cwd', 'processEnv']) {
            if (key in options)
                return Promise.reject(new InvalidArgumentError(`hookexec: "${key}" is an option of Server.start, not of server.open`));
        }
        return this.openEngine(options, false);
    }
    /** @internal */
    async openEngine(options, ownsServer) {
        const params = wireOptions(options);
        params.evaluate = true; // evaluators may be set later; unanswered types fail like the library's
        const { engine } = (await this.request('open', params));
        const eng = new Engine(this, engine, ownsServer);
        if (options.evaluator)
            eng.setEvaluator(options.evaluator);
        this.engines.set(engine, eng);
        return eng;
    }
    /** Ends input: the server closes every engine (async hooks finish) and exits. */
    async close() {
        if (!this.child.stdin.writableEnded)
            this.child.stdin.end();
        await this.exited;
    }
    /** Sends one request; resolves with its result or rejects with a HookexecError. */
    request(method, params) {
        if (this.exitError)
            return Promise.reject(this.exitError);
        const id = ++this.nextId;
        return new Promise((resolve, reject) => {
            this.pending.set(id, { resolve, reject });
            this.write({ jsonrpc: '2.0', id, method, params });
        });
    }
    /** @internal */
    forget(engine) {
        this.engines.delete(engine);
    }
    write(msg) {
        if (this.child.stdin.writableEnded)
            return;
        this.child.stdin.write(JSON.stringify(msg) + '\n');
    }
    receive(line) {
        if (!line.trim())
            return;
        let parsed;
        try {
            parsed = JSON.parse(line);
        }
        catch {
            const err = new ProtocolError(`hookexec: serve wrote a line that is not JSON: ${line.slice(0, 200)}`);
            for (const p of this.pending.values())
                p.reject(err);
            this.pending.clear();
            return;
        }
        for (const m of (Array.isArray(parsed) ? parsed : [parsed])) {
            if (m.method !== undefined && m.id !== undefined && m.id !== null) {
                void this.serve(m);
            }
            else if (m.method !== undefined) {
                this.notify(m.method, m.params);
            }
            else if (typeof m.id === 'number') {
                const p = this.pending.get(m.id);
                if (!p)
                    continue;
                this.pending.delete(m.id);
                if (m.error)
                    p.reject(errorFor(m.error.code, m.error.message));
                else
                    p.resolve(m.result);
            }
        }
    }
    notify(method, params) {
        const eng = this.engines.get(params?.engine);
        if (eng)
            eng.deliver(method, params);
    }
    // The server asks for a prompt/agent/mcp_tool hook's answer.
    async serve(req) {
        const params = (req.params ?? {});
        const reply = (body) => this.write({ jsonrpc: '2.0', id: req.id, ...body });
        const eng = req.method === 'hookexec.evaluate' ? this.engines.get(params.engine) : undefined;
        const fn = eng?.evaluator;
        if (req.method !== 'hookexec.evaluate') {
            reply({ error: { code: -32601, message: `no handler for ${req.method}` } });
            return;
        }
        if (!fn) {
            reply({ error: { code: -32000, message: `no evaluator is registered (engine.setEvaluator) for ${params.type} hooks` } });
            return;
        }
        try {
            reply({ result: await fn(params.type ?? '', params.hook ?? {}, params.payload ?? {}) });
        }
        catch (err) {
            reply({ error: { code: -32000, message: err instanceof Error ? err.message : String(err) } });
        }
    }
}
exports.Server = Server;
/** One engine: fire events, read results. Methods are safe to call concurrently. */
class Engine {
    server;
    id;
    ownsServer;
    /** @internal */
    evaluator;
    closed = false;
    listeners = {
        async: new Set(),
        status: new Set(),
        rewake: new Set(),
        notification: new Set(),
    };
    /** @internal */
    constructor(server, id, ownsServer) {
        this.server = server;
        this.id = id;
        this.ownsServer = ownsServer;
    }
    /** Fires an event; resolves with the one decision its hooks reached. */
    async fire(event, payload = {}) {
        return (await this.call('fire', { event, payload }));
    }
    /** Which hooks would run for the event and subject (a tool name, ...), in config order. */
    async match(event, subject = '') {
        return (await this.call('match', { event, subject }));
    }
    /** Why each hook of the event would or would not run for this payload. */
    async explain(event, payload = {}) {
        return (await this.call('explain', { event, payload }));
    }
    /** The loaded configuration: hooks, sources, warnings. */
    async config() {
        return (await this.call('config', {}));
    }
    /** Reads the configuration files again. */
    async reload() {
        await this.call('reload', {});
    }
    /** Takes the piped output still pending (iteratr's final delivery). */
    async drain() {
        return (await this.call('drain', {})).output;
    }
    /** Calls fn with each async hook's result; returns a function that removes it. */
    onAsync(fn) {
        return this.listen(this.listeners.async, fn);
    }
    /** Calls fn as a hook with a statusMessage starts. */
    onStatus(fn) {
        return this.listen(this.listeners.status, fn);
    }
    /** Calls fn when an asyncRewake hook asks to wake the agent. */
    onRewake(fn) {
        return this.listen(this.listeners.rewake, fn);
    }
    /** Calls fn with autohand's JSON-RPC notifications (autohand.hook.preTool, ...), in fire order. */
    onNotification(fn) {
        return this.listen(this.listeners.notification, fn);
    }
    /** Sets (or, with null, removes) the evaluator of prompt, agent and mcp_tool hooks. */
    setEvaluator(fn) {
        if (fn !== null && typeof fn !== 'function')
            throw new InvalidArgumentError('hookexec: setEvaluator takes a function or null');
        this.evaluator = fn ?? undefined;
    }
    /**
     * Closes the engine: async hooks finish first. An engine from open() ends its server too.
     * Closing twice is a no-op.
     */
    async close() {
        if (this.closed)
            return;
        this.closed = true;
        try {
            await this.server.request('close', { engine: this.id });
        }
        catch (err) {
            if (!(err instanceof ClosedError))
                throw err;
        }
        finally {
            this.server.forget(this.id);
            if (this.ownsServer)
                await this.server.close();
        }
    }
    /** @internal */
    deliver(method, params) {
        const { engine: _engine, ...rest } = params;
        const emit = (set, value) => {
            for (const fn of set) {
                try {
                    fn(value);
                }
                catch {
                    // A listener's exception must not stop the others or the protocol.
                }
            }
        };
        switch (method) {
            case 'hookexec.async':
                emit(this.listeners.async, rest);
                break;
            case 'hookexec.status':
                emit(this.listeners.status, rest);
                break;
            case 'hookexec.rewake':
                emit(this.listeners.rewake, rest);
                break;
            default:
                emit(this.listeners.notification, { method, params: rest });
        }
    }
    call(method, params) {
        if (this.closed)
            return Promise.reject(new ClosedError('hookexec: the engine is closed', -32001));
        return this.server.request(method, { engine: this.id, ...params });
    }
    listen(set, fn) {
        if (typeof fn !== 'function')
            throw new InvalidArgumentError('hookexec: a listener is a function');
        set.add(fn);
        return () => {
            set.delete(fn);
        };
    }
}
exports.Engine = Engine;
/**
 * Opens an engine in its own `hookexec serve --stdio` process (closed with the engine).
 * Options are the engine's (camelCase), the process's (bin, cwd, processEnv) and an evaluator.
 */
async function open(options = {}) {
    wireOptions(options); // an unknown option fails before anything is spawned
    const server = Server.start({ bin: options.bin, cwd: options.cwd, processEnv: options.processEnv });
    try {
        return await server.openEngine(options, true);
    }
    catch (err) {
        await server.close();
        throw err;
    }
}
