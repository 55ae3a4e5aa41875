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

import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as readline from 'node:readline';

/** This package's version; the binary it finds is the same release. */
export const VERSION: string = readVersion();

function readVersion(): string {
  const pkg = JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', 'package.json'), 'utf8')) as { version: string };
  return pkg.version;
}

// ---------------------------------------------------------------------------------------
// Errors

/** Every error this package raises; `code` is the JSON-RPC error code (0 for local errors). */
export class HookexecError extends Error {
  readonly code: number;
  constructor(message: string, code = 0) {
    super(message);
    this.name = new.target.name;
    this.code = code;
  }
}

/** -32602: the options or a method's params were rejected (unknown option, bad type, ...). */
export class InvalidArgumentError extends HookexecError {}
/** -32002: the options name a configuration that cannot be used (bad JSON, bad matcher, ...). */
export class ConfigError extends HookexecError {}
/** -32001 or -32003: the engine was closed (or its server is gone). */
export class ClosedError extends HookexecError {}
/** The server broke the protocol or failed inside (-32700, -32600, -32601, -32603, ...). */
export class ProtocolError extends HookexecError {}
/** No hookexec binary: neither $HOOKEXEC_BIN nor a platform package; `tried` lists where. */
export class BinaryNotFoundError extends HookexecError {
  readonly tried: string[];
  constructor(message: string, tried: string[]) {
    super(message);
    this.tried = tried;
  }
}

function errorFor(code: number, message: string): HookexecError {
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

// ---------------------------------------------------------------------------------------
// Types: the wire's JSON, field names as hookexec writes them (docs/hook-io.md).

export type Decision = 'none' | 'allow' | 'ask' | 'deny';
/** How a hook ran; the host-evaluated types name themselves. */
export type Exec = 'direct' | 'shell' | 'args' | 'builtin' | 'http' | 'prompt' | 'agent' | 'mcp_tool' | (string & {});
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };
/** A fire's payload: Claude Code's field names (tool_name, tool_input, ...) or the dialect's. */
export type Payload = { [key: string]: unknown };

/** What one hook of a fire did, in config order. */
export interface HookResult {
  id: string;
  source: string;
  matcher: string;
  command: string;
  exec: Exec;
  exit_code: number;
  signal: string;
  timed_out: boolean;
  duration_ms: number;
  stdout: string;
  stderr: string;
  stdout_truncated: boolean;
  stderr_truncated: boolean;
  /** stdout parsed as JSON, else null. */
  output: JsonValue;
  decision: Decision;
  error: string;
  async: boolean;
  http_status: number;
  status_message: string;
}

/** A project hook the fire selected but did not run because it awaits approval. */
export interface Awaiting {
  id: string;
  source: string;
  matcher: string;
  command: string;
}

/** The outcome of one fire: one decision for the event. */
export interface FireResult {
  event: string;
  matched: number;
  blocked: boolean;
  decision: Decision;
  reason: string;
  continue: boolean;
  stop_reason: string;
  /** The tool input a hook rewrote; null when none did. */
  updated_input: { [key: string]: JsonValue } | null;
  additional_context: string;
  system_message: string;
  agent_output: string[];
  env: { [name: string]: string };
  worktree_path: string;
  duration_ms: number;
  warnings: string[];
  hooks: HookResult[];
  updated_tool_output: JsonValue;
  updated_permissions: JsonValue;
  interrupt: boolean;
  retry: boolean;
  session_title: string;
  initial_user_message: string;
  watch_paths: string[];
  reload_skills: boolean;
  terminal_sequence: string;
  /** PostToolUse: each hook's classifierContext, for an auto-mode classifier (2,000 UTF-16 units shared). */
  classifier_context: string[];
  awaiting_approval: Awaiting[];
}

/** The result of an `async: true` hook, once it finished. */
export interface AsyncResult {
  event: string;
  hook: HookResult;
  blocked: boolean;
  decision: Decision;
  reason: string;
}

/** A hook with a statusMessage started: show it while the hook runs. */
export interface StatusEvent {
  event: string;
  hook: string;
  status_message: string;
}

/** An asyncRewake hook exited 2 in the background: wake the agent with `message`. */
export interface RewakeEvent {
  event: string;
  hook: string;
  message: string;
  result: HookResult;
}

export interface MatchResult {
  count: number;
  ids: string[];
}

/** The engine's loaded configuration (docs/configuration.md); read-only JSON. */
export interface EngineConfig {
  hooks: Array<{ id: string; event: string; matcher: string; type: string; source: string; [key: string]: JsonValue }>;
  sources: JsonValue;
  warnings: string[];
  [key: string]: JsonValue;
}

