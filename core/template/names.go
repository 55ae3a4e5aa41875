package template

import (
	"path"
	"regexp"
	"strings"
)

// This file classifies programs by name: shells, interpreters, wrappers, code runners, builtins.

type kind uint8

const (
	kindData    kind = iota // a program that takes its arguments as data
	kindShell               // a shell: -c takes a script
	kindInterp              // runs a program from an argument or a file
	kindWrapper             // runs its arguments as a command
	kindCode                // runs an argument as code in some other way
	kindBuiltin             // a shell builtin
)

// versionRE strips a version and a build tag from a program name, whatever the version:
// python3.13t, python3.11-dbg, pypy3.10, perl5.36.0, node20, nodejs18, ruby3.1,
// luajit-2.1, tclsh8.6, bash5.2, bash-static, python3-config, sh.exe.
var versionRE = regexp.MustCompile(`^([A-Za-z_]+?)(?:[-_.]?[0-9][0-9._]*[a-z]{0,3})?` +
	`(?:[-_.](?:dbg|debug|static|config|bin|nox|minimal|real|wrapper))?(?:\.exe)?$`)

// baseName is a program's name without its directory, version and build tag.
func baseName(name string) string {
	b := path.Base(name)
	if m := versionRE.FindStringSubmatch(b); m != nil {
		return m[1]
	}
	return b
}

var (
	posixShells = set("sh bash dash ash")
	allShells   = set("sh bash rbash dash ash zsh ksh ksh93 mksh pdksh oksh yash posh fish tcsh csh rc es elvish nu nushell xonsh pwsh powershell")
	interps     = set("python pypy perl ruby node nodejs php lua luajit Rscript tclsh")
	wrappers    = set(`env command exec builtin sudo doas su runuser sg nice nohup timeout time stdbuf setsid
		chroot unshare nsenter flock script ionice chrt taskset numactl strace ltrace valgrind gdb lldb watch
		ssh rsh mosh xargs parallel systemd-run firejail bwrap setpriv cgexec run-parts start-stop-daemon
		daemonize tmux screen busybox toybox docker podman kubectl nerdctl npx bunx pnpx expect fakeroot
		proot caffeinate noglob nocorrect prlimit setarch linux64 linux32 i386 x86_64 uname26 newgrp
		capsh dbus-launch dbus-run-session catchsegv perf cpulimit faketime torsocks proxychains
		proxychains4 pkexec xvfb-run ccache distcc`)
	codePrograms = set(`eval source . trap alias awk gawk mawk nawk deno bun irb R julia osascript m4 dc ed ex
		vi vim nvim emacs make gmake bmake less more most pg emulate print sched zmodload autoload functions
		zle bindkey zcompile zstyle xdg-open open sqlite3 sqlite psql mysql mariadb duckdb`)
	// Shell builtins (and keywords taking words) of bash, dash, zsh and mksh other than the
	// wrappers above (zsh evaluates the numbers of break, continue and repeat as arithmetic).
	builtins = set(`echo printf cd pwd test [ true false : exit return shift kill wait umask read
		readarray mapfile unset let declare typeset local export readonly set shopt getopts hash
		type ulimit times jobs fg bg disown suspend enable bind complete compgen compopt fc history
		dirs pushd popd caller logout help coproc select unalias integer float break continue
		bye chdir disable echotc echoti getln limit unlimit pushln r repeat rehash setopt unsetopt
		ttyctl unfunction unhash vared whence zformat zparseopts zregexparse strftime private global
		compctl getcap`)
	// dataBuiltin are the builtins whose arguments stay data (printf -v and test's
	// arithmetic and -v are checked in builtin).
	// wait is not one: wait -p NAME assigns to a name, whose subscript bash evaluates;
	// nor are exit, return, kill and umask: zsh evaluates their numbers as arithmetic.
	// Nor is cd: the commands after it run what they find in the directory the value
	// names (git's core.fsmonitor, a Makefile, ./script).
	dataBuiltin = set("echo printf pwd test [ true false :")
	// stdinData are the builtins that may read a value from their input as data (read is
	// not one: it stores the value in a variable the check does not follow).
	stdinData = set("true false : echo printf")
	// stdinReaders are the programs known to read their standard input as data only:
	// the filters, checksums, compressors and loggers hooks pipe values into.
	stdinReaders = set(`cat head tail tee grep egrep fgrep rg wc sort uniq tr cut sed base64 base32 xxd od
		hexdump md5sum sha1sum sha224sum sha256sum sha384sum sha512sum b2sum cksum logger gzip gunzip
		bzip2 xz zstd lz4 iconv fold fmt column paste rev nl expand unexpand tac jq yq diff cmp comm
		strings dd split sponge pbcopy xclip xsel wl-copy`)
)

func set(words string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(words) {
		m[w] = true
	}
	return m
}

// kindOf classifies a program by name (with any directory and version).
func kindOf(name string) kind {
	b := baseName(name)
	switch {
	case !strings.Contains(name, "/") && (builtins[name] || wrappers[name] && (name == "command" || name == "exec" || name == "builtin")):
		if wrappers[name] {
			return kindWrapper
		}
		return kindBuiltin
	case allShells[b]:
		return kindShell
	case interps[b]:
		return kindInterp
	case wrappers[b] || wrappers[path.Base(name)]:
		return kindWrapper
	case codePrograms[b] || codePrograms[name]:
		return kindCode
	}
	return kindData
}
