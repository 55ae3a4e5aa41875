/* hookexec-hook: the fast path of `hookexec hook --agent NAME`, the dispatcher an agent
 * runs for every hook call. It does one thing: hand the call to the running hookexec daemon
 * (core/daemon) and write its answer, which costs what starting /bin/true costs plus one
 * socket round trip, where the Go binary pays its runtime start. Whenever it cannot — no
 * daemon, another build's daemon, a refused or malformed answer, HOOKEXEC_DAEMON=off — it
 * execs the hookexec binary beside it with the same arguments and the payload on stdin,
 * which runs the call in-process and starts a daemon. A call the daemon read but never
 * answered (it died mid-call) is not run again: the same binary with --dropped gives the
 * agent's fail-closed answer. So it never decides anything itself, but for one case: a call
 * the no-match index (nomatch.c, core/nomatch) proves no hook can match gets the answer the
 * dispatcher gives such a call, without the daemon.
 *
 *   hookexec-hook --agent NAME [--scope user|project] [--event EVENT] [--timeout-ms MS]   (payload on stdin; install registers it)
 *
 * --scope is written by install for the agents that run every scope's dispatcher entry
 * (Copilot CLI, Cline, Factory Droid; native.Agent.Scoped): the call runs only that scope's
 * hooks, and the no-match index is the scope's (core/nomatch Key.Scope).
 * --event is the event as the agent spells it, for an agent whose payloads do not name it
 * (GitHub Copilot CLI's camelCase ones: install writes one entry per event); it goes to the
 * daemon with the call, and the no-match index is read for it.
 *
 * --timeout-ms is the agent's timeout for this dispatcher entry (without it, the agent's
 * default timeout for a hook, native.Agent.DefaultTimeout; install does not write it): a daemon that has not
 * answered 2 s before it (half of it when shorter; core/daemon.AnswerWait) counts as having
 * dropped the call, so the agent gets the fail-closed answer rather than a killed hook,
 * which several agents take as no decision. The client never waits longer.
 *
 * Whatever keeps it from answering (no memory, no hookexec binary to run) exits 2 with the
 * reason on stderr: the block every supported agent reads, never the exit 1 they take as
 * "go ahead".
 *
 * The request and the answer are core/daemon's "dispatch" method (JSON-RPC 2.0, one line
 * each way). The identity sent is the hookexec binary's: VERSION, its size and mtime in
 * nanoseconds, as core/daemon.Identity computes it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#ifndef HOOKEXEC_VERSION
#error "build with -DHOOKEXEC_VERSION=\"x.y.z\" (make build/hookexec-hook)"
#endif

#define MAX_PAYLOAD (32u << 20) /* core/serve.MaxMessageBytes */
#define ANSWER_MARGIN_MS 2000LL  /* core/daemon.AnswerMargin */
#define EXIT_BLOCKED 2           /* the block every supported agent reads */

/* the agent's timeout for a hook entry without one (native.Agent.DefaultTimeout), in ms */
static long long default_timeout_ms(const char *agent) {
    if (!strcmp(agent, "claude") || !strcmp(agent, "codex")) return 600000;
    if (!strcmp(agent, "copilot")) return 30000;
    if (!strcmp(agent, "cline")) return 120000;
    return 60000; /* gemini, qwen, auggie, factory */
}

static long long now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

extern char **environ;

/* ---- a growing buffer ---- */
typedef struct { char *p; size_t n, cap; } buf;

static int grow(buf *b, size_t more) {
    if (b->n + more <= b->cap) return 0;
    size_t cap = b->cap ? b->cap : 4096;
    while (cap < b->n + more) cap *= 2;
    char *p = realloc(b->p, cap);
    if (!p) return -1;
    b->p = p, b->cap = cap;
    return 0;
}
static int put(buf *b, const char *s, size_t n) {
    if (grow(b, n)) return -1;
    memcpy(b->p + b->n, s, n);
    b->n += n;
    return 0;
}
static int puts_(buf *b, const char *s) { return put(b, s, strlen(s)); }

/* a JSON string literal */
static int put_json(buf *b, const char *s) {
    if (put(b, "\"", 1)) return -1;
    for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
        char esc[8];
        if (*c == '"' || *c == '\\') {
            esc[0] = '\\', esc[1] = (char)*c;
            if (put(b, esc, 2)) return -1;
        } else if (*c < 0x20) {
            snprintf(esc, sizeof esc, "\\u%04x", *c);
            if (put(b, esc, 6)) return -1;
        } else if (put(b, (const char *)c, 1)) {
            return -1;
        }
    }
    return put(b, "\"", 1);
}

