// @hookexec/node/openai-agents: hookexec governs an agent built on the OpenAI Agents SDK for
// TypeScript (@openai/agents). The twin of Python's hookexec.integrations.openai_agents:
//
//   import { Agent, run } from '@openai/agents';
//   import { Hookexec } from '@hookexec/node/openai-agents';
//   const hx = new Hookexec({ run });            // hooks of ./.claude/settings.json
//   const result = await hx.run(agent, prompt);  // Runner's run under the hooks
//   await hx.close();                            // SessionEnd
//
// It never imports the SDK's values at load time: the app hands in its `run` (else it is
// required lazily on the first run), the SDK's types here are structural, and guardrail
// answers are the SDK's plain objects. Where each event fires:
//
// - PreToolUse: in the governed tool's needsApproval policy (the SDK's first look at a call)
//   or, when the SDK skips it (a call approved before), in the adapter's tool input
//   guardrail. A block is the guardrail's rejectContent (the model reads the reason as the
//   tool's output; the tool does not run); continue:false is throwException (hx.run throws
//   RunStopped); "ask" makes needsApproval true (the SDK's interruptions) unless the gate's
//   approve callback settles it in place. updated_input: the governed invoke runs the SDK's
//   invoke with the rewritten JSON arguments.
// - PostToolUse: in the governed invoke after the tool returned (additional_context and a
//   reason appended to the output the model reads); a block or continue:false in the
//   adapter's tool output guardrail. PostToolUseFailure: when the SDK's invoke throws.
// - UserPromptSubmit, Stop (a block runs the agent again with the reason), SessionStart and
//   SessionEnd: in Hookexec.run / close.

import { Gate, RunStopped, feedback, type GateOptions, type Verdict } from './gate';

/** A UserPromptSubmit hook blocked the prompt: the model was never called. */
export class PromptBlocked extends RunStopped {
  constructor(reason: string, verdict?: Verdict) {
    super(reason, verdict);
    this.name = 'PromptBlocked';
  }
}

/** The SDK's ToolGuardrailFunctionOutput. */
export interface GuardrailOutput {
  outputInfo?: unknown;
  behavior: { type: 'allow' } | { type: 'rejectContent'; message: string } | { type: 'throwException' };
}

/** The SDK's FunctionCallItem, as far as the adapter reads it. */
export interface FunctionCall {
  callId: string;
  name: string;
  arguments: string;
}

/** The SDK's RunContext, as far as the adapter reads it. */
export interface RunContextLike {
  isToolApproved?: (approval: { toolName: string; callId: string }) => boolean | undefined;
}

export interface ToolGuardrail<D> {
  type: 'tool_input' | 'tool_output';
  name: string;
  run: (data: D) => Promise<GuardrailOutput>;
}

type InputData = { context: RunContextLike; toolCall: FunctionCall };
type OutputData = InputData & { output: unknown };

/** The SDK's FunctionTool (tool({...})), structurally. */
export interface FunctionToolLike {
  type: 'function';
  name: string;
  invoke: (runContext: any, input: string, details?: { toolCall?: FunctionCall; [key: string]: unknown }) => Promise<unknown>;
  needsApproval: (runContext: any, input: any, callId?: string) => Promise<boolean>;
  inputGuardrails?: Array<ToolGuardrail<any>>;
  outputGuardrails?: Array<ToolGuardrail<any>>;
  [key: string]: unknown;
}

/** The SDK's Agent, structurally (clone() keeps its class; tools and handoffs replaced). */
export interface AgentLike {
  name: string;
  tools: unknown[];
  handoffs?: unknown[];
  clone: (config: { [key: string]: unknown }) => AgentLike;
}

/** The SDK's RunResult, as far as the adapter reads it. */
export interface RunResultLike {
  finalOutput?: unknown;
  interruptions?: unknown[];
  history: unknown[];
}

/** The SDK's run(agent, input, options). */
export type RunFunction = (agent: any, input: any, options?: any) => Promise<any>;

