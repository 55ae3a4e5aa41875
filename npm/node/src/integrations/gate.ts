// The gate every framework adapter goes through (the twin of Python's hookexec.integrations
// Gate): a framework's hook point becomes a hookexec event with a Claude Code-shaped payload,
// and the engine's result becomes a Verdict the adapter turns into the framework's own verbs.
// An engine error on an event that can block is a block (fail closed), never a silent allow.

import { randomUUID } from 'node:crypto';
import * as path from 'node:path';

import { Engine, open, type FireResult, type OpenOptions, type Payload } from '../index';
import { DEFAULT_TOOL_NAMES } from './names';

/** Events whose hooks can refuse something: an engine error there blocks. */
export const BLOCKING_EVENTS: ReadonlySet<string> = new Set([
  'PreToolUse',
  'PostToolUse',
  'UserPromptSubmit',
  'Stop',
  'SubagentStop',
  'PreCompact',
]);

export type VerdictDecision = 'none' | 'allow' | 'ask' | 'deny';

/**
 * What the hooks decided for one framework call. After a tool (PostToolUse,
 * PostToolUseFailure) the tool has already run, so a hook's block (exit 2, decision "block")
 * is not a "deny": it is `reason`, text for the model to read with the tool's result.
 */
export interface Verdict {
  event: string;
  /** "deny" also when a hook blocked; on Stop it means *go on*, with `reason` as the instruction. */
  decision: VerdictDecision;
  reason: string;
  updatedInput: { [key: string]: unknown } | null;
  additionalContext: string;
  /** false: the run must end (`stopReason`). */
  continue: boolean;
  stopReason: string;
  systemMessage: string;
  /** Set when the engine failed and the verdict was made closed (deny) or, if the event cannot block, empty. */
  error: string;
  result: FireResult | null;
}

/** A hook answered `continue: false`: the run ends. */
export class RunStopped extends Error {
  constructor(
    readonly reason: string,
    readonly verdict?: Verdict,
  ) {
    super(reason || 'a hook stopped the run');
    this.name = 'RunStopped';
  }
}

/** Settles an "ask" where the framework has no approval mechanism: true lets the call through. */
export type Approver = (toolName: string, toolInput: { [key: string]: unknown }, reason: string) => boolean | Promise<boolean>;

export interface GateOptions {
  /** An open engine to use (the gate does not close it); else the gate opens one. */
  engine?: Engine;
  /** The project whose hooks apply; default process.cwd(). */
  projectDir?: string;
  /** Where hooks live; default "claude" (.claude/settings.json and the user's settings). */
  profile?: string;
  /** Framework tool name → canonical name, over DEFAULT_TOOL_NAMES. */
  toolNames?: { [name: string]: string };
  sessionId?: string;
  approve?: Approver;
  /** Receives each hook's systemMessage; default console.warn. */
  onSystemMessage?: (text: string) => void;
  /** Options of the engine the gate opens (open()'s). */
  engineOptions?: OpenOptions;
}

export function blocked(v: Verdict): boolean {
  return v.decision === 'deny';
}

/** The text the model should read for a block: the hook's reason, never empty. */
export function feedback(v: Verdict): string {
  return v.reason || `Blocked by a ${v.event} hook`;
}

function empty(event: string): Verdict {
  return {
    event,
    decision: 'none',
    reason: '',
    updatedInput: null,
    additionalContext: '',
    continue: true,
    stopReason: '',
    systemMessage: '',
    error: '',
    result: null,
  };
}

// The engine's decisions as the verdict's: "defer" (pause at this call, resume later) is the
// framework's approval pause, an "ask"; anything else unknown is refused, never run.
const DECISIONS: { [d: string]: VerdictDecision } = { none: 'none', allow: 'allow', ask: 'ask', defer: 'ask', deny: 'deny' };

function verdictOf(event: string, r: FireResult): Verdict {
  return {
    event,
    decision: r.blocked ? 'deny' : (DECISIONS[String(r.decision)] ?? 'deny'),
    reason: r.reason || (!r.blocked && !(String(r.decision) in DECISIONS) ? `hookexec: an unknown decision ${JSON.stringify(r.decision)} is refused` : ''),
    updatedInput: r.updated_input ? { ...r.updated_input } : null,
    additionalContext: r.additional_context,
    continue: r.continue !== false,
    stopReason: r.stop_reason,
    systemMessage: r.system_message,
    error: '',
    result: r,
  };
}

export class Gate {
  readonly cwd: string;
  readonly sessionId: string;
  readonly toolNames: { [name: string]: string };
  approve: Approver | undefined;
  onSystemMessage: ((text: string) => void) | undefined;
  private engine: Engine | undefined;
  private opening: Promise<Engine> | undefined;
  private readonly owned: boolean;
  private readonly options: GateOptions;
  private started = false;
  private ended = false;

  constructor(options: GateOptions = {}) {
    this.options = options;
    this.cwd = path.resolve(options.projectDir ?? process.cwd());
    this.sessionId = options.sessionId ?? randomUUID();
    this.toolNames = { ...DEFAULT_TOOL_NAMES, ...(options.toolNames ?? {}) };
    this.approve = options.approve;
    this.onSystemMessage = options.onSystemMessage;
    this.engine = options.engine;
    this.owned = options.engine === undefined;
  }