/* ---- fallback: exec `hookexec hook ARGS...` with the payload on stdin ---- */
static char go_bin[PATH_MAX];
static char **args; /* [go_bin, "hook", this program's arguments..., NULL, NULL] */
static int nargs;

static void run_go(const char *payload, size_t n) {
    /* The payload was read from stdin already: a child writes it into a pipe that becomes
     * the command's stdin (no temporary file, so nothing can be left or cut short on disk). */
    int p[2];
    if (pipe(p) == 0) {
        pid_t pid = fork();
        if (pid == 0) {
            close(p[0]);
            size_t off = 0;
            while (off < n) {
                ssize_t w = write(p[1], payload + off, n - off);
                if (w < 0 && errno == EINTR) continue;
                if (w <= 0) _exit(1);
                off += (size_t)w;
            }
            _exit(0);
        }
        if (pid > 0) {
            close(p[1]);
            dup2(p[0], 0);
            if (p[0] != 0) close(p[0]);
        } else {
            close(p[0]);
            close(p[1]);
        }
    }
    execv(go_bin, args);
    fprintf(stderr, "hookexec-hook: cannot run %s: %s; blocked to be safe\n", go_bin, strerror(errno));
    exit(EXIT_BLOCKED);
}

/* The daemon did not take the call: the Go binary runs it in-process. */
static void fallback(const char *payload, size_t n) { run_go(payload, n); }

/* The daemon read the call and gave no answer: its hooks may have run, so they must not
 * run again; `hookexec hook --dropped` gives the agent's fail-closed answer instead. */
static void lost(const char *payload, size_t n) {
    args[nargs] = "--dropped";
    run_go(payload, n);
}

/* ---- a minimal JSON reader for the answer ---- */
typedef struct { const char *p, *end; } in;

static void ws(in *r) {
    while (r->p < r->end && (*r->p == ' ' || *r->p == '\t' || *r->p == '\n' || *r->p == '\r')) r->p++;
}
static int hex4(in *r, unsigned *v) {
    if (r->end - r->p < 4) return -1;
    *v = 0;
    for (int i = 0; i < 4; i++) {
        char c = *r->p++;
        *v <<= 4;
        if (c >= '0' && c <= '9') *v |= (unsigned)(c - '0');
        else if (c >= 'a' && c <= 'f') *v |= (unsigned)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F') *v |= (unsigned)(c - 'A' + 10);
        else return -1;
    }
    return 0;
}
static int utf8(buf *b, unsigned cp) {
    char s[4];
    size_t n;
    if (cp < 0x80) s[0] = (char)cp, n = 1;
    else if (cp < 0x800) s[0] = (char)(0xC0 | cp >> 6), s[1] = (char)(0x80 | (cp & 0x3F)), n = 2;
    else if (cp < 0x10000) s[0] = (char)(0xE0 | cp >> 12), s[1] = (char)(0x80 | (cp >> 6 & 0x3F)), s[2] = (char)(0x80 | (cp & 0x3F)), n = 3;
    else s[0] = (char)(0xF0 | cp >> 18), s[1] = (char)(0x80 | (cp >> 12 & 0x3F)), s[2] = (char)(0x80 | (cp >> 6 & 0x3F)), s[3] = (char)(0x80 | (cp & 0x3F)), n = 4;
    return put(b, s, n);
}
/* a string into out (NUL-terminated), or skipped when out is NULL */
static int str(in *r, buf *out) {
    buf skip = {0};
    buf *b = out ? out : &skip;
    b->n = 0;
    ws(r);
    if (r->p >= r->end || *r->p != '"') return -1;
    r->p++;
    while (r->p < r->end && *r->p != '"') {
        if (*r->p != '\\') {
            if (put(b, r->p++, 1)) return -1;
            continue;
        }
        if (++r->p >= r->end) return -1;
        char c = *r->p++;
        const char *map = "\"\"\\\\//b\bf\fn\nr\rt\t";
        const char *m = NULL;
        for (const char *q = map; *q; q += 2) if (*q == c) { m = q; break; }
        if (m) {
            if (put(b, m + 1, 1)) return -1;
        } else if (c == 'u') {
            unsigned cp, lo;
            if (hex4(r, &cp)) return -1;
            if (cp >= 0xD800 && cp < 0xDC00 && r->end - r->p >= 6 && r->p[0] == '\\' && r->p[1] == 'u') {
                r->p += 2;
                if (hex4(r, &lo) || lo < 0xDC00 || lo > 0xDFFF) return -1;
                cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
            }
            if (utf8(b, cp)) return -1;
        } else {
            return -1;
        }
    }
    if (r->p >= r->end) return -1;
    r->p++;
    if (put(b, "", 1)) return -1; /* NUL */
    b->n--;
    free(skip.p);
    return 0;
}
static int value(in *r); /* skip any value */
static int skip_container(in *r, char open, char close) {
    r->p++;
    ws(r);
    if (r->p < r->end && *r->p == close) { r->p++; return 0; }
    for (;;) {
        if (open == '{') {
            if (str(r, NULL)) return -1;
            ws(r);
            if (r->p >= r->end || *r->p++ != ':') return -1;
        }
        if (value(r)) return -1;
        ws(r);
        if (r->p >= r->end) return -1;
        if (*r->p == ',') { r->p++; continue; }
        if (*r->p == close) { r->p++; return 0; }
        return -1;
    }
}
static int value(in *r) {
    ws(r);
    if (r->p >= r->end) return -1;
    switch (*r->p) {
    case '"': return str(r, NULL);
    case '{': return skip_container(r, '{', '}');
    case '[': return skip_container(r, '[', ']');
    }
    while (r->p < r->end && (strchr("+-.eE", *r->p) || (*r->p >= '0' && *r->p <= '9') || (*r->p >= 'a' && *r->p <= 'z'))) r->p++;
    return 0;
}

