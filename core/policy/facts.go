package policy

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/valyala/fastjson"

	"github.com/hookexec/hookexec/core/match"
)

// Facts are what a guard usually needs and the payload does not say. The engine makes one
// per fire (NewFacts or FactsFor); each fact is computed only when a policy asks for it,
// and at most once per Facts (a path's facts once per path). The methods are safe for
// concurrent use; a Facts must not be copied after first use.
//
// The project root is the engine's project directory (ProjectDir: the directory "/p" in
// an "if" rule is anchored to and hooks get as CLAUDE_PROJECT_DIR), not the git top-level:
// an agent opened in one package of a monorepo works in that package. It is compared
// with its symbolic links resolved.
//
// A fact about a state that does not exist is an answer, not an error: a path that does
// not exist is not a symbolic link, a directory outside any git repository has branch ""
// and is not dirty, a line that does not parse has no known commands. An error is a fact
// that could not be found out (a permission denied on the way to a path, no project
// directory, git missing in a repository); the policy fails and the hook's failure policy
// applies.
type Facts struct {
	// ProjectDir is the engine's project directory (absolute); "" means none, and the
	// project facts are then errors (ErrNoProject).
	ProjectDir string
	// Cwd is the payload's cwd, which relative paths are resolved against; "" means the
	// project directory.
	Cwd string
	// Command is the shell line the tool call runs (tool_input.command); "" for none.
	Command string

	// payload, when FactsFor made the Facts, holds the cwd and command, read from it only
	// when a fact needs them.
	payload []byte
	fields  sync.Once

	root     once[string]
	branch   once[string]
	dirty    once[bool]
	commands once[commandFacts]
	pathMu   sync.Mutex
	resolved map[string]resolution
}

// once is a value computed at most once.
type once[T any] struct {
	o   sync.Once
	v   T
	err error
}

func (o *once[T]) get(f func() (T, error)) (T, error) {
	o.o.Do(func() { o.v, o.err = f() })
	return o.v, o.err
}

type resolution struct {
	path string
	err  error
}

type commandFacts struct {
	words [][]string
	known bool
}

// ErrNoProject is returned by the project facts of a Facts without a ProjectDir.
var ErrNoProject = errors.New("hookexec: policy: no project directory for this fire")

// maxLinks bounds the symbolic links one path resolution follows (Linux's ELOOP limit).
const maxLinks = 40

// NewFacts returns the facts of one fire.
func NewFacts(projectDir, cwd, command string) *Facts {
	return &Facts{ProjectDir: projectDir, Cwd: cwd, Command: command}
}

// FactsFor returns the facts of one fire from its payload: the cwd and
// tool_input.command fields ("" when absent or not strings), read only when a fact needs
// them. payload must not change while the Facts is in use.
func FactsFor(projectDir string, payload []byte) *Facts {
	return &Facts{ProjectDir: projectDir, payload: payload}
}

// readPayload fills Cwd and Command from the payload FactsFor was given.
func (f *Facts) readPayload() {
	f.fields.Do(func() {
		if f.payload == nil {
			return
		}
		p := parsers.Get()
		defer parsers.Put(p)
		if v, err := p.ParseBytes(f.payload); err == nil {
			f.Cwd = string(v.GetStringBytes("cwd"))
			f.Command = string(v.GetStringBytes("tool_input", "command"))
		}
	})
}

// parsers parse payloads, for the facts and the CEL variables.
var parsers fastjson.ParserPool

// ProjectRoot is the project directory with its symbolic links resolved.
func (f *Facts) ProjectRoot() (string, error) {
	return f.root.get(func() (string, error) {
		if f.ProjectDir == "" {
			return "", ErrNoProject
		}
		abs, err := filepath.Abs(f.ProjectDir)
		if err != nil {
			return "", fmt.Errorf("hookexec: policy: project directory: %w", err)
		}
		return resolve(abs)
	})
}

// Resolve is where a path lands: made absolute against the cwd, every symbolic link on
// the way resolved (a dangling one to its target, a write through it creates that), ".."
// applied to what it follows, and a part that does not exist yet kept as written.
func (f *Facts) Resolve(p string) (string, error) {
	abs, err := f.absolute(p)
	if err != nil {
		return "", err
	}
	f.pathMu.Lock()
	r, ok := f.resolved[abs]
	f.pathMu.Unlock()
	if ok {
		return r.path, r.err
	}
	r.path, r.err = resolve(abs)
	f.pathMu.Lock()
	if f.resolved == nil {
		f.resolved = map[string]resolution{}
	}
	f.resolved[abs] = r
	f.pathMu.Unlock()
	return r.path, r.err
}

// absolute makes a path absolute against the cwd (or the project directory), without
// cleaning it: "link/.." must reach the resolution as written.
func (f *Facts) absolute(p string) (string, error) {
	if p == "" {
		return "", errors.New("hookexec: policy: empty path")
	}
	if filepath.IsAbs(p) {
		return p, nil
	}
	f.readPayload()
	base := f.Cwd
	if base == "" {
		base = f.ProjectDir
	}
	if !filepath.IsAbs(base) {
		return "", fmt.Errorf("hookexec: policy: relative path %q without an absolute cwd or project directory", p)
	}
	return base + string(filepath.Separator) + p, nil
}

