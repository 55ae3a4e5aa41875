/*
 * hookexec.h — the public C interface of libhookexec.
 *
 * hookexec runs the shell hooks users attach to an AI agent's lifecycle events (PreToolUse,
 * PostToolUse, Stop, ...) and returns one aggregated decision per event. A host opens an
 * engine, fires events with a JSON payload, reads the JSON result, and closes the engine.
 *
 * Conventions (they hold for every function below):
 *   - Status: functions return HOOKEXEC_OK (0) on success and a HOOKEXEC_E* code otherwise.
 *     New codes may be added; treat any unknown non-zero value as an error.
 *   - Strings the library hands out (result, config, error text) are allocated by it and
 *     must be released with hookexec_free(), never with free() from another allocator.
 *     Strings the caller passes in are only read during the call.
 *   - Error text: hookexec_open and hookexec_reload return it through error_out; for every
 *     call, hookexec_errmsg() returns the text of the last failure on the calling thread.
 *   - Threads: every function may be called from any thread, concurrently, on one engine.
 *   - fork(): in a child process forked after the library was loaded, every function returns
 *     HOOKEXEC_EFORK at once (the Go runtime does not survive fork). Open engines in the
 *     process that uses them, or exec() in the child.
 *   - The library never writes to file descriptors 1 and 2, never panics across this
 *     boundary, and installs no signal handlers of its own (the Go runtime's, which chain
 *     to the host's, are the only ones).
 */
