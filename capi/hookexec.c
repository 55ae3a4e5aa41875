/*
 * The thin C layer of libhookexec: the public functions of include/hookexec.h.
 *
 * It checks what must be checked before entering Go (fork, NULL arguments), keeps each
 * thread's last error message, and calls the Go exports (hxgo_*), which never panic out.
 */
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hookexec.h"
#include "answer.h"
#include "_cgo_export.h"

/* Set in a forked child: the Go runtime's threads did not come along, so entering Go
 * would hang. Checked before every call. */
static volatile sig_atomic_t hx_forked = 0;

static void hx_atfork_child(void) { hx_forked = 1; }

/* The calling thread's last error message, owned here; the key's destructor frees it when
 * the thread exits, so hosts whose threads come and go do not leak one per thread. */
static pthread_key_t hx_err_key;

__attribute__((constructor)) static void hx_init(void) {
	pthread_key_create(&hx_err_key, free);
	pthread_atfork(NULL, NULL, hx_atfork_child);
}

static void hx_set_err(char *msg) {
	char *old = pthread_getspecific(hx_err_key);
	if (old == msg) return;
	pthread_setspecific(hx_err_key, msg);
	free(old);
}

static int hx_fail(int code, const char *msg) {
	hx_set_err(strdup(msg ? msg : hookexec_errstr(code)));
	return code;
}

const char *hookexec_errmsg(void) {
	const char *msg = pthread_getspecific(hx_err_key);
	return msg ? msg : "";
}

/* Strings handed to the host and not yet freed (hookexec_debug_live). */
static long hx_live_strings = 0;

/* hx_handout copies n bytes into a NUL-terminated string the host frees with hookexec_free. */
char *hx_handout(const char *data, size_t n) {
	char *p = malloc(n + 1);
	if (!p) return NULL;
	if (n) memcpy(p, data, n);
	p[n] = 0;
	__atomic_add_fetch(&hx_live_strings, 1, __ATOMIC_RELAXED);
	return p;
}

static char *hx_handout_str(const char *s) { return hx_handout(s, strlen(s)); }

/* hx_call_prompt lets Go call the host's prompt evaluator. */
int hx_call_prompt(hookexec_prompt_fn fn, void *user_data, const char *prompt, const char *payload,
                   char *reason, size_t reason_size) {
	reason[0] = 0;
	int rc = fn(user_data, prompt, payload, reason, reason_size);
	reason[reason_size - 1] = 0; /* whatever the callee wrote, the string ends in the buffer */
	return rc;
}

/* An evaluator's answer, filled by the hookexec_answer_* functions during the call and read
 * by Go after it returns. The strings are owned here. */
struct hookexec_answer {
	int kind; /* HX_ANSWER_* */
	int code; /* exit code, or ok for a verdict */
	char *out, *err;
};

hookexec_answer *hx_answer_new(void) { return calloc(1, sizeof(hookexec_answer)); }

static void hx_answer_clear(hookexec_answer *a) {
	free(a->out);
	free(a->err);
	a->out = a->err = NULL;
}

void hx_answer_free(hookexec_answer *a) {
	if (!a) return;
	hx_answer_clear(a);
	free(a);
}

int hx_answer_kind(const hookexec_answer *a) { return a->kind; }
int hx_answer_code(const hookexec_answer *a) { return a->code; }
const char *hx_answer_out(const hookexec_answer *a) { return a->out ? a->out : ""; }
const char *hx_answer_err(const hookexec_answer *a) { return a->err ? a->err : ""; }

static int hx_answer_set(hookexec_answer *a, int kind, int code, const char *out, const char *err) {
	if (!a) return hx_fail(HOOKEXEC_EINVAL, "hookexec_answer: answer is NULL");
	hx_answer_clear(a);
	a->kind = kind;
	a->code = code;
	a->out = strdup(out ? out : "");
	a->err = strdup(err ? err : "");
	return HOOKEXEC_OK;
}