// InsideProject reports whether a path lands inside the project root (or is it), both
// with their symbolic links resolved: a symbolic link inside the project pointing out is
// outside, and a new file in a linked directory is where the link points.
func (f *Facts) InsideProject(p string) (bool, error) {
	root, err := f.ProjectRoot()
	if err != nil {
		return false, err
	}
	r, err := f.Resolve(p)
	if err != nil {
		return false, err
	}
	return within(r, root), nil
}

// within reports whether the clean absolute path p is root or under it.
func within(p, root string) bool {
	if p == root {
		return true
	}
	if !strings.HasSuffix(root, string(filepath.Separator)) {
		root += string(filepath.Separator)
	}
	return strings.HasPrefix(p, root)
}

// IsSymlink reports whether a path (relative to the cwd) is itself a symbolic link,
// dangling or not; a path that does not exist is not one.
func (f *Facts) IsSymlink(p string) (bool, error) {
	abs, err := f.absolute(p)
	if err != nil {
		return false, err
	}
	fi, err := os.Lstat(abs) // with a trailing slash, of what a link points to, as the kernel reads it
	switch {
	case err == nil:
		return fi.Mode()&os.ModeSymlink != 0, nil
	case errors.Is(err, os.ErrNotExist), isNotDir(err):
		return false, nil
	}
	return false, fmt.Errorf("hookexec: policy: %w", err)
}

// resolve resolves the symbolic links of a clean or unclean absolute path component by
// component, as the kernel does: ".." applies to the resolved directory before it, so
// link/.. is the link target's parent. The first part that does not exist ends the
// resolution; the rest is kept, cleaned lexically (a file created there lands there).
func resolve(abs string) (string, error) {
	vol := filepath.VolumeName(abs)
	rest := strings.Split(abs[len(vol):], string(filepath.Separator))
	done := vol + string(filepath.Separator)
	links := 0
	for len(rest) > 0 {
		part := rest[0]
		rest = rest[1:]
		switch part {
		case "", ".":
			continue
		case "..":
			done = filepath.Dir(done)
			continue
		}
		next := filepath.Join(done, part)
		fi, err := os.Lstat(next)
		switch {
		case errors.Is(err, os.ErrNotExist) || isNotDir(err):
			return filepath.Join(append([]string{next}, rest...)...), nil
		case err != nil:
			return "", fmt.Errorf("hookexec: policy: resolving %s: %w", abs, err)
		case fi.Mode()&os.ModeSymlink == 0:
			done = next
			continue
		}
		if links++; links > maxLinks {
			return "", fmt.Errorf("hookexec: policy: resolving %s: too many levels of symbolic links", abs)
		}
		target, err := os.Readlink(next)
		if err != nil {
			return "", fmt.Errorf("hookexec: policy: resolving %s: %w", abs, err)
		}
		if filepath.IsAbs(target) {
			tv := filepath.VolumeName(target)
			done = tv + string(filepath.Separator)
			target = target[len(tv):]
		}
		rest = append(strings.Split(target, string(filepath.Separator)), rest...)
	}
	return done, nil
}

// Commands are the commands the tool call's shell line runs, as the "if" rules' parser
// reads them (match.Commands): one list of words per simple command, in the order the
// parser meets them, a compound line (a; b && c | d, $(e), if, for, functions) giving
// each of its simple commands, and each followed by the commands it makes run (sudo rm
// x gives [sudo rm x] and [rm x]; bash -c 'rm x' gives [bash -c rm x] and [rm x]; /bin/rm
// gives [/bin/rm ...] and [rm ...]). A part of a word only known at run time reads as
// match.Substitution (NUL). Empty for no command or a line that does not parse.
func (f *Facts) Commands() [][]string {
	c, _ := f.commandFacts()
	return c.words
}

// CommandKnown reports whether Commands is everything the line runs: false when the line
// does not parse or runs a command that cannot be known from its text ($CMD, a pipe into
// sh, eval of a substitution, python -c, an alias); a guard should then assume anything.
// A line with no command ("") is known.
func (f *Facts) CommandKnown() bool {
	c, _ := f.commandFacts()
	return c.known
}

func (f *Facts) commandFacts() (commandFacts, error) {
	return f.commands.get(func() (commandFacts, error) {
		f.readPayload()
		if strings.TrimSpace(f.Command) == "" {
			return commandFacts{known: true}, nil
		}
		cmds, known := match.Commands(f.Command)
		out := commandFacts{known: known}
		for _, c := range cmds {
			out.words = append(out.words, c.Words)
		}
		return out, nil
	})
}

// GitBranch is the branch checked out in the git repository holding the project root,
// read from its HEAD without running git: "" outside a repository and for a detached
// HEAD.
func (f *Facts) GitBranch() (string, error) {
	return f.branch.get(func() (string, error) {
		root, err := f.ProjectRoot()
		if err != nil {
			return "", err
		}
		return gitBranch(root)
	})
}

// GitDirty reports whether the git repository holding the project root has changes not
// committed (staged, unstaged or untracked files; ignored files and submodules' own
// changes do not count), by running git status under ctx; false outside a repository.
func (f *Facts) GitDirty(ctx context.Context) (bool, error) {
	return f.dirty.get(func() (bool, error) {
		root, err := f.ProjectRoot()
		if err != nil {
			return false, err
		}
		return gitDirty(ctx, root)
	})
}
