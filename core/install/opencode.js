// hookexec's plugin for opencode and Kilo Code, written by `hookexec install --agent AGENT`
// (do not edit: install rewrites it, uninstall removes it, status reports an edited copy as
// "modified"). Each tool call, prompt and session event goes to the hookexec dispatcher as a
// Claude Code-shaped hook payload on stdin; its answer is applied: a block refuses the call
// or the prompt (the thrown Error's message reaches the model, or the user), new arguments
// replace output.args in place, context is appended to the tool's output or the prompt.
// Whatever keeps the dispatcher from answering (missing, crashed, killed, past its timeout,
// an answer that is not JSON or larger than 4 MiB) refuses the call: hookexec fails closed.
import { spawn } from "node:child_process";

const DISPATCHER = /*HOOKEXEC_DISPATCHER*/[];
const AGENT = /*HOOKEXEC_AGENT*/"opencode";
const PROJECT_ENV = /*HOOKEXEC_PROJECT_ENV*/"OPENCODE_PROJECT_DIR";
const DEFAULT_TIMEOUT_MS = /*HOOKEXEC_TIMEOUT_MS*/65000;
// MAX_OUTPUT_BYTES bounds what the dispatcher may print (stdout and stderr together): past
// it the dispatcher's process group is killed and the call refused, so a runaway hook
// cannot grow the agent's memory.
const MAX_OUTPUT_BYTES = 4 << 20;
// UNSAFE_KEYS are the keys a new tool input must not set through assignment: "__proto__"
// would replace the arguments' prototype. They are defined as plain own properties instead.
const UNSAFE_KEYS = new Set(["__proto__", "constructor", "prototype"]);

function timeoutMs() {
  const n = Number(process.env.HOOKEXEC_PLUGIN_TIMEOUT_MS);
  return Number.isFinite(n) && n > 0 ? n : DEFAULT_TIMEOUT_MS;
}

// dispatch runs the dispatcher once: resolves to {block, reason} for exit 2, to the parsed
// JSON answer (or {}) for exit 0, and rejects for anything else.
function dispatch(payload, directory) {
  return new Promise((resolve, reject) => {
    const limit = timeoutMs();
    let child;
    try {
      child = spawn(DISPATCHER[0], [...DISPATCHER.slice(1), "--timeout-ms", String(limit)], {
        cwd: directory,
        env: { ...process.env, [PROJECT_ENV]: directory },
        stdio: ["pipe", "pipe", "pipe"],
        detached: true,
      });
    } catch (err) {
      reject(new Error(`cannot start ${DISPATCHER[0]}: ${err.message}`));
      return;
    }
    let stdout = "", stderr = "", done = false;
    const finish = (fn, value) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      fn(value);
    };
    const killGroup = () => {
      try { process.kill(-child.pid, "SIGKILL"); } catch { try { child.kill("SIGKILL"); } catch {} }
    };
    const timer = setTimeout(() => {
      killGroup();
      finish(reject, new Error(`the dispatcher did not answer within ${limit} ms`));
    }, limit);
    // Decoded as UTF-8 by the stream, so a character split across two chunks stays whole.
    child.stdout.setEncoding("utf8");
    child.stderr.setEncoding("utf8");
    let size = 0;
    const take = (d) => {
      size += Buffer.byteLength(d, "utf8");
      if (size > MAX_OUTPUT_BYTES) {
        killGroup();
        finish(reject, new Error(`the dispatcher printed more than ${MAX_OUTPUT_BYTES} bytes`));
        return false;
      }
      return true;
    };
    child.stdout.on("data", (d) => { if (take(d)) stdout += d; });
    child.stderr.on("data", (d) => { if (take(d)) stderr += d; });
    child.on("error", (err) => finish(reject, new Error(`cannot run ${DISPATCHER[0]}: ${err.message}`)));
    child.on("close", (code, signal) => {
      if (signal) return finish(reject, new Error(`the dispatcher was killed by ${signal}: ${stderr.trim()}`));
      if (code === 2) return finish(resolve, { block: true, reason: stderr.trim() || "blocked by hook" });
      if (code !== 0) return finish(reject, new Error(`the dispatcher failed (exit ${code}): ${stderr.trim()}`));
      const text = stdout.trim();
      if (text === "") return finish(resolve, {});
      try {
        const ans = JSON.parse(text);
        if (ans === null || typeof ans !== "object" || Array.isArray(ans)) throw new Error("not an object");
        finish(resolve, ans);
      } catch (err) {
        finish(reject, new Error(`the dispatcher's answer is not a JSON object: ${JSON.stringify(text.slice(0, 200))}`));
      }
    });
    child.stdin.on("error", () => {});
    child.stdin.end(JSON.stringify(payload));
  });
}

