/* Trust for project hooks through the C API (included by test_capi.c, which owns the helpers):
 * approve, edit the script, see it refused, re-approve; an unreadable store fails closed;
 * user-level hooks are unaffected. */

static void mkdirs(const char *dir, const char *rel) {
	char *path = fmt("%s/%s", dir, rel);
	for (char *p = path + strlen(dir) + 1; *p; p++) {
		if (*p == '/') {
			*p = 0;
			mkdir(path, 0755);
			*p = '/';
		}
	}
	mkdir(path, 0755);
	free(path);
}

static char *trust_fire(hookexec_engine *e) {
	char *res = NULL;
	CHECK_RC(hookexec_fire(e, "PreToolUse", "{\"tool_name\":\"Bash\",\"tool_input\":{\"command\":\"ls\"}}", &res), HOOKEXEC_OK);
	return res;
}

static void test_trust(void) {
	char *dir = make_tmpdir();
	char *proj = fmt("%s/proj", dir), *home = fmt("%s/home", dir);
	mkdirs(dir, "proj/.claude/hooks");
	mkdirs(dir, "home/.claude");
	free(write_file(proj, ".claude/hooks/guard.sh", "echo 'guard says no' >&2\nexit 2\n"));
	free(write_file(proj, ".claude/settings.json",
	                "{\"hooks\":{\"PreToolUse\":[{\"matcher\":\"Bash\",\"hooks\":[{\"type\":\"command\","
	                "\"command\":\"bash .claude/hooks/guard.sh\",\"name\":\"guard\"}]}]}}"));
	free(write_file(home, ".claude/settings.json",
	                "{\"hooks\":{\"PreToolUse\":[{\"matcher\":\"Bash\",\"hooks\":[{\"type\":\"command\","
	                "\"command\":\"echo user-ran\",\"name\":\"user\"}]}]}}"));
	char *opts = fmt("{\"profile\":\"claude\",\"project_dir\":\"%s\",\"home\":\"%s\",\"trust\":\"project\"}", proj, home);
	hookexec_engine *e = OPEN(opts);
	if (!e) goto out;

	/* New: reported, not run; the user's own hook runs. */
	char *res = trust_fire(e);
	CHECK_HAS(res, "\"blocked\":false");
	CHECK_HAS(res, "user-ran");
	CHECK_HAS(res, "\"awaiting_approval\":[{\"id\":\"guard\"");
	CHECK_HAS(res, "\"reason\":\"new hook\"");
	hookexec_free(res);

	char *list = NULL;
	CHECK_RC(hookexec_trust_list(e, &list), HOOKEXEC_OK);
	CHECK_HAS(list, "\"mode\":\"project\"");
	CHECK_HAS(list, "\"status\":\"awaiting approval\"");
	CHECK_HAS(list, "\"path\":\".claude/hooks/guard.sh\"");
	hookexec_free(list);

	/* Approved: it runs and blocks. */
	list = NULL;
	CHECK_RC(hookexec_trust_approve(e, "guard", &list), HOOKEXEC_OK);
	CHECK_HAS(list, "\"status\":\"approved\"");
	hookexec_free(list);
	res = trust_fire(e);
	CHECK_HAS(res, "\"blocked\":true");
	CHECK_HAS(res, "guard says no");
	CHECK_HAS(res, "\"awaiting_approval\":[]");
	hookexec_free(res);

	/* The script edited: refused at the next fire, and config() says why. */
	free(write_file(proj, ".claude/hooks/guard.sh", "touch pwned\n"));
	res = trust_fire(e);
	CHECK_HAS(res, "\"blocked\":false");
	CHECK_HAS(res, "\"reason\":\"script .claude/hooks/guard.sh changed\"");
	hookexec_free(res);
	char *pwned = fmt("%s/pwned", proj);
	CHECK(!file_exists(pwned));
	char *cfg = NULL;
	CHECK_RC(hookexec_config(e, &cfg), HOOKEXEC_OK);
	CHECK_HAS(cfg, "\"trust\":\"awaiting approval\"");
	CHECK_HAS(cfg, "\"trust_reason\":\"script .claude/hooks/guard.sh changed\"");
	hookexec_free(cfg);

	/* Re-approved (all awaiting, without list_out): runs again; revoked: refused again. */
	CHECK_RC(hookexec_trust_approve(e, NULL, NULL), HOOKEXEC_OK);
	res = trust_fire(e);
	CHECK_HAS(res, "\"awaiting_approval\":[]");
	CHECK(file_exists(pwned));
	hookexec_free(res);
	CHECK_RC(hookexec_trust_revoke(e, "guard", NULL), HOOKEXEC_OK);
	res = trust_fire(e);
	CHECK_HAS(res, "\"reason\":\"new hook\"");
	hookexec_free(res);

	CHECK_RC(hookexec_trust_approve(e, "user", NULL), HOOKEXEC_EINVAL);
	CHECK(strstr(hookexec_errmsg(), "no project-level hook") != NULL);
	CHECK_RC(hookexec_trust_revoke(e, NULL, NULL), HOOKEXEC_EINVAL);
	CHECK_RC(hookexec_trust_list(e, NULL), HOOKEXEC_EINVAL);
	CHECK_RC(hookexec_trust_list(NULL, &list), HOOKEXEC_EINVAL);
	CHECK_RC(hookexec_close(e), HOOKEXEC_OK);
	CHECK_RC(hookexec_trust_list(e, &list), HOOKEXEC_ECLOSED);
	free(pwned);

	/* An unreadable store: nothing project-level runs, approving fails and keeps the file. */
	mkdirs(dir, "home/.config/hookexec");
	char *store = write_file(home, ".config/hookexec/trust.json", "{\"projects\": [");
	e = OPEN(opts);
	if (e) {
		res = trust_fire(e);
		CHECK_HAS(res, "user-ran");
		CHECK_HAS(res, "\"blocked\":false");
		CHECK_HAS(res, "trust store unreadable");
		hookexec_free(res);
		CHECK_RC(hookexec_trust_approve(e, "guard", NULL), HOOKEXEC_ETRUST);
		CHECK(strstr(hookexec_errmsg(), "not valid JSON") != NULL);
		CHECK(strcmp(hookexec_errstr(HOOKEXEC_ETRUST), "trust store cannot be read or written") == 0);
		FILE *f = fopen(store, "r");
		char buf[64] = {0};
		if (f) {
			size_t n = fread(buf, 1, sizeof buf - 1, f);
			buf[n] = 0;
			fclose(f);
		}
		CHECK(strcmp(buf, "{\"projects\": [") == 0);
		CHECK_RC(hookexec_close(e), HOOKEXEC_OK);
	}
	free(store);
out:
	free(opts);
	free(proj);
	free(home);
	remove_tree(dir);
}
