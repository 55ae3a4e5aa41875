package template

import "strings"

// This file names the variables the shell itself, or a program it runs, reads as code,
// as a path to run, or as a rule for reading other text: a value may not be assigned
// to one. Built from the "Shell Variables" of bash's manual, dash's and zsh's
// parameter lists, and the environment variables common programs run.

// shellSpecial are read by sh, bash or zsh: prompts (expanded, with command
// substitution, for PS4 under set -x), startup files, command lookup, word splitting,
// arithmetic and option state.
var shellSpecial = set(`PS0 PS1 PS2 PS3 PS4 PROMPT_COMMAND PROMPT PROMPT2 PROMPT3 PROMPT4 RPROMPT RPS1 RPS2
	prompt psvar ENV BASH_ENV ZDOTDIR PATH path CDPATH cdpath FPATH fpath MODULE_PATH module_path MANPATH manpath
	HOME PWD OLDPWD IFS GLOBIGNORE EXECIGNORE FIGNORE HOSTFILE INPUTRC HISTFILE HISTCONTROL HISTIGNORE
	HISTTIMEFORMAT histchars HISTCHARS MAIL MAILPATH MAILCHECK FCEDIT EDITOR VISUAL SHELL SHELLOPTS BASHOPTS
	POSIXLY_CORRECT POSIX_PEDANTIC TIMEFORMAT TMOUT TMPDIR TMPPREFIX OPTIND OPTARG OPTERR SECONDS RANDOM
	SRANDOM LINENO FUNCNEST NULLCMD READNULLCMD STTY KEYTIMEOUT WORDCHARS TEXTDOMAIN TEXTDOMAINDIR
	LANG LANGUAGE TERM TERMINFO COLUMNS LINES PAGER MANPAGER BROWSER CC CXX CPP LD AR AS MAKE`)

// envCodePrefixes and envCodeSuffixes match the environment variables programs read as
// code or as a path to load (LD_PRELOAD, GIT_SSH_COMMAND, PYTHONSTARTUP, NODE_OPTIONS):
// assigned in the hook's shell, such a variable that the environment already exports
// stays exported to every program the hook runs.
var (
	envCodePrefixes = []string{"BASH", "LD_", "DYLD_", "GIT_", "LC_", "PYTHON", "PERL", "RUBY", "NODE_", "NPM_",
		"JAVA", "_JAVA", "LESS", "ZSH", "SSH_", "GCONV", "LUA_", "PHP", "R_", "TCL"}
	envCodeSuffixes = []string{"_COMMAND", "_CMD", "PAGER", "EDITOR", "ASKPASS", "_OPTIONS", "OPTS", "FLAGS"}
)

// special reports whether the shell or a program it runs reads the variable name as
// more than data.
func special(name string) bool {
	if shellSpecial[name] {
		return true
	}
	for _, p := range envCodePrefixes {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	for _, s := range envCodeSuffixes {
		if strings.HasSuffix(name, s) {
			return true
		}
	}
	return false
}

// runsCode are the variables whose text the shell runs as code or as a file of code:
// at a level where a variable holds a value, even a literal assignment to one is
// refused (PS4='$(eval "$F")' with set -x runs the value).
var runsCode = set("PS0 PS1 PS2 PS3 PS4 PROMPT_COMMAND PROMPT PROMPT2 PROMPT3 PROMPT4 RPROMPT RPS1 RPS2 prompt ENV BASH_ENV")