function payloadOf(event, sessionID, directory, fields) {
  return { session_id: sessionID || "", cwd: directory, hook_event_name: event, agent: AGENT, ...fields };
}

// notify runs a fire whose answer the plugin API cannot act on (session events).
async function notify(event, sessionID, directory, fields) {
  try {
    const ans = await dispatch(payloadOf(event, sessionID, directory, fields), directory);
    if (ans.block && ans.reason) console.error(`hookexec: ${event}: ${ans.reason}`);
  } catch (err) {
    console.error(`hookexec: ${event}: ${err.message}`);
  }
}

function appendText(output, text) {
  if (!text) return;
  output.output = (typeof output.output === "string" && output.output !== "" ? output.output + "\n\n" : "") + text;
}

// refusal is the error a PreToolUse answer refuses the call with, or null when it lets it run.
function refusal(ans) {
  if (ans.block) return ans.reason;
  if (ans.continue === false) return ans.stopReason || ans.reason || "hookexec: a hook stopped the turn";
  if (ans.decision === "deny" || ans.decision === "block") return ans.reason || "blocked by hook";
  if (ans.decision === "ask") {
    return `hookexec: a hook asks to confirm this call, which an opencode plugin cannot ask; refused${ans.reason ? ": " + ans.reason : ""}`;
  }
  return null;
}

// preToolUse runs the PreToolUse hooks of one call; it throws when the call must not run and
// returns the answer otherwise.
async function preToolUse(tool, args, sessionID, callID, directory) {
  let ans;
  try {
    ans = await dispatch(payloadOf("PreToolUse", sessionID, directory,
      { tool_name: tool, tool_input: args ?? {}, tool_use_id: callID }), directory);
  } catch (err) {
    throw new Error(`hookexec: the hooks of this call could not run (${err.message}); refused to be safe`);
  }
  const no = refusal(ans);
  if (no !== null) throw new Error(no);
  if (ans.updatedInput !== undefined && (ans.updatedInput === null || typeof ans.updatedInput !== "object" || Array.isArray(ans.updatedInput))) {
    throw new Error("hookexec: a hook's new tool input is not an object; refused to be safe");
  }
  return ans;
}

// replaceArgs makes args hold exactly the keys of next. opencode runs the tool with the very
// object it passed as output.args, so it is changed in place; every key is defined as a
// plain own property, so "__proto__" cannot replace the object's prototype.
function replaceArgs(args, next) {
  for (const k of Object.keys(args)) if (!Object.hasOwn(next, k)) delete args[k];
  for (const k of Object.keys(next)) {
    if (UNSAFE_KEYS.has(k) || Object.hasOwn(args, k)) {
      Object.defineProperty(args, k, { value: next[k], writable: true, enumerable: true, configurable: true });
    } else {
      args[k] = next[k];
    }
  }
}

// batchCalls are the sub-calls of opencode's batch tool ({tool_calls: [{tool, parameters}]},
// experimental.batch_tool): it runs them without tool.execute.before, so each is checked here.
function batchCalls(tool, args) {
  if (tool !== "batch" || !args || !Array.isArray(args.tool_calls)) return null;
  return args.tool_calls.map((c) => ({ tool: String(c?.tool ?? ""), args: c?.parameters ?? {} }));
}

// promptText is what the user typed: the prompt's text parts, not the ones opencode adds.
function promptText(parts) {
  return (parts ?? []).filter((p) => p?.type === "text" && !p.synthetic).map((p) => p.text).join("\n");
}

