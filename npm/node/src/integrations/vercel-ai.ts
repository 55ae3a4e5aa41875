// @hookexec/node/vercel-ai: the hooks of .claude/settings.json (or any profile) govern a
// Vercel AI SDK (`ai` 7) generateText/streamText call (the same options suit a ToolLoopAgent's settings; untested).
//
//   const hooks = withHooks({ createSteering: experimental_createSteering });
//   const result = await generateText(hooks.govern({ model, tools, prompt, stopWhen: isStepCount(20) }));
//   await hooks.close();
//
// govern() wraps each tool's execute (PreToolUse, PostToolUse, PostToolUseFailure), adds a
// toolApproval function (a hook's "ask" is ai's own user-approval request), a prepareStep
// (SessionStart and UserPromptSubmit before the first step), an onStepEnd (Stop when the
// model answers without tool calls; a block is queued on the steering object, so the run goes
// on with the reason) and an abort signal (continue:false ends the run with RunStopped).
// `ai` is never imported at run time: the types here are structural, so this module loads
// from CommonJS and ES modules alike, and without `ai` installed.

import { Gate, RunStopped, blocked, feedback, type GateOptions, type Verdict } from './gate';
import { anySignal, governCall } from './toolcall';

/** The part of an ai message the adapter reads. */
interface Message {
  role: string;
  content: unknown;
}

/** An ai tool, as far as the adapter touches it. */
export interface AiTool {
  execute?: ((input: any, options: any) => any) | undefined;
  [key: string]: any;
}

/** ai's Steering (experimental_createSteering()). */
export interface SteeringLike {
  queue(message: string): Promise<unknown>;
}

/** The generateText/streamText/ToolLoopAgent options the adapter composes with. */
export interface GovernableOptions {
  tools?: { [name: string]: AiTool } | undefined;
  toolApproval?: any;
  prepareStep?: ((options: any) => any) | undefined;
  onStepEnd?: ((step: any) => any) | undefined;
  onStepFinish?: ((step: any) => any) | undefined;
  abortSignal?: AbortSignal | undefined;
  experimental_steering?: SteeringLike | undefined;
  [key: string]: any;
}

export interface VercelHooksOptions extends GateOptions {
  /** A gate to use (the adapter does not close it); else one is made from these options. */
  gate?: Gate;
  /**
   * ai's experimental_createSteering: with it a Stop hook's block makes the run go on with
   * the reason as the next user message; without it the Stop hook is informational.
   */
  createSteering?: () => SteeringLike;
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .filter((p): p is { type: string; text: string } => p?.type === 'text' && typeof p.text === 'string')
    .map((p) => p.text)
    .join('\n');
}

/**
 * Whether the messages carry the user's approval of this very call (ai's
 * tool-approval-response): the latest approval request for toolCallId, made in an assistant
 * message whose tool call with that id had this input. The model names call ids, so an id
 * alone would let a new call borrow an earlier call's approval.
 */
export function approvedInMessages(messages: unknown, toolCallId: string | undefined, input?: unknown): boolean {
  if (!toolCallId || !Array.isArray(messages)) return false;
  const want = JSON.stringify(input ?? null);
  let requestId: string | undefined; // the latest approval request for this call, if it was for this input
  let approved = false;
  for (const m of messages as Message[]) {
    if (!Array.isArray(m?.content)) continue;
    const parts = m.content as { [k: string]: unknown }[];
    if (m.role === 'assistant') {
      for (const p of parts) {
        if (p?.type !== 'tool-approval-request' || p.toolCallId !== toolCallId) continue;
        const call = parts.find((c) => c?.type === 'tool-call' && c.toolCallId === toolCallId);
        const same = input === undefined || (call !== undefined && JSON.stringify(call.input ?? null) === want);
        requestId = same ? String(p.approvalId) : undefined;
        approved = false;
      }
    }
    if (m.role === 'tool') {
      for (const p of parts) {
        if (p?.type === 'tool-approval-response' && requestId !== undefined && String(p.approvalId) === requestId) approved = p.approved === true;
      }
    }
  }
  return approved;
}

export class VercelHooks {
  readonly gate: Gate;
  private readonly ownsGate: boolean;
  private readonly createSteering: (() => SteeringLike) | undefined;
  /** PreToolUse verdicts fired by toolApproval, taken by execute (one fire per call). */
  // Keyed by call id and input: the model names the ids, and two calls under one id must not
  // share a verdict (the harmless call's allow would let the other run).
  private readonly pending = new Map<string, Verdict>();

  constructor(options: VercelHooksOptions = {}) {
    const { gate, createSteering, ...gateOptions } = options;
    this.gate = gate ?? new Gate(gateOptions);
    this.ownsGate = gate === undefined;
    this.createSteering = createSteering;
  }

  /** The tools with each execute governed; `stop` ends the run on continue:false. */
  wrapTools<T extends { [name: string]: AiTool }>(tools: T, stop: (reason: string, v: Verdict) => void = () => {}): T {
    const out: { [name: string]: AiTool } = {};
    for (const [name, t] of Object.entries(tools)) {
      const execute = t.execute;
      if (typeof execute !== 'function') {
        out[name] = t;
        continue;
      }
      out[name] = {
        ...t,
        execute: async (input: unknown, options: { toolCallId?: string; messages?: unknown } = {}) => {
          const id = options.toolCallId;
          const key = id ? pendingKey(id, input) : undefined;
          const verdict = key ? this.pending.get(key) : undefined;
          if (key) this.pending.delete(key);
          return governCall(
            this.gate,
            { tool: name, input, toolCallId: id, verdict, approved: approvedInMessages(options.messages, id, input), onStop: stop },
            async (i) => lastOf(await execute.call(t, i, options)),
          );
        },
      };
    }
    return out as T;
  }