  /** The engine, opened on first use (an error opening it is the fire's error: fail closed). */
  async getEngine(): Promise<Engine> {
    if (this.engine) return this.engine;
    this.opening ??= open({
      profile: this.options.profile ?? 'claude',
      projectDir: this.cwd,
      sessionId: this.sessionId,
      ...(this.options.engineOptions ?? {}),
    }).then(
      (e) => (this.engine = e),
      (err: unknown) => {
        this.opening = undefined;
        throw err;
      },
    );
    return this.opening;
  }

  /** The name hooks see: the map's, mcp__<server>__<tool> for an MCP server's tool, else the name. */
  canonical(toolName: string, server?: string): string {
    if (server) return `mcp__${server}__${toolName}`;
    return Object.prototype.hasOwnProperty.call(this.toolNames, toolName) ? this.toolNames[toolName]! : toolName;
  }

  /** The Claude Code-shaped payload of an event with fields (undefined values dropped). */
  payload(event: string, fields: { [key: string]: unknown } = {}): Payload {
    const p: Payload = {
      session_id: this.sessionId,
      transcript_path: '',
      cwd: this.cwd,
      permission_mode: 'default',
      hook_event_name: event,
    };
    for (const [k, v] of Object.entries(fields)) if (v !== undefined) p[k] = v;
    return p;
  }

  /** Fires an event; an engine error fails closed on an event that can block. */
  async fire(event: string, payload: Payload): Promise<Verdict> {
    let r: FireResult;
    try {
      r = await (await this.getEngine()).fire(event, payload);
    } catch (err) {
      const msg = `hookexec: ${event} could not be decided: ${err instanceof Error ? err.message : String(err)}`;
      console.error(msg);
      const v = empty(event);
      v.error = msg;
      if (BLOCKING_EVENTS.has(event)) {
        v.decision = 'deny';
        v.reason = msg;
      }
      return v;
    }
    const v = verdictOf(event, r);
    if (v.systemMessage) this.systemMessage(v.systemMessage);
    return v;
  }

  private systemMessage(text: string): void {
    if (!this.onSystemMessage) {
      console.warn(text);
      return;
    }
    try {
      this.onSystemMessage(text);
    } catch (err) {
      console.error('hookexec: onSystemMessage failed:', err);
    }
  }

  private tool(event: string, tool: string, input: unknown, toolUseId: string | undefined, server: string | undefined, more: { [key: string]: unknown } = {}): Payload {
    const toolInput = input !== null && typeof input === 'object' && !Array.isArray(input) ? input : { input };
    return this.payload(event, {
      tool_name: this.canonical(tool, server),
      tool_input: toolInput,
      tool_use_id: toolUseId || `toolu_${randomUUID().replace(/-/g, '').slice(0, 24)}`,
      ...more,
    });
  }

  preTool(tool: string, input: unknown, toolUseId?: string, server?: string): Promise<Verdict> {
    return this.fire('PreToolUse', this.tool('PreToolUse', tool, input, toolUseId, server));
  }

  postTool(tool: string, input: unknown, response: unknown, toolUseId?: string, server?: string): Promise<Verdict> {
    return this.fire('PostToolUse', this.tool('PostToolUse', tool, input, toolUseId, server, { tool_response: response }));
  }

  toolFailed(tool: string, input: unknown, error: string, toolUseId?: string, server?: string): Promise<Verdict> {
    return this.fire('PostToolUseFailure', this.tool('PostToolUseFailure', tool, input, toolUseId, server, { error, is_interrupt: false }));
  }

  userPrompt(prompt: string): Promise<Verdict> {
    return this.fire('UserPromptSubmit', this.payload('UserPromptSubmit', { prompt }));
  }

  stop(lastMessage?: string, opts: { stopHookActive?: boolean; subagent?: boolean } = {}): Promise<Verdict> {
    const event = opts.subagent ? 'SubagentStop' : 'Stop';
    return this.fire(event, this.payload(event, { stop_hook_active: opts.stopHookActive ?? false, last_assistant_message: lastMessage }));
  }

  preCompact(trigger = 'auto', customInstructions = ''): Promise<Verdict> {
    return this.fire('PreCompact', this.payload('PreCompact', { trigger, custom_instructions: customInstructions }));
  }

  /** Fires SessionStart once per gate (later calls return an empty verdict). */
  async sessionStart(source = 'startup'): Promise<Verdict> {
    if (this.started) return empty('SessionStart');
    this.started = true;
    return this.fire('SessionStart', this.payload('SessionStart', { source }));
  }

  /** Fires SessionEnd once, if SessionStart was fired. */
  async sessionEnd(reason = 'other'): Promise<Verdict> {
    if (!this.started || this.ended) return empty('SessionEnd');
    this.ended = true;
    return this.fire('SessionEnd', this.payload('SessionEnd', { reason }));
  }

  /** Without a framework approval mechanism: "ask" becomes "allow" when approve says yes, else "deny". */
  async settleAsk(v: Verdict, tool: string, input: { [key: string]: unknown }): Promise<Verdict> {
    if (v.decision !== 'ask') return v;
    let yes = false;
    if (this.approve) {
      try {
        yes = Boolean(await this.approve(this.canonical(tool), input, v.reason));
      } catch (err) {
        console.error('hookexec: approve failed; the call is refused:', err);
      }
    }
    if (yes) return { ...v, decision: 'allow' };
    return { ...v, decision: 'deny', reason: `${v.reason || "a hook asks for the user's approval"} (approval required; none was given)` };
  }

  /** Fires SessionEnd (if the session started) and closes the engine the gate opened. */
  async close(): Promise<void> {
    try {
      await this.sessionEnd();
    } finally {
      if (this.owned && this.engine) await this.engine.close();
    }
  }
}