/** An evaluator's answer: a verdict, or output read like a command's. */
export type EvaluatorAnswer = { ok: boolean; reason?: string } | { exit_code: number; stdout?: string; stderr?: string };
/**
 * Answers prompt, agent and mcp_tool hooks: `type` is the hook's type, `hook` its
 * definition, `payload` the event's. A rejection is a hook error (the hook's
 * failClosed/blocking settings decide what it does to the fire).
 */
export type Evaluator = (type: string, hook: { [key: string]: JsonValue }, payload: Payload) => EvaluatorAnswer | Promise<EvaluatorAnswer>;

/** Engine options: hookexec_open's (docs/configuration.md), in camelCase. */
export interface EngineOptions {
  /** cli-agent (default), claude, mycode, autohand, autoagent, iteratr. */
  profile?: string;
  /** The project; default the server's working directory. */
  projectDir?: string;
  /** The home directory user-level files are read from; default $HOME. */
  home?: string;
  /** Files replacing the profile's locations; [] for none (only `config`). */
  sources?: string[];
  /** An inline config object, highest precedence. */
  config?: { [key: string]: unknown };
  /** The dialect `config` is written in ("claude" by default; "cursor", "gemini", "codex", ...). */
  configDialect?: string;
  defaultTimeoutMs?: number;
  killGraceMs?: number;
  maxParallel?: number;
  outputCapBytes?: number;
  closeTimeoutMs?: number;
  sessionId?: string;
  transcriptPath?: string;
  /** Added to every hook's environment. */
  env?: { [name: string]: string };
  notifications?: boolean;
  plugins?: string[];
  managedSettings?: string;
  maxStopBlocks?: number;
  logFile?: string;
  trust?: 'all' | 'project';
  trustStore?: string;
  /** The hash-chained audit log (docs/observability.md "Audit log"); default $HOOKEXEC_AUDIT_LOG, else none. */
  auditLog?: string;
  /** A file holding the audit log's HMAC key; default $HOOKEXEC_AUDIT_KEY_FILE, else plain SHA-256. */
  auditKeyFile?: string;
  /** Rotate the audit log past this size; 0: $HOOKEXEC_AUDIT_MAX_BYTES, else 64 MiB; negative: never. */
  auditMaxBytes?: number;
  /** The policy bundle's bundle.json (docs/policy.md "Bundles"); "-" means no bundle. */
  bundleConfig?: string;
  /** OpenTelemetry export of every fire (docs/observability.md); unset means
   *  $HOOKEXEC_TELEMETRY and the OTEL_* variables of the server's environment decide. */
  telemetry?: TelemetryOptions;
}

/** The engine's `telemetry` option; every field optional, each wins over its OTEL_* variable. */
export interface TelemetryOptions {
  /** On or off; unset means $HOOKEXEC_TELEMETRY. OTEL_SDK_DISABLED=true turns it off regardless. */
  enabled?: boolean;
  /** The OTLP endpoint, as OTEL_EXPORTER_OTLP_ENDPOINT (http://localhost:4318 by default). */
  endpoint?: string;
  protocol?: 'grpc' | 'http/protobuf';
  /** The resource's service.name; default OTEL_SERVICE_NAME, else "hookexec". */
  serviceName?: string;
  /** Sent with every export (an API key); default OTEL_EXPORTER_OTLP_HEADERS. */
  headers?: { [name: string]: string };
  /** Export payloads, reasons, commands and hook errors too; default $HOOKEXEC_TELEMETRY_CONTENT. */
  logContent?: boolean;
}

const TELEMETRY_NAMES: { [K in keyof TelemetryOptions]-?: string } = {
  enabled: 'enabled',
  endpoint: 'endpoint',
  protocol: 'protocol',
  serviceName: 'service_name',
  headers: 'headers',
  logContent: 'log_content',
};

/** The telemetry option as the server takes it; unknown names are an error, as at the top level. */
function wireTelemetry(t: TelemetryOptions): { [key: string]: unknown } {
  const out: { [key: string]: unknown } = {};
  for (const [key, value] of Object.entries(t)) {
    if (value === undefined) continue;
    const wire = (TELEMETRY_NAMES as { [key: string]: string })[key];
    if (wire === undefined) throw new InvalidArgumentError(`hookexec: unknown telemetry option "${key}"`);
    out[wire] = value;
  }
  return out;
}

