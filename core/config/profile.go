package config

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/hookexec/hookexec/core/payload"
)

// Dialect is the shape a configuration file is written in.
type Dialect uint8

const (
	DialectUnknown Dialect = iota
	// DialectClaude: {"hooks": {"Event": [{matcher, hooks: [...]}, or flat {matcher, type, command}]}}.
	// Claude Code, cli-agent and mycode write it.
	DialectClaude
)

func (d Dialect) String() string {
	switch d {
	case DialectClaude:
		return "claude"
	}
	return "unknown"
}

// Location is one place a profile looks for configuration.
type Location struct {
	Path    string
	Dialect Dialect // DialectUnknown means "detect from shape"
	// HooksOnly marks drop-in files that exist only to hold hooks: one without a "hooks"
	// object is a warning rather than an empty settings file.
	HooksOnly bool
}

// Profile says where a host keeps its hooks and which defaults apply to them.
type Profile struct {
	Name string
	// TimeoutUnit is what a bare number in a "timeout" field means.
	TimeoutUnit    time.Duration
	DefaultTimeout time.Duration
	// Sequential runs the hooks of one fire one after another instead of in parallel.
	Sequential bool
	// StopAtFirstBlock skips the remaining hooks of a fire once one blocks (sequential only).
	StopAtFirstBlock bool
	// Envelope is the set of fields put around the payload on a hook's stdin.
	Envelope  payload.Envelope
	locations func(project, home string) []Location
}

// Locations lists where the profile looks, highest precedence first.
func (p *Profile) Locations(project, home string) []Location { return p.locations(project, home) }

var profiles = map[string]*Profile{
	"cli-agent": {
		Name: "cli-agent", TimeoutUnit: time.Second, DefaultTimeout: 30 * time.Second,
		locations: func(project, home string) []Location {
			locs := claudeFiles(
				filepath.Join(project, ".config/agent/settings.local.json"),
				filepath.Join(project, ".config/agent/settings.json"),
				filepath.Join(home, ".config/agent/settings.json"),
				filepath.Join(home, ".config/cli-agent/settings.json"),
			)
			// Drop-in files: one hook set per file, applied in name order after the rest.
			matches, _ := filepath.Glob(filepath.Join(home, ".config/agent/hooks/*.json"))
			sort.Strings(matches)
			for _, m := range matches {
				locs = append(locs, Location{Path: m, Dialect: DialectClaude, HooksOnly: true})
			}
			return locs
		},
	},
	"claude": {
		Name: "claude", TimeoutUnit: time.Second, DefaultTimeout: 600 * time.Second,
		locations: func(project, home string) []Location {
			return claudeFiles(
				filepath.Join(project, ".claude/settings.local.json"),
				filepath.Join(project, ".claude/settings.json"),
				filepath.Join(home, ".claude/settings.json"),
			)
		},
	},
}

func claudeFiles(paths ...string) []Location {
	out := make([]Location, len(paths))
	for i, p := range paths {
		out[i] = Location{Path: p, Dialect: DialectClaude}
	}
	return out
}

// LookupProfile returns the named profile; "" is "cli-agent".
func LookupProfile(name string) (*Profile, error) {
	if name == "" {
		name = "cli-agent"
	}
	if p, ok := profiles[name]; ok {
		return p, nil
	}
	return nil, fmt.Errorf("%w %q (known: %s)", ErrUnknownProfile, name, strings.Join(ProfileNames(), ", "))
}

// ProfileNames lists the known profiles, sorted.
func ProfileNames() []string {
	out := make([]string, 0, len(profiles))
	for n := range profiles {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}