export interface HookexecOptions extends GateOptions {
  /** The SDK's run (import { run } from '@openai/agents'); else required lazily. */
  run?: RunFunction;
  /** A gate to use (its options then come from it); else one is opened with these options. */
  gate?: Gate;
  /** How many times in a row a blocked Stop makes run() go on (default 8, as Claude Code; -1: the engine's cap only). */
  maxStopBlocks?: number;
}

// outputInfo of the adapter's guardrails, so run() tells its own tripwires from the app's.
const MARK = 'hookexec';

const allow = (): GuardrailOutput => ({ behavior: { type: 'allow' } });
const reject = (message: string, event: string): GuardrailOutput => ({ behavior: { type: 'rejectContent', message }, outputInfo: { [MARK]: event } });
const stop = (reason: string): GuardrailOutput => ({ behavior: { type: 'throwException' }, outputInfo: { [MARK]: reason, stop: true } });

/** A tool call's JSON arguments as the hook's tool_input (a non-object → {input: raw}). */
function parse(args: string): { [key: string]: unknown } {
  let value: unknown;
  try {
    value = args && args.trim() ? JSON.parse(args) : {};
  } catch {
    return { input: args };
  }
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as { [key: string]: unknown }) : { input: value };
}

function withContext(output: unknown, context: string): unknown {
  if (!context) return output;
  const text = typeof output === 'string' ? output : JSON.stringify(output);
  return `${text}\n\n${context}`;
}

function text(output: unknown): string {
  if (output === undefined || output === null) return '';
  return typeof output === 'string' ? output : JSON.stringify(output);
}

/** The user's prompt in a run's input: the string, or the last user message's text. */
function promptText(input: unknown): string | undefined {
  if (typeof input === 'string') return input;
  if (!Array.isArray(input)) return undefined;
  for (let i = input.length - 1; i >= 0; i--) {
    const item = input[i] as { role?: string; content?: unknown };
    if (item?.role !== 'user') continue;
    if (typeof item.content === 'string') return item.content;
    if (Array.isArray(item.content)) return item.content.map((p: { text?: string }) => p?.text ?? '').join('\n');
  }
  return undefined;
}

/** A RunState handed back to go on after interruptions (not a new prompt). */
function isRunState(input: unknown): boolean {
  return input !== null && typeof input === 'object' && !Array.isArray(input) && '_context' in input;
}

/** The reason of the adapter's own guardrail tripwire in err (the SDK wraps it in a ToolCallError's error, or a cause). */
function ownTripwire(err: unknown): string | undefined {
  for (let e = err as { result?: { output?: { outputInfo?: unknown } }; error?: unknown; cause?: unknown } | undefined, depth = 0; e && depth < 4; depth++) {
    const info = e.result?.output?.outputInfo;
    if (info !== null && typeof info === 'object' && MARK in info) return String((info as { [key: string]: unknown })[MARK]);
    e = (e.error ?? e.cause) as typeof e;
  }
  return undefined;
}

function isFunctionTool(t: unknown): t is FunctionToolLike {
  const f = t as FunctionToolLike;
  return f !== null && typeof f === 'object' && f.type === 'function' && typeof f.invoke === 'function' && typeof f.needsApproval === 'function';
}

export class Hookexec {
  readonly gate: Gate;
  maxStopBlocks: number;
  private runFn: RunFunction | undefined;
  private readonly owned: boolean;
  private readonly pre = new Map<string, Verdict>(); // PreToolUse verdicts by call id, until the call is done
  private readonly post = new Map<string, Verdict>(); // PostToolUse verdicts by call id, for the output guardrail
  private readonly agents = new Map<AgentLike, AgentLike>(); // the app's agent → its governed clone
  private readonly governed = new Set<AgentLike>();

  constructor(options: HookexecOptions = {}) {
    const { run, gate, maxStopBlocks = 8, ...gateOptions } = options;
    if (gate && Object.keys(gateOptions).length) throw new TypeError('hookexec: Hookexec({gate}) takes no gate options: the gate is already made');
    if (!Number.isInteger(maxStopBlocks) || maxStopBlocks < -1) throw new RangeError('hookexec: maxStopBlocks is a count, or -1 for no cap of the adapter\'s own');
    this.gate = gate ?? new Gate(gateOptions);
    this.owned = !gate;
    this.runFn = run;
    this.maxStopBlocks = maxStopBlocks;
  }