/** How to start `hookexec serve --stdio`. */
export interface ServerOptions {
  /** The binary; default $HOOKEXEC_BIN, else the platform package's. */
  bin?: string;
  /** The server's working directory (where a relative projectDir is resolved). */
  cwd?: string;
  /** The server's environment (the hooks' start from it); default process.env. */
  processEnv?: NodeJS.ProcessEnv;
}

export interface OpenOptions extends EngineOptions, ServerOptions {
  /** Answers prompt/agent/mcp_tool hooks; same as calling setEvaluator after open. */
  evaluator?: Evaluator;
}

const OPTION_NAMES: { [K in keyof EngineOptions]-?: string } = {
  profile: 'profile',
  projectDir: 'project_dir',
  home: 'home',
  sources: 'sources',
  config: 'config',
  configDialect: 'config_dialect',
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
  auditLog: 'audit_log',
  auditKeyFile: 'audit_key_file',
  auditMaxBytes: 'audit_max_bytes',
  telemetry: 'telemetry',
  bundleConfig: 'bundle_config',
};
const CLIENT_OPTIONS = new Set(['bin', 'cwd', 'processEnv', 'evaluator']);

/** The options as the server's `open` takes them; unknown names are an error, as in hookexec_open. */
function wireOptions(options: OpenOptions): { [key: string]: unknown } {
  const out: { [key: string]: unknown } = {};
  for (const [key, value] of Object.entries(options)) {
    if (value === undefined) continue;
    const wire = (OPTION_NAMES as { [key: string]: string })[key];
    if (wire === 'telemetry') out[wire] = wireTelemetry(value as TelemetryOptions);
    else if (wire !== undefined) out[wire] = value;
    else if (!CLIENT_OPTIONS.has(key)) throw new InvalidArgumentError(`hookexec: unknown option "${key}"`);
  }
  return out;
}

// ---------------------------------------------------------------------------------------
// Finding the binary

/** The platform package for this machine, esbuild-style: @hookexec/<platform>-<arch>. */
export function platformPackage(platform: string = process.platform, arch: string = process.arch): string {
  return `@hookexec/${platform}-${arch}`;
}

/** The hookexec binary: $HOOKEXEC_BIN (only there, when set), else the platform package's. */
export function binaryPath(): string {
  const override = process.env.HOOKEXEC_BIN;
  if (override) {
    if (!fs.existsSync(override)) throw new BinaryNotFoundError(`hookexec: HOOKEXEC_BIN=${override} does not exist`, [override]);
    return override;
  }
  const pkg = platformPackage();
  const exe = process.platform === 'win32' ? 'hookexec.exe' : 'hookexec';
  let dir: string;
  try {
    dir = path.dirname(require.resolve(`${pkg}/package.json`));
  } catch {
    throw new BinaryNotFoundError(
      `hookexec: no binary for ${process.platform}-${process.arch}: the optional dependency ${pkg} is not installed ` +
        `(reinstall without --no-optional / --omit=optional, or set HOOKEXEC_BIN to a hookexec binary)`,
      [pkg],
    );
  }
  const bin = path.join(dir, 'bin', exe);
  if (!fs.existsSync(bin)) throw new BinaryNotFoundError(`hookexec: ${pkg} has no ${path.join('bin', exe)}`, [bin]);
  return bin;
}

// ---------------------------------------------------------------------------------------
// The server: one child process, any number of engines and requests in flight

interface Message {
  jsonrpc?: string;
  id?: number | string | null;
  method?: string;
  params?: unknown;
  result?: unknown;
  error?: { code: number; message: string };
}

interface Pending {
  resolve: (value: unknown) => void;
  reject: (err: Error) => void;
}

/**
 * One `hookexec serve --stdio` process. `open()` starts one per engine; start a Server to
 * share a process between engines (each `server.open()` is its own engine).
 */
export class Server {
  private readonly child: ChildProcessWithoutNullStreams;
  private nextId = 0;
  private readonly pending = new Map<number, Pending>();
  private readonly engines = new Map<number, Engine>();
  private exitError: HookexecError | undefined;
  private stderrTail = '';
  /** Resolves with the exit code once the process ended. */
  readonly exited: Promise<number | null>;

  static start(options: ServerOptions = {}): Server {
    return new Server(options);
  }

