/*
 * test_capi.c — tests of libhookexec through its public header only (include/hookexec.h).
 *
 * No framework: CHECK records a failure with file:line and the expression, every test runs,
 * one line is printed per test, and the last line is exactly "N passed, M failed". The exit
 * status is non-zero if any test failed. Result JSON is read with plain string checks: the
 * library emits compact JSON (Go encoding/json) with the keys in the documented order.
 *
 * Each test works in its own mkdtemp directory under /tmp, passed as both project_dir and
 * home so that no configuration of the user running the tests is read.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <ftw.h>
#include <malloc.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "hookexec.h"

/* ---------------------------------------------------------------- checks */

static pthread_mutex_t g_check_mu = PTHREAD_MUTEX_INITIALIZER;
static int g_test_failed; /* failures in the current test */

static void check_failed(const char *file, int line, const char *fmt, ...) {
	va_list ap;
	pthread_mutex_lock(&g_check_mu);
	g_test_failed++;
	printf("    %s:%d: ", file, line);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	pthread_mutex_unlock(&g_check_mu);
}

/* Shortens long JSON in failure messages. */
static const char *clip(const char *s) {
	static __thread char buf[1200];
	if (!s) return "(null)";
	size_t n = strlen(s);
	if (n < sizeof buf) return s;
	memcpy(buf, s, sizeof buf - 5);
	strcpy(buf + sizeof buf - 5, "...");
	return buf;
}