  /** A clone of agent whose function tools (and those of the agents in its handoffs) go through the hooks. */
  govern<A extends AgentLike>(agent: A): A {
    if (this.governed.has(agent)) return agent;
    const done = this.agents.get(agent);
    if (done) return done as A;
    const clone = agent.clone({});
    this.agents.set(agent, clone); // before the handoffs: they may lead back here
    this.governed.add(clone);
    clone.tools = agent.tools.map((t) => this.tool(t));
    if (agent.handoffs) {
      clone.handoffs = agent.handoffs.map((h) => (h !== null && typeof h === 'object' && typeof (h as AgentLike).clone === 'function' && Array.isArray((h as AgentLike).tools) ? this.govern(h as AgentLike) : h));
    }
    return clone as A;
  }

  /** A governed copy of a function tool; any other tool is returned unchanged. */
  tool<T>(t: T): T {
    if (!isFunctionTool(t)) return t;
    const gate = this.gate;
    const name = t.name;
    const inner = t.invoke;
    const ownApproval = t.needsApproval;

    const needsApproval = async (ctx: unknown, input: unknown, callId?: string): Promise<boolean> => {
      let v = await gate.preTool(name, input, callId);
      if (v.decision === 'ask' && gate.approve) v = await gate.settleAsk(v, name, parse(JSON.stringify(input ?? {})));
      if (callId) this.pre.set(callId, v);
      if (v.decision === 'ask') return true;
      if (v.decision === 'deny' || !v.continue) return false; // the input guardrail refuses it
      return ownApproval(ctx, input, callId);
    };

    const inputGuardrail: ToolGuardrail<InputData> = {
      type: 'tool_input',
      name: 'hookexec_pre_tool_use',
      run: async ({ toolCall }) => {
        let v = this.pre.get(toolCall.callId);
        if (!v) {
          // The SDK skipped needsApproval (a call approved before).
          v = await gate.preTool(name, parse(toolCall.arguments), toolCall.callId);
          this.pre.set(toolCall.callId, v);
        }
        if (!v.continue) {
          this.pre.delete(toolCall.callId);
          return stop(v.stopReason || v.reason || 'a PreToolUse hook ended the run');
        }
        if (v.decision === 'deny') {
          this.pre.delete(toolCall.callId);
          return reject(feedback(v), 'PreToolUse');
        }
        // "ask": the SDK's approval (needsApproval said true) decides before the tool runs.
        return allow();
      },
    };

    const invoke: FunctionToolLike['invoke'] = async (ctx, input, details) => {
      const callId = details?.toolCall?.callId ?? '';
      const v = this.pre.get(callId);
      this.pre.delete(callId);
      if (v?.updatedInput) input = JSON.stringify(v.updatedInput);
      const toolInput = parse(input);
      let output: unknown;
      try {
        output = await inner(ctx, input, details);
      } catch (err) {
        await gate.toolFailed(name, toolInput, err instanceof Error ? err.message || err.name : String(err), callId);
        throw err;
      }
      const post = await gate.postTool(name, toolInput, output, callId);
      this.post.set(callId, post);
      const updated = post.result?.updated_tool_output;
      if (updated !== undefined && updated !== null) output = updated;
      // A PostToolUse reason (a hook's block too) is feedback beside the output: the tool
      // already ran. An engine error is not: the output guardrail withholds the output.
      const context = [v?.additionalContext ?? '', post.error ? '' : post.reason, post.additionalContext].filter(Boolean).join('\n\n');
      return withContext(output, context);
    };

    const outputGuardrail: ToolGuardrail<OutputData> = {
      type: 'tool_output',
      name: 'hookexec_post_tool_use',
      run: async ({ toolCall }) => {
        const post = this.post.get(toolCall.callId);
        this.post.delete(toolCall.callId);
        if (post && !post.continue) return stop(post.stopReason || post.reason || 'a PostToolUse hook ended the run');
        if (post && post.error && post.decision === 'deny') return reject(feedback(post), 'PostToolUse');
        return allow();
      },
    };

    return {
      ...t,
      invoke,
      needsApproval,
      inputGuardrails: [inputGuardrail, ...(t.inputGuardrails ?? [])],
      outputGuardrails: [outputGuardrail, ...(t.outputGuardrails ?? [])],
    } as T;
  }

