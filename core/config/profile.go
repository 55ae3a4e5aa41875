package config

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/hookexec/hookexec/core/dialect"
)

// Location is one place a profile looks for configuration.
type Location struct {
	Path    string
	Dialect *dialect.Dialect // nil means "detect from shape"
	// HooksOnly marks drop-in files that exist only to hold hooks: one without a "hooks"
	// object is a warning rather than an empty settings file.
	HooksOnly bool
}

// Profile says where a host keeps its hooks and which defaults apply to them. How a file is
// read (units, envelope, ordering) belongs to its Dialect; the profile only adds where the
// files are and the default timeout of Claude-shaped files.
type Profile struct {
	Name string
	// Dialect is the shape the profile's own files are written in.
	Dialect *dialect.Dialect
	// Inline is the dialect of inline config that is Claude-shaped; nil: as detected.
	Inline *dialect.Dialect
	// DefaultTimeout applies to Claude-shaped hooks that set none; the other dialects
	// carry their own default.
	DefaultTimeout time.Duration
	// Managed returns the managed policy settings file read before everything else; nil: none.
	Managed func() string
	// OutputCap is the per-stream output cap in bytes when the host sets none (0: engine default).
	OutputCap int
	locations func(project, home string, getenv func(string) string) []Location
	// file is the project-level file a new configuration of the profile goes in (relative
	// to the project; "~/" for the home directory).
	file string
}

// File is where a new configuration of the profile is written: its project-level file
// (autohand's is in the home directory), whether or not it exists.
func (p *Profile) File(project, home string) string {
	if rest, ok := strings.CutPrefix(p.file, "~/"); ok {
		return filepath.Join(home, rest)
	}
	return filepath.Join(project, p.file)
}

// Locations lists where the profile looks, highest precedence first. getenv reads the
// environment of the host the configuration is for (Gemini CLI's and Qwen Code's system
// settings overrides); nil means this process's (os.Getenv).
func (p *Profile) Locations(project, home string, getenv func(string) string) []Location {
	if getenv == nil {
		getenv = os.Getenv
	}
	return p.locations(project, home, getenv)
}

