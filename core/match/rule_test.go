package match

import (
	"os"
	"os/exec"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/valyala/fastjson"
)

func ruleMatch(t *testing.T, rule, tool, input string) bool {
	t.Helper()
	r, err := CompileRule(rule, "/proj", "/home/u")
	require.NoError(t, err, rule)
	return r.Match(tool, fastjson.MustParse(input), "/proj")
}

// The reference's Bash table, row by row, and the forms around it.
func TestRuleBash(t *testing.T) {
	cases := []struct {
		rule, command string
		want          bool
	}{
		{"Bash(git *)", "FOO=bar git push", true},     // leading assignments are stripped
		{"Bash(git *)", "npm test && git push", true}, // each subcommand is checked
		{"Bash(rm *)", "echo $(rm -rf /)", true},      // commands inside $() are checked
		{"Bash(rm *)", "echo `rm -rf /`", true},       // and inside backticks
		{"Bash(rm *)", "echo $(date)", false},         // no subcommand matches
		{"Bash(git push *)", "echo $(date)", true},    // more than the name: $() runs it anyway
		{"Bash(git push *)", "echo $HOME", true},      // and so does $VAR
		{"Bash(git push *)", "echo hi", false},
		{"Bash(git *)", "echo 'unterminated", true},     // cannot be parsed: fails open
		{"Bash(git commit:*)", "git commit -m x", true}, // legacy prefix form
		{"Bash(git commit:*)", "git commit", true},
		{"Bash(git commit:*)", "git committed", false}, // at a word boundary
		{"Bash(git commit:*)", "git push", false},
		{"Bash(git *)", "git", true}, // a trailing " *" also takes the bare command
		{"Bash(git *)", "gitk", false},
		{"Bash(ls*)", "lsof", true},
		{"Bash(npm run build)", "npm run build", true}, // exact
		{"Bash(npm run build)", "npm run build:prod", false},
		{"Bash(git *)", "ls | grep x; cd /tmp || git status", true}, // | ; || too
		{"Bash(git *)", "\"git\" 'status'", true},                   // quotes removed
		{"Bash", "anything", true},
		{"Bash(*)", "anything", true},
		{"Bash(rm *)", "$CMD -rf /", true}, // the command run is unknown
	}
	for _, c := range cases {
		require.Equal(t, c.want, ruleMatch(t, c.rule, "Bash", `{"command":`+quote(c.command)+`}`), "%s vs %s", c.rule, c.command)
	}
	require.False(t, ruleMatch(t, "Bash(git *)", "Edit", `{"command":"git push"}`), "another tool")
	require.False(t, ruleMatch(t, "Bash(git *)", "Bash", `{}`), "no command")
}

