package match

import (
	"path"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Script files, for "if" rules. A script file is not looked into (bash x.sh, . ./env.sh,
// python3 x.py, ./run): the rule sees the line as written. But a line may write the file
// it then runs (echo 'rm -rf x' > s; bash s), so a script file whose name the line also
// mentions elsewhere (a redirection's target, any argument, a NAME=value's value) makes
// the line unknown; so does such a program name, without a path, once the line assigns
// PATH.

// fileUse is what a line (and the scripts inside it) says about files.
type fileUse struct {
	mentions map[string]int // base names of argument words and redirection targets
	scripts  []scriptUse    // script files run
	commands []scriptUse    // program names run without a path, for a line that sets PATH
	path     bool           // the line assigns PATH
}

// scriptUse is a script file run, and how many mentions of its name the run itself makes.
type scriptUse struct {
	name string
	own  int
}

func (u *fileUse) mention(word string) {
	if u.mentions == nil {
		u.mentions = map[string]int{}
	}
	for _, w := range strings.Split(word, "=") { // of=s, --output=s
		if w = strings.TrimRight(w, "/"); w != "" {
			u.mentions[path.Base(w)]++
		}
	}
}

// mentionCall counts the argument words and output targets of one simple command.
func (u *fileUse) mentionCall(c simpleCommand, redirs []*syntax.Redirect) {
	for i, w := range c.words {
		if i > 0 && !c.dynamic[i] {
			u.mention(w)
		}
	}
	for _, r := range redirs {
		switch r.Op {
		case syntax.RdrOut, syntax.AppOut, syntax.RdrAll, syntax.AppAll, syntax.ClbOut, syntax.RdrInOut:
			if s, dyn, _ := wordValue(r.Word); !dyn {
				u.mention(s)
			}
		}
	}
}

// ran records a script file run: as an argument (bash s: its own word is one mention) or
// as a command word (./s, mentioned only when a wrapper passed it: timeout 5 ./s).
func (u *fileUse) ran(name string, own int) {
	u.scripts = append(u.scripts, scriptUse{path.Base(name), own})
}

// made reports whether a script the line runs may be one it wrote.
func (u *fileUse) made() bool {
	uses := u.scripts
	if u.path {
		uses = append(uses[:len(uses):len(uses)], u.commands...)
	}
	for _, s := range uses {
		if u.mentions[s.name] > s.own {
			return true
		}
	}
	return false
}