var profiles = map[string]*Profile{
	"cli-agent": {
		Name: "cli-agent", file: ".config/agent/settings.json", Dialect: dialect.CliAgent, Inline: dialect.CliAgent, DefaultTimeout: 30 * time.Second,
		locations: func(project, home string, getenv func(string) string) []Location {
			locs := files(dialect.CliAgent,
				filepath.Join(project, ".config/agent/settings.local.json"),
				filepath.Join(project, ".config/agent/settings.json"),
				filepath.Join(home, ".config/agent/settings.json"),
				filepath.Join(home, ".config/cli-agent/settings.json"),
			)
			// Drop-in files: one hook set per file, applied in name order after the rest.
			matches, _ := filepath.Glob(filepath.Join(home, ".config/agent/hooks/*.json"))
			sort.Strings(matches)
			for _, m := range matches {
				locs = append(locs, Location{Path: m, Dialect: dialect.CliAgent, HooksOnly: true})
			}
			return locs
		},
	},
	"claude": {
		Name: "claude", file: ".claude/settings.json", Dialect: dialect.Claude, DefaultTimeout: 600 * time.Second, Managed: managedSettingsPath,
		locations: func(project, home string, getenv func(string) string) []Location {
			return files(dialect.Claude,
				filepath.Join(project, ".claude/settings.local.json"),
				filepath.Join(project, ".claude/settings.json"),
				filepath.Join(home, ".claude/settings.json"),
			)
		},
	},
	// mycode (GenCode) reads .gen over .claude at each level and concatenates the hook lists;
	// .mycode/settings.json is where its first design put them.
	"mycode": {
		Name: "mycode", file: ".gen/settings.json", Dialect: dialect.Mycode, DefaultTimeout: 60 * time.Second, OutputCap: 30 << 10,
		locations: func(project, home string, getenv func(string) string) []Location {
			var locs []Location
			for _, dir := range []string{project, home} {
				locs = append(locs, files(dialect.Mycode,
					filepath.Join(dir, ".gen/settings.local.json"),
					filepath.Join(dir, ".gen/settings.json"),
					filepath.Join(dir, ".mycode/settings.json"),
					filepath.Join(dir, ".claude/settings.local.json"),
					filepath.Join(dir, ".claude/settings.json"),
				)...)
			}
			return locs
		},
	},
	"autohand": {
		Name: "autohand", file: "~/.autohand/config.json", Dialect: dialect.Autohand, DefaultTimeout: 5 * time.Second,
		locations: func(project, home string, getenv func(string) string) []Location {
			return files(dialect.Autohand, filepath.Join(home, ".autohand/config.json"))
		},
	},
	"autoagent": {
		Name: "autoagent", file: ".autoagent/config.json", Dialect: dialect.AutoAgent, DefaultTimeout: 60 * time.Second,
		locations: func(project, home string, getenv func(string) string) []Location {
			return files(dialect.AutoAgent,
				filepath.Join(project, ".autoagent/config.json"),
				filepath.Join(home, ".autoagent/config.json"),
			)
		},
	},
	// Gemini CLI: the system settings override everything, then the project's settings over
	// the user's (packages/core/src/hooks/hookRegistry getSourcePriority), then the system
	// defaults (packages/cli/src/config/settings.ts mergeSettings; each file's hook lists are
	// concatenated). The system files' places: GEMINI_CLI_SYSTEM_SETTINGS_PATH and
	// GEMINI_CLI_SYSTEM_DEFAULTS_PATH, else the platform's (getSystemSettingsPath).
	"gemini": {
		Name: "gemini", file: ".gemini/settings.json", Dialect: dialect.Gemini, Inline: dialect.Gemini, DefaultTimeout: 60 * time.Second,
		locations: func(project, home string, getenv func(string) string) []Location {
			system, defaults := systemSettings(getenv, "GEMINI_CLI", "gemini-cli", "GeminiCli")
			return files(dialect.Gemini,
				system,
				filepath.Join(project, ".gemini/settings.json"),
				filepath.Join(home, ".gemini/settings.json"),
				defaults,
			)
		},
	},
	// Codex: each config layer (project .codex, then CODEX_HOME, ~/.codex) may hold hooks.json
	// and [hooks] in config.toml; Codex loads both, warning when one layer has both.
	"codex": {
		Name: "codex", file: ".codex/hooks.json", Dialect: dialect.Codex, Inline: dialect.Codex, DefaultTimeout: 600 * time.Second,
		locations: func(project, home string, getenv func(string) string) []Location {
			return files(dialect.Codex,
				filepath.Join(project, ".codex/hooks.json"),
				filepath.Join(project, ".codex/config.toml"),
				filepath.Join(home, ".codex/hooks.json"),
				filepath.Join(home, ".codex/config.toml"),
			)
		},
	},
	// Qwen Code: project settings over the user's (Claude Code's layout under .qwen), then the
	// system's: its system settings and system defaults are one "system" source, ranked
	// below the user's (hookRegistry getSourcePriority, settings getSystemHooks). Their
	// places: QWEN_CODE_SYSTEM_SETTINGS_PATH and QWEN_CODE_SYSTEM_DEFAULTS_PATH, else the
	// platform's (getSystemSettingsPath).
	"qwen": {
		Name: "qwen", file: ".qwen/settings.json", Dialect: dialect.Qwen, Inline: dialect.Qwen, DefaultTimeout: 60 * time.Second,
		locations: func(project, home string, getenv func(string) string) []Location {
			system, defaults := systemSettings(getenv, "QWEN_CODE", "qwen-code", "QwenCode")
			return files(dialect.Qwen,
				filepath.Join(project, ".qwen/settings.json"),
				filepath.Join(home, ".qwen/settings.json"),
				system,
				defaults,
			)
		},
	},
	"iteratr": {
		Name: "iteratr", file: ".iteratr.hooks.yml", Dialect: dialect.Iteratr, DefaultTimeout: 30 * time.Second,
		locations: func(project, home string, getenv func(string) string) []Location {
			return files(dialect.Iteratr, filepath.Join(project, ".iteratr.hooks.yml"))
		},
	},
}

func init() {
	for _, p := range agentProfiles {
		profiles[p.Name] = p
	}
}

