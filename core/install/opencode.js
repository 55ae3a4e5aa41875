// hookexec's plugin for opencode and Kilo Code, written by `hookexec install --agent AGENT`
// (do not edit: install rewrites it, uninstall removes it). Each tool call and session event
// goes to the hookexec dispatcher as a Claude Code-shaped hook payload on stdin; its answer
// is applied: a block refuses the call (the thrown Error's message reaches the model), new
// arguments replace output.args in place, context is appended to the tool's output.
// Whatever keeps the dispatcher from answering (missing, crashed, killed, past its timeout,
// an answer that is not JSON) refuses the call: hookexec fails closed.
import { spawn } from "node:child_process";

const DISPATCHER = /*HOOKEXEC_DISPATCHER*/[];
const AGENT = /*HOOKEXEC_AGENT*/"opencode";
const PROJECT_ENV = /*HOOKEXEC_PROJECT_ENV*/"OPENCODE_PROJECT_DIR";
const DEFAULT_TIMEOUT_MS = /*HOOKEXEC_TIMEOUT_MS*/65000;

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
    const timer = setTimeout(() => {
      try { process.kill(-child.pid, "SIGKILL"); } catch { try { child.kill("SIGKILL"); } catch {} }
      finish(reject, new Error(`the dispatcher did not answer within ${limit} ms`));
    }, limit);
    child.stdout.on("data", (d) => { stdout += d; });
    child.stderr.on("data", (d) => { stderr += d; });
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

export const HookexecPlugin = async ({ directory }) => {
  const context = new Map(); // callID → context a PreToolUse hook gave, for the tool's output
  return {
    "tool.execute.before": async (input, output) => {
      let ans;
      try {
        ans = await dispatch(payloadOf("PreToolUse", input.sessionID, directory,
          { tool_name: input.tool, tool_input: output.args ?? {}, tool_use_id: input.callID }), directory);
      } catch (err) {
        throw new Error(`hookexec: the hooks of this call could not run (${err.message}); refused to be safe`);
      }
      if (ans.block) throw new Error(ans.reason);
      if (ans.continue === false) throw new Error(ans.stopReason || ans.reason || "hookexec: a hook stopped the turn");
      if (ans.decision === "deny") throw new Error(ans.reason || "blocked by hook");
      if (ans.decision === "ask") {
        throw new Error(`hookexec: a hook asks to confirm this call, which an opencode plugin cannot ask; refused${ans.reason ? ": " + ans.reason : ""}`);
      }
      if (ans.updatedInput !== undefined) {
        if (ans.updatedInput === null || typeof ans.updatedInput !== "object" || Array.isArray(ans.updatedInput)) {
          throw new Error("hookexec: a hook's new tool input is not an object; refused to be safe");
        }
        // opencode runs the tool with the object it passed as output.args: change it in place.
        for (const k of Object.keys(output.args)) if (!(k in ans.updatedInput)) delete output.args[k];
        Object.assign(output.args, ans.updatedInput);
      }
      const text = [ans.additionalContext, ans.systemMessage].filter(Boolean).join("\n");
      if (text) context.set(input.callID, text);
    },
    "tool.execute.after": async (input, output) => {
      const before = context.get(input.callID);
      context.delete(input.callID);
      let ans = {};
      try {
        ans = await dispatch(payloadOf("PostToolUse", input.sessionID, directory, {
          tool_name: input.tool, tool_input: input.args ?? {}, tool_use_id: input.callID,
          tool_response: { title: output.title, output: output.output, metadata: output.metadata },
        }), directory);
      } catch (err) {
        ans = { reason: `hookexec: the PostToolUse hooks could not run (${err.message})` };
      }
      appendText(output, before);
      appendText(output, [ans.reason, ans.additionalContext, ans.systemMessage].filter(Boolean).join("\n"));
    },
    event: async ({ event }) => {
      const sessionID = event?.properties?.sessionID ?? event?.properties?.info?.id;
      switch (event?.type) {
        case "session.created":
          if (!event.properties?.info?.parentID) await notify("SessionStart", sessionID, directory, { source: "startup" });
          break;
        case "session.idle":
          await notify("Stop", sessionID, directory, { stop_hook_active: false });
          break;
        case "session.deleted":
          await notify("SessionEnd", sessionID, directory, { reason: "other" });
          break;
      }
    },
  };
};
