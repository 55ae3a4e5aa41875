// One tool call through the gate, for adapters whose framework hands them a tool's execute
// function (Vercel AI SDK, Mastra): PreToolUse before it (a block returns the reason as the
// tool's result, so the model reads it; updated_input is what the tool really runs with),
// PostToolUse or PostToolUseFailure after it (feedback and additional_context join the
// result the model reads), continue:false to the adapter's stop callback.

import { blocked, feedback, type Gate, type Verdict } from './gate';

type Input = { [key: string]: unknown };

export interface ToolCall {
  tool: string;
  input: unknown;
  toolCallId?: string | undefined;
  /** The PreToolUse verdict already fired for this call (e.g. by an approval hook). */
  verdict?: Verdict | undefined;
  /** The user approved this call through the framework's approval mechanism. */
  approved?: boolean | undefined;
  /** A hook answered continue:false: the adapter ends the run. */
  onStop: (reason: string, v: Verdict) => void;
}

/** The text the model reads: the tool's output and what hooks added after it. */
export function withText(output: unknown, more: string[]): unknown {
  const extra = more.filter((s) => s);
  if (extra.length === 0) return output;
  const text = typeof output === 'string' ? output : JSON.stringify(output ?? null);
  return [text, ...extra].join('\n\n');
}

function stopped(v: Verdict, call: ToolCall): boolean {
  if (v.continue) return false;
  call.onStop(v.stopReason || v.reason, v);
  return true;
}

/** Runs `run` under PreToolUse/PostToolUse hooks and returns what the model should read. */
export async function governCall(gate: Gate, call: ToolCall, run: (input: unknown) => Promise<unknown>): Promise<unknown> {
  let v = call.verdict ?? (await gate.preTool(call.tool, call.input, call.toolCallId));
  if (v.decision === 'ask') {
    v = call.approved ? { ...v, decision: 'allow' } : await gate.settleAsk(v, call.tool, inputObject(call.input));
  }
  if (stopped(v, call)) return `Stopped by a PreToolUse hook: ${v.stopReason || v.reason || 'continue: false'}`;
  if (blocked(v)) return feedback(v);
  const input = v.updatedInput ?? call.input;
  let output: unknown;
  try {
    output = await run(input);
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    const f = await gate.toolFailed(call.tool, input, message, call.toolCallId);
    stopped(f, call);
    if (f.additionalContext && err instanceof Error) err.message = `${err.message}\n\n${f.additionalContext}`;
    throw err;
  }
  const post = await gate.postTool(call.tool, input, output, call.toolCallId);
  stopped(post, call);
  return withText(output, [blocked(post) ? feedback(post) : '', post.additionalContext]);
}

function inputObject(input: unknown): Input {
  return input !== null && typeof input === 'object' && !Array.isArray(input) ? (input as Input) : { input };
}

/** Aborted when either is (AbortSignal.any where Node has it). */
export function anySignal(a: AbortSignal, b: AbortSignal): AbortSignal {
  if (typeof AbortSignal.any === 'function') return AbortSignal.any([a, b]);
  const c = new AbortController();
  for (const s of [a, b]) {
    if (s.aborted) c.abort(s.reason);
    else s.addEventListener('abort', () => c.abort(s.reason), { once: true });
  }
  return c.signal;
}
