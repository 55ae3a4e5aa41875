/* The spawn floor for `make bench`: what any hook runner must do for one hook, done as
 * directly as C allows. Per iteration: three pipes, posix_spawn into its own process
 * group, the payload written to stdin, stdout and stderr drained with poll until EOF, the
 * child reaped. Prints one line per iteration: nanoseconds.
 *
 *   floor N PAYLOAD PROGRAM [ARGS...]
 *
 * With -p, the floor of a persistent hook: PROGRAM is started once, and each iteration
 * writes PAYLOAD (one line) to its stdin and reads its stdout up to the answer's newline,
 * blocking in read(2): the pipe round trip and the program's own work, nothing else.
 *
 *   floor -p N PAYLOAD PROGRAM [ARGS...]
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

static long long now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static int once(const char *payload, size_t len, char **argv) {
    int in[2], out[2], err[2];
    if (pipe2(in, O_CLOEXEC) || pipe2(out, O_CLOEXEC) || pipe2(err, O_CLOEXEC)) return -1;
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, in[0], 0);
    posix_spawn_file_actions_adddup2(&fa, out[1], 1);
    posix_spawn_file_actions_adddup2(&fa, err[1], 2);
    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    /* A hook that exits before reading its stdin must not kill us with SIGPIPE; the
       child gets SIGPIPE back at its default, as hookexec gives it. */
    sigset_t def;
    sigemptyset(&def);
    sigaddset(&def, SIGPIPE);
    posix_spawnattr_setsigdefault(&attr, &def);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF);
    posix_spawnattr_setpgroup(&attr, 0);
    pid_t pid;
    int rc = posix_spawn(&pid, argv[0], &fa, &attr, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&attr);
    close(in[0]);
    close(out[1]);
    close(err[1]);
    if (rc != 0) return -1;
    if (len > 0 && write(in[1], payload, len) < 0 && errno != EPIPE) return -1;
    close(in[1]);
    char buf[32768];
    struct pollfd fds[2] = {{out[0], POLLIN, 0}, {err[0], POLLIN, 0}};
    int open_fds = 2;
    while (open_fds > 0) {
        if (poll(fds, 2, -1) < 0) {
            if (errno == EINTR) continue;
            return -1;
        }
        for (int i = 0; i < 2; i++) {
            if (fds[i].fd < 0 || !fds[i].revents) continue;
            ssize_t n = read(fds[i].fd, buf, sizeof buf);
            if (n <= 0) {
                close(fds[i].fd);
                fds[i].fd = -1;
                open_fds--;
            }
        }
    }
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR) return -1;
    return 0;
}

static int persistent(int n, const char *payload, size_t len, char **argv) {
    int in[2], out[2];
    if (pipe2(in, O_CLOEXEC) || pipe2(out, O_CLOEXEC)) return -1;
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, in[0], 0);
    posix_spawn_file_actions_adddup2(&fa, out[1], 1);
    pid_t pid;
    if (posix_spawn(&pid, argv[0], &fa, NULL, argv, environ) != 0) return -1;
    posix_spawn_file_actions_destroy(&fa);
    close(in[0]);
    close(out[1]);
    char buf[65536];
    for (int i = 0; i < n; i++) {
        long long t = now_ns();
        if (write(in[1], payload, len) != (ssize_t)len) return -1;
        for (;;) {
            ssize_t got = read(out[0], buf, sizeof buf);
            if (got <= 0) return -1;
            if (memchr(buf, '\n', (size_t)got)) break;
        }
        printf("%lld\n", now_ns() - t);
    }
    close(in[1]);
    int status;
    waitpid(pid, &status, 0);
    return 0;
}

int main(int argc, char **argv) {
    if (argc >= 5 && strcmp(argv[1], "-p") == 0) {
        signal(SIGPIPE, SIG_IGN);
        const char *payload = argv[3];
        if (persistent(atoi(argv[2]), payload, strlen(payload), argv + 4) != 0) {
            perror("floor");
            return 1;
        }
        return 0;
    }
    if (argc < 4) {
        fprintf(stderr, "usage: floor N PAYLOAD PROGRAM [ARGS...]\n");
        return 2;
    }
    signal(SIGPIPE, SIG_IGN);
    int n = atoi(argv[1]);
    const char *payload = argv[2];
    size_t len = strlen(payload);
    for (int i = 0; i < n; i++) {
        long long t = now_ns();
        if (once(payload, len, argv + 3) != 0) {
            perror("floor");
            return 1;
        }
        printf("%lld\n", now_ns() - t);
    }
    return 0;
}
