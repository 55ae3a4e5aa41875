package agents

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fakeNpm puts an npm on the PATH that answers `npm view` with latest (or fails with
// viewErr on stderr) and makes `npm install --prefix DIR pkg@v` create DIR's bin, logging
// the package it was asked for.
func fakeNpm(t *testing.T, latest, viewErr string) (log string) {
	t.Helper()
	dir := t.TempDir()
	log = filepath.Join(dir, "installs")
	script := `#!/bin/sh
case "$1" in
view)
	if [ -n "$VIEW_ERR" ]; then echo "$VIEW_ERR" >&2; exit 1; fi
	printf '"%s"\n' "$LATEST" ;;
install)
	prefix= pkg=
	while [ $# -gt 0 ]; do
		case "$1" in --prefix) prefix=$2; shift ;; --*) ;; *) pkg=$1 ;; esac
		shift
	done
	echo "$pkg" >>"$LOG"
	mkdir -p "$prefix/node_modules/.bin" && printf '#!/bin/sh\n' >"$prefix/node_modules/.bin/claude" ;;
esac
`
	if err := os.WriteFile(filepath.Join(dir, "npm"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	t.Setenv("LATEST", latest)
	t.Setenv("VIEW_ERR", viewErr)
	t.Setenv("LOG", log)
	t.Setenv("HOOKEXEC_AGENT_CACHE", t.TempDir())
	return log
}

func TestInstallUsesThePinUnlessLatestIsAsked(t *testing.T) {
	versions, err := Versions()
	if err != nil {
		t.Fatal(err)
	}
	const pkg = "@anthropic-ai/claude-code"
	pin := versions[pkg]
	log := fakeNpm(t, "999.0.1", "")

	t.Setenv(LatestEnv, "")
	if _, v, err := Install(context.Background(), pkg, "claude"); err != nil || v != pin {
		t.Fatalf("pinned install: version %q, err %v; want the pin %q", v, err, pin)
	}
	t.Setenv(LatestEnv, "1")
	path, v, err := Install(context.Background(), pkg, "claude")
	if err != nil || v != "999.0.1" {
		t.Fatalf("latest install: version %q, err %v; want the registry's 999.0.1", v, err)
	}
	if !strings.Contains(path, "@999.0.1") {
		t.Errorf("latest install went to %s, not its own cache directory", path)
	}
	data, _ := os.ReadFile(log)
	if got := strings.Fields(string(data)); len(got) != 2 || got[0] != pkg+"@"+pin || got[1] != pkg+"@999.0.1" {
		t.Errorf("npm installed %v; want the pin, then the latest", got)
	}
}

func TestLatestUnreachableRegistryIsErrNoNpm(t *testing.T) {
	fakeNpm(t, "", "npm error code ENOTFOUND registry.npmjs.org")
	t.Setenv(LatestEnv, "1")
	_, _, err := Install(context.Background(), "@anthropic-ai/claude-code", "claude")
	if !errors.Is(err, ErrNoNpm) || !strings.Contains(err.Error(), "ENOTFOUND") {
		t.Fatalf("err = %v; want ErrNoNpm with npm's words", err)
	}
}
