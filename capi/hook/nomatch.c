/* The no-match path of hookexec-hook (included by hookexec-hook.c): before connecting to
 * the daemon, the client reads the no-match index the daemon (or the dispatcher) wrote for
 * this agent, project and home (core/nomatch; docs/performance.md "The no-match path"). When
 * the index is valid — a regular file of this user that nobody else can write, in a private
 * directory, of this build, naming this agent, project and home, every file it lists with
 * the same stat (device, inode, size, modification and change times) or still absent, every
 * variable it lists with the same value — and the payload is plain JSON whose event the index
 * lists (or --event names, when the payload does not name its event: Copilot CLI's) and
 * whose subject is not among the subjects some hook matches, the client writes
 * the answer the dispatcher gives when no hook matches and exits, without the daemon.
 * Anything else, any doubt, returns 0: the daemon path decides, as before.
 *
 * Reads are bounded (the index to NOMATCH_MAX bytes, JSON nesting to NOMATCH_DEPTH, the
 * payload's top-level keys to NOMATCH_KEYS); it allocates the index's size twice. */

#define NOMATCH_MAX (1u << 20)
#define NOMATCH_DEPTH 64
#define NOMATCH_KEYS 128
#define NOMATCH_VERSION "1" /* core/nomatch Version */

/* ---- the payload: strict JSON, its top-level fields ---- */
typedef struct {
    const char *k, *v; /* the key's bytes; a string value's bytes (without quotes) */
    size_t kn, vn;
    int str, plain; /* the value is a string; it has no escape and only printable ASCII */
    const char *a;  /* an array value's first element, when a string (Cline's workspaceRoots) */
    size_t an;
    int astr, aplain;
} nm_field;

typedef struct {
    const char *p, *end;
    nm_field f[NOMATCH_KEYS];
    int n;
} nm_json;

static void nm_ws(nm_json *j) {
    while (j->p < j->end && (*j->p == ' ' || *j->p == '\t' || *j->p == '\n' || *j->p == '\r')) j->p++;
}

/* a string at j->p; plain as above (any byte >= 0x80, like an escape, makes it not plain) */
static int nm_string(nm_json *j, const char **s, size_t *n, int *plain) {
    if (j->p >= j->end || *j->p != '"') return -1;
    const char *start = ++j->p;
    *plain = 1;
    while (j->p < j->end && *j->p != '"') {
        unsigned char c = (unsigned char)*j->p++;
        if (c < 0x20) return -1;
        if (c >= 0x7f) *plain = 0;
        if (c != '\\') continue;
        *plain = 0;
        if (j->p >= j->end) return -1;
        c = (unsigned char)*j->p++;
        if (c == 'u') {
            for (int i = 0; i < 4; i++, j->p++)
                if (j->p >= j->end || !strchr("0123456789abcdefABCDEF", *j->p) || !*j->p) return -1;
        } else if (!strchr("\"\\/bfnrt", c) || !c) {
            return -1;
        }
    }
    if (j->p >= j->end) return -1;
    *s = start, *n = (size_t)(j->p - start);
    j->p++;
    return 0;
}

static int nm_digits(nm_json *j) {
    const char *s = j->p;
    while (j->p < j->end && *j->p >= '0' && *j->p <= '9') j->p++;
    return j->p > s ? 0 : -1;
}

static int nm_value(nm_json *j, int depth, nm_field *top);

static int nm_container(nm_json *j, int depth, int top) {
    char close = *j->p == '{' ? '}' : ']';
    if (depth >= NOMATCH_DEPTH) return -1;
    j->p++;
    nm_ws(j);
    if (j->p < j->end && *j->p == close) { j->p++; return 0; }
    for (;;) {
        nm_field *f = NULL;
        if (close == '}') {
            const char *k;
            size_t kn;
            int plain;
            nm_ws(j);
            if (nm_string(j, &k, &kn, &plain)) return -1;
            if (top) {
                if (!plain || j->n >= NOMATCH_KEYS) return -1; /* a key spelt with an escape may be any key */
                f = &j->f[j->n++];
                f->k = k, f->kn = kn, f->str = 0, f->astr = 0;
            }
            nm_ws(j);
            if (j->p >= j->end || *j->p++ != ':') return -1;
        }
        if (nm_value(j, depth + 1, f)) return -1;
        nm_ws(j);
        if (j->p >= j->end) return -1;
        if (*j->p == ',') { j->p++; continue; }
        if (*j->p++ == close) return 0;
        return -1;
    }
}