// Wrappers: a guard on rm must see the rm they run (selecting too often is safe, too
// rarely is not). Claude Code strips timeout, time, nice, nohup, stdbuf and bare xargs; the
// rest goes further, on the guard's side.
func TestRuleBashWrappers(t *testing.T) {
	cases := []struct {
		rule, command string
		want          bool
	}{
		{"Bash(rm *)", "/bin/rm -rf /", true}, // a path: its base name
		{"Bash(rm *)", "./rm x", true},
		{"Bash(rm *)", "command rm -rf /", true},
		{"Bash(rm *)", "command -p rm x", true},
		{"Bash(rm *)", "builtin rm x", true},
		{"Bash(rm *)", "exec rm x", true},
		{"Bash(rm *)", "sudo rm -rf /", true},
		{"Bash(rm *)", "sudo -u root -E rm -rf /", true},
		{"Bash(rm *)", "sudo FOO=1 /usr/bin/rm x", true},
		{"Bash(rm *)", "doas rm x", true},
		{"Bash(rm *)", "env rm x", true},
		{"Bash(rm *)", "env -i A=1 -u B rm x", true},
		{"Bash(rm *)", "env -S 'rm -rf /'", true},
		{"Bash(rm *)", "timeout 5 rm x", true},
		{"Bash(rm *)", "timeout -s KILL -k 1 5 rm x", true},
		{"Bash(rm *)", "timeout --signal=KILL 5s rm x", true},
		{"Bash(rm *)", "nice rm x", true},
		{"Bash(rm *)", "nice -n 5 rm x", true},
		{"Bash(rm *)", "nice -5 rm x", true},
		{"Bash(rm *)", "nohup rm x &", true},
		{"Bash(rm *)", "time rm x", true},
		{"Bash(rm *)", "stdbuf -o0 rm x", true},
		{"Bash(rm *)", "ionice -c 3 rm x", true},
		{"Bash(rm *)", "setsid rm x", true},
		{"Bash(rm *)", "find . -name '*.o' | xargs rm", true},
		{"Bash(rm *)", "xargs -0 -n 1 rm -f < list", true},
		{"Bash(rm -rf *)", "find . | xargs rm", true}, // xargs adds arguments unknown here
		{"Bash(rm *)", "find . -name x -exec rm {} ;", true},
		{"Bash(rm *)", "find . -execdir /bin/rm -f {} +", true},
		{"Bash(rm *)", "bash -c 'rm -rf /'", true},
		{"Bash(rm *)", "sh -c \"cd /tmp && rm x\"", true},
		{"Bash(rm *)", "bash -o pipefail -c 'rm x'", true},
		{"Bash(rm *)", "sh -c -e 'rm x'", true},
		{"Bash(rm *)", "bash -ec 'rm x'", true},
		{"Bash(rm *)", "bash -c -- 'rm x'", true},
		{"Bash(rm *)", "sudo bash -c 'timeout 5 env rm x'", true}, // nested
		{"Bash(rm *)", "eval 'rm x'", true},
		{"Bash(rm *)", "watch -n 1 rm x", true},
		{"Bash(rm *)", "flock /tmp/l rm x", true},
		{"Bash(rm *)", "flock -c 'rm x' /tmp/l", true},
		{"Bash(rm *)", "busybox rm x", true},
		{"Bash(rm *)", "$'\\x72m' x", true},         // ANSI-C quoting: not decoded, so unknown
		{"Bash(rm *)", "bash -c \"$SCRIPT\"", true}, // a script known only at run time
		{"Bash(rm *)", "sudo $CMD x", true},
		{"Bash(git push *)", "timeout 60 git push origin main", true},
		{"Bash(git push *)", "nohup git push", true},
		// attack round: spellings not tried above
		{"Bash(rm *)", "timeout -- 5 rm x", true}, // operands after --
		{"Bash(rm *)", "flock -- /tmp/l rm x", true},
		{"Bash(rm *)", "r\\m x", true},
		{"Bash(rm *)", "'rm' x", true},
		{"Bash(rm *)", "chrt 1 rm x", true},
		{"Bash(rm *)", "env -- rm x", true},
		{"Bash(rm *)", "{ rm x; }", true},
		{"Bash(rm *)", "if true; then rm x; fi", true},
		{"Bash(rm *)", "x=$(rm x)", true},
		{"Bash(rm *)", "xargs -I{} rm {}", true},
		{"Bash(rm *)", "bash -lc 'rm x'", true},
		// issue 25 hole 5: programs bash runs that are not a plain word of the line
		{"Bash(rm *)", "{rm,-rf,x}", true},
		{"Bash(rm -rf *)", "rm {-rf,x}", true},
		{"Bash(rm *)", "bash <<< 'rm -rf x'", true},
		{"Bash(rm *)", ". <(echo rm -rf x)", true},
		{"Bash(rm *)", "source /dev/stdin <<< 'rm -rf x'", true},
		{"Bash(rm *)", "echo 'rm -rf x' | sh", true},
		{"Bash(rm *)", "python3 -c 'import os; os.system(\"rm -rf x\")'", true},
		{"Bash(rm *)", "awk 'BEGIN{system(\"rm -rf x\")}'", true},
		{"Bash(rm *)", "git -c alias.z='!rm -rf x' z", true},
		{"Bash(rm *)", "setpriv --reuid=0 rm x", true},
		{"Bash(rm *)", "su -c 'rm x'", true},
		{"Bash(rm *)", "/usr/bin/r[m] x", true},
		{"Bash(rm *)", "hash -p /usr/bin/rm ls; ls x", true},
		{"Bash(rm -rf *)", "ln -s /usr/bin/rm r; ./r -rf x", true},
		{"Bash(rm *)", "printf -v v '%s' 'a[$(rm x)]'; echo $((v))", true},
		{"Bash(git push *)", "bash <<'EOF'\ngit push\nEOF", true},
		{"Bash(rm *)", "echo 'rm -rf x' > s.sh; bash s.sh", true}, // a script the line writes
		{"Bash(rm *)", "printf 'rm x' > b/ls; PATH=./b:$PATH ls", true},
		{"Bash(rm *)", "PATH=./node_modules/.bin:$PATH jest", false},
		{"Bash(rm *)", "v=$(cat f); echo $((v))", true}, // v may hold a[$(rm x)]
		{"Bash(rm *)", "read v; echo ${!v}", true},
		{"Bash(rm *)", "=rm x", true}, // zsh's = expansion
		// ... and what still does not select: data, script files, a here-document to cat
		{"Bash(rm *)", "for ((i=0; i<3; i++)); do :; done; echo $((2+2))", false},
		{"Bash(rm *)", "a=(\"$@\"); printf '%s\\n' \"${a[@]}\"", false},
		{"Bash(rm *)", "bash a.sh && bash b.sh", false},
		{"Bash(rm *)", "cat <<'EOF'\nrm -rf x\nEOF", false},
		{"Bash(rm *)", "grep -r 'rm -rf' .", false},
		{"Bash(rm *)", "python3 x.py", false},
		{"Bash(rm *)", "python3 -m pytest -x", false},
		{"Bash(rm *)", "ls *.go", false},
		{"Bash(rm *)", "gofmt -l *.go", false},
		{"Bash(rm *)", "git commit -m 'rm x'", false},
		{"Bash(rm *)", "bash <<< 'ls'", false},
		{"Bash(git push *)", "{ls,-la}", false},
		// What the wrappers run is matched like any command: no more.
		{"Bash(rm *)", "timeout 5 ls -la", false},
		{"Bash(rm *)", "sudo apt install x", false},
		{"Bash(rm *)", "bash -c 'ls'", false},
		{"Bash(rm *)", "bash script.sh", false}, // a script file: left to the rule as written
		{"Bash(rm *)", "echo rm", false},
		{"Bash(rm *)", "find . -name rm", false},
		{"Bash(git push *)", "sudo git status", false},
	}
	for _, c := range cases {
		require.Equal(t, c.want, ruleMatch(t, c.rule, "Bash", `{"command":`+quote(c.command)+`}`), "%s vs %s", c.rule, c.command)
	}
}