// agentProfiles are the profiles of the agents hookexec reads besides Claude Code and the
// seeds, each named as the agent's command. Locations are highest precedence first.
var agentProfiles = []*Profile{
	// Cursor: project hooks, then the user's; enterprise hooks (/etc/cursor) are managed.
	{Name: "cursor", file: ".cursor/hooks.json", Dialect: dialect.Cursor, DefaultTimeout: 60 * time.Second,
		locations: func(project, home string, getenv func(string) string) []Location {
			return files(dialect.Cursor,
				"/etc/cursor/hooks.json",
				filepath.Join(project, ".cursor/hooks.json"),
				filepath.Join(home, ".cursor/hooks.json"))
		}},
	// Copilot CLI 1.0.102 (tests/live/copilot two_files_*, copilot_home_*): the user's
	// $COPILOT_HOME/hooks/*.json (~/.copilot when COPILOT_HOME is unset; only one of the
	// two is read), then every .github/hooks/*.json of the repository, each directory in
	// reverse name order: the order the binary runs their hooks in.
	{Name: "copilot", file: ".github/hooks/hooks.json", Dialect: dialect.Copilot, DefaultTimeout: 30 * time.Second,
		locations: func(project, home string, getenv func(string) string) []Location {
			user := getenv("COPILOT_HOME")
			if user == "" {
				user = filepath.Join(home, ".copilot")
			}
			locs := append(glob(dialect.Copilot, filepath.Join(project, ".github/hooks/*.json")),
				glob(dialect.Copilot, filepath.Join(user, "hooks/*.json"))...)
			slices.Reverse(locs)
			return locs
		}},
	// Windsurf runs system, then user, then workspace hooks.
	{Name: "windsurf", file: ".windsurf/hooks.json", Dialect: dialect.Windsurf, DefaultTimeout: 60 * time.Second,
		locations: func(project, home string, getenv func(string) string) []Location {
			return files(dialect.Windsurf,
				"/etc/windsurf/hooks.json",
				filepath.Join(home, ".codeium/windsurf/hooks.json"),
				filepath.Join(project, ".windsurf/hooks.json"))
		}},
	// Factory Droid (droid 0.225.2, tests/live/droid): per folder, project first, hooks.json
	// (else the legacy hooks/hooks.json) and the "hooks" of settings.json, the hooks file's
	// events replacing settings.json's (dialect.Factory); settings.local.json holds no hooks.
	{Name: "factory", file: ".factory/settings.json", Dialect: dialect.Factory, DefaultTimeout: 60 * time.Second,
		locations: func(project, home string, getenv func(string) string) []Location {
			var paths []string
			for _, dir := range []string{filepath.Join(project, ".factory"), filepath.Join(home, ".factory")} {
				hooks := filepath.Join(dir, "hooks.json")
				if _, err := os.Stat(hooks); err != nil {
					hooks = filepath.Join(dir, "hooks", "hooks.json")
				}
				paths = append(paths, hooks, filepath.Join(dir, "settings.json"))
			}
			return files(dialect.Factory, paths...)
		}},
	// Augment's auggie (0.36.0, tests/live/auggie): ~/.augment/settings.json, then the
	// workspace's .augment/settings.local.json and .augment/settings.json, merged per event
	// (dialect.Auggie).
	{Name: "auggie", file: ".augment/settings.json", Dialect: dialect.Auggie, DefaultTimeout: 60 * time.Second,
		locations: func(project, home string, getenv func(string) string) []Location {
			return files(dialect.Auggie,
				filepath.Join(home, ".augment/settings.json"),
				filepath.Join(project, ".augment/settings.local.json"),
				filepath.Join(project, ".augment/settings.json"))
		}},
	// Kiro: one hook per file in the workspace's .kiro/hooks (*.kiro.hook, *.json).
	{Name: "kiro", file: ".kiro/hooks/hook.kiro.hook", Dialect: dialect.Kiro, DefaultTimeout: 60 * time.Second,
		locations: func(project, home string, getenv func(string) string) []Location {
			return append(glob(dialect.Kiro, filepath.Join(project, ".kiro/hooks/*.kiro.hook")),
				glob(dialect.Kiro, filepath.Join(project, ".kiro/hooks/*.json"))...)
		}},
	// Cline: one file per event, named after it (any case, an extension or none), in
	// ~/Documents/Cline/Hooks, $CLINE_DIR/hooks (default ~/.cline/hooks), and the project's
	// .clinerules/hooks and .cline/hooks; Cline runs them all, ordered by path.
	{Name: "cline", file: ".clinerules/hooks/PreToolUse", Dialect: dialect.Cline, DefaultTimeout: 120 * time.Second,
		locations: func(project, home string, getenv func(string) string) []Location {
			clineDir := filepath.Join(home, ".cline")
			if d := strings.TrimSpace(getenv("CLINE_DIR")); d != "" {
				clineDir = d
			}
			var locs []Location
			for _, dir := range []string{filepath.Join(home, "Documents/Cline/Hooks"), filepath.Join(clineDir, "hooks"),
				filepath.Join(project, ".clinerules/hooks"), filepath.Join(project, ".cline/hooks")} {
				entries, err := os.ReadDir(dir)
				if err != nil {
					continue
				}
				for _, e := range entries {
					if _, ok := dialect.ClineEvent(e.Name()); ok && e.Type().IsRegular() {
						locs = append(locs, Location{Path: filepath.Join(dir, e.Name()), Dialect: dialect.Cline})
					}
				}
			}
			slices.SortStableFunc(locs, func(a, b Location) int { return strings.Compare(a.Path, b.Path) })
			return slices.CompactFunc(locs, func(a, b Location) bool { return a.Path == b.Path })
		}},
	// Crush: the project's .crush.json, then its crush.json, then the user's crush.json
	// ($XDG_CONFIG_HOME/crush, else ~/.config/crush); hooks of every file run, project
	// first (docs/agents/crush.md).
	{Name: "crush", file: ".crush.json", Dialect: dialect.Crush, DefaultTimeout: 30 * time.Second,
		locations: func(project, home string, getenv func(string) string) []Location {
			user := filepath.Join(home, ".config/crush/crush.json")
			if x := getenv("XDG_CONFIG_HOME"); x != "" {
				user = filepath.Join(x, "crush/crush.json")
			}
			return files(dialect.Crush,
				filepath.Join(project, ".crush.json"),
				filepath.Join(project, "crush.json"),
				user)
		}},
	// opencode runs no command hooks: hookexec's plugin (hookexec install --agent opencode)
	// sends its tool calls to the dispatcher, which runs the hooks of the project's
	// .opencode/hooks.json, then of the user's ~/.config/opencode/hooks.json (core/native).
	{Name: "opencode", file: ".opencode/hooks.json", Dialect: dialect.Opencode, DefaultTimeout: 60 * time.Second,
		locations: func(project, home string, getenv func(string) string) []Location {
			return files(dialect.Opencode,
				filepath.Join(project, ".opencode/hooks.json"),
				filepath.Join(home, ".config/opencode/hooks.json"))
		}},
	// Kilo Code, opencode's fork: the same plugin and hooks file, in .kilo/hooks.json of the
	// project, then the user's ~/.config/kilo/hooks.json.
	{Name: "kilo", file: ".kilo/hooks.json", Dialect: dialect.Opencode, DefaultTimeout: 60 * time.Second,
		locations: func(project, home string, getenv func(string) string) []Location {
			return files(dialect.Opencode,
				filepath.Join(project, ".kilo/hooks.json"),
				filepath.Join(home, ".config/kilo/hooks.json"))
		}},
	// Antigravity CLI: hooks.json of the project's customization roots (.agents, .agent,
	// _agents, _agent), then the global one, ~/.gemini/config/hooks.json.
	{Name: "antigravity", file: ".agents/hooks.json", Dialect: dialect.Antigravity, DefaultTimeout: 30 * time.Second,
		locations: func(project, home string, getenv func(string) string) []Location {
			return files(dialect.Antigravity,
				filepath.Join(project, ".agents/hooks.json"),
				filepath.Join(project, ".agent/hooks.json"),
				filepath.Join(project, "_agents/hooks.json"),
				filepath.Join(project, "_agent/hooks.json"),
				filepath.Join(home, ".gemini/config/hooks.json"))
		}},
}