static int nm_value(nm_json *j, int depth, nm_field *top) {
    nm_ws(j);
    if (j->p >= j->end) return -1;
    char c = *j->p;
    if (c == '"') {
        const char *s;
        size_t n;
        int plain;
        if (nm_string(j, &s, &n, &plain)) return -1;
        if (top) top->str = 1, top->v = s, top->vn = n, top->plain = plain;
        return 0;
    }
    if (c == '[' && top) { /* a top-level array: its first element, when a string */
        const char *at = j->p++;
        nm_ws(j);
        if (j->p < j->end && *j->p == '"' && !nm_string(j, &top->a, &top->an, &top->aplain)) top->astr = 1;
        j->p = at;
    }
    if (c == '{' || c == '[') return nm_container(j, depth, 0);
    static const char *lits[] = {"true", "false", "null"};
    for (int i = 0; i < 3; i++) {
        size_t n = strlen(lits[i]);
        if ((size_t)(j->end - j->p) >= n && !memcmp(j->p, lits[i], n)) { j->p += n; return 0; }
    }
    if (*j->p == '-') j->p++;
    if (j->p < j->end && *j->p == '0') j->p++;
    else if (nm_digits(j)) return -1;
    if (j->p < j->end && *j->p == '.') { j->p++; if (nm_digits(j)) return -1; }
    if (j->p < j->end && (*j->p == 'e' || *j->p == 'E')) {
        j->p++;
        if (j->p < j->end && (*j->p == '+' || *j->p == '-')) j->p++;
        if (nm_digits(j)) return -1;
    }
    return 0;
}

/* parses the payload: an object of strict JSON, nothing after it but white space */
static int nm_parse(nm_json *j, const char *payload, size_t n) {
    j->p = payload, j->end = payload + n, j->n = 0;
    nm_ws(j);
    if (j->p >= j->end || *j->p != '{' || nm_container(j, 0, 1)) return -1;
    nm_ws(j);
    return j->p == j->end ? 0 : -1;
}

/* the top-level field key: 1 found (once), 0 absent, -1 present more than once */
static int nm_field_of(nm_json *j, const char *key, nm_field **out) {
    size_t kn = strlen(key);
    int found = 0;
    for (int i = 0; i < j->n; i++)
        if (j->f[i].kn == kn && !memcmp(j->f[i].k, key, kn)) *out = &j->f[i], found++;
    return found > 1 ? -1 : found;
}

/* ---- the index ---- */

/* decodes a field (core/nomatch Encode) into out (room for fn bytes); its length, or -1 */
static long nm_decode(const char *f, size_t fn, char *out) {
    if (fn == 1 && f[0] == '%') return 0;
    size_t o = 0;
    for (size_t i = 0; i < fn; i++) {
        if (f[i] != '%') { out[o++] = f[i]; continue; }
        unsigned v = 0;
        for (int k = 1; k <= 2; k++) {
            char c = i + (size_t)k < fn ? f[i + (size_t)k] : 0;
            v <<= 4;
            if (c >= '0' && c <= '9') v |= (unsigned)(c - '0');
            else if (c >= 'A' && c <= 'F') v |= (unsigned)(c - 'A' + 10);
            else return -1;
        }
        out[o++] = (char)v, i += 2;
    }
    return (long)o;
}

/* whether field f decodes to s (n bytes); scratch has room for fn bytes */
static int nm_eq(const char *f, size_t fn, const char *s, size_t n, char *scratch) {
    long d = nm_decode(f, fn, scratch);
    return d >= 0 && (size_t)d == n && !memcmp(scratch, s, n);
}

/* the value of name in the environment as the daemon reads it (the last entry wins); "" unset */
static const char *nm_getenv(const char *name, size_t n) {
    const char *v = "";
    for (char **e = environ; *e; e++)
        if (!strncmp(*e, name, n) && (*e)[n] == '=') v = *e + n + 1;
    return v;
}

/* whether a file line's stat fields (after the path) describe path now */
static int nm_file_same(const char *path, char *fields) {
    struct stat st;
    if (stat(path, &st)) return errno == ENOENT && !strcmp(fields, "-");
    unsigned long long want[5], got[5] = {(unsigned long long)st.st_dev, (unsigned long long)st.st_ino,
        (unsigned long long)st.st_size,
        (unsigned long long)st.st_mtim.tv_sec * 1000000000ULL + (unsigned long long)st.st_mtim.tv_nsec,
        (unsigned long long)st.st_ctim.tv_sec * 1000000000ULL + (unsigned long long)st.st_ctim.tv_nsec};
    char *p = fields;
    for (int i = 0; i < 5; i++) {
        char *e;
        if (*p < '0' || *p > '9') return 0;
        errno = 0;
        want[i] = strtoull(p, &e, 10);
        if (errno || (i < 4 ? *e != ' ' : *e != 0)) return 0;
        p = e + (i < 4);
    }
    return !memcmp(want, got, sizeof want);
}