#ifndef HOOKEXEC_H
#define HOOKEXEC_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The version of this header, from the VERSION file of the hookexec repository (`make
 * version` writes these lines; a test checks them). The library a program runs with may be
 * another build than the header it was compiled with; as with sqlite3.h, a host checks at
 * load time that they agree where it matters, the major version:
 *
 *     if (hookexec_version_number() / 1000000 != HOOKEXEC_VERSION_MAJOR) {
 *         fprintf(stderr, "built against hookexec %s, running with %s\n",
 *                 HOOKEXEC_VERSION, hookexec_version());
 *         exit(1);
 *     }
 *
 * HOOKEXEC_VERSION_CHECK() is that test. Within one major version the library only grows
 * (new functions, new listener kinds, new result fields), so a newer minor is compatible.
 */
#define HOOKEXEC_VERSION_MAJOR 0
#define HOOKEXEC_VERSION_MINOR 1
#define HOOKEXEC_VERSION_PATCH 0
#define HOOKEXEC_VERSION "0.1.0"
/* X*1000000 + Y*1000 + Z for version X.Y.Z; compare with hookexec_version_number(). */
#define HOOKEXEC_VERSION_NUMBER 1000
/* True when the library loaded at run time has this header's major version. */
#define HOOKEXEC_VERSION_CHECK() (hookexec_version_number() / 1000000 == HOOKEXEC_VERSION_MAJOR)

/* Status codes. */
#define HOOKEXEC_OK 0
#define HOOKEXEC_EINVAL 1    /* an argument is NULL, malformed JSON, an unknown option */
#define HOOKEXEC_ECONFIG 2   /* the options name an unusable configuration (unknown profile) */
#define HOOKEXEC_ECLOSED 3   /* the engine was closed */
#define HOOKEXEC_EMISUSE 4   /* the handle was never returned by hookexec_open */
#define HOOKEXEC_EFORK 5     /* called in a child process after fork() */
#define HOOKEXEC_EINTERNAL 6 /* a bug in hookexec; the message says where */
#define HOOKEXEC_ETRUST 7    /* the trust store cannot be read or written; the message says why */

/* An engine: a loaded, compiled hook configuration. Opaque; never dereference it. */
typedef struct hookexec_engine hookexec_engine;

/*
 * Receives what happens outside a fire's return value:
 *   kind "async":        the result of an `async: true` hook, JSON {event, hook, blocked,
 *                        decision, reason};
 *   kind "notification": a JSON-RPC 2.0 notification announcing a fire, e.g.
 *                        {"jsonrpc":"2.0","method":"autohand.hook.preTool","params":{...}};
 *                        sent for every fire, matched or not, in fire order, when autohand
 *                        hooks are loaded or options set "notifications": true;
 *   kind "status":       a hook with a `statusMessage` started, JSON {event, hook (its id),
 *                        status_message}: show it while the hook runs (Claude Code's spinner);
 *   kind "rewake":       an `asyncRewake: true` hook exited 2 in the background, JSON {event,
 *                        hook (its id), message (its stderr, or stdout when stderr is empty),
 *                        result (the hook's result)}: wake the agent with message;
 * and, in later versions, other kinds (ignore what you do not know). Called on a thread the
 * library owns, never the thread that fired, possibly on several threads at once; json is
 * valid only during the call. It must not call hookexec_close on the same engine. Once
 * hookexec_set_listener replacing it (or hookexec_close) has returned, it is not running and
 * will not be called again, so user_data may be freed then.
 */
typedef void (*hookexec_listener_fn)(void *user_data, const char *kind, const char *json);

/*
 * Decides a `type: "prompt"` hook: receives the hook's prompt (placeholders filled in) and
 * the payload as JSON (both valid only during the call), writes a NUL-terminated reason of
 * at most reason_size bytes (including the NUL) into reason, and returns 1 when the action
 * may proceed, 0 when it must not (the hook blocks, for events that can block), or -1 when
 * the evaluator itself failed (a non-blocking error; reason says why). Called on a library
 * thread under the hook's timeout: when the timeout passes, the hook reports a timeout and
 * the call's eventual answer is ignored.
 */
typedef int (*hookexec_prompt_fn)(void *user_data, const char *prompt, const char *payload_json,
                                  char *reason, size_t reason_size);

/*
 * An evaluator's answer slot: handed to a hookexec_evaluator_fn and filled with one of the
 * hookexec_answer_* functions before the evaluator returns. Opaque; valid only during the call.
 */
typedef struct hookexec_answer hookexec_answer;

/*
 * Runs a hook the host evaluates, for hooks of type "prompt" and "agent" (ask a model:
 * Claude Code expects {"ok": bool, "reason": text}) and "mcp_tool" (call a tool of a connected
 * MCP server; its text output is read like a command's stdout). Receives:
 *   type:         "prompt", "agent" or "mcp_tool" (later versions may add types: answer
 *                 those you do not know with hookexec_answer_error);
 *   hook_json:    the hook's definition, the handler object as configured (prompt, model,
 *                 server, tool, input, ...) with "prompt" rendered ($ARGUMENTS replaced by
 *                 the payload in Claude Code's format), the string values of "input" filled
 *                 from the payload (${tool_input.file_path}), plus "id", "event", "timeout_ms";
 *   payload_json: what a command hook would get on stdin.
 * All three are valid only during the call. Before returning, answer with exactly one of
 * hookexec_answer_output (an outcome in a command's terms), hookexec_answer_verdict (ok or
 * not, with a reason) or hookexec_answer_error (the evaluator failed: a non-blocking error);
 * returning without an answer is a non-blocking error too. Called on a library thread under
 * the hook's timeout: when it passes, the hook reports a timeout and the eventual answer is
 * ignored.
 */
typedef void (*hookexec_evaluator_fn)(void *user_data, const char *type, const char *hook_json,
                                      const char *payload_json, hookexec_answer *answer);

/* The library's version as a number (see HOOKEXEC_VERSION_NUMBER). Always succeeds. */
int hookexec_version_number(void);

/* The library's version as static text, e.g. "0.1.0". Never NULL; do not free. */
const char *hookexec_version(void);

/*
 * Opens an engine. options_json may be NULL or "{}"; its fields, all optional:
 *   profile ("cli-agent" | "claude" | "mycode" | "autohand" | "autoagent" | "iteratr"),
 *   project_dir, home, sources [paths, dialect detected from shape], config {inline},
 *   default_timeout_ms, kill_grace_ms, max_parallel, output_cap_bytes, close_timeout_ms,
 *   session_id, transcript_path, env {NAME: value}, notifications (bool),
 *   log_file (append one JSON line per fire: every hook considered and why; "" means
 *   $HOOKEXEC_LOG; a log_file that cannot be opened is HOOKEXEC_EINVAL).
 *   trust ("all" | "project"; see hookexec_trust_list), trust_store (path),
 *   plugins [Claude Code plugin dirs], managed_settings (path), max_stop_blocks (0: 8, -1: none),
 *   config_dialect (the dialect the inline config is written in: "cursor", "gemini", ...),
 *   audit_log (the hash-chained audit log; "" means $HOOKEXEC_AUDIT_LOG), audit_key_file
 *   (its HMAC key), audit_max_bytes (rotation; 0: 64 MiB): see docs/observability.md;
 *   an audit log asked for that cannot be opened is HOOKEXEC_ECONFIG.
 *   telemetry {enabled, endpoint, protocol ("grpc" | "http/protobuf"), service_name, headers {},
 *   log_content}: OpenTelemetry export of every fire (docs/observability.md); absent means
 *   $HOOKEXEC_TELEMETRY and the OTEL_* variables decide; a bad protocol or endpoint is
 *   HOOKEXEC_EINVAL.
 *   bundle_config (the policy bundle's bundle.json; "" means ~/.config/hookexec/bundle.json,
 *   "-" none): its cached hooks load at managed precedence; see docs/policy.md "Bundles".
 * Problems inside config files are not errors: they are warnings in hookexec_config().
 * On success *out is the engine; on failure *out is NULL and, if error_out is not NULL,
 * *error_out is a message to release with hookexec_free.
 * Returns HOOKEXEC_OK, HOOKEXEC_EINVAL, HOOKEXEC_ECONFIG, HOOKEXEC_EFORK, HOOKEXEC_EINTERNAL.
 */
int hookexec_open(const char *options_json, hookexec_engine **out, char **error_out);

/*
 * Fires event (canonical name or alias, e.g. "PreToolUse" or "pre-tool") with payload_json
 * (a JSON object; NULL means {}), runs the matching hooks and waits for them (not for async
 * ones). On success *result_out is the result JSON:
 *   {event, matched, blocked, decision, reason, continue, stop_reason, updated_input,
 *    additional_context, system_message, agent_output, duration_ms, warnings, hooks[...],
 *    awaiting_approval[...]}
 * to release with hookexec_free. A failing hook is part of the result, never an error.
 * Returns HOOKEXEC_OK, HOOKEXEC_EINVAL, HOOKEXEC_ECLOSED, HOOKEXEC_EMISUSE, HOOKEXEC_EFORK,
 * HOOKEXEC_EINTERNAL.
 */
int hookexec_fire(hookexec_engine *e, const char *event, const char *payload_json, char **result_out);

/*
 * Counts the enabled hooks that would run for event and subject (the tool name for tool
 * events; NULL or "" for events without one), without running anything.
 * Returns the count (>= 0), or the negated status code: -HOOKEXEC_EINVAL, -HOOKEXEC_ECLOSED,
 * -HOOKEXEC_EMISUSE, -HOOKEXEC_EFORK, -HOOKEXEC_EINTERNAL.
 */
int hookexec_match(hookexec_engine *e, const char *event, const char *subject);

/*
 * The ids of the enabled hooks that would run for event and subject (as hookexec_match
 * counts them), in config order, as a JSON array of strings, e.g. ["guard","a1b2c3d4e5"];
 * the ids are those of hookexec_config's hooks[]. Runs nothing. On success *ids_json_out is
 * set (release with hookexec_free); on failure it is NULL.
 * Returns HOOKEXEC_OK, HOOKEXEC_EINVAL (NULL engine, event or ids_json_out; empty event),
 * HOOKEXEC_ECLOSED, HOOKEXEC_EMISUSE, HOOKEXEC_EFORK, HOOKEXEC_EINTERNAL.
 */
int hookexec_match_ids(hookexec_engine *e, const char *event, const char *subject, char **ids_json_out);

/*
 * The configuration in force as JSON: {profile, project_dir, disable_all, sources[], hooks[],
 * warnings[], events{name: {hooks, subject[]}}}; release with hookexec_free.
 * Returns HOOKEXEC_OK, HOOKEXEC_EINVAL, HOOKEXEC_ECLOSED, HOOKEXEC_EMISUSE, HOOKEXEC_EFORK,
 * HOOKEXEC_EINTERNAL.
 */
int hookexec_config(hookexec_engine *e, char **config_out);

/*
 * Re-reads every configuration source and swaps the configuration atomically; fires in
 * flight finish on the old one. On failure the old configuration stays.
 * Returns HOOKEXEC_OK, HOOKEXEC_EINVAL, HOOKEXEC_ECONFIG, HOOKEXEC_ECLOSED, HOOKEXEC_EMISUSE,
 * HOOKEXEC_EFORK, HOOKEXEC_EINTERNAL.
 */
int hookexec_reload(hookexec_engine *e, char **error_out);

/*
 * Returns and clears the queued output of `pipe_output` hooks (session_start, post_iteration,
 * on_task_complete) that no pre_iteration fire has taken yet, as a JSON array of strings
 * (iteratr's final delivery); release with hookexec_free.
 * Returns HOOKEXEC_OK, HOOKEXEC_EINVAL, HOOKEXEC_ECLOSED, HOOKEXEC_EMISUSE, HOOKEXEC_EFORK,
 * HOOKEXEC_EINTERNAL.
 */
int hookexec_drain(hookexec_engine *e, char **out);

/*
 * Sets (or with fn NULL removes) the listener; see hookexec_listener_fn. Returns only once
 * calls to the listener it replaces have returned, so the old user_data may be freed then;
 * called from inside that listener's own callback it returns at once (the running call
 * finishes after it) and no further call to the old listener starts.
 * Returns HOOKEXEC_OK, HOOKEXEC_EINVAL, HOOKEXEC_ECLOSED, HOOKEXEC_EMISUSE, HOOKEXEC_EFORK.
 */
int hookexec_set_listener(hookexec_engine *e, hookexec_listener_fn fn, void *user_data);

/*
 * Sets (or with fn NULL removes) an evaluator of prompt hooks only; see hookexec_prompt_fn.
 * It is the first form of hookexec_set_evaluator and replaces the evaluator set there: agent
 * and mcp_tool hooks then fail saying it answers prompt hooks only. Without an evaluator, a
 * prompt hook is a non-blocking error saying so.
 * Returns HOOKEXEC_OK, HOOKEXEC_EINVAL, HOOKEXEC_ECLOSED, HOOKEXEC_EMISUSE, HOOKEXEC_EFORK.
 */
int hookexec_set_prompt_evaluator(hookexec_engine *e, hookexec_prompt_fn fn, void *user_data);

/*
 * Sets (or with fn NULL removes) the one evaluator of the hooks the host runs: types prompt,
 * agent and mcp_tool; see hookexec_evaluator_fn. It replaces one set by
 * hookexec_set_prompt_evaluator. Without one, such a hook is a non-blocking error naming its
 * type.
 * Returns HOOKEXEC_OK, HOOKEXEC_EINVAL, HOOKEXEC_ECLOSED, HOOKEXEC_EMISUSE, HOOKEXEC_EFORK.
 */
int hookexec_set_evaluator(hookexec_engine *e, hookexec_evaluator_fn fn, void *user_data);

/*
 * Answers with an outcome in a command's terms, read exactly like a command hook's: exit 0
 * with stdout that may be JSON output (or, for events that take it, text context), exit 2 to
 * block with stderr as the reason, any other code a non-blocking error. stdout_text and
 * stderr_text may be NULL (empty); they are copied. A later answer replaces an earlier one.
 * Returns HOOKEXEC_OK, HOOKEXEC_EINVAL (answer is NULL).
 */
int hookexec_answer_output(hookexec_answer *answer, int exit_code, const char *stdout_text,
                           const char *stderr_text);

/*
 * Answers yes (ok non-zero) or no with a reason (may be NULL; copied), as prompt and agent
 * hooks answer: no blocks where the event can block, with reason.
 * Returns HOOKEXEC_OK, HOOKEXEC_EINVAL (answer is NULL).
 */
int hookexec_answer_verdict(hookexec_answer *answer, int ok, const char *reason);

/*
 * Answers that the evaluator failed (e.g. the MCP server is not connected): a non-blocking
 * hook error carrying message (may be NULL; copied).
 * Returns HOOKEXEC_OK, HOOKEXEC_EINVAL (answer is NULL).
 */
int hookexec_answer_error(hookexec_answer *answer, const char *message);

/*
 * Closes the engine. May be called while other threads fire: a call that starts after it
 * returns HOOKEXEC_ECLOSED; calls in flight (and the async hooks they started) are waited
 * for up to close_timeout_ms, then their hooks are killed so that they return at once.
 * Every later call with e returns HOOKEXEC_ECLOSED (e stays a safe value to pass). It must
 * not be called from this engine's listener or evaluator (it would wait for itself).
 * NULL is a no-op returning HOOKEXEC_OK.
 * Returns HOOKEXEC_OK, HOOKEXEC_ECLOSED (already closed), HOOKEXEC_EMISUSE, HOOKEXEC_EFORK.
 */
int hookexec_close(hookexec_engine *e);

/*
 * Trust (options "trust": "project"): hooks from files inside the project run only once the
 * user approved them. An approval names the hook's entry and pins what of the project its
 * command may run (files by sha256; a directory's whole tree where the command computes its
 * paths); changing either revokes it. Approvals live in the trust store (options
 * "trust_store", default ~/.config/hookexec/trust.json). A fire reports the hooks it did not
 * run in "awaiting_approval": [{id, source, event, matcher, command, reason}], and
 * hookexec_config() marks them "trust": "awaiting approval" with "trust_reason".
 *
 * The report these functions hand out is JSON {mode, store, project_dir, error, hooks: [{id,
 * source, event, matcher, type, command, args, status ("approved" | "awaiting approval"),
 * reason, enabled, files: [{path, tree, why, sha256, approved}], unpinned, approved_at}]};
 * "files" are the pins, "unpinned" what no approval can pin; "error" says why the
 * store cannot be read ("" when it can). They work in mode "all" too, so a host can collect
 * approvals before it enforces them. Release the report with hookexec_free.
 */

/*
 * Lists the project-level hooks and their approval state, judged now (files are hashed
 * again), into *list_out.
 * Returns HOOKEXEC_OK, HOOKEXEC_EINVAL, HOOKEXEC_ECLOSED, HOOKEXEC_EMISUSE, HOOKEXEC_EFORK,
 * HOOKEXEC_EINTERNAL.
 */
int hookexec_trust_list(hookexec_engine *e, char **list_out);

/*
 * Approves the project-level hook with this id as it is now (entry and file hashes), or with
 * id NULL every hook awaiting approval, writes the store atomically and reloads the
 * configuration. *list_out (if list_out is not NULL) is the report afterwards.
 * Returns HOOKEXEC_OK, HOOKEXEC_EINVAL (no project-level hook has this id, or what it runs
 * cannot be pinned: a file it runs cannot be read, a pinned tree is too large), HOOKEXEC_ETRUST (the store cannot be read or written; it is left as it
 * was), HOOKEXEC_ECLOSED, HOOKEXEC_EMISUSE, HOOKEXEC_EFORK, HOOKEXEC_EINTERNAL.
 */
int hookexec_trust_approve(hookexec_engine *e, const char *id, char **list_out);

/*
 * Removes every approval of the hook with this id in this project; the hook awaits approval
 * again. *list_out (if list_out is not NULL) is the report afterwards.
 * Returns HOOKEXEC_OK, HOOKEXEC_EINVAL (id is NULL, or nothing was approved under it),
 * HOOKEXEC_ETRUST, HOOKEXEC_ECLOSED, HOOKEXEC_EMISUSE, HOOKEXEC_EFORK, HOOKEXEC_EINTERNAL.
 */
int hookexec_trust_revoke(hookexec_engine *e, const char *id, char **list_out);

/* Releases a string the library returned. NULL is a no-op. */
void hookexec_free(void *p);

/* A static description of a status code, e.g. "engine is closed". Never NULL; do not free. */
const char *hookexec_errstr(int code);

/*
 * The message of the last failed call on the calling thread, or "" if none. Valid until the
 * next hookexec call on this thread; do not free.
 */
const char *hookexec_errmsg(void);

/* What hookexec_debug_live counts. */
#define HOOKEXEC_LIVE_ENGINES 0 /* engines opened and not yet closed */
#define HOOKEXEC_LIVE_STRINGS 1 /* strings handed out and not yet passed to hookexec_free */
#define HOOKEXEC_LIVE_GOROUTINES 2 /* goroutines of the library's Go runtime (soak tests watch it stay flat) */

/*
 * A leak check for tests: the number of live objects of a kind, or -HOOKEXEC_EINVAL for an
 * unknown kind. Works after fork() too (it does not enter Go for strings).
 */
long hookexec_debug_live(int what);

#ifdef __cplusplus
}
#endif

#endif /* HOOKEXEC_H */