#define CHECK(expr)                                                             \
	do {                                                                        \
		if (!(expr)) check_failed(__FILE__, __LINE__, "CHECK(%s) failed", #expr); \
	} while (0)

/* A status code compared with the expected one; prints both and hookexec_errmsg(). */
#define CHECK_RC(got, want)                                                                    \
	do {                                                                                       \
		int got_ = (got), want_ = (want);                                                      \
		if (got_ != want_)                                                                     \
			check_failed(__FILE__, __LINE__, "%s == %s: got %d (%s), want %d (%s); errmsg: %s", \
			             #got, #want, got_, hookexec_errstr(got_), want_, hookexec_errstr(want_), \
			             hookexec_errmsg());                                                   \
	} while (0)

/* An integer compared with the expected one. */
#define CHECK_INT(got, want)                                                              \
	do {                                                                                  \
		long got_ = (long)(got), want_ = (long)(want);                                    \
		if (got_ != want_)                                                                \
			check_failed(__FILE__, __LINE__, "%s == %s: got %ld, want %ld", #got, #want, got_, \
			             want_);                                                          \
	} while (0)

/* JSON text that must (or must not) contain a fragment. */
#define CHECK_HAS(json, frag)                                                                 \
	do {                                                                                      \
		const char *j_ = (json), *f_ = (frag);                                                \
		if (!j_ || !strstr(j_, f_))                                                           \
			check_failed(__FILE__, __LINE__, "%s should contain %s\n      got: %s", #json, f_, \
			             clip(j_));                                                       \
	} while (0)

/* Text that must equal the expected string exactly. */
#define CHECK_STR(got, want)                                                                       \
	do {                                                                                           \
		const char *g_ = (got), *w_ = (want);                                                      \
		if (!g_ || strcmp(g_, w_) != 0)                                                            \
			check_failed(__FILE__, __LINE__, "%s: got %s, want %s", #got, g_ ? clip(g_) : "NULL", w_); \
	} while (0)

#define CHECK_HASNT(json, frag)                                                                  \
	do {                                                                                         \
		const char *j_ = (json), *f_ = (frag);                                                   \
		if (!j_ || strstr(j_, f_))                                                               \
			check_failed(__FILE__, __LINE__, "%s should not contain %s\n      got: %s", #json, f_, \
			             clip(j_));                                                          \
	} while (0)

/* ---------------------------------------------------------------- helpers */

/* Formats into a malloc'd string (freed by the caller). */
static char *fmt(const char *f, ...) {
	va_list ap;
	char *s = NULL;
	va_start(ap, f);
	if (vasprintf(&s, f, ap) < 0) s = NULL;
	va_end(ap);
	if (!s) {
		fprintf(stderr, "out of memory\n");
		exit(2);
	}
	return s;
}

static char *make_tmpdir(void) {
	char tmpl[] = "/tmp/hookexec-capi-XXXXXX";
	if (!mkdtemp(tmpl)) {
		fprintf(stderr, "mkdtemp: %s\n", strerror(errno));
		exit(2);
	}
	return strdup(tmpl);
}

static int rm_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw) {
	(void)sb, (void)flag, (void)ftw;
	remove(path);
	return 0;
}

static void remove_tree(char *dir) {
	if (!dir) return;
	nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	free(dir);
}

/* Writes text to dir/name and returns the full path (malloc'd). */
static char *write_file(const char *dir, const char *name, const char *text) {
	char *path = fmt("%s/%s", dir, name);
	FILE *f = fopen(path, "w");
	if (!f) {
		fprintf(stderr, "fopen %s: %s\n", path, strerror(errno));
		exit(2);
	}
	fputs(text, f);
	fclose(f);
	return path;
}

/* A copy of the array value of "key" in json ("[...]"), or NULL; brackets inside strings are
 * skipped. */
static char *json_array(const char *json, const char *key) {
	if (!json) return NULL;
	char *pat = fmt("\"%s\":[", key);
	const char *p = strstr(json, pat);
	size_t skip = strlen(pat) - 1;
	free(pat);
	if (!p) return NULL;
	p += skip;
	int depth = 0, in_str = 0;
	for (const char *q = p; *q; q++) {
		if (in_str) {
			if (*q == '\\' && q[1]) q++;
			else if (*q == '"') in_str = 0;
		} else if (*q == '"') {
			in_str = 1;
		} else if (*q == '[' || *q == '{') {
			depth++;
		} else if ((*q == ']' || *q == '}') && --depth == 0) {
			return strndup(p, (size_t)(q - p + 1));
		}
	}
	return NULL;
}

static int file_exists(const char *path) {
	struct stat st;
	return stat(path, &st) == 0;
}

/* Options JSON for dir (project and home) with an inline config (may be NULL) and extra
 * members (may be NULL, e.g. "\"kill_grace_ms\":500"). */
static char *options(const char *dir, const char *config, const char *extra) {
	return fmt("{\"project_dir\":\"%s\",\"home\":\"%s\"%s%s%s%s}", dir, dir,
	           config ? ",\"config\":" : "", config ? config : "", extra ? "," : "",
	           extra ? extra : "");
}

/* Opens an engine or records the failure; returns NULL on failure. */
static hookexec_engine *open_engine(const char *file, int line, const char *opts) {
	hookexec_engine *e = NULL;
	char *err = NULL;
	int rc = hookexec_open(opts, &e, &err);
	if (rc != HOOKEXEC_OK || !e) {
		check_failed(file, line, "hookexec_open(%s): %d (%s): %s", opts, rc, hookexec_errstr(rc),
		             err ? err : "(no error text)");
		hookexec_free(err);
		return NULL;
	}
	if (err) check_failed(file, line, "hookexec_open succeeded but set error_out: %s", err);
	hookexec_free(err);
	return e;
}
#define OPEN(opts) open_engine(__FILE__, __LINE__, (opts))

/* The slack a time bound here allows beyond what the behaviour needs: only a real hang
 * exceeds it, never a loaded machine. Speed is measured by `make bench`, not asserted. */
#define HANG_GUARD_S 10.0

static double now_s(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Whether pid runs (a zombie waiting for a reaper counts as dead). */
static int process_alive(int pid) {
	if (kill(pid, 0) != 0) return 0;
	char path[64], buf[512];
	snprintf(path, sizeof path, "/proc/%d/stat", pid);
	FILE *f = fopen(path, "r");
	if (!f) return 0;
	size_t n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[n] = 0;
	const char *p = strrchr(buf, ')');
	return !(p && p[1] == ' ' && (p[2] == 'Z' || p[2] == 'X'));
}

static void sleep_ms(long ms) {
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
	while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
	}
}

/* Waits up to HANG_GUARD_S until *count (guarded by mu, signalled on cv) reaches want; returns it. */
static int wait_count(pthread_mutex_t *mu, pthread_cond_t *cv, const int *count, int want) {
	struct timespec deadline;
	clock_gettime(CLOCK_REALTIME, &deadline);
	deadline.tv_sec += (time_t)HANG_GUARD_S;
	pthread_mutex_lock(mu);
	while (*count < want) {
		if (pthread_cond_timedwait(cv, mu, &deadline) == ETIMEDOUT) break;
	}
	int got = *count;
	pthread_mutex_unlock(mu);
	return got;
}

/* ---------------------------------------------------------------- 1. version */

static void test_version(void) {
	CHECK_INT(hookexec_version_number(), HOOKEXEC_VERSION_NUMBER);
	const char *v = hookexec_version();
	CHECK(v != NULL);
	CHECK(v && strcmp(v, HOOKEXEC_VERSION) == 0);
	/* The number is X*1000000 + Y*1000 + Z of the text. */
	int x = -1, y = -1, z = -1;
	CHECK(v && sscanf(v, "%d.%d.%d", &x, &y, &z) == 3);
	CHECK_INT(x * 1000000 + y * 1000 + z, hookexec_version_number());
}

/* ---------------------------------------------------------------- 2. NULLs, status codes */

static void test_null_safety_and_codes(void) {
	char *dir = make_tmpdir();
	char *res = (char *)0x1;

	CHECK_RC(hookexec_close(NULL), HOOKEXEC_OK);
	hookexec_free(NULL);

	/* NULL engine */
	CHECK_RC(hookexec_fire(NULL, "PreToolUse", "{}", &res), HOOKEXEC_EINVAL);
	CHECK(res == NULL);
	CHECK(hookexec_errmsg()[0] != '\0');
	CHECK_INT(hookexec_match(NULL, "PreToolUse", "Bash"), -HOOKEXEC_EINVAL);
	res = (char *)0x1;
	CHECK_RC(hookexec_config(NULL, &res), HOOKEXEC_EINVAL);
	CHECK(res == NULL);
	CHECK_RC(hookexec_set_listener(NULL, NULL, NULL), HOOKEXEC_EINVAL);
	CHECK_RC(hookexec_reload(NULL, NULL), HOOKEXEC_EINVAL);
	res = (char *)0x1;
	CHECK_RC(hookexec_drain(NULL, &res), HOOKEXEC_EINVAL);
	CHECK(res == NULL);

	/* NULL out-parameters on a good engine */
	char *opts = options(dir, NULL, NULL);
	hookexec_engine *e = OPEN(opts);
	if (e) {
		CHECK_RC(hookexec_fire(e, "PreToolUse", "{}", NULL), HOOKEXEC_EINVAL);
		CHECK(hookexec_errmsg()[0] != '\0');
		res = (char *)0x1;
		CHECK_RC(hookexec_fire(e, NULL, "{}", &res), HOOKEXEC_EINVAL);
		CHECK(res == NULL);
		CHECK_RC(hookexec_config(e, NULL), HOOKEXEC_EINVAL);
		CHECK_RC(hookexec_drain(e, NULL), HOOKEXEC_EINVAL);
		CHECK_INT(hookexec_match(e, NULL, "Bash"), -HOOKEXEC_EINVAL);
		/* a payload that is not JSON is an invalid argument, not a crash */
		res = (char *)0x1;
		CHECK_RC(hookexec_fire(e, "PreToolUse", "{not json", &res), HOOKEXEC_EINVAL);
		CHECK(res == NULL);
		hookexec_free(res == (char *)0x1 ? NULL : res);
		/* NULL payload means {} */
		res = NULL;
		CHECK_RC(hookexec_fire(e, "PreToolUse", NULL, &res), HOOKEXEC_OK);
		CHECK_HAS(res, "\"matched\":0");
		hookexec_free(res);
		CHECK_RC(hookexec_close(e), HOOKEXEC_OK);
	}
	free(opts);

	/* NULL out for open */
	CHECK_RC(hookexec_open("{}", NULL, NULL), HOOKEXEC_EINVAL);

	/* invalid JSON options: EINVAL, *out NULL, error text in error_out and errmsg */
	hookexec_engine *bad = (hookexec_engine *)0x1;
	char *err = NULL;
	CHECK_RC(hookexec_open("{\"profile\": ", &bad, &err), HOOKEXEC_EINVAL);
	CHECK(bad == NULL);
	CHECK(err != NULL && err[0] != '\0');
	CHECK(hookexec_errmsg()[0] != '\0');
	hookexec_free(err);

	/* error_out may be NULL */
	bad = (hookexec_engine *)0x1;
	CHECK_RC(hookexec_open("[1,2", &bad, NULL), HOOKEXEC_EINVAL);
	CHECK(bad == NULL);

	/* an unknown option is EINVAL (typos surface) */
	bad = (hookexec_engine *)0x1;
	err = NULL;
	CHECK_RC(hookexec_open("{\"no_such_option\":1}", &bad, &err), HOOKEXEC_EINVAL);
	CHECK(bad == NULL);
	CHECK(err != NULL && err[0] != '\0');
	hookexec_free(err);

	/* an unknown profile is ECONFIG */
	opts = fmt("{\"profile\":\"no-such-profile\",\"project_dir\":\"%s\",\"home\":\"%s\"}", dir, dir);
	bad = (hookexec_engine *)0x1;
	err = NULL;
	CHECK_RC(hookexec_open(opts, &bad, &err), HOOKEXEC_ECONFIG);
	CHECK(bad == NULL);
	CHECK(err != NULL && err[0] != '\0');
	CHECK(hookexec_errmsg()[0] != '\0');
	hookexec_free(err);
	free(opts);

	/* a handle the library never issued */
	hookexec_engine *fake = (hookexec_engine *)0x8;
	res = (char *)0x1;
	CHECK_RC(hookexec_fire(fake, "PreToolUse", "{}", &res), HOOKEXEC_EMISUSE);
	CHECK(res == NULL);
	CHECK(hookexec_errmsg()[0] != '\0');
	CHECK_INT(hookexec_match(fake, "PreToolUse", "Bash"), -HOOKEXEC_EMISUSE);
	res = (char *)0x1;
	CHECK_RC(hookexec_config(fake, &res), HOOKEXEC_EMISUSE);
	CHECK(res == NULL);
	CHECK_RC(hookexec_reload(fake, NULL), HOOKEXEC_EMISUSE);
	CHECK_RC(hookexec_set_listener(fake, NULL, NULL), HOOKEXEC_EMISUSE);
	CHECK_RC(hookexec_close(fake), HOOKEXEC_EMISUSE);

	/* errstr: non-empty and distinct for every code, a fixed text for unknown ones */
	const int codes[] = {HOOKEXEC_OK,      HOOKEXEC_EINVAL, HOOKEXEC_ECONFIG,  HOOKEXEC_ECLOSED,
	                     HOOKEXEC_EMISUSE, HOOKEXEC_EFORK,  HOOKEXEC_EINTERNAL, HOOKEXEC_ETRUST};
	const int ncodes = (int)(sizeof codes / sizeof codes[0]);
	for (int i = 0; i < ncodes; i++) {
		const char *s = hookexec_errstr(codes[i]);
		CHECK(s != NULL && s[0] != '\0');
		CHECK(s && strcmp(s, "unknown status code") != 0);
		for (int j = 0; j < i; j++) CHECK(s && strcmp(s, hookexec_errstr(codes[j])) != 0);
	}
	CHECK(strcmp(hookexec_errstr(99), "unknown status code") == 0);
	CHECK(strcmp(hookexec_errstr(-1), "unknown status code") == 0);
	CHECK(strcmp(hookexec_errstr(HOOKEXEC_ETRUST + 1), "unknown status code") == 0);

	remove_tree(dir);
}

/* ---------------------------------------------------------------- 3. PreToolUse guard */

static void test_pretooluse_guard(void) {
	char *dir = make_tmpdir();
	char *opts = options(dir,
	                     "{\"hooks\":{\"PreToolUse\":[{\"matcher\":\"Bash\",\"hooks\":[{\"type\":\"command\","
	                     "\"command\":\"echo 'no rm' >&2; exit 2\"}]}]}}",
	                     NULL);
	hookexec_engine *e = OPEN(opts);
	if (e) {
		char *res = NULL;
		CHECK_RC(hookexec_fire(e, "PreToolUse", "{\"tool_name\":\"Bash\",\"tool_input\":{\"command\":\"rm -rf /\"}}", &res),
		         HOOKEXEC_OK);
		CHECK_HAS(res, "{\"event\":\"PreToolUse\",");
		CHECK_HAS(res, "\"matched\":1,");
		CHECK_HAS(res, "\"blocked\":true");
		CHECK_HAS(res, "\"decision\":\"deny\"");
		CHECK_HAS(res, "\"reason\":\"no rm\"");
		CHECK_HAS(res, "\"exit_code\":2");
		hookexec_free(res);

		/* an alias fires the same event */
		res = NULL;
		CHECK_RC(hookexec_fire(e, "pre-tool", "{\"tool_name\":\"Bash\",\"tool_input\":{\"command\":\"ls\"}}", &res),
		         HOOKEXEC_OK);
		CHECK_HAS(res, "\"event\":\"PreToolUse\"");
		CHECK_HAS(res, "\"blocked\":true");
		hookexec_free(res);

		/* another tool: nothing matches, nothing blocks */
		res = NULL;
		CHECK_RC(hookexec_fire(e, "PreToolUse", "{\"tool_name\":\"Edit\",\"tool_input\":{\"file_path\":\"a.txt\"}}", &res),
		         HOOKEXEC_OK);
		CHECK_HAS(res, "\"matched\":0,");
		CHECK_HAS(res, "\"blocked\":false");
		CHECK_HAS(res, "\"decision\":\"none\"");
		CHECK_HAS(res, "\"continue\":true");
		CHECK_HAS(res, "\"hooks\":[]");
		hookexec_free(res);
		CHECK_RC(hookexec_close(e), HOOKEXEC_OK);
	}
	free(opts);
	remove_tree(dir);
}

/* audit_log: every decision, the non-matching fire too, appended to the hash-chained audit
 * log, flushed by close; each entry links to the one before; an unusable path is ECONFIG. */
static void test_audit_log(void) {
	char *dir = make_tmpdir();
	char *extra = fmt("\"audit_log\":\"%s/audit.jsonl\"", dir);
	char *opts = options(dir,
	                     "{\"hooks\":{\"PreToolUse\":[{\"matcher\":\"Bash\",\"hooks\":[{\"type\":\"command\","
	                     "\"command\":\"echo 'no rm' >&2; exit 2\"}]}]}}",
	                     extra);
	hookexec_engine *e = OPEN(opts);
	if (e) {
		char *res = NULL;
		CHECK_RC(hookexec_fire(e, "PreToolUse", "{\"session_id\":\"c\",\"tool_name\":\"Bash\",\"tool_input\":{}}", &res),
		         HOOKEXEC_OK);
		hookexec_free(res);
		res = NULL;
		CHECK_RC(hookexec_fire(e, "PreToolUse", "{\"session_id\":\"c\",\"tool_name\":\"Edit\",\"tool_input\":{}}", &res),
		         HOOKEXEC_OK);
		hookexec_free(res);
		CHECK_RC(hookexec_close(e), HOOKEXEC_OK);
		char *path = fmt("%s/audit.jsonl", dir);
		FILE *f = fopen(path, "r");
		CHECK(f != NULL);
		if (f) {
			char first[8192] = "", second[8192] = "";
			CHECK(fgets(first, sizeof first, f) != NULL);
			CHECK(fgets(second, sizeof second, f) != NULL);
			fclose(f);
			CHECK_HAS(first, "\"seq\":1,\"kind\":\"fire\"");
			CHECK_HAS(first, "\"session\":\"c\",\"event\":\"PreToolUse\",\"tool\":\"Bash\"");
			CHECK_HAS(first, "\"decision\":\"deny\"");
			CHECK_HAS(second, "\"seq\":2,\"kind\":\"fire\"");
			CHECK_HAS(second, "\"tool\":\"Edit\"");
			const char *h = strstr(first, ",\"hash\":\"");
			CHECK(h != NULL);
			if (h) {
				char *link = fmt("\"prev\":\"%.64s\"", h + strlen(",\"hash\":\""));
				CHECK_HAS(second, link);
				free(link);
			}
		}
		free(path);
	}
	free(opts);
	free(extra);
	hookexec_engine *bad = NULL;
	char *bad_opts = fmt("{\"audit_log\":\"%s/no/such/dir/audit.jsonl\",\"sources\":[]}", dir);
	CHECK_RC(hookexec_open(bad_opts, &bad, NULL), HOOKEXEC_ECONFIG);
	CHECK(bad == NULL);
	free(bad_opts);
	remove_tree(dir);
}

/* Hooks see the host's environment as it is at the fire (setenv after open reaches them, as
 * it would a child the host spawns itself), and a decision longer than the output cap is
 * still read whole: the result shows the cap's worth of stdout and says it was cut. */
static void test_environ_and_long_decision(void) {
	char *dir = make_tmpdir();
	char *opts = options(dir,
	                     "{\"hooks\":{\"Stop\":[{\"hooks\":[{\"type\":\"command\",\"command\":\"echo \\\"HX_C=${HX_C-unset}\\\"\"}]}],"
	                     "\"PreToolUse\":[{\"matcher\":\"Bash\",\"hooks\":[{\"type\":\"command\",\"command\":"
	                     "\"printf '{\\\"hookSpecificOutput\\\":{\\\"permissionDecision\\\":\\\"deny\\\",\\\"permissionDecisionReason\\\":\\\"'; "
	                     "head -c 65000 /dev/zero | tr '\\\\0' r; printf 'END\\\"}}'\"}]}]}}",
	                     NULL);
	unsetenv("HX_C");
	hookexec_engine *e = OPEN(opts);
	if (e) {
		char *res = NULL;
		CHECK_RC(hookexec_fire(e, "Stop", "{}", &res), HOOKEXEC_OK);
		CHECK_HAS(res, "\"stdout\":\"HX_C=unset\\n\"");
		hookexec_free(res);
		setenv("HX_C", "one", 1);
		res = NULL;
		CHECK_RC(hookexec_fire(e, "Stop", "{}", &res), HOOKEXEC_OK);
		CHECK_HAS(res, "\"stdout\":\"HX_C=one\\n\"");
		hookexec_free(res);
		setenv("HX_C", "two", 1);
		res = NULL;
		CHECK_RC(hookexec_fire(e, "Stop", "{}", &res), HOOKEXEC_OK);
		CHECK_HAS(res, "\"stdout\":\"HX_C=two\\n\"");
		hookexec_free(res);
		unsetenv("HX_C");
		res = NULL;
		CHECK_RC(hookexec_fire(e, "Stop", "{}", &res), HOOKEXEC_OK);
		CHECK_HAS(res, "\"stdout\":\"HX_C=unset\\n\"");
		hookexec_free(res);

		res = NULL;
		CHECK_RC(hookexec_fire(e, "PreToolUse", "{\"tool_name\":\"Bash\",\"tool_input\":{\"command\":\"rm -rf /\"}}", &res),
		         HOOKEXEC_OK);
		CHECK_HAS(res, "\"blocked\":true");
		CHECK_HAS(res, "\"decision\":\"deny\"");
		CHECK_HAS(res, "rrrrEND\",");  /* the reason, whole: its end is past the cap */
		CHECK_HAS(res, "\"stdout_truncated\":true");
		hookexec_free(res);
		CHECK_RC(hookexec_close(e), HOOKEXEC_OK);
	}
	free(opts);
	remove_tree(dir);
}

/* ---------------------------------------------------------------- 4. match */

static void test_match(void) {
	char *dir = make_tmpdir();
	char *opts = options(dir,
	                     "{\"hooks\":{\"PreToolUse\":["
	                     "{\"matcher\":\"builtin:*\",\"hooks\":[{\"type\":\"command\",\"command\":\"true builtin\",\"name\":\"builtin\"}]},"
	                     "{\"matcher\":\"mcp__*\",\"hooks\":[{\"type\":\"command\",\"command\":\"true mcp\",\"name\":\"mcp\"}]},"
	                     "{\"matcher\":\"mcp__github__*\",\"hooks\":[{\"type\":\"command\",\"command\":\"true github\",\"name\":\"github\"}]},"
	                     "{\"matcher\":\"Bash|Edit\",\"hooks\":[{\"type\":\"command\",\"command\":\"true names\",\"name\":\"names\"}]},"
	                     "{\"matcher\":\"^Ed\",\"hooks\":[{\"type\":\"command\",\"command\":\"true regex\",\"name\":\"regex\"}]}"
	                     "],\"Stop\":[{\"hooks\":[{\"type\":\"command\",\"command\":\"true stop\",\"name\":\"stop\"}]}]}}",
	                     NULL);
	hookexec_engine *e = OPEN(opts);
	if (e) {
		/* built-in tools: builtin:* plus the name list / regex where they apply */
		CHECK_INT(hookexec_match(e, "PreToolUse", "Bash"), 2);        /* builtin:*, Bash|Edit */
		CHECK_INT(hookexec_match(e, "PreToolUse", "Edit"), 3);        /* builtin:*, Bash|Edit, ^Ed */
		CHECK_INT(hookexec_match(e, "PreToolUse", "Editor"), 2);      /* builtin:*, ^Ed */
		CHECK_INT(hookexec_match(e, "PreToolUse", "Read"), 1);        /* builtin:* */
		CHECK_INT(hookexec_match(e, "PreToolUse", "BASH"), 1);        /* case-sensitive */
		CHECK_INT(hookexec_match(e, "PreToolUse", "bash"), 2);        /* Copilot's Bash: builtin:*, Bash|Edit */
		CHECK_INT(hookexec_match(e, "PreToolUse", "builtin:Bash"), 2); /* a plain name matches either spelling */
		/* MCP tools: never builtin:* */
		CHECK_INT(hookexec_match(e, "PreToolUse", "mcp__github__create_issue"), 2); /* mcp__*, mcp__github__* */
		CHECK_INT(hookexec_match(e, "PreToolUse", "mcp__slack__post"), 1);          /* mcp__* */
		/* aliases and events without hooks */
		CHECK_INT(hookexec_match(e, "pre-tool", "Bash"), 2);
		CHECK_INT(hookexec_match(e, "PostToolUse", "Bash"), 0);
		CHECK_INT(hookexec_match(e, "Stop", NULL), 1);
		CHECK_INT(hookexec_match(e, "Stop", ""), 1);
		/* matching agrees with firing */
		char *res = NULL;
		CHECK_RC(hookexec_fire(e, "PreToolUse", "{\"tool_name\":\"Edit\",\"tool_input\":{}}", &res), HOOKEXEC_OK);
		CHECK_HAS(res, "\"matched\":3,");
		hookexec_free(res);

		/* which hooks: their ids, in config order */
		char *ids = (char *)0x1;
		CHECK_RC(hookexec_match_ids(e, "PreToolUse", "Edit", &ids), HOOKEXEC_OK);
		CHECK_STR(ids, "[\"builtin\",\"names\",\"regex\"]");
		hookexec_free(ids);
		CHECK_RC(hookexec_match_ids(e, "pre-tool", "mcp__github__create_issue", &ids), HOOKEXEC_OK);
		CHECK_STR(ids, "[\"mcp\",\"github\"]");
		hookexec_free(ids);
		CHECK_RC(hookexec_match_ids(e, "Stop", NULL, &ids), HOOKEXEC_OK);
		CHECK_STR(ids, "[\"stop\"]");
		hookexec_free(ids);
		CHECK_RC(hookexec_match_ids(e, "PostToolUse", "Bash", &ids), HOOKEXEC_OK);
		CHECK_STR(ids, "[]");
		hookexec_free(ids);
		ids = (char *)0x1;
		CHECK_RC(hookexec_match_ids(e, "", "Bash", &ids), HOOKEXEC_EINVAL);
		CHECK(ids == NULL);
		CHECK_RC(hookexec_match_ids(e, NULL, "Bash", &ids), HOOKEXEC_EINVAL);
		CHECK_RC(hookexec_match_ids(e, "Stop", NULL, NULL), HOOKEXEC_EINVAL);
		CHECK_RC(hookexec_match_ids(NULL, "Stop", NULL, &ids), HOOKEXEC_EINVAL);

		CHECK_RC(hookexec_close(e), HOOKEXEC_OK);
		CHECK_INT(hookexec_match(e, "PreToolUse", "Bash"), -HOOKEXEC_ECLOSED);
		CHECK(hookexec_errmsg()[0] != '\0');
		CHECK_RC(hookexec_match_ids(e, "PreToolUse", "Bash", &ids), HOOKEXEC_ECLOSED);
		CHECK(ids == NULL);
	}
	free(opts);
	remove_tree(dir);
}

/* ---------------------------------------------------------------- 5. config + warnings */

static void test_config_warnings(void) {
	char *dir = make_tmpdir();
	char *good = write_file(dir, "good.json",
	                        "{\"hooks\":{\"PreToolUse\":[{\"matcher\":\"Bash\",\"hooks\":[{\"type\":\"command\","
	                        "\"name\":\"good-hook\",\"command\":\"echo good-hook-ran\"}]}]}}\n");
	char *bad = write_file(dir, "bad.json", "{\"hooks\": {\"PreToolUse\": [ this is not json\n");
	char *missing = fmt("%s/missing.json", dir);
	char *extra = fmt("\"sources\":[\"%s\",\"%s\",\"%s\"]", good, bad, missing);
	char *opts = options(dir, NULL, extra);
	hookexec_engine *e = OPEN(opts);
	if (e) {
		char *cfg = NULL;
		CHECK_RC(hookexec_config(e, &cfg), HOOKEXEC_OK);
		CHECK_HAS(cfg, "{\"profile\":\"cli-agent\",");
		CHECK_HAS(cfg, "\"good-hook\"");
		char *w = json_array(cfg, "warnings");
		CHECK(w != NULL);
		CHECK(w && strcmp(w, "[]") != 0);
		CHECK_HAS(w, bad);                 /* the warning names the broken file */
		CHECK_HASNT(w, "good.json");       /* the good file loads cleanly */
		CHECK_HASNT(w, "missing.json");    /* a missing file is skipped silently */
		free(w);
		hookexec_free(cfg);

		CHECK_INT(hookexec_match(e, "PreToolUse", "Bash"), 1);
		char *res = NULL;
		CHECK_RC(hookexec_fire(e, "PreToolUse", "{\"tool_name\":\"Bash\",\"tool_input\":{\"command\":\"ls\"}}", &res),
		         HOOKEXEC_OK);
		CHECK_HAS(res, "\"matched\":1,");
		CHECK_HAS(res, "\"blocked\":false");
		CHECK_HAS(res, "\"id\":\"good-hook\"");
		CHECK_HAS(res, "\"stdout\":\"good-hook-ran\\n\"");
		CHECK_HAS(res, "\"exit_code\":0");
		hookexec_free(res);
		CHECK_RC(hookexec_close(e), HOOKEXEC_OK);
	}
	free(opts);
	free(extra);
	free(missing);
	free(good);
	free(bad);
	remove_tree(dir);
}

/* ---------------------------------------------------------------- 6. close */

static void test_close_semantics(void) {
	char *dir = make_tmpdir();
	char *opts = options(dir, NULL, NULL);
	hookexec_engine *e = OPEN(opts);
	if (e) {
		CHECK_RC(hookexec_close(e), HOOKEXEC_OK);
		char *res = (char *)0x1;
		CHECK_RC(hookexec_fire(e, "PreToolUse", "{}", &res), HOOKEXEC_ECLOSED);
		CHECK(res == NULL);
		CHECK(hookexec_errmsg()[0] != '\0');
		res = (char *)0x1;
		CHECK_RC(hookexec_config(e, &res), HOOKEXEC_ECLOSED);
		CHECK(res == NULL);
		res = (char *)0x1;
		CHECK_RC(hookexec_drain(e, &res), HOOKEXEC_ECLOSED);
		CHECK(res == NULL);
		char *err = NULL;
		CHECK_RC(hookexec_reload(e, &err), HOOKEXEC_ECLOSED);
		CHECK(err != NULL && err[0] != '\0');
		hookexec_free(err);
		CHECK_RC(hookexec_set_listener(e, NULL, NULL), HOOKEXEC_ECLOSED);
		CHECK_RC(hookexec_close(e), HOOKEXEC_ECLOSED);
		CHECK_RC(hookexec_close(e), HOOKEXEC_ECLOSED);

		/* a new engine gets a new handle: the closed one never comes back to life */
		hookexec_engine *e2 = OPEN(opts);
		if (e2) {
			CHECK(e2 != e);
			res = NULL;
			CHECK_RC(hookexec_fire(e2, "Stop", "{}", &res), HOOKEXEC_OK);
			hookexec_free(res);
			res = (char *)0x1;
			CHECK_RC(hookexec_fire(e, "Stop", "{}", &res), HOOKEXEC_ECLOSED);
			CHECK_RC(hookexec_close(e2), HOOKEXEC_OK);
		}
	}
	free(opts);
	remove_tree(dir);
}

/* ---------------------------------------------------------------- 7. threads */

#define N_THREADS 32
#define N_FIRES 20

struct thread_arg {
	hookexec_engine *e;
	int index;
	int ok;         /* fires with status OK */
	int right;      /* results whose additional_context is this thread's index */
	int first_rc;   /* first non-OK status */
	char *first_bad; /* first wrong result, kept for the report */
};

static void *fire_thread(void *p) {
	struct thread_arg *a = p;
	char payload[128], want[64];
	snprintf(payload, sizeof payload, "{\"tool_name\":\"Bash\",\"tool_input\":{\"n\":%d}}", a->index);
	snprintf(want, sizeof want, "\"additional_context\":\"%d\"", a->index);
	for (int i = 0; i < N_FIRES; i++) {
		char *res = NULL;
		int rc = hookexec_fire(a->e, "PreToolUse", payload, &res);
		if (rc == HOOKEXEC_OK) {
			a->ok++;
			if (res && strstr(res, want) && strstr(res, "\"blocked\":false"))
				a->right++;
			else if (!a->first_bad && res)
				a->first_bad = strdup(res);
		} else if (!a->first_rc) {
			a->first_rc = rc;
		}
		hookexec_free(res);
	}
	return NULL;
}

static void test_threads(void) {
	char *dir = make_tmpdir();
	char *opts = options(dir,
	                     "{\"hooks\":{\"PreToolUse\":[{\"matcher\":\"Bash\",\"hooks\":[{\"type\":\"command\","
	                     "\"command\":\"printf '{\\\"hookSpecificOutput\\\":{\\\"additionalContext\\\":\\\"%s\\\"}}'"
	                     " <<tool_input.n>>\"}]}]}}",
	                     NULL);
	hookexec_engine *e = OPEN(opts);
	if (e) {
		struct thread_arg args[N_THREADS];
		pthread_t th[N_THREADS];
		memset(args, 0, sizeof args);
		int started = 0;
		for (int i = 0; i < N_THREADS; i++) {
			args[i].e = e;
			args[i].index = i;
			if (pthread_create(&th[i], NULL, fire_thread, &args[i]) != 0) break;
			started++;
		}
		CHECK_INT(started, N_THREADS);
		for (int i = 0; i < started; i++) pthread_join(th[i], NULL);
		for (int i = 0; i < started; i++) {
			CHECK_INT(args[i].ok, N_FIRES);
			if (args[i].first_rc) CHECK_RC(args[i].first_rc, HOOKEXEC_OK);
			CHECK_INT(args[i].right, N_FIRES);
			if (args[i].first_bad) {
				char want[64];
				snprintf(want, sizeof want, "\"additional_context\":\"%d\"", i);
				CHECK_HAS(args[i].first_bad, want);
				free(args[i].first_bad);
			}
		}
		CHECK_RC(hookexec_close(e), HOOKEXEC_OK);
	}
	free(opts);
	remove_tree(dir);
}

/* ---------------------------------------------------------------- 7b. fire while closing */

/* Threads fire until the engine refuses while the main thread closes it. Close waits for the
 * fires in flight, so none of them sees its hooks killed, and every later fire is ECLOSED;
 * no listener call comes after close returned. */

#define N_CLOSERS 8

struct closing_state {
	hookexec_engine *e;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int fired;    /* threads that finished at least one fire */
	int listened; /* listener calls */
	int ok, closed, killed, other;
	char *first_other;
};

static void closing_listener(void *user_data, const char *kind, const char *json) {
	(void)kind;
	(void)json;
	struct closing_state *s = user_data;
	pthread_mutex_lock(&s->mu);
	s->listened++;
	pthread_mutex_unlock(&s->mu);
}

static void *closing_thread(void *p) {
	struct closing_state *s = p;
	int first = 1;
	for (;;) {
		char *res = NULL;
		int rc = hookexec_fire(s->e, "Stop", "{}", &res);
		pthread_mutex_lock(&s->mu);
		if (rc == HOOKEXEC_OK && res && strstr(res, "killed: the engine closed")) {
			s->killed++;
		} else if (rc == HOOKEXEC_OK) {
			s->ok++;
		} else if (rc == HOOKEXEC_ECLOSED) {
			s->closed++;
		} else {
			s->other++;
			if (!s->first_other) s->first_other = strdup(hookexec_errstr(rc));
		}
		if (first) {
			first = 0;
			s->fired++;
			pthread_cond_broadcast(&s->cv);
		}
		pthread_mutex_unlock(&s->mu);
		hookexec_free(res);
		if (rc != HOOKEXEC_OK) return NULL;
	}
}

static void test_fire_while_closing(void) {
	char *dir = make_tmpdir();
	char *opts = options(dir,
	                     "{\"hooks\":{\"Stop\":[{\"hooks\":[{\"type\":\"command\",\"command\":\"sleep 0.05\"},"
	                     "{\"type\":\"command\",\"command\":\"true\",\"async\":true}]}]}}",
	                     "\"notifications\":true");
	for (int round = 0; round < 3; round++) {
		hookexec_engine *e = OPEN(opts);
		if (!e) break;
		struct closing_state s;
		memset(&s, 0, sizeof s);
		s.e = e;
		pthread_mutex_init(&s.mu, NULL);
		pthread_cond_init(&s.cv, NULL);
		CHECK_RC(hookexec_set_listener(e, closing_listener, &s), HOOKEXEC_OK);
		pthread_t th[N_CLOSERS];
		int started = 0;
		for (int i = 0; i < N_CLOSERS; i++) {
			if (pthread_create(&th[i], NULL, closing_thread, &s) != 0) break;
			started++;
		}
		CHECK_INT(started, N_CLOSERS);
		/* close while every thread is firing */
		CHECK_INT(wait_count(&s.mu, &s.cv, &s.fired, started), started);
		CHECK_RC(hookexec_close(e), HOOKEXEC_OK);
		pthread_mutex_lock(&s.mu);
		int listened = s.listened;
		pthread_mutex_unlock(&s.mu);
		for (int i = 0; i < started; i++) pthread_join(th[i], NULL);
		char *res = NULL;
		CHECK_RC(hookexec_fire(e, "Stop", "{}", &res), HOOKEXEC_ECLOSED);
		CHECK(res == NULL);
		sleep_ms(50);
		pthread_mutex_lock(&s.mu);
		CHECK_INT(s.listened, listened); /* nothing after close returned */
		pthread_mutex_unlock(&s.mu);
		CHECK_INT(s.killed, 0);          /* close waited for the fires in flight */
		CHECK_INT(s.closed, started);    /* each thread stopped at its first ECLOSED */
		CHECK_INT(s.other, 0);
		if (s.first_other) check_failed(__FILE__, __LINE__, "a fire returned %s", s.first_other);
		CHECK(s.ok >= started);
		free(s.first_other);
		pthread_cond_destroy(&s.cv);
		pthread_mutex_destroy(&s.mu);
	}
	free(opts);
	remove_tree(dir);
}

/* ---------------------------------------------------------------- 8. fork */

static void test_fork(void) {
	char *dir = make_tmpdir();
	char *opts = options(dir, "{\"hooks\":{\"Stop\":[{\"hooks\":[{\"type\":\"command\",\"command\":\"true\"}]}]}}", NULL);
	hookexec_engine *e = OPEN(opts);
	if (e) {
		char *res = NULL;
		CHECK_RC(hookexec_fire(e, "Stop", "{}", &res), HOOKEXEC_OK); /* the runtime is busy */
		hookexec_free(res);
		fflush(stdout);
		fflush(stderr);
		pid_t pid = fork();
		if (pid == 0) {
			/* child: every call must return EFORK at once; a hang is killed by the alarm */
			signal(SIGALRM, SIG_DFL);
			alarm((unsigned)HANG_GUARD_S);
			int bits = 0;
			char *r = (char *)0x1;
			if (hookexec_fire(e, "Stop", "{}", &r) != HOOKEXEC_EFORK) bits |= 1;
			hookexec_engine *e2 = (hookexec_engine *)0x1;
			char *err = NULL;
			if (hookexec_open(opts, &e2, &err) != HOOKEXEC_EFORK) bits |= 2;
			if (err == NULL || err[0] == '\0') bits |= 4;
			hookexec_free(err);
			if (hookexec_match(e, "Stop", NULL) != -HOOKEXEC_EFORK) bits |= 8;
			if (hookexec_close(e) != HOOKEXEC_EFORK) bits |= 16;
			if (hookexec_errmsg()[0] == '\0') bits |= 32;
			_exit(bits);
		}
		CHECK(pid > 0);
		if (pid > 0) {
			int status = 0, done = 0;
			double t0 = now_s();
			while (now_s() - t0 < HANG_GUARD_S) {
				pid_t w = waitpid(pid, &status, WNOHANG);
				if (w == pid) {
					done = 1;
					break;
				}
				if (w < 0 && errno != EINTR) break;
				sleep_ms(10);
			}
			if (!done) {
				kill(pid, SIGKILL);
				waitpid(pid, &status, 0);
				check_failed(__FILE__, __LINE__, "the forked child did not exit within %.0f s (hung in hookexec)", HANG_GUARD_S);
			} else {
				CHECK(WIFEXITED(status));
				if (WIFEXITED(status) && WEXITSTATUS(status) != 0)
					check_failed(__FILE__, __LINE__,
					             "child checks failed, bits 0x%x (1 fire, 2 open, 4 open error_out, 8 match, 16 close, 32 errmsg)",
					             WEXITSTATUS(status));
				if (WIFSIGNALED(status))
					check_failed(__FILE__, __LINE__, "child killed by signal %d", WTERMSIG(status));
			}
		}
		/* the parent is unaffected */
		res = NULL;
		CHECK_RC(hookexec_fire(e, "Stop", "{}", &res), HOOKEXEC_OK);
		CHECK_HAS(res, "\"matched\":1,");
		hookexec_free(res);
		CHECK_RC(hookexec_close(e), HOOKEXEC_OK);
	}
	free(opts);
	remove_tree(dir);
}

/* ---------------------------------------------------------------- 9. timeout */

static void test_timeout(void) {
	char *dir = make_tmpdir();
	/* sleep dies on SIGTERM; the trap variants ignore it and need the SIGKILL after the grace;
	 * Orphan leaves a grandchild holding the output pipes, which must die with the group */
	char *pidfile = fmt("%s/grandchild.pid", dir);
	char *config = fmt(
	                     "{\"hooks\":{\"PreToolUse\":["
	                     "{\"matcher\":\"Sleep\",\"hooks\":[{\"type\":\"command\",\"command\":\"sleep 30\",\"timeout\":1}]},"
	                     "{\"matcher\":\"Stubborn\",\"hooks\":[{\"type\":\"command\",\"command\":\"trap '' TERM; sleep 30; echo survived\",\"timeout\":1}]},"
	                     "{\"matcher\":\"Orphan\",\"hooks\":[{\"type\":\"command\",\"command\":\"trap '' TERM; sleep 30 & echo $! > %s; wait; echo survived\",\"timeout\":1}]}"
	                     "]}}",
	                     pidfile);
	char *opts = options(dir, config, "\"kill_grace_ms\":500");
	hookexec_engine *e = OPEN(opts);
	if (e) {
		const char *tools[] = {"Sleep", "Stubborn", "Orphan"};
		for (int i = 0; i < 3; i++) {
			char payload[96];
			snprintf(payload, sizeof payload, "{\"tool_name\":\"%s\",\"tool_input\":{}}", tools[i]);
			char *res = NULL;
			double t0 = now_s();
			CHECK_RC(hookexec_fire(e, "PreToolUse", payload, &res), HOOKEXEC_OK);
			double dt = now_s() - t0;
			/* timeout 1 s + grace 0.5 s; the hook would sleep 30 s */
			if (!(dt < 1.5 + HANG_GUARD_S)) check_failed(__FILE__, __LINE__, "%s: fire took %.2f s: hung", tools[i], dt);
			if (!(dt > 0.8)) check_failed(__FILE__, __LINE__, "%s: fire took %.2f s, before the 1 s timeout", tools[i], dt);
			CHECK_HAS(res, "\"matched\":1,");
			CHECK_HAS(res, "\"timed_out\":true");
			CHECK_HAS(res, "\"stdout\":\"\"");
			/* a timeout is a non-blocking error unless fail_closed */
			CHECK_HAS(res, "\"blocked\":false");
			hookexec_free(res);
		}
		/* no process of the hook's tree survives */
		FILE *f = fopen(pidfile, "r");
		int pid = 0;
		CHECK(f != NULL);
		if (f) {
			CHECK(fscanf(f, "%d", &pid) == 1);
			fclose(f);
		}
		if (pid > 0) {
			/* SIGKILL went to the group before fire returned; give the kernel a moment */
			for (double t0 = now_s(); process_alive(pid) && now_s() - t0 < HANG_GUARD_S;) sleep_ms(10);
			if (process_alive(pid)) check_failed(__FILE__, __LINE__, "grandchild %d survived the timeout", pid);
		}
		CHECK_RC(hookexec_close(e), HOOKEXEC_OK);
	}
	free(opts);
	free(config);
	free(pidfile);
	remove_tree(dir);
}

/* ---------------------------------------------------------------- 10. listener */

struct listen_state {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int calls;
	int async_calls;
	int on_firing_thread;
	pthread_t firing_thread;
	char *kind;
	char *json;
};

static void listener(void *user_data, const char *kind, const char *json) {
	struct listen_state *s = user_data;
	pthread_mutex_lock(&s->mu);
	s->calls++;
	if (pthread_equal(pthread_self(), s->firing_thread)) s->on_firing_thread++;
	if (kind && strcmp(kind, "async") == 0) {
		s->async_calls++;
		if (!s->json) {
			s->kind = strdup(kind);
			s->json = strdup(json ? json : "(null)");
		}
	}
	pthread_cond_broadcast(&s->cv);
	pthread_mutex_unlock(&s->mu);
}

static void test_listener(void) {
	char *dir = make_tmpdir();
	char *marker = fmt("%s/marker", dir);
	char *release = fmt("%s/release", dir);
	/* the async hook finishes only once the test creates release, after the fire returned */
	char *config = fmt("{\"hooks\":{\"Stop\":[{\"hooks\":[{\"type\":\"command\",\"name\":\"async-marker\","
	                   "\"async\":true,\"timeout\":60,"
	                   "\"command\":\"while [ ! -e %s ]; do sleep 0.01; done; echo done > %s; echo async-out\"}]}]}}",
	                   release, marker);
	char *opts = options(dir, config, NULL);
	struct listen_state s;
	memset(&s, 0, sizeof s);
	pthread_mutex_init(&s.mu, NULL);
	pthread_cond_init(&s.cv, NULL);
	s.firing_thread = pthread_self();
	hookexec_engine *e = OPEN(opts);
	if (e) {
		CHECK_RC(hookexec_set_listener(e, listener, &s), HOOKEXEC_OK);
		char *res = NULL;
		CHECK_RC(hookexec_fire(e, "Stop", "{}", &res), HOOKEXEC_OK);
		/* the fire did not wait for the async hook: it cannot have finished yet */
		CHECK(!file_exists(marker));
		pthread_mutex_lock(&s.mu);
		CHECK_INT(s.async_calls, 0);
		pthread_mutex_unlock(&s.mu);
		CHECK_HAS(res, "\"blocked\":false");
		hookexec_free(res);
		FILE *rel = fopen(release, "w");
		CHECK(rel != NULL);
		if (rel) fclose(rel);

		int got = wait_count(&s.mu, &s.cv, &s.async_calls, 1);
		CHECK(got >= 1);
		if (got >= 1) {
			CHECK(strcmp(s.kind, "async") == 0);
			CHECK_HAS(s.json, "{\"event\":\"Stop\",\"hook\":{");
			CHECK_HAS(s.json, "\"id\":\"async-marker\"");
			CHECK_HAS(s.json, "\"async\":true");
			CHECK_HAS(s.json, "\"stdout\":\"async-out\\n\"");
			CHECK_HAS(s.json, "\"blocked\":false");
			CHECK(file_exists(marker));
		}
		CHECK_INT(s.on_firing_thread, 0);

		/* removing the listener works; close waits for nothing more */
		CHECK_RC(hookexec_set_listener(e, NULL, NULL), HOOKEXEC_OK);
		CHECK_RC(hookexec_close(e), HOOKEXEC_OK);
	}
	pthread_mutex_lock(&s.mu);
	free(s.kind);
	free(s.json);
	pthread_mutex_unlock(&s.mu);
	pthread_cond_destroy(&s.cv);
	pthread_mutex_destroy(&s.mu);
	free(opts);
	free(config);
	free(marker);
	free(release);
	remove_tree(dir);
}

/* ---------------------------------------------------------------- 10a. removing a listener */

struct slow_state {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	hookexec_engine *e;
	int entered;      /* callbacks that started */
	int finished;     /* callbacks that returned (atomic) */
	int remove_self;  /* the callback removes its own listener */
	int inside_rc;    /* what hookexec_set_listener returned inside the callback */
};

static void slow_listener(void *user_data, const char *kind, const char *json) {
	(void)json;
	struct slow_state *s = user_data;
	if (strcmp(kind, "async") != 0) return;
	pthread_mutex_lock(&s->mu);
	s->entered++;
	pthread_cond_broadcast(&s->cv);
	pthread_mutex_unlock(&s->mu);
	if (s->remove_self) {
		/* from inside its own callback: must return at once instead of waiting for itself */
		s->inside_rc = hookexec_set_listener(s->e, NULL, NULL);
	} else {
		sleep_ms(300);
	}
	__atomic_store_n(&s->finished, 1, __ATOMIC_SEQ_CST);
	pthread_mutex_lock(&s->mu);
	pthread_cond_broadcast(&s->cv);
	pthread_mutex_unlock(&s->mu);
}

/* hookexec_set_listener(e, NULL) returns only once a running callback has returned, so the
 * host may free user_data right after; called from inside the callback it does not wait. */
static void test_listener_removal(void) {
	char *dir = make_tmpdir();
	char *opts = options(dir, "{\"hooks\":{\"Stop\":[{\"hooks\":[{\"type\":\"command\",\"async\":true,\"command\":\"true\"}]}]}}", NULL);
	for (int self = 0; self <= 1; self++) {
		struct slow_state s;
		memset(&s, 0, sizeof s);
		pthread_mutex_init(&s.mu, NULL);
		pthread_cond_init(&s.cv, NULL);
		s.remove_self = self;
		hookexec_engine *e = OPEN(opts);
		if (!e) break;
		s.e = e;
		CHECK_RC(hookexec_set_listener(e, slow_listener, &s), HOOKEXEC_OK);
		char *res = NULL;
		CHECK_RC(hookexec_fire(e, "Stop", "{}", &res), HOOKEXEC_OK);
		hookexec_free(res);
		CHECK_INT(wait_count(&s.mu, &s.cv, &s.entered, 1), 1);
		if (self) {
			CHECK_INT(wait_count(&s.mu, &s.cv, &s.finished, 1), 1);
			CHECK_RC(s.inside_rc, HOOKEXEC_OK);
		} else {
			CHECK_RC(hookexec_set_listener(e, NULL, NULL), HOOKEXEC_OK);
			CHECK_INT(__atomic_load_n(&s.finished, __ATOMIC_SEQ_CST), 1);
		}
		/* an async result after the removal reaches nobody (close waits for the hook) */
		CHECK_RC(hookexec_fire(e, "Stop", "{}", &res), HOOKEXEC_OK);
		hookexec_free(res);
		CHECK_RC(hookexec_close(e), HOOKEXEC_OK);
		CHECK_INT(s.entered, 1);
		pthread_cond_destroy(&s.cv);
		pthread_mutex_destroy(&s.mu);
	}
	free(opts);
	remove_tree(dir);
}

/* ---------------------------------------------------------------- 10b. JSON-RPC notifications */

struct notes {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int n;
	int on_firing_thread;
	pthread_t firing_thread;
	char *json[8];
};

static void note_listener(void *user_data, const char *kind, const char *json) {
	struct notes *s = user_data;
	if (!kind || strcmp(kind, "notification") != 0) return;
	pthread_mutex_lock(&s->mu);
	if (pthread_equal(pthread_self(), s->firing_thread)) s->on_firing_thread++;
	if (s->n < 8) s->json[s->n] = strdup(json ? json : "(null)");
	s->n++;
	pthread_cond_broadcast(&s->cv);
	pthread_mutex_unlock(&s->mu);
}

/* An autohand config makes every fire a JSON-RPC 2.0 notification to the listener, in fire
 * order, matched or not, never on the firing thread. */
static void test_notifications(void) {
	char *dir = make_tmpdir();
	char *cfgdir = fmt("%s/.autohand", dir);
	mkdir(cfgdir, 0755);
	free(write_file(cfgdir, "config.json",
	                "{\"hooks\":{\"enabled\":true,\"hooks\":[{\"event\":\"pre-tool\",\"command\":\"true\","
	                "\"matcher\":\"^run_command$\"}]}}"));
	char *opts = options(dir, NULL, "\"profile\":\"autohand\"");
	struct notes s;
	memset(&s, 0, sizeof s);
	pthread_mutex_init(&s.mu, NULL);
	pthread_cond_init(&s.cv, NULL);
	s.firing_thread = pthread_self();
	hookexec_engine *e = OPEN(opts);
	if (e) {
		char *cfg = NULL;
		CHECK_RC(hookexec_config(e, &cfg), HOOKEXEC_OK);
		CHECK_HAS(cfg, "\"notifications\":true");
		hookexec_free(cfg);
		CHECK_RC(hookexec_set_listener(e, note_listener, &s), HOOKEXEC_OK);
		char *res = NULL;
		CHECK_RC(hookexec_fire(e, "pre-tool", "{\"tool_name\":\"run_command\",\"tool_input\":{\"command\":\"ls\"},\"tool_use_id\":\"c1\"}", &res), HOOKEXEC_OK);
		CHECK_HAS(res, "\"matched\":1");
		hookexec_free(res);
		res = NULL;
		CHECK_RC(hookexec_fire(e, "SessionEnd", "{\"session_end_reason\":\"quit\",\"duration\":5}", &res), HOOKEXEC_OK);
		CHECK_HAS(res, "\"matched\":0");
		hookexec_free(res);

		int got = wait_count(&s.mu, &s.cv, &s.n, 2);
		CHECK_INT(got, 2);
		if (got >= 2) {
			CHECK_HAS(s.json[0], "{\"jsonrpc\":\"2.0\",\"method\":\"autohand.hook.preTool\",\"params\":{");
			CHECK_HAS(s.json[0], "\"toolId\":\"c1\",\"toolName\":\"run_command\",\"args\":{\"command\":\"ls\"},\"timestamp\":\"");
			CHECK_HAS(s.json[1], "\"method\":\"autohand.hook.sessionEnd\",\"params\":{\"reason\":\"quit\",\"duration\":5,");
		}
		CHECK_INT(s.on_firing_thread, 0);
		CHECK_RC(hookexec_close(e), HOOKEXEC_OK);
	}
	for (int i = 0; i < s.n && i < 8; i++) free(s.json[i]);
	pthread_cond_destroy(&s.cv);
	pthread_mutex_destroy(&s.mu);
	free(opts);
	free(cfgdir);
	remove_tree(dir);
}

/* ---------------------------------------------------------------- 11. close with async running */

static void test_close_kills_async(void) {
	char *dir = make_tmpdir();
	char *marker = fmt("%s/late", dir);
	char *config = fmt("{\"hooks\":{\"Stop\":[{\"hooks\":[{\"type\":\"command\",\"async\":true,"
	                   "\"command\":\"sleep 30; echo late > %s\"}]}]}}",
	                   marker);
	char *opts = options(dir, config, "\"close_timeout_ms\":300,\"kill_grace_ms\":200");
	hookexec_engine *e = OPEN(opts);
	if (e) {
		char *res = NULL;
		CHECK_RC(hookexec_fire(e, "Stop", "{}", &res), HOOKEXEC_OK);
		hookexec_free(res);
		double t0 = now_s();
		CHECK_RC(hookexec_close(e), HOOKEXEC_OK);
		double dt = now_s() - t0;
		/* close_timeout_ms 0.3 s + grace 0.2 s; the hook would sleep 30 s */
		if (!(dt < 0.5 + HANG_GUARD_S)) check_failed(__FILE__, __LINE__, "close took %.2f s with close_timeout_ms 300", dt);
		CHECK(!file_exists(marker));
	}
	free(opts);
	free(config);
	free(marker);
	remove_tree(dir);
}

/* ---------------------------------------------------------------- errmsg per thread */

static void *errmsg_thread(void *p) {
	char **out = p;
	hookexec_engine *e = NULL;
	for (int i = 0; i < 200; i++) {
		hookexec_open("{\"no_such_option_in_thread\":1}", &e, NULL);
		if (!strstr(hookexec_errmsg(), "no_such_option_in_thread")) {
			*out = strdup(hookexec_errmsg());
			break;
		}
	}
	return NULL;
}

static void test_errmsg_per_thread(void) {
	char *other = NULL;
	pthread_t th;
	int started = pthread_create(&th, NULL, errmsg_thread, &other) == 0;
	CHECK(started);
	hookexec_engine *fake = (hookexec_engine *)0x8;
	char *res = NULL;
	int mismatch = 0;
	for (int i = 0; i < 200; i++) {
		hookexec_fire(fake, "Stop", "{}", &res);
		const char *m = hookexec_errmsg();
		if (strstr(m, "no_such_option_in_thread")) mismatch++;
	}
	if (started) pthread_join(th, NULL);
	CHECK_INT(mismatch, 0);
	if (other) check_failed(__FILE__, __LINE__, "the other thread saw errmsg %s", other);
	free(other);
}

/* ---------------------------------------------------------------- errmsg at thread exit */

/* The last error message belongs to its thread; when the thread ends it must be released,
 * or a host whose worker threads come and go (thread pools, Python threads) leaks one
 * message per thread. Measured with mallinfo2: the library allocates the message with the
 * C allocator. Each thread fails once with a ~4 KiB message (the unknown option's name is
 * quoted in it). */
#define EXIT_THREADS 400
static char *g_long_option;

static void *fail_once_thread(void *p) {
	(void)p;
	hookexec_engine *e = NULL;
	hookexec_open(g_long_option, &e, NULL);
	return NULL;
}

static size_t heap_in_use(void) {
	struct mallinfo2 mi = mallinfo2();
	return mi.uordblks;
}

static void test_errmsg_freed_at_thread_exit(void) {
	size_t n = 4000;
	char *name = malloc(n + 1);
	memset(name, 'x', n);
	name[n] = 0;
	g_long_option = fmt("{\"%s\":1}", name);
	free(name);
	pthread_t th;
	for (int i = 0; i < 20; i++) { /* warm up: thread stacks, arenas, the runtime's extra Ms */
		if (pthread_create(&th, NULL, fail_once_thread, NULL) == 0) pthread_join(th, NULL);
	}
	size_t before = heap_in_use();
	int ran = 0;
	for (int i = 0; i < EXIT_THREADS; i++) {
		if (pthread_create(&th, NULL, fail_once_thread, NULL) != 0) break;
		pthread_join(th, NULL);
		ran++;
	}
	CHECK_INT(ran, EXIT_THREADS);
	size_t after = heap_in_use();
	long growth = (long)after - (long)before;
	/* leaking the message would grow the heap by about EXIT_THREADS * 4 KiB = 1.6 MB */
	if (growth > (long)(EXIT_THREADS * n / 4))
		check_failed(__FILE__, __LINE__,
		             "heap grew by %ld bytes over %d threads that each failed one call and exited "
		             "(~%ld bytes per thread): the thread's last error message is not freed at thread exit",
		             growth, ran, ran ? growth / ran : 0);
	free(g_long_option);
	g_long_option = NULL;
}

/* ---------------------------------------------------------------- main */

struct test {
	const char *name;
	void (*fn)(void);
};

/* ---------------------------------------------------------------- prompt hooks */

static int g_prompt_calls = 0;

/* Blocks prompts that mention "deploy", approves the rest, fails on "boom". */
static int prompt_evaluator(void *user_data, const char *prompt, const char *payload, char *reason, size_t size) {
	__atomic_add_fetch((int *)user_data, 1, __ATOMIC_RELAXED);
	if (!strstr(payload, "\"hook_event_name\":\"Stop\"")) {
		snprintf(reason, size, "payload lacks the event: %s", payload);
		return -1;
	}
	if (strstr(prompt, "boom")) {
		snprintf(reason, size, "evaluator exploded");
		return -1;
	}
	if (strstr(prompt, "deploy")) {
		snprintf(reason, size, "not before the tests pass: %s", prompt);
		return 0;
	}
	snprintf(reason, size, "fine");
	return 1;
}

static void test_prompt_hooks(void) {
	char *dir = make_tmpdir();
	char *opts = options(dir, "{\"hooks\":{\"Stop\":[{\"hooks\":[{\"type\":\"prompt\",\"prompt\":\"May we <<next>>?\"}]}]}}", NULL);
	hookexec_engine *e = OPEN(opts);
	if (e) {
		char *res = NULL;
		CHECK_RC(hookexec_fire(e, "Stop", "{\"next\":\"deploy\"}", &res), HOOKEXEC_OK);
		CHECK_HAS(res, "\"blocked\":false");
		CHECK_HAS(res, "prompt evaluator");
		hookexec_free(res);

		CHECK_RC(hookexec_set_prompt_evaluator(e, prompt_evaluator, &g_prompt_calls), HOOKEXEC_OK);
		CHECK_RC(hookexec_fire(e, "Stop", "{\"next\":\"deploy\"}", &res), HOOKEXEC_OK);
		CHECK_HAS(res, "\"blocked\":true");
		CHECK_HAS(res, "\"reason\":\"not before the tests pass: May we deploy?\"");
		CHECK_HAS(res, "\"exec\":\"prompt\"");
		hookexec_free(res);

		CHECK_RC(hookexec_fire(e, "Stop", "{\"next\":\"rest\"}", &res), HOOKEXEC_OK);
		CHECK_HAS(res, "\"blocked\":false");
		hookexec_free(res);

		CHECK_RC(hookexec_fire(e, "Stop", "{\"next\":\"boom\"}", &res), HOOKEXEC_OK);
		CHECK_HAS(res, "\"blocked\":false");
		CHECK_HAS(res, "evaluator exploded");
		hookexec_free(res);
		CHECK(g_prompt_calls == 3);

		CHECK_RC(hookexec_set_prompt_evaluator(e, NULL, NULL), HOOKEXEC_OK);
		CHECK_RC(hookexec_close(e), HOOKEXEC_OK);
		CHECK_RC(hookexec_set_prompt_evaluator(e, prompt_evaluator, NULL), HOOKEXEC_ECLOSED);
	}
	free(opts);
	free(dir);
}

/* ---------------------------------------------------------------- leak check (last) */

static void test_no_leaks(void) {
	/* Every engine the suite opened is closed, every string it was handed is freed. */
	CHECK(hookexec_debug_live(HOOKEXEC_LIVE_ENGINES) == 0);
	CHECK(hookexec_debug_live(HOOKEXEC_LIVE_STRINGS) == 0);
	CHECK(hookexec_debug_live(99) == -HOOKEXEC_EINVAL);
	hookexec_engine *e = OPEN("{}");
	char *cfg = NULL;
	CHECK(hookexec_debug_live(HOOKEXEC_LIVE_ENGINES) == 1);
	CHECK_RC(hookexec_config(e, &cfg), HOOKEXEC_OK);
	CHECK(hookexec_debug_live(HOOKEXEC_LIVE_STRINGS) == 1);
	hookexec_free(cfg);
	hookexec_close(e);
	CHECK(hookexec_debug_live(HOOKEXEC_LIVE_ENGINES) == 0);
	CHECK(hookexec_debug_live(HOOKEXEC_LIVE_STRINGS) == 0);
}

/* ---------------------------------------------------------------- host-evaluated hooks */

static int g_eval_calls = 0;

/* One evaluator for every type: prompt says yes, agent says no, mcp_tool answers in a
 * command's terms, a hook whose prompt says "silent" returns without answering, and an
 * unknown type is an error. */
static void evaluator(void *user_data, const char *type, const char *hook, const char *payload, hookexec_answer *a) {
	__atomic_add_fetch((int *)user_data, 1, __ATOMIC_RELAXED);
	if (!strstr(payload, "\"hook_event_name\":\"PostToolUse\"")) {
		hookexec_answer_error(a, "payload lacks the event");
	} else if (strcmp(type, "prompt") == 0 && strstr(hook, "silent")) {
		/* no answer */
	} else if (strcmp(type, "prompt") == 0) {
		hookexec_answer_verdict(a, 1, "fine");
	} else if (strcmp(type, "agent") == 0) {
		hookexec_answer_verdict(a, 0, "tests fail");
	} else if (strcmp(type, "mcp_tool") == 0 && strstr(hook, "\"input\":{\"file_path\":\"/src/a.c\"}")) {
		hookexec_answer_output(a, 0, "{\"hookSpecificOutput\":{\"hookEventName\":\"PostToolUse\",\"additionalContext\":\"scan clean\"}}", NULL);
	} else {
		hookexec_answer_error(a, "unexpected hook");
	}
}

static void test_evaluator(void) {
	char *dir = make_tmpdir();
	char *opts = options(dir,
	                     "{\"hooks\":{\"PostToolUse\":[{\"hooks\":["
	                     "{\"type\":\"prompt\",\"prompt\":\"ok? $ARGUMENTS\"},"
	                     "{\"type\":\"agent\",\"prompt\":\"verify\"},"
	                     "{\"type\":\"mcp_tool\",\"server\":\"scan\",\"tool\":\"run\",\"input\":{\"file_path\":\"${tool_input.file_path}\"}},"
	                     "{\"type\":\"prompt\",\"prompt\":\"silent\"}]}]}}",
	                     "\"profile\":\"claude\"");
	const char *payload = "{\"tool_name\":\"Write\",\"tool_input\":{\"file_path\":\"/src/a.c\"}}";
	hookexec_engine *e = OPEN(opts);
	if (e) {
		char *res = NULL;
		CHECK_RC(hookexec_fire(e, "PostToolUse", payload, &res), HOOKEXEC_OK);
		CHECK_HAS(res, "no agent evaluator is registered");
		CHECK_HAS(res, "no mcp_tool evaluator is registered");
		hookexec_free(res);

		CHECK_RC(hookexec_set_evaluator(e, evaluator, &g_eval_calls), HOOKEXEC_OK);
		CHECK_RC(hookexec_fire(e, "PostToolUse", payload, &res), HOOKEXEC_OK);
		CHECK_HAS(res, "\"reason\":\"tests fail\"");
		CHECK_HAS(res, "\"additional_context\":\"scan clean\"");
		CHECK_HAS(res, "\"exec\":\"agent\"");
		CHECK_HAS(res, "\"exec\":\"mcp_tool\"");
		CHECK_HAS(res, "returned without answering");
		CHECK_HASNT(res, "unexpected hook");
		hookexec_free(res);
		CHECK_INT(g_eval_calls, 4);

		CHECK_RC(hookexec_answer_output(NULL, 0, "x", NULL), HOOKEXEC_EINVAL);
		CHECK_RC(hookexec_answer_verdict(NULL, 1, NULL), HOOKEXEC_EINVAL);
		CHECK_RC(hookexec_answer_error(NULL, NULL), HOOKEXEC_EINVAL);

		/* The prompt-only form replaces it: agent and mcp_tool hooks now fail saying so. */
		CHECK_RC(hookexec_set_prompt_evaluator(e, prompt_evaluator, &g_prompt_calls), HOOKEXEC_OK);
		CHECK_RC(hookexec_fire(e, "PostToolUse", payload, &res), HOOKEXEC_OK);
		CHECK_HAS(res, "answers prompt hooks only, not agent");
		hookexec_free(res);

		CHECK_RC(hookexec_set_evaluator(e, NULL, NULL), HOOKEXEC_OK);
		CHECK_RC(hookexec_close(e), HOOKEXEC_OK);
		CHECK_RC(hookexec_set_evaluator(e, evaluator, NULL), HOOKEXEC_ECLOSED);
	}
	CHECK_RC(hookexec_set_evaluator(NULL, evaluator, NULL), HOOKEXEC_EINVAL);
	free(opts);
	remove_tree(dir);
}

/* ---------------------------------------------------------------- status and rewake */

struct kinds_state {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int status, rewake;
	char *status_json, *rewake_json;
};

static void kinds_listener(void *user_data, const char *kind, const char *json) {
	struct kinds_state *s = user_data;
	pthread_mutex_lock(&s->mu);
	if (strcmp(kind, "status") == 0 && !s->status++) s->status_json = strdup(json);
	if (strcmp(kind, "rewake") == 0 && !s->rewake++) s->rewake_json = strdup(json);
	pthread_cond_broadcast(&s->cv);
	pthread_mutex_unlock(&s->mu);
}

static void test_status_and_rewake(void) {
	char *dir = make_tmpdir();
	char *opts = options(dir,
	                     "{\"hooks\":{\"PostToolUse\":[{\"hooks\":[{\"type\":\"command\",\"asyncRewake\":true,"
	                     "\"statusMessage\":\"Running tests\",\"command\":\"echo 'tests broke' >&2; exit 2\"}]}]}}",
	                     "\"profile\":\"claude\"");
	struct kinds_state s;
	memset(&s, 0, sizeof s);
	pthread_mutex_init(&s.mu, NULL);
	pthread_cond_init(&s.cv, NULL);
	hookexec_engine *e = OPEN(opts);
	if (e) {
		CHECK_RC(hookexec_set_listener(e, kinds_listener, &s), HOOKEXEC_OK);
		char *res = NULL;
		CHECK_RC(hookexec_fire(e, "PostToolUse", "{\"tool_name\":\"Write\"}", &res), HOOKEXEC_OK);
		CHECK_HAS(res, "\"async\":true");
		CHECK_HAS(res, "\"status_message\":\"Running tests\"");
		hookexec_free(res);
		CHECK_INT(wait_count(&s.mu, &s.cv, &s.rewake, 1), 1);
		CHECK_INT(wait_count(&s.mu, &s.cv, &s.status, 1), 1);
		CHECK_RC(hookexec_close(e), HOOKEXEC_OK);
		pthread_mutex_lock(&s.mu);
		if (s.status_json) CHECK_HAS(s.status_json, "\"status_message\":\"Running tests\"");
		if (s.rewake_json) CHECK_HAS(s.rewake_json, "\"message\":\"tests broke\"");
		pthread_mutex_unlock(&s.mu);
	}
	free(s.status_json);
	free(s.rewake_json);
	pthread_mutex_destroy(&s.mu);
	pthread_cond_destroy(&s.cv);
	free(opts);
	remove_tree(dir);
}
#include "trust.c"

static const struct test tests[] = {
	{"version", test_version},
	{"null_safety_and_codes", test_null_safety_and_codes},
	{"pretooluse_guard", test_pretooluse_guard},
	{"environ_and_long_decision", test_environ_and_long_decision},
	{"match", test_match},
	{"config_warnings", test_config_warnings},
	{"close_semantics", test_close_semantics},
	{"threads", test_threads},
	{"fire_while_closing", test_fire_while_closing},
	{"fork", test_fork},
	{"timeout", test_timeout},
	{"listener", test_listener},
	{"listener_removal", test_listener_removal},
	{"notifications", test_notifications},
	{"close_kills_async", test_close_kills_async},
	{"errmsg_per_thread", test_errmsg_per_thread},
	{"errmsg_freed_at_thread_exit", test_errmsg_freed_at_thread_exit},
	{"prompt_hooks", test_prompt_hooks},
	{"evaluator", test_evaluator},
	{"status_and_rewake", test_status_and_rewake},
	{"trust", test_trust},
	{"audit_log", test_audit_log},
	{"no_leaks", test_no_leaks}, /* keep last: it checks what every test before left behind */
};

/* A hang anywhere fails the run instead of blocking CI. */
static void *watchdog(void *p) {
	(void)p;
	sleep(180);
	fprintf(stderr, "test_capi: watchdog: still running after 180 s, giving up\n");
	printf("0 passed, 1 failed\n");
	fflush(stdout);
	_exit(1);
}

int main(int argc, char **argv) {
	pthread_t wd;
	pthread_create(&wd, NULL, watchdog, NULL);
	pthread_detach(wd);

	int passed = 0, failed = 0;
	int n = (int)(sizeof tests / sizeof tests[0]);
	for (int i = 0; i < n; i++) {
		if (argc > 1) { /* optional filter: run only tests named on the command line */
			int want = 0;
			for (int a = 1; a < argc; a++) want |= strcmp(argv[a], tests[i].name) == 0;
			if (!want) continue;
		}
		g_test_failed = 0;
		double t0 = now_s();
		tests[i].fn();
		double dt = now_s() - t0;
		if (g_test_failed) {
			failed++;
			printf("FAIL %s (%d failed checks, %.2f s)\n", tests[i].name, g_test_failed, dt);
		} else {
			passed++;
			printf("ok   %s (%.2f s)\n", tests[i].name, dt);
		}
		fflush(stdout);
	}
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