// systemSettings is where Gemini CLI (or its fork Qwen Code) keeps the system settings and
// system defaults files: $<PREFIX>_SYSTEM_SETTINGS_PATH, else /etc/<dir>/settings.json
// (/Library/Application Support/<mac>/ on macOS, C:\ProgramData\<dir>\ on Windows);
// the defaults are $<PREFIX>_SYSTEM_DEFAULTS_PATH, else system-defaults.json beside it. The
// variables are the agent's, read with getenv from the environment the configuration is
// loaded for: the daemon's own environment is empty, not the calling agent's.
func systemSettings(getenv func(string) string, prefix, dir, mac string) (settings, defaults string) {
	settings = getenv(prefix + "_SYSTEM_SETTINGS_PATH")
	if settings == "" {
		switch runtime.GOOS {
		case "darwin":
			settings = filepath.Join("/Library/Application Support", mac, "settings.json")
		case "windows":
			settings = filepath.Join(`C:\ProgramData`, dir, "settings.json")
		default:
			settings = filepath.Join("/etc", dir, "settings.json")
		}
	}
	defaults = getenv(prefix + "_SYSTEM_DEFAULTS_PATH")
	if defaults == "" {
		defaults = filepath.Join(filepath.Dir(settings), "system-defaults.json")
	}
	return settings, defaults
}

// glob lists the files matching pattern in name order, as locations of dialect d.
func glob(d *dialect.Dialect, pattern string) []Location {
	matches, _ := filepath.Glob(pattern)
	sort.Strings(matches)
	return files(d, matches...)
}

func files(d *dialect.Dialect, paths ...string) []Location {
	out := make([]Location, len(paths))
	for i, p := range paths {
		out[i] = Location{Path: p, Dialect: d}
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
