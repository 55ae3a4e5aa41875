/* chost OPTIONS_JSON EVENT PAYLOAD N: opens an engine through the C API and fires N times
 * (after 3 untimed fires) from this C thread, a thread Go did not start, printing each
 * fire's nanoseconds on a line. The "C host" row of tests/bench/gap.py. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "hookexec.h"

static long long now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1000000000LL + t.tv_nsec;
}

int main(int argc, char **argv) {
    if (argc != 5) {
        fprintf(stderr, "usage: chost OPTIONS_JSON EVENT PAYLOAD N\n");
        return 2;
    }
    hookexec_engine *e = NULL;
    char *err = NULL;
    if (hookexec_open(argv[1], &e, &err) != HOOKEXEC_OK) {
        fprintf(stderr, "chost: open: %s\n", err ? err : "?");
        return 1;
    }
    int n = atoi(argv[4]);
    for (int i = 0; i < n + 3; i++) {
        char *out = NULL;
        long long t = now_ns();
        if (hookexec_fire(e, argv[2], argv[3], &out) != HOOKEXEC_OK) {
            fprintf(stderr, "chost: fire failed\n");
            return 1;
        }
        long long d = now_ns() - t;
        hookexec_free(out);
        if (i >= 3)
            printf("%lld\n", d);
    }
    hookexec_close(e);
    return 0;
}
