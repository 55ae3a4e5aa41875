// @hookexec/node/claude-agent-sdk: hookexec governs an agent built on the Claude Agent SDK
// (@anthropic-ai/claude-agent-sdk) through the SDK's `hooks` option: one callback per event
// fires the event through the Gate with Claude Code's own payload and answers with the SDK's
// hook output. It never imports the SDK (the SDK's query is handed in), so @hookexec/node
// works without it and its types here are structural.
//
//   import { query } from '@anthropic-ai/claude-agent-sdk';
//   import { govern } from '@hookexec/node/claude-agent-sdk';
//   for await (const m of govern(query)({ prompt, options: { cwd } })) ...
//
// Claude Code would also run the hooks of .claude/settings.json itself: the adapter sets
// `settings.disableAllHooks` (Claude Code's own hooks off, SDK callbacks still called;
// CLAUDE.md, permissions and the rest of the settings still load), so every hook runs once,
// through hookexec. The SDK (0.3.332) never calls SessionStart/SessionEnd callbacks: the
// adapter fires SessionStart before the first event it sees and SessionEnd when the query ends.

import { BLOCKING_EVENTS, Gate, feedback, type GateOptions, type Verdict } from './gate';

/** The events the adapter registers (Claude Code's names; its payloads pass through as they are). */
export const CLAUDE_EVENTS = [
  'PreToolUse',
  'PostToolUse',
  'PostToolUseFailure',
  'UserPromptSubmit',
  'Stop',
  'SubagentStart',
  'SubagentStop',
  'PreCompact',
  'Notification',
  'SessionStart',
  'SessionEnd',
] as const;

/** Events whose hookSpecificOutput carries additionalContext (Claude Code adds it for the model). */
const CONTEXT_EVENTS: ReadonlySet<string> = new Set(['PostToolUse', 'PostToolUseFailure', 'UserPromptSubmit', 'SessionStart', 'SubagentStart', 'Stop', 'SubagentStop']);

/** The hook input the SDK gives a callback: Claude Code's hook payload. */
export type HookInput = { hook_event_name: string; session_id?: string; [key: string]: unknown };

/** The SDK's SyncHookJSONOutput, as far as the adapter answers it. */
export interface HookOutput {
  continue?: boolean;
  stopReason?: string;
  decision?: 'block';
  reason?: string;
  systemMessage?: string;
  hookSpecificOutput?:
    | {
        hookEventName: 'PreToolUse';
        permissionDecision?: 'allow' | 'deny' | 'ask';
        permissionDecisionReason?: string;
        updatedInput?: Record<string, unknown>;
        additionalContext?: string;
      }
    | { hookEventName: 'PostToolUse' | 'PostToolUseFailure' | 'UserPromptSubmit' | 'SessionStart' | 'SubagentStart' | 'Stop' | 'SubagentStop'; additionalContext?: string };
}

export type HookCallback = (input: HookInput, toolUseID: string | undefined, options: { signal: AbortSignal }) => Promise<HookOutput>;
export type HookMatchers = { [event: string]: Array<{ matcher?: string; hooks: HookCallback[]; onFailure?: 'continue' | 'block' }> };

/** The SDK's output for a verdict on event. */
export function outputOf(event: string, v: Verdict): HookOutput {
  const out: HookOutput = {};
  if (!v.continue) {
    out.continue = false;
    out.stopReason = v.stopReason || v.reason || `a ${event} hook ended the run`;
  }
  if (v.systemMessage) out.systemMessage = v.systemMessage;
  if (event === 'PreToolUse') {
    const specific: HookOutput['hookSpecificOutput'] = { hookEventName: 'PreToolUse' };
    // Claude Code may still run the tool of a PreToolUse that said continue:false: refuse it too.
    const decision = v.continue ? v.decision : 'deny';
    if (decision !== 'none') specific.permissionDecision = decision;
    if (!v.continue) specific.permissionDecisionReason = out.stopReason!;
    else if (decision === 'deny') specific.permissionDecisionReason = feedback(v);
    else if (v.reason) specific.permissionDecisionReason = v.reason;
    if (v.updatedInput) specific.updatedInput = v.updatedInput;
    if (v.additionalContext) specific.additionalContext = v.additionalContext;
    out.hookSpecificOutput = specific;
    return out;
  }
  if (v.decision === 'deny') {
    out.decision = 'block';
    out.reason = feedback(v);
  }
  if (v.additionalContext && CONTEXT_EVENTS.has(event)) {
    out.hookSpecificOutput = { hookEventName: event as 'PostToolUse', additionalContext: v.additionalContext };
  }
  return out;
}

/** SessionStart's answer folded into the first event's (its context and a continue:false carry over). */
function withSessionStart(event: string, out: HookOutput, start: Verdict): HookOutput {
  if (!start.continue && out.continue !== false) {
    out.continue = false;
    out.stopReason = start.stopReason || start.reason || 'a SessionStart hook ended the run';
  }
  if (start.additionalContext && CONTEXT_EVENTS.has(event)) {
    const before = out.hookSpecificOutput?.additionalContext;
    out.hookSpecificOutput = {
      ...(out.hookSpecificOutput ?? { hookEventName: event as 'PostToolUse' }),
      additionalContext: before ? `${start.additionalContext}\n${before}` : start.additionalContext,
    };
  }
  return out;
}

