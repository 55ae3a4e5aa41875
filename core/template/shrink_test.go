package template

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// Issue 25's holes 2 to 4: each command ran a value as code (or let it choose what runs)
// before the allowed set was shrunk. exploit, when set, is a value that did it: when the
// command compiles, the test renders it with that value and runs it under bash, so the
// failure says whether the hole is live.
var issue25Holes = []struct {
	command string
	reason  string // a substring of the refusal
	exploit string
}{
	// hole 2: variables holding values used in ways the check did not follow
	{`bash -c 'F=<<x>>; echo "${F@P}"'`, "${F@P}", pwnSubst},
	{`F=<<x>>; echo "${F@P}"`, "${F@P}", pwnSubst},
	{`bash -c 'F=<<x>>; echo "${F@E}"'`, "${F@E}", ""},
	{`bash -c 'F=<<x>>; echo "${F@A}"'`, "${F@A}", ""},
	{`bash -c 'F=<<x>>; echo "${F:-x}"'`, "${F:-x}", ""},
	{`bash -c 'F=<<x>>; echo "${F#a}"'`, "${F#a}", ""},
	{`bash -c 'F=<<x>>; echo "${!F}"'`, "${!...}", pwnIndex},
	{`bash -c 'F=<<x>>; echo $((F))'`, "arithmetic", pwnIndex},
	{`bash -c 'F=<<x>>; ((F)) || true'`, "arithmetic", pwnIndex},
	{`bash -c 'F=<<x>>; [[ F -gt 3 ]] || true'`, "arithmetic", pwnIndex},
	{`bash -c 'F=<<x>>; let G=F'`, "arithmetic", pwnIndex},
	{`bash -c 'F=<<x>>; a=(1); a[F]=1'`, "arithmetic", pwnIndex},
	{`bash -c 'F=<<x>>; a=(1); echo "${a[F]}"'`, "arithmetic", pwnIndex},
	{`bash -c 'F=<<x>>; echo "${F:F}"'`, "${F:F}", pwnIndex},
	{`bash -c 'declare -i F; F=<<x>>'`, "attribute", pwnIndex},
	{`bash -c 'f() { local -i F; F=<<x>>; }; f'`, "attribute", pwnIndex},
	{`bash -c 'typeset -i F; F=<<x>>'`, "attribute", pwnIndex},
	{`bash -c 'export -i F 2>/dev/null; F=<<x>>'`, "attribute", ""},
	{`bash -c 'readonly -i F 2>/dev/null; F=<<x>>'`, "attribute", ""},
	{`bash -c 'declare -n F; F=<<x>>'`, "attribute", pwnIndex},
	{`bash -c 'F=<<x>>; declare -n R=F; echo $((R))'`, "attribute", pwnIndex},
	{`F=<<x>>; echo $F`, "double-quoted", ""},
	{`F=<<x>>; echo "$F" | sh`, "piped", pwnSubst},
	{`F=<<x>>; $F`, "program", ""},
	{`F=<<x>>; "$F" a`, "program", ""},
	// hole 3: builtins that take a variable name, and special variables
	{`bash -c 'printf -v<<x>> %s 1'`, "printf -v", pwnIndex},
	{`bash -c 'F=<<x>>; printf -v"$F" %s 1'`, "printf -v", pwnIndex},
	{`bash -c 'F=<<x>>; printf -v "$F" %s 1'`, "printf -v", pwnIndex},
	{`bash -c 'sleep 0 & wait -p <<x>>'`, "wait", pwnIndex},
	{`bash -c 'F=<<x>>; sleep 0 & wait -p "$F"'`, "wait", pwnIndex},
	{`bash -c 'F=<<x>>; read -r "$F" <<< 1'`, "read", pwnIndex},
	{`bash -c 'F=<<x>>; mapfile "$F" <<< 1'`, "mapfile", ""},
	{`bash -c 'F=<<x>>; readarray "$F" <<< 1'`, "readarray", ""},
	{`bash -c 'F=<<x>>; getopts a "$F"'`, "getopts", ""},
	{`PS4=<<x>>; set -x; true`, "PS4", pwnSubst},
	{`bash -c 'PS4=<<x>>; set -x; true'`, "PS4", pwnSubst},
	{`PS1=<<x>>`, "PS1", ""},
	{`PS0=<<x>>`, "PS0", ""},
	{`PROMPT_COMMAND=<<x>>`, "PROMPT_COMMAND", ""},
	{`PATH=<<x>>; ls`, "PATH", ""},
	{`BASH_ENV=<<x>>; export BASH_ENV; bash -c true`, "BASH_ENV", ""},
	{`set -a; BASH_ENV=<<x>>; bash -c true`, "BASH_ENV", ""},
	{`ENV=<<x>>; export ENV; sh -i </dev/null`, "ENV", ""},
	{`IFS=<<x>>; echo a`, "IFS", ""},
	{`F=<<x>>; export F`, "export", ""},
	{`set -a; F=<<x>>; true`, "set -a", ""},
	{`set -o allexport; F=<<x>>; true`, "set -a", ""},
	{`F=<<x>>; export G="$F"`, "export", ""},
	{`sh -a -c 'F=<<x>>; true'`, "allexport", ""},
	{`bash -o allexport -c 'F=<<x>>; true'`, "allexport", ""},
	{`sh -c 'F=$1; true' sh <<x>>`, "double-quoted", ""},
	{`sh -ac 'true "$1"' sh <<x>>`, "allexport", ""},
	{`bash -c 'F=<<x>>; eval "echo hi"'`, "eval", ""},
	{`bash -c 'F=<<x>>; PS4='''$(eval "$F")'''; set -x; true'`, "PS4", pwnSubst},
	{`bash -c 'read -r G <<< <<x>>; eval "$G"'`, "read", pwnSubst},
	{`bash -c 'printf -v G %s <<x>>; eval "$G"'`, "printf -v", pwnSubst},
	{`bash -c 'G=F; F=<<x>>; echo $((G))'`, "arithmetic", pwnIndex},
	{`bash -c 'F=<<x>>; [ -v "a[F]" ]'`, "test -v", pwnIndex},
	{`bash -c 'F=<<x>>; printf -v "a[F]" %s 1'`, "printf -v", pwnIndex},
	{`LD_PRELOAD=<<x>>; ls`, "LD_PRELOAD", ""},
	{`GIT_SSH_COMMAND=<<x>>; git fetch`, "GIT_SSH_COMMAND", ""},
	{`F=<<x>>; GIT_PAGER="$F"; git log`, "GIT_PAGER", ""},
	// found by the shell differential test (TestShellDiff, FINDINGS-template.md)
	{`printf '%s\n' <<x>> > hx.sh; sh hx.sh`, "writes hx.sh", pwnSubst},
	{`printf '%s\n' <<x>> > hx.sh; . ./hx.sh`, "writes hx.sh", pwnSubst},
	{`F=<<x>>; printf '%s\n' "$F" >> hx.sh; chmod +x hx.sh; ./hx.sh`, "writes hx.sh", ""},
	{`echo <<x>> | tee hx.py; python3 hx.py`, "writes files", ""},
	{`printf '%s\n' <<x>> > hx.a; cp hx.a hx.sh; sh hx.sh`, "could be run as code", pwnSubst},
	{`hxs=hx.sh; printf '%s\n' <<x>> > "$hxs"; sh "$hxs"`, "could be run as code", pwnSubst},
	{`printf '%s\n' <<x>> | dd of=hx.sh 2>/dev/null; sh hx.sh`, "could be run as code", pwnSubst},
	{`printf '%s\n' 'echo <<x>>' > hx.a; cp hx.a hx.sh; sh hx.sh`, "could be run as code", ""},
	{`(timeout 5 sh -c 'printf '\''%s\n'\'' "<<x>>" > hx.sh; sh hx.sh')`, "writes hx.sh", pwnSubst},
	{`emulate sh -c 'echo <<x>>'`, "emulate", ""},
	{`emulate sh -c <<x>>`, "emulate", ""},
	{`print -P <<x>>`, "print", ""},
	{`noglob <<x>>`, "noglob", ""},
	{`integer G; G=<<x>>`, "integer", ""},
	{`printf '%d\n' x || integer G; G=<<x>>`, "integer", ""},
	// the shell's own variables that take a value from the command
	{`echo <<x>> >/dev/null; eval "$_"`, "eval", pwnSubst},
	{`bash -c 'echo <<x>> >/dev/null; eval "$_"'`, "eval", pwnSubst},
	{`bash -c '[[ <<x>> =~ (.*) ]] && eval "${BASH_REMATCH[1]}"'`, "[[ ]]", pwnSubst},
	{`bash -c 'true <<x>>; echo $((_))'`, "arithmetic", pwnIndex},
	{`bash -c '[[ <<x>> =~ (.*) ]] && python3 -c "${BASH_REMATCH[1]}"'`, "[[ ]]", ""},
	// a value piped or fed into a program not known to read its input as data
	{`echo <<x>> | at now`, "piped into at", ""},
	{`echo <<x>> | sqlite3 db`, "piped into sqlite3", ""},
	{`sqlite3 db <<< <<x>>`, "sqlite3", ""},
	{`echo <<x>> | ./mytool`, "piped into ./mytool", ""},
	{`echo <<x>> | curl -K - https://example.invalid`, "piped into curl", ""},
	// zsh evaluates the numbers of these builtins as arithmetic (TestShellDiff, zsh-sh)
	{`printf '%d\n' <<x>>`, "numeric conversion", ""},
	{`printf '%s %*s\n' a <<x>> b`, "numeric conversion", ""},
	{`F=<<x>>; printf '%x\n' "$F"`, "numeric conversion", ""},
	{`printf <<x>> <<x>>`, "not literal", ""},
	{`printf '%c' <<x>>`, "numeric conversion", ""},
	{`(exit <<x>>)`, "exit", ""},
	{`f() { return <<x>>; }; f`, "return", ""},
	{`kill -0 <<x>>`, "kill", ""},
	{`umask <<x>>`, "umask", ""},
	{`for i in 1; do break <<x>>; done`, "break", ""},
	{`for i in 1; do continue <<x>>; done`, "continue", ""},
	{`repeat <<x>> true`, "repeat", ""},
	{`setopt <<x>>`, "setopt", ""},
	// git runs the configuration of the repository a value names (core.fsmonitor)
	{`git -C <<x>> status --short`, "git -C", ""},
	{`git --git-dir=<<x>> status`, "git --git-dir", ""},
	{`git --work-tree <<x>> status`, "git --work-tree", ""},
	{`sh -ec 'cd <<x>> && git status --short'`, "cd", ""},
	{`F=<<x>>; cd "$F" && make`, "cd", ""},
	// a value changes how test parses with more than three operands (SD-10)
	{`[ '<<x>>' = "<<x>>" -a x = x ] && echo y`, "test parses", ""},
	{`[ <<x>> ] && [ x = x -o <<x>> ]`, "test parses", ""},
	{`test <<x>> x`, "test parses", ""},
	{`[ x <<x>> y ]`, "test parses", ""},
	{`xdg-open <<x>>`, "xdg-open", ""},
	// find replaces {} in the command it runs, inside a value too
	{`find . -maxdepth 0 -exec printf '%s\n' <<x>> \;`, "find -exec", ""},
	{`find . -maxdepth 0 -exec sh -c 'printf "%s\n" <<x>>' \;`, "find -exec", ""},
	// [[ ]]: not POSIX sh, and its operands are patterns, arithmetic or names
	{`[[ <<x>> == a ]] && echo y`, "[[ ]]", ""},
	{`F=<<x>>; [[ "$F" == *.go ]] && gofmt -l "$F"`, "[[ ]]", ""},
	{`SHLVL=<<x>>`, "SHLVL", ""},
	{`HISTSIZE=<<x>>`, "HISTSIZE", ""},
	{`ERRNO=<<x>>`, "ERRNO", ""},
	{`TRY_BLOCK_ERROR=<<x>>`, "TRY_BLOCK_ERROR", ""},
	{`EUID=<<x>>`, "EUID", ""},
	{`HISTCMD=<<x>>`, "HISTCMD", pwnIndex},
	{`PPID=<<x>>`, "PPID", ""},
	{`status=<<x>>`, "status", ""},
	{`SAVEHIST=<<x>>`, "SAVEHIST", ""},
	{`ZLE_RPROMPT_INDENT=<<x>>`, "ZLE_RPROMPT_INDENT", ""},
	{`TRY_BLOCK_INTERRUPT=<<x>>`, "TRY_BLOCK_INTERRUPT", ""},
	{`UID=<<x>>`, "UID", ""},
	{`GID=<<x>>`, "GID", ""},
	{`EGID=<<x>>`, "EGID", ""},
	{`LISTMAX=<<x>>`, "LISTMAX", ""},
	// the lead's attacker review (AR-2 ... AR-8)
	{`perl -ne 'print if /TODO/' <<x>>`, "magic open", ""},
	{`perl -n -e 'print' -- <<x>>`, "magic open", ""},
	{`perl -lane 'print' <<x>>`, "magic open", ""},
	{`ruby -pe '1' <<x>>`, "magic open", ""},
	{`sqlite3 log.db <<x>>`, "sqlite3", ""},
	{`sqlite3 log.db "insert into t values('<<x>>')"`, "sqlite3", ""},
	{`F=<<x>>; [ F -eq 1 ]`, "numeric comparisons", ""},
	{`F=<<x>>; test 0 -ne F`, "numeric comparisons", ""},
	{`F=<<x>>; shift F`, "shift", ""},
	{`F=<<x>>; ulimit -t F`, "ulimit", ""},
	{`prlimit --nofile=256 <<x>>`, "prlimit", ""},
	{`setarch x86_64 <<x>>`, "setarch", ""},
	{`linux64 <<x>>`, "linux", ""},
	{`xvfb-run <<x>>`, "xvfb-run", ""},
	{`curl -s -X POST -d <<x>> http://127.0.0.1:1/`, "curl -d", ""},
	{`curl -F file=<<x>> http://127.0.0.1:1/`, "curl -F", ""},
	{`curl --data-binary=<<x>> http://127.0.0.1:1/`, "curl --data-binary", ""},
	{`wget --post-file=<<x>> http://127.0.0.1:1/`, "wget --post-file", ""},
	{`find -- <<x>> -name '*.tmp'`, "find", ""},
	{`find . -name <<x>>`, "find", ""},
	// hole 4: name tables
	{`rbash -c <<x>>`, "rbash", pwnSubst},
	{`rbash <<x>>`, "rbash", ""},
	{`python3.13t -c <<x>>`, "python3.13t", ""},
	{`pypy3.10 -c <<x>>`, "pypy3.10", ""},
	{`perl5.36 -e <<x>>`, "perl5.36", ""},
	{`node20 -e <<x>>`, "node20", ""},
	{`ruby3.1 -e <<x>>`, "ruby3.1", ""},
	{`python3.11-dbg -c <<x>>`, "python3.11-dbg", ""},
	{`bash5.2 -c <<x>>`, "program", ""},
	{`git grep -O<<x>> a`, "git -O", ""},
	{`git grep --open-files-in-pager=<<x>> a`, "git --open-files-in-pager", ""},
	{`git grep --open-files-in-pager <<x>> a`, "git --open-files-in-pager", ""},
	{`git rebase -x <<x>> HEAD~1`, "git -x", ""},
	{`git rebase --exec=<<x>> HEAD~1`, "git --exec", ""},
	{`git difftool --extcmd=<<x>>`, "git difftool", ""},
	{`git bisect run <<x>>`, "git bisect", ""},
	{`git submodule foreach <<x>>`, "git submodule", ""},
	{`git config core.pager <<x>>`, "git config", ""},
	{`git clone --template=<<x>> a b`, "git --template", ""},
	{`git send-email --sendmail-cmd=<<x>> a`, "git --sendmail-cmd", ""},
	{`less <<x>>`, "less", ""},
	{`more <<x>>`, "more", ""},
	{`man -P <<x>> ls`, "man", ""},
	{`zip -TT <<x>> a.zip f`, "zip -TT", ""},
	{`zip --unzip-command=<<x>> a.zip f`, "zip --unzip-command", ""},
	{`sort --compress-program=<<x>> f`, "sort --compress-program", ""},
	// ripgrep runs --pre's command on every file it searches (the lead's attack before stop).
	{`rg --pre <<x>> foo .`, "rg --pre", ""},
	{`rg --pre=<<x>> foo .`, "rg --pre", ""},
	{`ssh -o ProxyCommand=<<x>> h`, "ssh", ""},
	{`scp -oProxyCommand=<<x>> a h:b`, "scp -o", ""},
	{`tar -cf a.tar --checkpoint=1 --checkpoint-action=exec=<<x>> f`, "tar --checkpoint-action", ""},
}