/* the next line of the index at *at, split at its first space: type and rest (NUL-terminated) */
static int nm_line(char **at, char *end, char **type, char **rest) {
    char *nl = memchr(*at, '\n', (size_t)(end - *at));
    if (!nl) return -1;
    *nl = 0;
    *type = *at, *at = nl + 1;
    char *sp = strchr(*type, ' ');
    *rest = sp ? (*sp = 0, sp + 1) : nl;
    return 0;
}

/* reads the index file into a buffer of its size; NULL when it is not a private file of this user */
static char *nm_read(const char *dir, const char *name, size_t *size) {
    struct stat st;
    char path[PATH_MAX];
    if (lstat(dir, &st) || !S_ISDIR(st.st_mode) || st.st_uid != getuid() || (st.st_mode & 077)) return NULL;
    if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, name) >= sizeof path) return NULL;
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) return NULL;
    char *b = NULL;
    size_t got = 0;
    if (!fstat(fd, &st) && S_ISREG(st.st_mode) && st.st_uid == getuid() && !(st.st_mode & 077) &&
        st.st_size > 0 && (size_t)st.st_size <= NOMATCH_MAX && (b = malloc((size_t)st.st_size + 1))) {
        while (got < (size_t)st.st_size) {
            ssize_t r = read(fd, b + got, (size_t)st.st_size - got);
            if (r < 0 && errno == EINTR) continue;
            if (r <= 0) break;
            got += (size_t)r;
        }
        if (got != (size_t)st.st_size) free(b), b = NULL;
    }
    close(fd);
    *size = got;
    return b;
}

/* The no-match answer, when the index says no hook can match this call: writes it and returns
 * 1 with the exit code in *code. 0: the daemon path decides. */