  private constructor(options: ServerOptions) {
    const bin = options.bin ?? binaryPath();
    this.child = spawn(bin, ['serve', '--stdio'], { cwd: options.cwd, env: options.processEnv ?? process.env, stdio: ['pipe', 'pipe', 'pipe'] });
    this.child.stderr.setEncoding('utf8');
    this.child.stderr.on('data', (chunk: string) => {
      this.stderrTail = (this.stderrTail + chunk).slice(-4096);
    });
    // A write after the process died is reported through the pending requests.
    this.child.stdin.on('error', () => {});
    this.exited = new Promise((resolve) => {
      const fail = (err: HookexecError, code: number | null): void => {
        this.exitError = err;
        for (const p of this.pending.values()) p.reject(err);
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
  get pid(): number | undefined {
    return this.child.pid;
  }

  /** Opens an engine on this server (bin, cwd and processEnv are the server's: not allowed here). */
  open(options: EngineOptions & { evaluator?: Evaluator } = {}): Promise<Engine> {
    for (const key of ['bin', 'cwd', 'processEnv']) {
      if (key in options) return Promise.reject(new InvalidArgumentError(`hookexec: "${key}" is an option of Server.start, not of server.open`));
    }
    return this.openEngine(options, false);
  }

  /** @internal */
  async openEngine(options: OpenOptions, ownsServer: boolean): Promise<Engine> {
    const params = wireOptions(options);
    params.evaluate = true; // evaluators may be set later; unanswered types fail like the library's
    const { engine } = (await this.request('open', params)) as { engine: number };
    const eng = new Engine(this, engine, ownsServer);
    if (options.evaluator) eng.setEvaluator(options.evaluator);
    this.engines.set(engine, eng);
    return eng;
  }

  /** Ends input: the server closes every engine (async hooks finish) and exits. */
  async close(): Promise<void> {
    if (!this.child.stdin.writableEnded) this.child.stdin.end();
    await this.exited;
  }

  /** Sends one request; resolves with its result or rejects with a HookexecError. */
  request(method: string, params: unknown): Promise<unknown> {
    if (this.exitError) return Promise.reject(this.exitError);
    const id = ++this.nextId;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.write({ jsonrpc: '2.0', id, method, params });
    });
  }

  /** @internal */
  forget(engine: number): void {
    this.engines.delete(engine);
  }

  private write(msg: Message): void {
    if (this.child.stdin.writableEnded) return;
    this.child.stdin.write(JSON.stringify(msg) + '\n');
  }

  private receive(line: string): void {
    if (!line.trim()) return;
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      const err = new ProtocolError(`hookexec: serve wrote a line that is not JSON: ${line.slice(0, 200)}`);
      for (const p of this.pending.values()) p.reject(err);
      this.pending.clear();
      return;
    }
    for (const m of (Array.isArray(parsed) ? parsed : [parsed]) as Message[]) {
      if (m.method !== undefined && m.id !== undefined && m.id !== null) {
        void this.serve(m);
      } else if (m.method !== undefined) {
        this.notify(m.method, m.params as { [key: string]: unknown });
      } else if (typeof m.id === 'number') {
        const p = this.pending.get(m.id);
        if (!p) continue;
        this.pending.delete(m.id);
        if (m.error) p.reject(errorFor(m.error.code, m.error.message));
        else p.resolve(m.result);
      }
    }
  }

  private notify(method: string, params: { [key: string]: unknown }): void {
    const eng = this.engines.get(params?.engine as number);
    if (eng) eng.deliver(method, params);
  }

  // The server asks for a prompt/agent/mcp_tool hook's answer.
  private async serve(req: Message): Promise<void> {
    const params = (req.params ?? {}) as { engine?: number; type?: string; hook?: { [key: string]: JsonValue }; payload?: Payload };
    const reply = (body: { result?: unknown; error?: { code: number; message: string } }): void =>
      this.write({ jsonrpc: '2.0', id: req.id, ...body });
    const eng = req.method === 'hookexec.evaluate' ? this.engines.get(params.engine as number) : undefined;
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
    } catch (err) {
      reply({ error: { code: -32000, message: err instanceof Error ? err.message : String(err) } });
    }
  }
}

type Listener<T> = (value: T) => void;

/** One engine: fire events, read results. Methods are safe to call concurrently. */
export class Engine {
  /** @internal */
  evaluator: Evaluator | undefined;
  private closed = false;
  private readonly listeners = {
    async: new Set<Listener<AsyncResult>>(),
    status: new Set<Listener<StatusEvent>>(),
    rewake: new Set<Listener<RewakeEvent>>(),
    notification: new Set<Listener<{ method: string; params: { [key: string]: unknown } }>>(),
  };

  /** @internal */
  constructor(
    readonly server: Server,
    readonly id: number,
    private readonly ownsServer: boolean,
  ) {}

