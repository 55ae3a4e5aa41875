/** This package's version; the binary it finds is the same release. */
export declare const VERSION: string;
/** Every error this package raises; `code` is the JSON-RPC error code (0 for local errors). */
export declare class HookexecError extends Error {
    readonly code: number;
    constructor(message: string, code?: number);
}
/** -32602: the options or a method's params were rejected (unknown option, bad type, ...). */
export declare class InvalidArgumentError extends HookexecError {
}
/** -32002: the options name a configuration that cannot be used (bad JSON, bad matcher, ...). */
export declare class ConfigError extends HookexecError {
}
/** -32001 or -32003: the engine was closed (or its server is gone). */
export declare class ClosedError extends HookexecError {
}
/** The server broke the protocol or failed inside (-32700, -32600, -32601, -32603, ...). */
export declare class ProtocolError extends HookexecError {
}
/** No hookexec binary: neither $HOOKEXEC_BIN nor a platform package; `tried` lists where. */
export declare class BinaryNotFoundError extends HookexecError {
    readonly tried: string[];
    constructor(message: string, tried: string[]);
}
export type Decision = 'none' | 'allow' | 'ask' | 'deny';
/** How a hook ran; the host-evaluated types name themselves. */
export type Exec = 'direct' | 'shell' | 'args' | 'builtin' | 'http' | 'prompt' | 'agent' | 'mcp_tool' | (string & {});
export type JsonValue = null | boolean | number | string | JsonValue[] | {
    [key: string]: JsonValue;
};
/** A fire's payload: Claude Code's field names (tool_name, tool_input, ...) or the dialect's. */
export type Payload = {
    [key: string]: unknown;
};
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
    updated_input: {
        [key: string]: JsonValue;
    } | null;
    additional_context: string;
    system_message: string;
    agent_output: string[];
    env: {
        [name: string]: string;
    };
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
    hooks: Array<{
        id: string;
        event: string;
        matcher: string;
        type: string;
        source: string;
        [key: string]: JsonValue;
    }>;
    sources: JsonValue;
    warnings: string[];
    [key: string]: JsonValue;
}
/** An evaluator's answer: a verdict, or output read like a command's. */
export type EvaluatorAnswer = {
    ok: boolean;
    reason?: string;
} | {
    exit_code: number;
    stdout?: string;
    stderr?: string;
};
/**
 * Answers prompt, agent and mcp_tool hooks: `type` is the hook's type, `hook` its
 * definition, `payload` the event's. A rejection is a hook error (the hook's
 * failClosed/blocking settings decide what it does to the fire).
 */
export type Evaluator = (type: string, hook: {
    [key: string]: JsonValue;
}, payload: Payload) => EvaluatorAnswer | Promise<EvaluatorAnswer>;
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
    config?: {
        [key: string]: unknown;
    };
    defaultTimeoutMs?: number;
    killGraceMs?: number;
    maxParallel?: number;
    outputCapBytes?: number;
    closeTimeoutMs?: number;
    sessionId?: string;
    transcriptPath?: string;
    /** Added to every hook's environment. */
    env?: {
        [name: string]: string;
    };
    notifications?: boolean;
    plugins?: string[];
    managedSettings?: string;
    maxStopBlocks?: number;
    logFile?: string;
    trust?: 'all' | 'project';
    trustStore?: string;
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
/** The platform package for this machine, esbuild-style: @hookexec/<platform>-<arch>. */
export declare function platformPackage(platform?: string, arch?: string): string;
/** The hookexec binary: $HOOKEXEC_BIN (only there, when set), else the platform package's. */
export declare function binaryPath(): string;
/**
 * One `hookexec serve --stdio` process. `open()` starts one per engine; start a Server to
 * share a process between engines (each `server.open()` is its own engine).
 */
export declare class Server {
    private readonly child;
    private nextId;
    private readonly pending;
    private readonly engines;
    private exitError;
    private stderrTail;
    /** Resolves with the exit code once the process ended. */
    readonly exited: Promise<number | null>;
    static start(options?: ServerOptions): Server;
    private constructor();
    /** The server process's id. */
    get pid(): number | undefined;
    /** Opens an engine on this server (bin, cwd and processEnv are the server's: not allowed here). */
    open(options?: EngineOptions & {
        evaluator?: Evaluator;
    }): Promise<Engine>;
    /** Ends input: the server closes every engine (async hooks finish) and exits. */
    close(): Promise<void>;
    /** Sends one request; resolves with its result or rejects with a HookexecError. */
    request(method: string, params: unknown): Promise<unknown>;
    private write;
    private receive;
    private notify;
    private serve;
}
type Listener<T> = (value: T) => void;
/** One engine: fire events, read results. Methods are safe to call concurrently. */
export declare class Engine {
    readonly server: Server;
    readonly id: number;
    private readonly ownsServer;
    private closed;
    private readonly listeners;
    /** Fires an event; resolves with the one decision its hooks reached. */
    fire(event: string, payload?: Payload): Promise<FireResult>;
    /** Which hooks would run for the event and subject (a tool name, ...), in config order. */
    match(event: string, subject?: string): Promise<MatchResult>;
    /** Why each hook of the event would or would not run for this payload. */
    explain(event: string, payload?: Payload): Promise<{
        [key: string]: JsonValue;
    }>;
    /** The loaded configuration: hooks, sources, warnings. */
    config(): Promise<EngineConfig>;
    /** Reads the configuration files again. */
    reload(): Promise<void>;
    /** Takes the piped output still pending (iteratr's final delivery). */
    drain(): Promise<string[]>;
    /** Calls fn with each async hook's result; returns a function that removes it. */
    onAsync(fn: Listener<AsyncResult>): () => void;
    /** Calls fn as a hook with a statusMessage starts. */
    onStatus(fn: Listener<StatusEvent>): () => void;
    /** Calls fn when an asyncRewake hook asks to wake the agent. */
    onRewake(fn: Listener<RewakeEvent>): () => void;
    /** Calls fn with autohand's JSON-RPC notifications (autohand.hook.preTool, ...), in fire order. */
    onNotification(fn: Listener<{
        method: string;
        params: {
            [key: string]: unknown;
        };
    }>): () => void;
    /** Sets (or, with null, removes) the evaluator of prompt, agent and mcp_tool hooks. */
    setEvaluator(fn: Evaluator | null): void;
    /**
     * Closes the engine: async hooks finish first. An engine from open() ends its server too.
     * Closing twice is a no-op.
     */
    close(): Promise<void>;
    private call;
    private listen;
}
/**
 * Opens an engine in its own `hookexec serve --stdio` process (closed with the engine).
 * Options are the engine's (camelCase), the process's (bin, cwd, processEnv) and an evaluator.
 */
export declare function open(options?: OpenOptions): Promise<Engine>;
export {};