/* the shell-quoted form of s, for CLAUDE_ENV_FILE */
static int put_sh(buf *b, const char *s) {
    if (put(b, "'", 1)) return -1;
    for (; *s; s++) {
        if (*s == '\'') { if (puts_(b, "'\\''")) return -1; }
        else if (put(b, s, 1)) return -1;
    }
    return put(b, "'", 1);
}

/* parses {"exit_code": N, "stdout": "...", "stderr": "...", "env": {...}} */
static int answer(in *r, int *code, buf *out, buf *err, buf *exports) {
    ws(r);
    if (r->p >= r->end || *r->p != '{') return -1;
    r->p++;
    buf key = {0};
    int rc = -1;
    for (;;) {
        ws(r);
        if (r->p < r->end && *r->p == '}') { r->p++; rc = 0; break; }
        if (str(r, &key)) break;
        ws(r);
        if (r->p >= r->end || *r->p++ != ':') break;
        ws(r);
        if (!strcmp(key.p, "exit_code")) {
            char *e;
            long v = strtol(r->p, &e, 10);
            if (e == r->p) break;
            *code = (int)v, r->p = e;
        } else if (!strcmp(key.p, "stdout")) {
            if (str(r, out)) break;
        } else if (!strcmp(key.p, "stderr")) {
            if (str(r, err)) break;
        } else if (!strcmp(key.p, "env") && r->p < r->end && *r->p == '{') {
            r->p++;
            buf k = {0}, v = {0};
            int ok = 0;
            for (;;) {
                ws(r);
                if (r->p < r->end && *r->p == '}') { r->p++; ok = 1; break; }
                if (str(r, &k)) break;
                ws(r);
                if (r->p >= r->end || *r->p++ != ':') break;
                if (str(r, &v)) break;
                if (puts_(exports, "export ") || puts_(exports, k.p) || puts_(exports, "=") || put_sh(exports, v.p) || puts_(exports, "\n")) break;
                ws(r);
                if (r->p < r->end && *r->p == ',') r->p++;
            }
            free(k.p), free(v.p);
            if (!ok) break;
        } else if (value(r)) {
            break;
        }
        ws(r);
        if (r->p < r->end && *r->p == ',') r->p++;
    }
    free(key.p);
    return rc;
}

static const char *runtime_dir(char *path, size_t n) {
    const char *d = getenv("HOOKEXEC_RUNTIME_DIR");
    if (d && *d) { snprintf(path, n, "%s", d); return path; }
    d = getenv("XDG_RUNTIME_DIR");
    if (d && *d) { snprintf(path, n, "%s/hookexec", d); return path; }
    d = getenv("TMPDIR");
    snprintf(path, n, "%s/hookexec-%u", d && *d ? d : "/tmp", (unsigned)getuid());
    return path;
}

