/* A C host built with nothing but `pkg-config --cflags --libs hookexec` against an installed
 * hookexec: it checks the library's version the way the header shows, fires a PreToolUse
 * that a hook blocks, and prints what it got. */
#include <hookexec.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
	if (!HOOKEXEC_VERSION_CHECK()) {
		fprintf(stderr, "built against hookexec %s, running with %s\n", HOOKEXEC_VERSION, hookexec_version());
		return 1;
	}
	const char *dir = argc > 1 ? argv[1] : ".";
	char opts[4096];
	snprintf(opts, sizeof opts,
	         "{\"project_dir\":\"%s\",\"home\":\"%s\",\"config\":{\"hooks\":{\"PreToolUse\":[{\"matcher\":\"Bash\","
	         "\"hooks\":[{\"type\":\"command\",\"command\":\"echo denied by hook >&2; exit 2\"}]}]}}}",
	         dir, dir);
	hookexec_engine *e = NULL;
	char *err = NULL;
	if (hookexec_open(opts, &e, &err) != HOOKEXEC_OK) {
		fprintf(stderr, "open: %s\n", err ? err : "?");
		hookexec_free(err);
		return 1;
	}
	char *res = NULL;
	int rc = hookexec_fire(e, "PreToolUse", "{\"tool_name\":\"Bash\",\"tool_input\":{\"command\":\"ls\"}}", &res);
	if (rc != HOOKEXEC_OK) {
		fprintf(stderr, "fire: %s\n", hookexec_errmsg());
		return 1;
	}
	int blocked = strstr(res, "\"blocked\":true") != NULL && strstr(res, "denied by hook") != NULL;
	printf("hookexec %s: %s\n", hookexec_version(), blocked ? "blocked" : res);
	hookexec_free(res);
	hookexec_close(e);
	return blocked ? 0 : 1;
}