/**
 * The SDK's `hooks` option: every event of CLAUDE_EVENTS through the gate. An "ask" is
 * settled by the gate's approve callback when it has one; otherwise it goes to Claude Code as
 * permissionDecision "ask" (its permission flow: the SDK's canUseTool, or a refusal).
 */
export function hookexecHooks(gate: Gate): HookMatchers {
  const answer: HookCallback = async (input) => {
    const event = input.hook_event_name;
    if (event === 'SessionStart') return outputOf(event, await gate.sessionStart(String(input['source'] ?? 'startup')));
    if (event === 'SessionEnd') return outputOf(event, await gate.sessionEnd(String(input['reason'] ?? 'other')));
    const start = await gate.sessionStart('startup');
    let v = await gate.fire(event, { ...input });
    if (event === 'PreToolUse' && v.decision === 'ask' && gate.approve) {
      const toolInput = input['tool_input'];
      v = await gate.settleAsk(v, String(input['tool_name']), toolInput !== null && typeof toolInput === 'object' ? (toolInput as Record<string, unknown>) : {});
    }
    return withSessionStart(event, outputOf(event, v), start);
  };
  // Fail closed twice over: anything the callback throws is a deny on an event that can
  // block, and onFailure "block" makes Claude Code refuse the action if the callback still
  // fails (a timeout), where the SDK's default would let it go ahead.
  const callback: HookCallback = async (input, toolUseID, options) => {
    const event = input.hook_event_name;
    try {
      return await answer(input, toolUseID, options);
    } catch (err) {
      const msg = `hookexec: ${event} could not be decided: ${err instanceof Error ? err.message : String(err)}`;
      console.error(msg);
      if (!BLOCKING_EVENTS.has(event)) return {};
      return outputOf(event, { event, decision: 'deny', reason: msg, updatedInput: null, additionalContext: '', continue: true, stopReason: '', systemMessage: '', error: msg, result: null });
    }
  };
  const hooks: HookMatchers = {};
  for (const event of CLAUDE_EVENTS) hooks[event] = [{ hooks: [callback], onFailure: 'block' }];
  return hooks;
}

/**
 * options with the gate's hooks first (the caller's own hooks kept after them), Claude Code's
 * own hooks off (settings.disableAllHooks, unless the caller set it), cwd the gate's project
 * and the session id the gate's (unless the query resumes or continues one).
 */
export function hookexecOptions<O extends { [key: string]: any }>(options: O, gate: Gate): O {
  const own = (options['hooks'] ?? {}) as HookMatchers;
  const hooks: HookMatchers = { ...own };
  for (const [event, matchers] of Object.entries(hookexecHooks(gate))) hooks[event] = [...matchers, ...(own[event] ?? [])];
  const settings = options['settings'];
  if (typeof settings === 'string') {
    throw new TypeError('hookexec: options.settings is a file path; give the settings as an object so that disableAllHooks can be set (else Claude Code runs the hooks a second time)');
  }
  const out: { [key: string]: unknown } = {
    ...options,
    hooks,
    settings: { disableAllHooks: true, ...(settings ?? {}) },
    cwd: options['cwd'] ?? gate.cwd,
  };
  if (!options['resume'] && !options['continue'] && !options['sessionId']) out['sessionId'] = gate.sessionId;
  return out as O;
}

/** What govern's query function takes: the SDK's query parameters. */
export interface QueryParams {
  prompt: unknown;
  options?: { [key: string]: any };
}

/**
 * The SDK's query, governed: each call opens a Gate for the query's cwd (gateOptions over
 * it), fires SessionStart before the first event, and fires SessionEnd and closes the gate
 * when the query's messages end (or the iteration stops early or fails).
 */
export function govern<P extends QueryParams, Q extends AsyncGenerator<unknown, unknown, unknown>>(
  query: (params: P) => Q,
  gateOptions: GateOptions = {},
): (params: P) => Q {
  return (params: P): Q => {
    const options = params.options ?? {};
    const gate = new Gate({ projectDir: options['cwd'], ...gateOptions });
    const q = query({ ...params, options: hookexecOptions(options, gate) });
    let closing: Promise<void> | undefined;
    const finish = (): Promise<void> => (closing ??= gate.close().catch((err: unknown) => console.error('hookexec: closing the gate failed:', err)));
    const next = q.next.bind(q);
    const ret = q.return.bind(q);
    const thr = q.throw.bind(q);
    const ending = async <R>(step: Promise<IteratorResult<unknown, R>>): Promise<IteratorResult<unknown, R>> => {
      try {
        const r = await step;
        if (r.done) await finish();
        return r;
      } catch (err) {
        await finish();
        throw err;
      }
    };
    q.next = (...a: [] | [unknown]) => ending(next(...a));
    q.return = (value: unknown) => ending(ret(value as never)).finally(finish);
    q.throw = (e: unknown) => ending(thr(e));
    // The SDK's Query iterates an inner generator: for-await must come through the wrappers.
    q[Symbol.asyncIterator] = () => q;
    return q;
  };
}