int hookexec_answer_output(hookexec_answer *a, int exit_code, const char *stdout_text, const char *stderr_text) {
	return hx_answer_set(a, HX_ANSWER_OUTPUT, exit_code, stdout_text, stderr_text);
}

int hookexec_answer_verdict(hookexec_answer *a, int ok, const char *reason) {
	return hx_answer_set(a, HX_ANSWER_VERDICT, ok != 0, reason, NULL);
}

int hookexec_answer_error(hookexec_answer *a, const char *message) {
	return hx_answer_set(a, HX_ANSWER_ERROR, 0, NULL, message);
}

/* hx_call_evaluator lets Go call the host's evaluator. */
void hx_call_evaluator(hookexec_evaluator_fn fn, void *user_data, const char *type, const char *hook,
                       const char *payload, hookexec_answer *a) {
	fn(user_data, type, hook, payload, a);
}

/* The engine whose listener the calling thread is running, if any: hookexec_set_listener
 * called from inside that callback must not wait for the callback to finish. */
static __thread uintptr_t hx_in_listener = 0;

/* hx_call_listener lets Go call the host's listener of engine h. */
void hx_call_listener(uintptr_t h, hookexec_listener_fn fn, void *user_data, const char *kind, const char *json) {
	uintptr_t outer = hx_in_listener;
	hx_in_listener = h;
	fn(user_data, kind, json);
	hx_in_listener = outer;
}

static const char hx_fork_msg[] =
	"hookexec: called in a child process after fork(); open a new engine after exec(), or use a spawn-based process model";

int hookexec_version_number(void) { return HOOKEXEC_VERSION_NUMBER; }

const char *hookexec_version(void) { return HOOKEXEC_VERSION; }

const char *hookexec_errstr(int code) {
	switch (code) {
	case HOOKEXEC_OK: return "ok";
	case HOOKEXEC_EINVAL: return "invalid argument";
	case HOOKEXEC_ECONFIG: return "configuration error";
	case HOOKEXEC_ECLOSED: return "engine is closed";
	case HOOKEXEC_EMISUSE: return "library misuse: not an engine handle";
	case HOOKEXEC_EFORK: return "called after fork()";
	case HOOKEXEC_EINTERNAL: return "internal error";
	case HOOKEXEC_ETRUST: return "trust store cannot be read or written";
	}
	return "unknown status code";
}

int hookexec_open(const char *options_json, hookexec_engine **out, char **error_out) {
	if (error_out) *error_out = NULL;
	if (hx_forked) {
		if (error_out) *error_out = hx_handout_str(hx_fork_msg);
		return hx_fail(HOOKEXEC_EFORK, hx_fork_msg);
	}
	if (!out) return hx_fail(HOOKEXEC_EINVAL, "hookexec_open: out is NULL");
	*out = NULL;
	uintptr_t h = 0;
	char *err = NULL;
	int rc = hxgo_open((char *)(options_json ? options_json : "{}"), &h, &err);
	if (rc == HOOKEXEC_OK) {
		*out = (hookexec_engine *)h;
		hx_set_err(NULL);
		return rc;
	}
	if (error_out && err) *error_out = hx_handout_str(err);
	hx_set_err(err);
	return rc;
}

int hookexec_fire(hookexec_engine *e, const char *event, const char *payload_json, char **result_out) {
	if (hx_forked) return hx_fail(HOOKEXEC_EFORK, hx_fork_msg);
	if (!result_out) return hx_fail(HOOKEXEC_EINVAL, "hookexec_fire: result_out is NULL");
	*result_out = NULL;
	if (!e) return hx_fail(HOOKEXEC_EINVAL, "hookexec_fire: engine is NULL");
	if (!event) return hx_fail(HOOKEXEC_EINVAL, "hookexec_fire: event is NULL");
	char *err = NULL;
	int rc = hxgo_fire((uintptr_t)e, (char *)event, (char *)(payload_json ? payload_json : "{}"), result_out, &err);
	if (rc != HOOKEXEC_OK) hx_set_err(err);
	return rc;
}

