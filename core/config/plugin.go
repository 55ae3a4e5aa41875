package config

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"

	"github.com/hookexec/hookexec/core/dialect"
)

// plugin is one Claude Code plugin directory whose hooks/hooks.json is loaded.
type plugin struct {
	name string // .claude-plugin/plugin.json's "name", else the directory's name
	root string // ${CLAUDE_PLUGIN_ROOT}: the plugin's directory
	data string // ${CLAUDE_PLUGIN_DATA}: its persistent data directory
}

// loadPlugin reads dir/hooks/hooks.json in Claude Code's dialect. Its hooks are tagged
// with the plugin; ${CLAUDE_PLUGIN_ROOT} and ${CLAUDE_PLUGIN_DATA} are substituted into
// exec-form commands and exported to every hook of the plugin (compile and Env).
func (l *loader) loadPlugin(dir string) {
	p := &plugin{name: filepath.Base(dir), root: dir}
	if data, err := os.ReadFile(filepath.Join(dir, ".claude-plugin", "plugin.json")); err == nil {
		var manifest struct {
			Name string `json:"name"`
		}
		if json.Unmarshal(data, &manifest) == nil && strings.TrimSpace(manifest.Name) != "" {
			p.name = manifest.Name
		}
	}
	// Claude Code keeps a plugin's data under ~/.claude/plugins/data/<id>; it survives updates.
	p.data = filepath.Join(l.home, ".claude", "plugins", "data", safeName(p.name))
	path := filepath.Join(dir, "hooks", "hooks.json")
	data, err := os.ReadFile(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		l.set.Sources = append(l.set.Sources, SourceInfo{Path: path, Status: "missing"})
		if _, statErr := os.Stat(dir); statErr != nil {
			l.warn(dir, "", "plugin directory: %v", statErr)
		}
		return
	case err != nil:
		l.set.Sources = append(l.set.Sources, SourceInfo{Path: path, Status: "error"})
		l.fail(path, "", "cannot read: %v", err)
		return
	}
	if err := os.MkdirAll(p.data, 0o755); err != nil {
		l.warn(path, "", "plugin data directory %s: %v", p.data, err)
	}
	l.loadBytesOf(path, data, dialect.Claude, p)
}

// safeName keeps a plugin name usable as one path element.
func safeName(name string) string {
	return strings.Map(func(r rune) rune {
		if r == '/' || r == '\\' || r == 0 {
			return '-'
		}
		return r
	}, name)
}

// pluginVars are the path placeholders of the reference, with the value each takes for h.
func pluginVars(h *Hook, project string) []string {
	return []string{"${CLAUDE_PROJECT_DIR}", project, "${CLAUDE_PLUGIN_ROOT}", h.PluginRoot, "${CLAUDE_PLUGIN_DATA}", h.PluginData}
}

// substitutePaths puts the path placeholders into exec-form args as plain strings (there
// is no shell to expand them); a plugin placeholder of a hook outside any plugin stays.
func substitutePaths(h *Hook, project string) []string {
	vars := pluginVars(h, project)
	out := make([]string, len(h.Args))
	for i, a := range h.Args {
		for j := 0; j < len(vars); j += 2 {
			if vars[j+1] != "" {
				a = strings.ReplaceAll(a, vars[j], vars[j+1])
			}
		}
		out[i] = a
	}
	return out
}