func quote(s string) string {
	var a fastjson.Arena
	return string(a.NewString(s).MarshalTo(nil))
}

func TestRuleFiles(t *testing.T) {
	cases := []struct {
		rule, tool, path string
		want             bool
	}{
		{"Edit(*.ts)", "Edit", "/proj/src/a.ts", true}, // no "/": any depth
		{"Edit(*.ts)", "Write", "/proj/a.ts", true},    // an Edit rule covers Write
		{"Edit(*.ts)", "Edit", "/proj/a.js", false},
		{"Edit(*.ts)", "Read", "/proj/a.ts", false},
		{"Read(./secrets/**)", "Read", "/proj/secrets/k.pem", true},
		{"Read(./secrets/**)", "Read", "secrets/deep/k.pem", true}, // relative to cwd
		{"Read(./secrets/**)", "Read", "/proj/other/secrets/k.pem", false},
		{"Edit(src/**)", "Edit", "/proj/src/a/b.go", true},
		{"Edit(src/**)", "Edit", "/proj/lib/src/b.go", false}, // only the src in the working directory
		{"Edit(**/src/**)", "Edit", "/proj/lib/src/b.go", true},
		{"Edit(/docs/**)", "Edit", "/proj/docs/x.md", true}, // "/p": the project
		{"Edit(//etc/**)", "Edit", "/etc/hosts", true},      // "//p": absolute
		{"Read(~/.ssh/**)", "Read", "/home/u/.ssh/id", true},
		{"Read(.env)", "Read", "/proj/app/.env", true},
		// A trailing "/" names a directory: everything under it (gitignore style).
		{"Edit(/secrets/)", "Edit", "/proj/secrets/k.pem", true},
		{"Edit(/secrets/)", "Edit", "/proj/secrets/a/b.pem", true},
		{"Edit(/secrets/)", "Edit", "/proj/secretsx/k.pem", false},
		{"Read(~/.ssh/)", "Read", "/home/u/.ssh/id", true},
		{"Read(./keys/)", "Read", "/proj/keys/k", true},
		{"Read(keys/)", "Read", "/proj/keys/k", true},
		{"Edit(//etc/)", "Edit", "/etc/hosts", true},
	}
	for _, c := range cases {
		require.Equal(t, c.want, ruleMatch(t, c.rule, c.tool, `{"file_path":`+quote(c.path)+`}`), "%s vs %s %s", c.rule, c.tool, c.path)
	}
	require.True(t, ruleMatch(t, "WebFetch(domain:example.com)", "WebFetch", `{"url":"https://example.com/x"}`))
	require.False(t, ruleMatch(t, "WebFetch(domain:example.com)", "WebFetch", `{"url":"https://evil.com/example.com"}`))
	// Claude Code 2.1.330 runs an `if` hook on an MCP call only for the full tool name.
	require.True(t, ruleMatch(t, "mcp__github__create_issue", "mcp__github__create_issue", `{}`))
	require.False(t, ruleMatch(t, "mcp__github", "mcp__github__create_issue", `{}`))
	require.False(t, ruleMatch(t, "mcp__github__*", "mcp__github__create_issue", `{}`))
	require.False(t, ruleMatch(t, "mcp__github", "mcp__gitlab__x", `{}`))
	require.True(t, ruleMatch(t, "Agent(Explore)", "Agent", `{"subagent_type":"Explore","prompt":"p"}`))
	require.True(t, (*Rule)(nil).Match("x", nil, ""))
}

func TestRuleErrors(t *testing.T) {
	for _, bad := range []string{"", "Bash(", "Bash()", "Bash(git *) && Edit(*.ts)", "Bash(git *) extra", "Edit([)", "Bash git"} {
		_, err := CompileRule(bad, "/p", "/h")
		require.ErrorIs(t, err, ErrRule, bad)
	}
}

// $'...' strings decode as bash decodes them: bash is the oracle.
func TestANSICAgainstBash(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		if os.Getenv("HOOKEXEC_REQUIRE_SHELLS") == "1" {
			t.Fatal("bash is required (HOOKEXEC_REQUIRE_SHELLS=1)")
		}
		t.Skip("no bash")
	}
	for _, s := range []string{`\x72m`, `\162m`, `\u0072m`, `\U00000072m`, `r\m`, `\x`, `\xZ`, `\8`, `a\tb\n`, `\'q\"`,
		`\cA`, `\e[0m`, `\x7`, `\1234`, `\q`, `\u00e9`, `\\x72`} {
		out, err := exec.Command("bash", "-c", "printf %s $'"+s+"'").Output()
		require.NoError(t, err, s)
		require.Equal(t, string(out), ansiC(s), "$'%s'", s)
	}
}