static int nomatch_answer(const char *agent, const char *scope, const char *spelled, const char *payload, size_t n,
                          const char *identity, const char *dir, int *code) {
    const char *off = getenv("HOOKEXEC_INDEX"), *log = getenv("HOOKEXEC_LOG"), *home = getenv("HOME");
    if ((off && !strcmp(off, "off")) || (log && *log) || !home || !*home) return 0; /* a log records every fire */
    static nm_json j; /* 128 fields: kept off the stack */
    if (nm_parse(&j, payload, n)) return 0;
    nm_field *ev = NULL, *cwd = NULL;
    const char *event;
    size_t evn;
    if (!strcmp(agent, "cline")) { /* Cline names its event in hookName (native.Agent.EventOf) */
        if (nm_field_of(&j, "hookName", &ev) != 1 || !ev->str || !ev->plain || !ev->vn) return 0;
        if (!(event = cline_event(ev->v, ev->vn))) return 0;
        evn = strlen(event);
    } else {
        int named = nm_field_of(&j, "hook_event_name", &ev);
        if (named == 0 && spelled && *spelled) { /* a payload that does not name its event: --event does */
            for (const char *c = spelled; *c; c++)
                if ((unsigned char)*c <= ' ' || (unsigned char)*c >= 0x7f || *c == '%') return 0;
            event = spelled, evn = strlen(spelled);
        } else if (named != 1 || (spelled && *spelled) || !ev->str || !ev->plain || !ev->vn) {
            return 0; /* no event, or both the payload and --event name one: the daemon decides */
        } else {
            event = ev->v, evn = ev->vn;
        }
    }
    const char *penv = project_var(agent), *project = penv ? getenv(penv) : NULL, *pfield = project_field(agent);
    size_t pn;
    if (project && *project) {
        pn = strlen(project);
    } else if (pfield) { /* as the dispatcher: the first string of the payload's array */
        if (nm_field_of(&j, pfield, &cwd) != 1 || !cwd->astr || !cwd->aplain || !cwd->an) return 0;
        project = cwd->a, pn = cwd->an;
    } else { /* as the dispatcher: the payload's cwd */
        if (nm_field_of(&j, "cwd", &cwd) != 1 || !cwd->str || !cwd->plain || !cwd->vn) return 0;
        project = cwd->v, pn = cwd->vn;
    }
    if (project[0] != '/') return 0;
    /* the index's name: FNV-1a 64 of agent, project, home and the scope when given, each
     * with a NUL (core/nomatch Path) */
    unsigned long long h = 14695981039346656037ULL;
    const char *parts[4] = {agent, project, home, scope};
    size_t lens[4] = {strlen(agent), pn, strlen(home), scope ? strlen(scope) : 0};
    for (int i = 0; i < (scope ? 4 : 3); i++) {
        for (size_t k = 0; k <= lens[i]; k++) h = (h ^ (unsigned char)(k < lens[i] ? parts[i][k] : 0)) * 1099511628211ULL;
    }
    char name[32];
    snprintf(name, sizeof name, "nomatch-%016llx", h);
    size_t size;
    char *idx = nm_read(dir, name, &size);
    if (!idx) return 0;
    char *scratch = malloc(size + 1), *at = idx, *end = idx + size, *type, *rest;
    int ok = scratch && size >= 4 && !memcmp(end - 4, "end\n", 4) && !nm_line(&at, end, &type, &rest) &&
             !strcmp(type, "hookexec-nomatch") && !strcmp(rest, NOMATCH_VERSION);
    /* the header: this build, agent, project and home */
    static const char *keys[] = {"identity", "agent", "project", "home"};
    const char *want[] = {identity, agent, project, home};
    size_t wantn[] = {strlen(identity), strlen(agent), pn, strlen(home)};
    for (int i = 0; ok && i < 4; i++)
        ok = !nm_line(&at, end, &type, &rest) && !strcmp(type, keys[i]) && nm_eq(rest, strlen(rest), want[i], wantn[i], scratch);
    if (ok && scope) /* an index of one scope's dispatcher entry says which */
        ok = !nm_line(&at, end, &type, &rest) && !strcmp(type, "scope") && nm_eq(rest, strlen(rest), scope, strlen(scope), scratch);
    /* the variables and files the configuration depends on, then the events */
    int events = 0, found = 0, in = 0, matched = 0, answer = 0;
    const char *subject = NULL;
    size_t sn = 0;
    char *out = NULL, *err = NULL;
    while (ok) {
        if (nm_line(&at, end, &type, &rest)) { ok = 0; break; }
        if (!strcmp(type, "end")) {
            ok = at == end && found;
            break;
        }
        char *sp = strchr(rest, ' ');
        if (!strcmp(type, "env") || !strcmp(type, "file")) {
            long kn;
            if (!sp || events || (kn = nm_decode(rest, (size_t)(sp - rest), scratch)) <= 0 || memchr(scratch, 0, (size_t)kn)) {
                ok = 0;
                break;
            }
            scratch[kn] = 0;
            if (type[0] == 'f') {
                ok = nm_file_same(scratch, sp + 1);
            } else {
                const char *v = nm_getenv(scratch, (size_t)kn);
                ok = nm_eq(sp + 1, strlen(sp + 1), v, strlen(v), scratch);
            }
        } else if (!strcmp(type, "event")) {
            events++, in = 0;
            char *f[4] = {rest, NULL, NULL, NULL};
            for (int i = 1; i < 4 && f[i - 1]; i++) {
                char *s = strchr(f[i - 1], ' ');
                if (s) *s = 0, f[i] = s + 1;
            }
            if (!f[3] || strchr(f[3], ' ')) { ok = 0; break; }
            if (!nm_eq(f[0], strlen(f[0]), event, evn, scratch)) continue;
            if (found) { ok = 0; break; } /* listed twice */
            char *e;
            errno = 0;
            long c = strtol(f[1], &e, 10);
            if (errno || *e || e == f[1] || c < 0 || c > 255) { ok = 0; break; }
            found = in = 1, *code = (int)c, out = f[2], err = f[3];
        } else if (!strcmp(type, "subject")) {
            if (!events) { ok = 0; break; }
            if (!in || subject) continue; /* another event's, or a field after the one that counts */
            long kn = nm_decode(rest, strlen(rest), scratch);
            if (kn <= 0) { ok = 0; break; }
            scratch[kn] = 0;
            nm_field *s = NULL;
            int got = nm_field_of(&j, scratch, &s);
            if (got < 0) { ok = 0; break; }               /* doubled: which one counts? */
            if (!got || !s->str || !s->vn) continue;       /* absent, not a string, empty: the next field */
            if (!s->plain) { ok = 0; break; }              /* an escape or a non-ASCII byte: not compared here */
            subject = s->v, sn = s->vn;
        } else if (!strcmp(type, "may")) {
            if (!events) { ok = 0; break; }
            if (in && nm_eq(rest, strlen(rest), subject ? subject : "", subject ? sn : 0, scratch)) matched = 1;
        } else {
            ok = 0; /* a record this client does not know */
        }
    }
    if (ok && found && !matched) {
        /* no hook of the event matches this subject (or any subject: no "may" line) */
        long on = nm_decode(out, strlen(out), out), en = nm_decode(err, strlen(err), err);
        if (on >= 0 && en >= 0) {
            answer = 1;
            if ((on && write(1, out, (size_t)on) != on) || (en && write(2, err, (size_t)en) != en)) *code = EXIT_BLOCKED;
        }
    }
    free(scratch);
    free(idx);
    return answer;
}