int hookexec_match(hookexec_engine *e, const char *event, const char *subject) {
	if (hx_forked) return -hx_fail(HOOKEXEC_EFORK, hx_fork_msg);
	if (!e) return -hx_fail(HOOKEXEC_EINVAL, "hookexec_match: engine is NULL");
	if (!event) return -hx_fail(HOOKEXEC_EINVAL, "hookexec_match: event is NULL");
	char *err = NULL;
	int n = hxgo_match((uintptr_t)e, (char *)event, (char *)(subject ? subject : ""), &err);
	if (n < 0) hx_set_err(err);
	return n;
}

int hookexec_match_ids(hookexec_engine *e, const char *event, const char *subject, char **ids_json_out) {
	if (hx_forked) return hx_fail(HOOKEXEC_EFORK, hx_fork_msg);
	if (!ids_json_out) return hx_fail(HOOKEXEC_EINVAL, "hookexec_match_ids: ids_json_out is NULL");
	*ids_json_out = NULL;
	if (!e) return hx_fail(HOOKEXEC_EINVAL, "hookexec_match_ids: engine is NULL");
	if (!event) return hx_fail(HOOKEXEC_EINVAL, "hookexec_match_ids: event is NULL");
	char *err = NULL;
	int rc = hxgo_match_ids((uintptr_t)e, (char *)event, (char *)(subject ? subject : ""), ids_json_out, &err);
	if (rc != HOOKEXEC_OK) hx_set_err(err);
	return rc;
}

int hookexec_config(hookexec_engine *e, char **config_out) {
	if (hx_forked) return hx_fail(HOOKEXEC_EFORK, hx_fork_msg);
	if (!config_out) return hx_fail(HOOKEXEC_EINVAL, "hookexec_config: config_out is NULL");
	*config_out = NULL;
	if (!e) return hx_fail(HOOKEXEC_EINVAL, "hookexec_config: engine is NULL");
	char *err = NULL;
	int rc = hxgo_config((uintptr_t)e, config_out, &err);
	if (rc != HOOKEXEC_OK) hx_set_err(err);
	return rc;
}

int hookexec_reload(hookexec_engine *e, char **error_out) {
	if (error_out) *error_out = NULL;
	if (hx_forked) {
		if (error_out) *error_out = hx_handout_str(hx_fork_msg);
		return hx_fail(HOOKEXEC_EFORK, hx_fork_msg);
	}
	if (!e) return hx_fail(HOOKEXEC_EINVAL, "hookexec_reload: engine is NULL");
	char *err = NULL;
	int rc = hxgo_reload((uintptr_t)e, &err);
	if (rc != HOOKEXEC_OK) {
		if (error_out && err) *error_out = hx_handout_str(err);
		hx_set_err(err);
	}
	return rc;
}

int hookexec_drain(hookexec_engine *e, char **out) {
	if (hx_forked) return hx_fail(HOOKEXEC_EFORK, hx_fork_msg);
	if (!out) return hx_fail(HOOKEXEC_EINVAL, "hookexec_drain: out is NULL");
	*out = NULL;
	if (!e) return hx_fail(HOOKEXEC_EINVAL, "hookexec_drain: engine is NULL");
	char *err = NULL;
	int rc = hxgo_drain((uintptr_t)e, out, &err);
	if (rc != HOOKEXEC_OK) hx_set_err(err);
	return rc;
}

int hookexec_set_listener(hookexec_engine *e, hookexec_listener_fn fn, void *user_data) {
	if (hx_forked) return hx_fail(HOOKEXEC_EFORK, hx_fork_msg);
	if (!e) return hx_fail(HOOKEXEC_EINVAL, "hookexec_set_listener: engine is NULL");
	char *err = NULL;
	int rc = hxgo_set_listener((uintptr_t)e, fn, user_data, hx_in_listener == (uintptr_t)e, &err);
	if (rc != HOOKEXEC_OK) hx_set_err(err);
	return rc;
}