export const HookexecPlugin = async ({ directory }) => {
  const context = new Map(); // callID → context a PreToolUse hook gave, for the tool's output
  const checked = new Map(); // callID → the arguments hookexec's hooks approved, as JSON
  const children = new Set(); // sessions of subagents: their prompts are not the user's
  return {
    "chat.message": async (input, output) => {
      if (children.has(input.sessionID)) return;
      let ans;
      try {
        ans = await dispatch(payloadOf("UserPromptSubmit", input.sessionID, directory,
          { prompt: promptText(output.parts) }), directory);
      } catch (err) {
        throw new Error(`hookexec: the hooks of this prompt could not run (${err.message}); refused to be safe`);
      }
      if (ans.block) throw new Error(ans.reason);
      if (ans.continue === false) throw new Error(ans.stopReason || ans.reason || "hookexec: a hook stopped the turn");
      if (ans.decision === "block" || ans.decision === "deny") throw new Error(ans.reason || "blocked by hook");
      if (ans.systemMessage) console.error(`hookexec: ${ans.systemMessage}`);
      // The prompt's own text part carries the context: a part opencode did not make would
      // need an id of opencode's.
      const text = (output.parts ?? []).filter((p) => p?.type === "text" && !p.synthetic).at(-1);
      if (ans.additionalContext && text) text.text = `${text.text}\n\n${ans.additionalContext}`;
    },
    "tool.execute.before": async (input, output) => {
      const subs = batchCalls(input.tool, output.args);
      if (subs) {
        for (const [i, sub] of subs.entries()) {
          let ans;
          try {
            ans = await preToolUse(sub.tool, sub.args, input.sessionID, `${input.callID}/${i}`, directory);
          } catch (err) {
            throw new Error(`hookexec: call ${i + 1} of the batch (${sub.tool}) is refused, so the batch is: ${err.message}`);
          }
          if (ans.updatedInput !== undefined) {
            throw new Error(`hookexec: a hook rewrote call ${i + 1} of the batch (${sub.tool}), which the plugin does not apply inside a batch; refused`);
          }
        }
      }
      const ans = await preToolUse(input.tool, output.args, input.sessionID, input.callID, directory);
      if (ans.updatedInput !== undefined) {
        if (subs) throw new Error("hookexec: a hook rewrote a batch call, which the plugin does not apply; refused");
        replaceArgs(output.args, ans.updatedInput);
      }
      checked.set(input.callID, JSON.stringify(output.args ?? {}));
      const text = [ans.additionalContext, ans.systemMessage].filter(Boolean).join("\n");
      if (text) context.set(input.callID, text);
    },
    "tool.execute.after": async (input, output) => {
      const before = context.get(input.callID);
      context.delete(input.callID);
      // A plugin that runs after this one may change the arguments hookexec approved: too
      // late to stop the call, but the model and the hooks are told.
      const approved = checked.get(input.callID);
      checked.delete(input.callID);
      const ran = JSON.stringify(input.args ?? {});
      const changed = approved !== undefined && approved !== ran;
      if (changed) console.error(`hookexec: ${input.tool} ran with arguments another plugin changed after hookexec's hooks checked them: ${ran}`);
      let ans = {};
      try {
        ans = await dispatch(payloadOf("PostToolUse", input.sessionID, directory, {
          tool_name: input.tool, tool_input: input.args ?? {}, tool_use_id: input.callID,
          tool_response: { title: output.title, output: output.output, metadata: output.metadata },
        }), directory);
      } catch (err) {
        ans = { reason: `hookexec: the PostToolUse hooks could not run (${err.message})` };
      }
      if (changed) appendText(output, `hookexec: this call ran with arguments changed after hookexec's hooks checked them (checked ${approved}, ran ${ran})`);
      appendText(output, before);
      appendText(output, [ans.reason, ans.additionalContext, ans.systemMessage].filter(Boolean).join("\n"));
    },
    event: async ({ event }) => {
      const sessionID = event?.properties?.sessionID ?? event?.properties?.info?.id;
      switch (event?.type) {
        case "session.created":
          if (event.properties?.info?.parentID) children.add(sessionID);
          else await notify("SessionStart", sessionID, directory, { source: "startup" });
          break;
        case "session.idle":
          if (!children.has(sessionID)) await notify("Stop", sessionID, directory, { stop_hook_active: false });
          break;
        case "session.deleted":
          children.delete(sessionID);
          await notify("SessionEnd", sessionID, directory, { reason: "other" });
          break;
      }
    },
  };
};