  private sdkRun(): RunFunction {
    if (this.runFn) return this.runFn;
    let sdk: { run?: RunFunction };
    try {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      sdk = require('@openai/agents') as { run?: RunFunction };
    } catch (err) {
      throw new Error(`hookexec: @hookexec/node/openai-agents needs the OpenAI Agents SDK (npm install @openai/agents), or hand in its run: new Hookexec({ run }) (${err instanceof Error ? err.message : String(err)})`);
    }
    if (typeof sdk.run !== 'function') throw new Error('hookexec: @openai/agents has no run function');
    return (this.runFn = sdk.run);
  }

  /**
   * The SDK's run(agent, input, options) under the hooks (agent governed here). Throws
   * PromptBlocked when UserPromptSubmit blocks and RunStopped when a hook answers
   * continue:false. A result with interruptions waits for the app's approvals: approve or
   * reject them on result.state and pass the state back as input.
   */
  async run<R extends RunResultLike = RunResultLike>(agent: AgentLike, input: unknown, options: { [key: string]: unknown } = {}): Promise<R> {
    if (options['stream']) throw new TypeError('hookexec: Hookexec.run does not stream (Stop needs the final output); govern(agent) and run it yourself to stream');
    const run = this.sdkRun();
    const governed = this.govern(agent);
    const start = await this.gate.sessionStart();
    if (!start.continue) throw new RunStopped(start.stopReason || start.reason || 'a SessionStart hook ended the run', start);
    if (!isRunState(input)) input = await this.prompt(input, start.additionalContext);
    let blocks = 0;
    for (;;) {
      let result: R;
      try {
        result = (await run(governed, input, options)) as R;
      } catch (err) {
        const reason = ownTripwire(err);
        if (reason !== undefined) throw new RunStopped(reason);
        throw err;
      }
      if (result.interruptions && result.interruptions.length) return result;
      const v = await this.gate.stop(text(result.finalOutput), { stopHookActive: blocks > 0 });
      if (!v.continue) throw new RunStopped(v.stopReason || v.reason || 'a Stop hook ended the run', v);
      if (v.decision !== 'deny') return result;
      blocks += 1;
      if (this.maxStopBlocks >= 0 && blocks > this.maxStopBlocks) {
        console.warn(`hookexec: Stop blocked ${blocks} times in a row; the run ends (maxStopBlocks)`);
        return result;
      }
      const goOn = { role: 'user', content: feedback(v) };
      input = options['session'] ? [goOn] : [...result.history, goOn];
    }
  }

  /** Fires UserPromptSubmit; the run's input with the hooks' context as system items. */
  private async prompt(input: unknown, sessionContext: string): Promise<unknown> {
    const context = sessionContext ? [sessionContext] : [];
    const prompt = promptText(input);
    if (prompt !== undefined) {
      const v = await this.gate.userPrompt(prompt);
      if (!v.continue) throw new RunStopped(v.stopReason || v.reason || 'a UserPromptSubmit hook ended the run', v);
      if (v.decision === 'deny') throw new PromptBlocked(feedback(v), v);
      if (v.additionalContext) context.push(v.additionalContext);
    }
    if (!context.length) return input;
    const items = typeof input === 'string' ? [{ role: 'user', content: input }] : [...(input as unknown[])];
    return [...items, ...context.map((c) => ({ role: 'system', content: c }))];
  }

  /** Fires SessionEnd (if a run started) and closes the gate the adapter opened. */
  async close(): Promise<void> {
    if (this.owned) await this.gate.close();
    else await this.gate.sessionEnd();
  }
}

/** new Hookexec(options).govern(agent): a clone of agent with its function tools governed, for apps that call run themselves. */
export function govern<A extends AgentLike>(agent: A, options: HookexecOptions = {}): A {
  return new Hookexec(options).govern(agent);
}
