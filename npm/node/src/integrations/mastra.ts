// @hookexec/node/mastra: the hooks of .claude/settings.json (or any profile) govern a Mastra
// (@mastra/core 1.x) agent.
//
//   const hooks = withHooks();
//   const agent = new Agent({ name, instructions, model, tools: hooks.tools({ shell }) });
//   const result = await hooks.generate(agent, prompt, { maxSteps: 20 });
//   await hooks.close();
//
// tools() wraps each tool's execute (PreToolUse: a block returns the reason as the tool's
// result; updated_input is what the tool runs with; an "ask" is settled by the gate's approve
// callback, else refused with its reason; PostToolUse/PostToolUseFailure: feedback and
// additional_context join the result the model reads). generate() fires SessionStart and
// UserPromptSubmit (a block throws RunStopped before the model; additional_context is sent
// after the prompt), runs agent.generate with an abort signal (continue:false from any hook
// aborts the run: RunStopped), then Stop: a block runs the agent again with the conversation
// so far and the reason as the next user message. @mastra/core is never imported at run time.

import { AsyncLocalStorage } from 'node:async_hooks';

import { Gate, RunStopped, blocked, feedback, type GateOptions, type Verdict } from './gate';
import { anySignal, governCall } from './toolcall';

/** A Mastra tool (createTool's), as far as the adapter touches it. */
export interface MastraTool {
  execute?: ((inputData: any, context?: any) => Promise<any>) | undefined;
  [key: string]: any;
}

/** A Mastra Agent, as far as the adapter calls it. */
export interface MastraAgentLike {
  generate(messages: any, options?: any): Promise<any>;
}

export interface MastraHooksOptions extends GateOptions {
  /** A gate to use (the adapter does not close it); else one is made from these options. */
  gate?: Gate;
  /** How many times a Stop hook's block may run the agent again in one generate(); default 8. */
  maxContinuations?: number;
}

type Message = { role: string; content: string };

export class MastraHooks {
  readonly gate: Gate;
  private readonly ownsGate: boolean;
  private readonly maxContinuations: number;
  // Each generate() call's way to end its own run, found from a tool through the async
  // context (two runs of one MastraHooks at once must not end each other); the latest run's
  // as a fallback where a framework loses the context.
  private readonly runs = new AsyncLocalStorage<(reason: string, v: Verdict) => void>();
  private latestStop: ((reason: string, v: Verdict) => void) | undefined;

  constructor(options: MastraHooksOptions = {}) {
    const { gate, maxContinuations, ...gateOptions } = options;
    this.gate = gate ?? new Gate(gateOptions);
    this.ownsGate = gate === undefined;
    this.maxContinuations = maxContinuations ?? 8;
  }

  /** The tools with each execute governed (same prototype, so Mastra still sees a Tool). */
  tools<T extends { [name: string]: MastraTool }>(tools: T): T {
    const out: { [name: string]: MastraTool } = {};
    for (const [name, t] of Object.entries(tools)) {
      const execute = t.execute;
      if (typeof execute !== 'function') {
        out[name] = t;
        continue;
      }
      const wrapped: MastraTool = Object.assign(Object.create(Object.getPrototypeOf(t) as object) as MastraTool, t);
      wrapped.execute = (inputData: unknown, context?: { agent?: { toolCallId?: string }; toolCallId?: string }) =>
        governCall(
          this.gate,
          { tool: name, input: inputData, toolCallId: context?.agent?.toolCallId ?? context?.toolCallId, onStop: (r, v) => (this.runs.getStore() ?? this.latestStop)?.(r, v) },
          (input) => execute.call(t, input, context),
        );
      out[name] = wrapped;
    }
    return out as T;
  }

  /** agent.generate(prompt) under SessionStart, UserPromptSubmit and Stop hooks (see the module doc). */
  async generate(agent: MastraAgentLike, prompt: string, options: { abortSignal?: AbortSignal; [key: string]: unknown } = {}): Promise<any> {
    const start = await this.gate.sessionStart();
    if (!start.continue) throw new RunStopped(start.stopReason || start.reason, start);
    const v = await this.gate.userPrompt(prompt);
    if (!v.continue) throw new RunStopped(v.stopReason || v.reason, v);
    if (blocked(v)) throw new RunStopped(feedback(v), v);
    const messages: Message[] = [{ role: 'user', content: prompt }];
    const context = [start.additionalContext, v.additionalContext].filter((s) => s).join('\n\n');
    if (context) messages.push({ role: 'user', content: context });

    const controller = new AbortController();
    const stopRun = (reason: string, verdict: Verdict) => {
      if (!controller.signal.aborted) controller.abort(new RunStopped(reason, verdict));
    };
    this.latestStop = stopRun;
    const abortSignal = options.abortSignal ? anySignal(options.abortSignal, controller.signal) : controller.signal;
    try {
      for (let n = 0; ; n++) {
        let result: any;
        try {
          result = await this.runs.run(stopRun, () => agent.generate(messages, { ...options, abortSignal }));
        } finally {
          controller.signal.throwIfAborted();
        }
        const text = String(result?.text ?? '');
        const s = await this.gate.stop(text, { stopHookActive: n > 0 });
        if (!s.continue || !blocked(s) || n >= this.maxContinuations) return result;
        messages.push({ role: 'assistant', content: text }, { role: 'user', content: feedback(s) });
      }
    } finally {
      if (this.latestStop === stopRun) this.latestStop = undefined;
    }
  }

  /** Fires SessionEnd and closes the gate the adapter made. */
  async close(): Promise<void> {
    if (this.ownsGate) await this.gate.close();
    else await this.gate.sessionEnd();
  }
}

/** The hooks of the project (GateOptions) for a Mastra agent: hooks.tools(...), hooks.generate(...). */
export function withHooks(options: MastraHooksOptions = {}): MastraHooks {
  return new MastraHooks(options);
}