  /** Fires an event; resolves with the one decision its hooks reached. */
  async fire(event: string, payload: Payload = {}): Promise<FireResult> {
    return (await this.call('fire', { event, payload })) as FireResult;
  }

  /** Which hooks would run for the event and subject (a tool name, ...), in config order. */
  async match(event: string, subject = ''): Promise<MatchResult> {
    return (await this.call('match', { event, subject })) as MatchResult;
  }

  /** Why each hook of the event would or would not run for this payload. */
  async explain(event: string, payload: Payload = {}): Promise<{ [key: string]: JsonValue }> {
    return (await this.call('explain', { event, payload })) as { [key: string]: JsonValue };
  }

  /** The loaded configuration: hooks, sources, warnings. */
  async config(): Promise<EngineConfig> {
    return (await this.call('config', {})) as EngineConfig;
  }

  /** Reads the configuration files again. */
  async reload(): Promise<void> {
    await this.call('reload', {});
  }

  /** Takes the piped output still pending (iteratr's final delivery). */
  async drain(): Promise<string[]> {
    return ((await this.call('drain', {})) as { output: string[] }).output;
  }

  /** Calls fn with each async hook's result; returns a function that removes it. */
  onAsync(fn: Listener<AsyncResult>): () => void {
    return this.listen(this.listeners.async, fn);
  }

  /** Calls fn as a hook with a statusMessage starts. */
  onStatus(fn: Listener<StatusEvent>): () => void {
    return this.listen(this.listeners.status, fn);
  }

  /** Calls fn when an asyncRewake hook asks to wake the agent. */
  onRewake(fn: Listener<RewakeEvent>): () => void {
    return this.listen(this.listeners.rewake, fn);
  }

  /** Calls fn with autohand's JSON-RPC notifications (autohand.hook.preTool, ...), in fire order. */
  onNotification(fn: Listener<{ method: string; params: { [key: string]: unknown } }>): () => void {
    return this.listen(this.listeners.notification, fn);
  }

  /** Sets (or, with null, removes) the evaluator of prompt, agent and mcp_tool hooks. */
  setEvaluator(fn: Evaluator | null): void {
    if (fn !== null && typeof fn !== 'function') throw new InvalidArgumentError('hookexec: setEvaluator takes a function or null');
    this.evaluator = fn ?? undefined;
  }

  /**
   * Closes the engine: async hooks finish first. An engine from open() ends its server too.
   * Closing twice is a no-op.
   */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    try {
      await this.server.request('close', { engine: this.id });
    } catch (err) {
      if (!(err instanceof ClosedError)) throw err;
    } finally {
      this.server.forget(this.id);
      if (this.ownsServer) await this.server.close();
    }
  }

  /** @internal */
  deliver(method: string, params: { [key: string]: unknown }): void {
    const { engine: _engine, ...rest } = params;
    const emit = <T>(set: Set<Listener<T>>, value: T): void => {
      for (const fn of set) {
        try {
          fn(value);
        } catch {
          // A listener's exception must not stop the others or the protocol.
        }
      }
    };
    switch (method) {
      case 'hookexec.async':
        emit(this.listeners.async, rest as unknown as AsyncResult);
        break;
      case 'hookexec.status':
        emit(this.listeners.status, rest as unknown as StatusEvent);
        break;
      case 'hookexec.rewake':
        emit(this.listeners.rewake, rest as unknown as RewakeEvent);
        break;
      default:
        emit(this.listeners.notification, { method, params: rest });
    }
  }

  private call(method: string, params: { [key: string]: unknown }): Promise<unknown> {
    if (this.closed) return Promise.reject(new ClosedError('hookexec: the engine is closed', -32001));
    return this.server.request(method, { engine: this.id, ...params });
  }

  private listen<T>(set: Set<Listener<T>>, fn: Listener<T>): () => void {
    if (typeof fn !== 'function') throw new InvalidArgumentError('hookexec: a listener is a function');
    set.add(fn);
    return () => {
      set.delete(fn);
    };
  }
}

/**
 * Opens an engine in its own `hookexec serve --stdio` process (closed with the engine).
 * Options are the engine's (camelCase), the process's (bin, cwd, processEnv) and an evaluator.
 */
export async function open(options: OpenOptions = {}): Promise<Engine> {
  wireOptions(options); // an unknown option fails before anything is spawned
  const server = Server.start({ bin: options.bin, cwd: options.cwd, processEnv: options.processEnv });
  try {
    return await server.openEngine(options, true);
  } catch (err) {
    await server.close();
    throw err;
  }
}