  /** generateText/streamText/ToolLoopAgent options governed by the hooks (see the module doc). */
  govern<O extends GovernableOptions>(options: O): O {
    const controller = new AbortController();
    const stop = (reason: string, v?: Verdict) => {
      if (!controller.signal.aborted) controller.abort(new RunStopped(reason, v));
    };
    const steering = options.experimental_steering ?? this.createSteering?.();
    const userApproval = options.toolApproval;
    const userPrepare = options.prepareStep;
    const userStepEnd = options.onStepEnd ?? options.onStepFinish;
    let continued = false;
    const governed: GovernableOptions = {
      ...options,
      abortSignal: options.abortSignal ? anySignal(options.abortSignal, controller.signal) : controller.signal,
      prepareStep: async (step: { stepNumber: number; messages: Message[] }) => {
        let messages: Message[] | undefined;
        if (step.stepNumber === 0) {
          const start = await this.gate.sessionStart();
          if (!start.continue) stop(start.stopReason || start.reason, start);
          const lastUser = [...step.messages].reverse().find((m) => m.role === 'user');
          const v = await this.gate.userPrompt(lastUser ? textOf(lastUser.content) : '');
          if (!v.continue) throw new RunStopped(v.stopReason || v.reason, v);
          if (blocked(v)) throw new RunStopped(feedback(v), v);
          const context = [start.additionalContext, v.additionalContext].filter((s) => s).join('\n\n');
          if (context) messages = [...step.messages, { role: 'user', content: context }];
        }
        controller.signal.throwIfAborted();
        const theirs = userPrepare ? await userPrepare({ ...step, ...(messages ? { messages } : {}) }) : undefined;
        return messages && !theirs?.messages ? { ...(theirs ?? {}), messages } : theirs;
      },
      onStepEnd: async (step: { toolCalls?: unknown[]; text?: string; finishReason?: string }) => {
        if (userStepEnd) await userStepEnd(step);
        if ((step.toolCalls?.length ?? 0) > 0 || step.finishReason === 'error' || controller.signal.aborted) return;
        const v = await this.gate.stop(step.text ?? '', { stopHookActive: continued });
        if (!v.continue) return stop(v.stopReason || v.reason, v);
        if (!blocked(v)) return;
        if (!steering) {
          console.warn(`hookexec: a Stop hook asked the agent to go on (${feedback(v)}), but govern() has no steering object (withHooks({ createSteering: experimental_createSteering }))`);
          return;
        }
        continued = true;
        void steering.queue(feedback(v));
      },
    };
    delete governed.onStepFinish;
    if (steering) governed.experimental_steering = steering;
    if (options.tools) {
      governed.tools = this.wrapTools(options.tools, stop);
      governed.toolApproval = async (a: { toolCall: { toolName: string; toolCallId: string; input: unknown }; messages?: unknown }) => {
        const theirs = await this.userApprovalStatus(userApproval, a);
        if (theirs !== undefined && theirs !== 'not-applicable') return theirs;
        const { toolName, toolCallId, input } = a.toolCall;
        if (typeof options.tools?.[toolName]?.execute !== 'function') return theirs;
        // A call the user already approved (a resumed run) is not asked again.
        if (approvedInMessages(a.messages, toolCallId, input)) return theirs;
        const v = await this.gate.preTool(toolName, input, toolCallId);
        this.pending.set(pendingKey(toolCallId, input), v);
        if (v.decision === 'ask' && !this.gate.approve && v.continue) {
          return { type: 'user-approval', reason: v.reason || "a hook asks for the user's approval" };
        }
        return theirs;
      };
    }
    return governed as O;
  }

  private async userApprovalStatus(theirs: unknown, a: { toolCall: { toolName: string; toolCallId: string; input: unknown } }): Promise<unknown> {
    if (theirs == null) return undefined;
    if (typeof theirs === 'function') return theirs(a);
    const one = (theirs as { [name: string]: unknown })[a.toolCall.toolName];
    if (typeof one === 'function') return one(a.toolCall.input, { ...a, toolCallId: a.toolCall.toolCallId });
    return one;
  }

  /** Fires SessionEnd and closes the gate the adapter made. */
  async close(): Promise<void> {
    if (this.ownsGate) await this.gate.close();
    else await this.gate.sessionEnd();
  }
}

function pendingKey(toolCallId: string, input: unknown): string {
  return `${toolCallId}\u0000${JSON.stringify(input ?? null)}`;
}

/** A tool's result: ai lets execute return an async iterable whose last value is the output. */
async function lastOf(result: unknown): Promise<unknown> {
  if (result !== null && typeof result === 'object' && Symbol.asyncIterator in result) {
    let last: unknown;
    for await (const part of result as AsyncIterable<unknown>) last = part;
    return last;
  }
  return result;
}

/** The hooks of the project (GateOptions) for ai's generateText/streamText/ToolLoopAgent. */
export function withHooks(options: VercelHooksOptions = {}): VercelHooks {
  return new VercelHooks(options);
}

/** Only the tools governed (PreToolUse/PostToolUse; an "ask" settled by gate.approve). */
export function governTools<T extends { [name: string]: AiTool }>(tools: T, gate: Gate): T {
  return new VercelHooks({ gate }).wrapTools(tools);
}