const (
	pwnSubst = "$(touch PWNED)"
	pwnIndex = "a[$(touch PWNED)]"
)

func TestIssue25Holes(t *testing.T) {
	dir := t.TempDir()
	bash, bashErr := exec.LookPath("bash")
	for _, tt := range issue25Holes {
		t.Run(tt.command, func(t *testing.T) {
			c, err := Compile(tt.command)
			if err == nil && tt.exploit != "" && bashErr == nil {
				argv := c.Argv(values(tt.exploit))
				argv[0] = bash
				cmd := exec.Command(argv[0], argv[1:]...)
				cmd.Dir = dir
				_ = cmd.Run()
				_, statErr := os.Stat(filepath.Join(dir, "PWNED"))
				os.Remove(filepath.Join(dir, "PWNED"))
				require.Error(t, statErr, "compiled, and the value %q ran as code", tt.exploit)
			}
			require.Error(t, err, "compiled")
			require.ErrorIs(t, err, ErrUnsafe)
			var te *Error
			require.True(t, errors.As(err, &te))
			require.Equal(t, "<<x>>", te.Placeholder)
			require.Contains(t, err.Error(), tt.reason)
			require.NotContains(t, err.Error(), "HOOKEXECPH", "a reason names a value by its placeholder")
		})
	}
}