/* the variable the agent gives its hooks the project dir in (native.Agent.ProjectEnv); NULL:
 * Codex names none, the payload's cwd is the project */
static const char *project_var(const char *agent) {
    return !strcmp(agent, "claude") ? "CLAUDE_PROJECT_DIR" : !strcmp(agent, "gemini") ? "GEMINI_PROJECT_DIR"
         : !strcmp(agent, "qwen")   ? "QWEN_PROJECT_DIR"   : !strcmp(agent, "auggie") ? "AUGMENT_PROJECT_DIR"
         : !strcmp(agent, "factory") ? "FACTORY_PROJECT_DIR" : NULL;
}

/* the payload's array whose first string is the project when no variable names it
 * (native.Agent.ProjectField): Cline's workspaceRoots; NULL: the payload's cwd */
static const char *project_field(const char *agent) { return !strcmp(agent, "cline") ? "workspaceRoots" : NULL; }

/* the canonical event of a Cline payload's hookName (core/dialect clineHookNames, core/vocab);
 * NULL: not one install dispatches. Other agents name it in hook_event_name. */
static const char *cline_event(const char *hook, size_t n) {
    static const char *map[][2] = {{"tool_call", "PreToolUse"}, {"tool_result", "PostToolUse"},
        {"agent_start", "SessionStart"}, {"agent_resume", "SessionStart"}, {"agent_end", "Stop"},
        {"agent_abort", "SessionEnd"}, {"session_shutdown", "SessionEnd"}, {"agent_error", "StopFailure"},
        {"prompt_submit", "UserPromptSubmit"}};
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
        if (strlen(map[i][0]) == n && !memcmp(map[i][0], hook, n)) return map[i][1];
    return NULL;
}

#include "nomatch.c" /* nomatch_answer: a call no hook can match, answered without the daemon */

#define EVENT_MAX 64 /* core/dispatch EventMax */

/* Whether the entry's --scope and --event are ones an install writes, checked before either
 * is used (the no-match index, the request): --scope exactly user or project; --event only
 * for GitHub Copilot CLI (native.Agent.SpelledEvents, whose payloads do not name their
 * event; there it is required), an identifier of at most EVENT_MAX letters, digits and
 * underscores starting with a letter (core/dispatch CheckEvent). 0: the Go binary runs the
 * call, which refuses it with the reason (exit 2), never a "no match". */
static int entry_args_ok(const char *agent, const char *scope, const char *event) {
    if (scope && strcmp(scope, "user") && strcmp(scope, "project")) return 0;
    if (strcmp(agent, "copilot")) return !event;
    if (!event) return 0;
    size_t n = 0;
    for (const char *c = event; *c; c++, n++) {
        int letter = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z');
        if (n >= EVENT_MAX || !(letter || (n && ((*c >= '0' && *c <= '9') || *c == '_')))) return 0;
    }
    return n > 0;
}