int hookexec_set_prompt_evaluator(hookexec_engine *e, hookexec_prompt_fn fn, void *user_data) {
	if (hx_forked) return hx_fail(HOOKEXEC_EFORK, hx_fork_msg);
	if (!e) return hx_fail(HOOKEXEC_EINVAL, "hookexec_set_prompt_evaluator: engine is NULL");
	char *err = NULL;
	int rc = hxgo_set_prompt_evaluator((uintptr_t)e, fn, user_data, &err);
	if (rc != HOOKEXEC_OK) hx_set_err(err);
	return rc;
}

int hookexec_set_evaluator(hookexec_engine *e, hookexec_evaluator_fn fn, void *user_data) {
	if (hx_forked) return hx_fail(HOOKEXEC_EFORK, hx_fork_msg);
	if (!e) return hx_fail(HOOKEXEC_EINVAL, "hookexec_set_evaluator: engine is NULL");
	char *err = NULL;
	int rc = hxgo_set_evaluator((uintptr_t)e, fn, user_data, &err);
	if (rc != HOOKEXEC_OK) hx_set_err(err);
	return rc;
}

/* hx_trust is hookexec_trust_*: op 0 list, 1 approve, 2 revoke (hxgo_trust). */
static int hx_trust(const char *fn, int op, hookexec_engine *e, const char *id, char **out) {
	if (hx_forked) return hx_fail(HOOKEXEC_EFORK, hx_fork_msg);
	if (out) *out = NULL;
	if (!e) {
		char msg[96];
		snprintf(msg, sizeof msg, "%s: engine is NULL", fn);
		return hx_fail(HOOKEXEC_EINVAL, msg);
	}
	char *err = NULL;
	int rc = hxgo_trust((uintptr_t)e, op, (char *)id, out, &err);
	if (rc != HOOKEXEC_OK) hx_set_err(err);
	return rc;
}

int hookexec_trust_list(hookexec_engine *e, char **list_out) {
	if (!list_out) return hx_forked ? hx_fail(HOOKEXEC_EFORK, hx_fork_msg) : hx_fail(HOOKEXEC_EINVAL, "hookexec_trust_list: list_out is NULL");
	return hx_trust("hookexec_trust_list", 0, e, NULL, list_out);
}

int hookexec_trust_approve(hookexec_engine *e, const char *id, char **list_out) {
	return hx_trust("hookexec_trust_approve", 1, e, id, list_out);
}

int hookexec_trust_revoke(hookexec_engine *e, const char *id, char **list_out) {
	if (!id) return hx_forked ? hx_fail(HOOKEXEC_EFORK, hx_fork_msg) : hx_fail(HOOKEXEC_EINVAL, "hookexec_trust_revoke: id is NULL");
	return hx_trust("hookexec_trust_revoke", 2, e, id, list_out);
}

long hookexec_debug_live(int what) {
	switch (what) {
	case HOOKEXEC_LIVE_ENGINES: return hx_forked ? 0 : hxgo_live_engines();
	case HOOKEXEC_LIVE_STRINGS: return __atomic_load_n(&hx_live_strings, __ATOMIC_RELAXED);
	case HOOKEXEC_LIVE_GOROUTINES: return hx_forked ? 0 : hxgo_live_goroutines();
	}
	return -HOOKEXEC_EINVAL;
}

int hookexec_close(hookexec_engine *e) {
	if (!e) return HOOKEXEC_OK;
	if (hx_forked) return hx_fail(HOOKEXEC_EFORK, hx_fork_msg);
	char *err = NULL;
	int rc = hxgo_close((uintptr_t)e, &err);
	if (rc != HOOKEXEC_OK) hx_set_err(err);
	return rc;
}

void hookexec_free(void *p) {
	if (!p) return;
	__atomic_sub_fetch(&hx_live_strings, 1, __ATOMIC_RELAXED);
	free(p);
}
