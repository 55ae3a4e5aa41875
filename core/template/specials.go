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

// shellOwn are the variables bash, zsh (also as sh), mksh, dash and busybox sh set or
// know in an empty environment, and those their manuals name that are not set by
// default (zsh's modules' ERRNO, mapfile, ...): a shell may give them an attribute
// (zsh's SHLVL, EUID and TRY_BLOCK_ERROR, bash's HISTCMD and mksh's PPID are integers,
// so an assignment evaluates the value as arithmetic) or read them. TestSpecialsCoverShells
// asks the installed shells for their lists and checks that each name is here.
var shellOwn = set(`
	ARGC BASH BASHOPTS BASHPID BASH_ALIASES BASH_ARGC BASH_ARGV BASH_ARGV0 BASH_CMDS BASH_COMMAND
	BASH_COMPAT BASH_EXECUTION_STRING BASH_LINENO BASH_LOADABLES_PATH BASH_SOURCE BASH_SUBSHELL
	BASH_VERSINFO BASH_VERSION BASH_XTRACEFD BAUD CDPATH CHILD_MAX COLUMNS COMPREPLY COMP_CWORD
	COMP_KEY COMP_LINE COMP_POINT COMP_TYPE COMP_WORDBREAKS COMP_WORDS CPUTYPE DIRSTACK
	DIRSTACKSIZE EGID EMACS EPOCHREALTIME EPOCHSECONDS ERRNO EUID FIGNORE FPATH FUNCNAME FUNCNEST
	GID GLOBIGNORE GROUPS HISTCHARS HISTCMD HISTFILE HISTFILESIZE HISTSIZE HOME HOST HOSTNAME
	HOSTTYPE IFS INSIDE_EMACS KEYBOARD_HACK KEYTIMEOUT KSHEGID KSHGID KSHUID KSH_VERSION LINENO
	LINES LISTMAX LOGCHECK LOGNAME MACHTYPE MAILCHECK MAILPATH MANPATH MAPFILE MBEGIN MEND
	MODULE_PATH NULLCMD OLDPWD OPTARG OPTERR OPTIND OSTYPE PATH PATHSEP PERIOD PGRP PIPESTATUS
	POSTEDIT PPID PROMPT PROMPT2 PROMPT3 PROMPT4 PROMPT_DIRTRIM PROMPT_EOL_MARK PS1 PS2 PS3 PS4
	PSVAR PWD RANDOM READLINE_LINE READLINE_MARK READLINE_POINT READNULLCMD REPORTMEMORY
	REPORTTIME SAVEHIST SECONDS SHELL SHELLOPTS SHLVL SPROMPT SRANDOM TERM TIMEFMT TMOUT TMPPREFIX
	TRY_BLOCK_ERROR TRY_BLOCK_INTERRUPT TTY TTYIDLE UID USERNAME USER_ID VENDOR WATCH WORDCHARS
	ZBEEP ZLE_LINE_ABORTED ZLE_REMOVE_SUFFIX_CHARS ZLE_RPROMPT_INDENT ZLE_SPACE_SUFFIX_CHARS
	ZSH_ARGZERO ZSH_EVAL_CONTEXT ZSH_EXECUTION_STRING ZSH_NAME ZSH_PATCHLEVEL ZSH_SUBSHELL
	ZSH_VERSION _ aliases argv builtins cdpath commands dirstack dis_aliases dis_builtins
	dis_functions dis_functions_source dis_galiases dis_patchars dis_reswords dis_saliases
	epochtime errnos fignore fpath funcfiletrace funcsourcetrace funcstack functions
	functions_source functrace galiases histchars history historywords jobdirs jobstates jobtexts
	keymaps langinfo mailpath manpath mapfile match mbegin mend module_path modules nameddirs
	options parameters patchars path pipestatus prompt psvar reply reswords saliases signals
	status sysparams termcap terminfo userdirs usergroups watch widgets zsh_eval_context
	zsh_scheduled_events`)

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
	if shellSpecial[name] || shellOwn[name] {
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