// The shapes real hooks use (issue 25: examples/, tests/conformance and the seed corpus)
// still compile after the shrink (that their values arrive as data is TestEscapeProperty's
// and TestShellDiff's job).
var realHookShapes = []string{
	"./security-check.sh {{tool_args.command}}",
	"/usr/local/bin/security-check '{{tool_args.command}}'",
	"black <<tool_input.file_path>>",
	"black {{tool_args.file_path}} 2>/dev/null || true",
	"echo 'About to start issue {{issueNumber}}: {{issueTitle}}' >> log",
	"echo 'CLI-Agent: {{message}}'",
	"echo 'Starting issue {{issueNumber}}' >> log.txt",
	"echo '[$(date)] BASH: {{tool_args.command}}' >> audit.log",
	"echo '[$(date)] TOOL: {{tool_name}} - {{result}}' | head -c 200 >> audit.log",
	"printf '%s\\n' <<tool_input.command>> | grep -q 'rm -rf' && exit 2 || true",
	"jq -n --arg c <<tool_input.command>> '$c' | tee -a audit.jsonl > /dev/null",
	"echo \"<<tool_name>> -> <<result>>\" >> tools.log",
	"git add {{tool_args.file_path}} 2>/dev/null || true",
	"logger 'CLI-Agent: {{message}}'",
	"notify-send 'Tool completed: {{tool_name}}'",
	"printf '%s\\n' {{tool_name}} {{tool_args.command}}",
	"python3 \"$HOOKS/format.py\" <<tool_input.file_path>>",
	"slack-cli send '#ai-agents' '{{message}}'",
	"case <<tool_input.command>> in *'rm -rf'*) echo 'rm -rf is not allowed here' >&2; exit 2;; esac",
	"printf '{\"systemMessage\":\"audit: %s finished\"}' <<tool_name>>",
	"F=<<tool_input.file_path>>; gofmt -l \"$F\" && echo \"checked ${F}\"",
	"F=<<tool_input.file_path>>; cat -- \"$F\" > \"$F.out\"",
	"sh -c 'printf \"%s\\n\" <<tool_input.file_path>>'",
	"sh -c 'printf \"%s\\n\" \"$1\"' sh <<tool_input.file_path>>",
	"python3.11 check.py <<tool_input.file_path>>",
	"[ -n <<tool_input.file_path>> ] && [ <<tool_name>> = Write ] && black <<tool_input.file_path>>",
	"test <<tool_name>> != Bash || echo skip",
	"printf '%s\\n' {{issueTitle}} \"#{{issueNumber}}: {{issueTitle}}\"",
	"printf '%s\\n' {{tool_args}} {{result}}",
	"printf '%s\\n' \"path: {{tool_args.path}}\"",
	"echo \"mcp call: <<tool_name>>\" >> mcp.log",
	"echo \"remote call: <<tool_name>> <<tool_args.title>>\" >> tools.log",
	"echo '[audit] BASH: {{tool_args.command}}'",
	"./scripts/validate.sh {{task_id}}",
	"echo tests ok {{iteration}}",
	"echo session={{session}} iteration={{iteration}}",
	"echo 'task {{task_id}}: {{task_content}}'; ls pwned 2>/dev/null || echo clean",
	"printf \"%s\\n\" \"error in {{session}}: {{error}}\"",
	// mycode's $FILE_PATH, as core/config turns it into a placeholder
	".claude/hooks/run-linter.sh <<file_path>>",
	"echo 'File modified: <<file_path>>'",
	"npm run lint:fix <<file_path>>",
	"printf '%s\\n' <<tool_name>> <<file_path>> <<session_id>> <<cwd>> <<exit_code>>",
}

func TestRealHookShapesCompile(t *testing.T) {
	for _, command := range realHookShapes {
		_, err := Compile(command)
		require.NoError(t, err, command)
	}
}