int main(int argc, char **argv) {
    long long start = now_ms();
    args = calloc((size_t)argc + 3, sizeof *args);
    if (!args) { fprintf(stderr, "hookexec-hook: out of memory; blocked to be safe\n"); return EXIT_BLOCKED; }
    args[0] = go_bin, args[1] = "hook";
    for (int i = 1; i < argc; i++) args[i + 1] = argv[i];
    nargs = argc + 1;
    /* the hookexec binary: beside this one */
    char self[PATH_MAX];
    ssize_t sn = readlink("/proc/self/exe", self, sizeof self - 1);
    if (sn <= 0) { fprintf(stderr, "hookexec-hook: cannot find itself; blocked to be safe\n"); return EXIT_BLOCKED; }
    self[sn] = 0;
    char *slash = strrchr(self, '/');
    if (!slash || (size_t)(slash - self) + sizeof "/hookexec" > sizeof go_bin) { fprintf(stderr, "hookexec-hook: path too long; blocked to be safe\n"); return EXIT_BLOCKED; }
    memcpy(go_bin, self, (size_t)(slash - self));
    memcpy(go_bin + (slash - self), "/hookexec", sizeof "/hookexec");

    buf payload = {0};
    for (;;) {
        if (grow(&payload, 65536)) fallback(payload.p, payload.n); /* what it gets is cut short: refused */
        ssize_t r = read(0, payload.p + payload.n, payload.cap - payload.n);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) break;
        payload.n += (size_t)r;
        if (payload.n > MAX_PAYLOAD) fallback(payload.p, payload.n); /* it reports the bound */
    }
    const char *agent = NULL, *mode = getenv("HOOKEXEC_DAEMON"), *tmo = NULL, *event = NULL, *scope = NULL;
    for (int i = 1; argv[i]; i++) {
        if (!strcmp(argv[i], "--agent") && argv[i + 1]) agent = argv[++i];
        else if (!strncmp(argv[i], "--agent=", 8)) agent = argv[i] + 8;
        else if (!strcmp(argv[i], "--event") && argv[i + 1]) event = argv[++i];
        else if (!strncmp(argv[i], "--event=", 8)) event = argv[i] + 8;
        else if (!strcmp(argv[i], "--scope") && argv[i + 1]) scope = argv[++i];
        else if (!strncmp(argv[i], "--scope=", 8)) scope = argv[i] + 8;
        else if (!strcmp(argv[i], "--timeout-ms") && argv[i + 1]) tmo = argv[++i];
        else if (!strncmp(argv[i], "--timeout-ms=", 13)) tmo = argv[i] + 13;
        else fallback(payload.p, payload.n); /* any other flag: the full command knows it */
    }
    if (!agent || (mode && !strcmp(mode, "off")) || payload.n == 0) fallback(payload.p, payload.n);
    long long t = default_timeout_ms(agent);
    if (tmo) {
        char *e;
        errno = 0;
        t = strtoll(tmo, &e, 10);
        if (errno || e == tmo || *e || t < 0) fallback(payload.p, payload.n); /* the full command reports it */
        if (t == 0) t = default_timeout_ms(agent);
    }
    long long deadline = start + (t - ANSWER_MARGIN_MS > t / 2 ? t - ANSWER_MARGIN_MS : t / 2);

    if (!entry_args_ok(agent, scope, event)) fallback(payload.p, payload.n); /* the full command refuses it */
    struct stat st;
    if (stat(go_bin, &st)) fallback(payload.p, payload.n);
    char identity[128];
    snprintf(identity, sizeof identity, "%s+%lld.%lld", HOOKEXEC_VERSION, (long long)st.st_size,
             (long long)st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec);

    char dir[PATH_MAX];
    runtime_dir(dir, sizeof dir);
    int nm_code = EXIT_BLOCKED;
    if (nomatch_answer(agent, scope, event, payload.p, payload.n, identity, dir, &nm_code)) return nm_code;
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    if ((size_t)snprintf(sa.sun_path, sizeof sa.sun_path, "%s/daemon.sock", dir) >= sizeof sa.sun_path) fallback(payload.p, payload.n);
    /* Non-blocking: a daemon whose backlog is full (stopped, swamped) refuses the connection
     * at once (EAGAIN) instead of holding the client; every wait below is a bounded poll. */
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof sa)) fallback(payload.p, payload.n);

    /* the request, one line; the project dir is in the variable the agent sets (native.Agent.ProjectEnv) */
    const char *penv = project_var(agent);
    const char *project = penv ? getenv(penv) : NULL, *home = getenv("HOME"), *log = getenv("HOOKEXEC_LOG");
    if (project && *project && project[0] != '/') fallback(payload.p, payload.n); /* the Go side makes it absolute */
    buf q = {0};
    int bad = puts_(&q, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"dispatch\",\"params\":{\"identity\":") || put_json(&q, identity) ||
              puts_(&q, ",\"request\":{\"agent\":") || put_json(&q, agent) || puts_(&q, ",\"project\":") || put_json(&q, project ? project : "") ||
              puts_(&q, ",\"home\":") || put_json(&q, home ? home : "") || puts_(&q, ",\"log_file\":") || put_json(&q, log ? log : "") ||
              (event && (puts_(&q, ",\"event\":") || put_json(&q, event))) ||
              (scope && (puts_(&q, ",\"scope\":") || put_json(&q, scope))) || puts_(&q, ",\"env\":[");
    for (char **e = environ; *e && !bad; e++) bad = (e != environ && puts_(&q, ",")) || put_json(&q, *e);
    bad = bad || puts_(&q, "],\"payload\":");
    size_t at = q.n;
    bad = bad || put(&q, payload.p, payload.n) || puts_(&q, "}}}\n");
    if (bad) fallback(payload.p, payload.n);
    for (size_t i = at; i < at + payload.n; i++)
        if (q.p[i] == '\n' || q.p[i] == '\r') q.p[i] = ' '; /* JSON whitespace; the line is the frame */
    /* MSG_NOSIGNAL: a daemon that closed the connection is a failed write, not SIGPIPE. A
     * request not written whole was never read whole: the daemon cannot have run it. */
    for (size_t off = 0; off < q.n;) {
        { /* a daemon that stopped reading: hung, as below */
            long long left = deadline - now_ms();
            struct pollfd pf = {.fd = fd, .events = POLLOUT};
            int pr = left > 0 ? poll(&pf, 1, left > INT_MAX ? INT_MAX : (int)left) : 0;
            if (pr < 0 && errno == EINTR) continue;
            if (pr == 0) lost(payload.p, payload.n);
        }
        ssize_t w = send(fd, q.p + off, q.n - off, MSG_NOSIGNAL);
        if (w < 0 && (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK)) continue;
        if (w <= 0) fallback(payload.p, payload.n);
        off += (size_t)w;
    }
    /* The answer: the first line with "id":1 (notifications have none). A connection that
     * ends first was either reset — the daemon closed it with the request still unread in
     * its queue, so nothing ran: run it here — or ended after the daemon read the request
     * (it died, or dropped it while the hooks ran): lost, not run again. */
    buf a = {0};
    size_t line = 0;
    for (;;) {
        if (grow(&a, 65536)) lost(payload.p, payload.n);
        { /* no answer before the agent's timeout: dropped, not run again */
            long long left = deadline - now_ms();
            struct pollfd pf = {.fd = fd, .events = POLLIN};
            int pr = left > 0 ? poll(&pf, 1, left > INT_MAX ? INT_MAX : (int)left) : 0;
            if (pr < 0 && errno == EINTR) continue;
            if (pr == 0) lost(payload.p, payload.n);
        }
        ssize_t r = read(fd, a.p + a.n, a.cap - a.n);
        if (r < 0 && (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK)) continue;
        if (r < 0 && errno == ECONNRESET && a.n == 0) fallback(payload.p, payload.n); /* any byte: it had read the call */
        if (r <= 0) lost(payload.p, payload.n);
        a.n += (size_t)r;
        char *nl;
        while ((nl = memchr(a.p + line, '\n', a.n - line))) {
            in rd = {a.p + line, nl};
            line = (size_t)(nl - a.p) + 1;
            const char *res = memmem(rd.p, (size_t)(rd.end - rd.p), "\"result\":", 9);
            if (!memmem(rd.p, (size_t)(rd.end - rd.p), "\"id\":1", 6)) {
                /* An error with id null answers the one request of this connection, whose id
                 * the daemon could not read (a line too long, a message it cannot parse):
                 * nothing ran, so the Go binary runs it. Any other line is a notification. */
                if (memmem(rd.p, (size_t)(rd.end - rd.p), "\"id\":null", 9) && memmem(rd.p, (size_t)(rd.end - rd.p), "\"error\":", 8))
                    fallback(payload.p, payload.n);
                continue;
            }
            if (!res) fallback(payload.p, payload.n); /* an error (another build, a bad request): answered before any hook ran */
            in body = {res + 9, rd.end};
            int code = 0;
            buf out = {0}, err = {0}, exports = {0};
            if (answer(&body, &code, &out, &err, &exports)) lost(payload.p, payload.n); /* it ran: do not run it again */
            close(fd);
            if (exports.n) {
                const char *envf = getenv("CLAUDE_ENV_FILE");
                int ef = envf && *envf ? open(envf, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600) : -1;
                if (ef < 0 || write(ef, exports.p, exports.n) != (ssize_t)exports.n) {
                    const char *m = "hookexec: CLAUDE_ENV_FILE: cannot append the hooks' exports\n";
                    if (put(&err, m, strlen(m))) lost(payload.p, payload.n);
                }
                if (ef >= 0) close(ef);
            }
            if (out.n && write(1, out.p, out.n) < 0) return EXIT_BLOCKED;
            if (err.n && write(2, err.p, err.n) < 0) return EXIT_BLOCKED;
            return code;
        }
    }
}
