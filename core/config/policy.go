package config

import (
	"runtime"
	"strings"

	"github.com/hookexec/hookexec/core/dialect"
)

// policy is what Claude Code's managed settings and allowlists decide across files.
type policy struct {
	managed        []managedFile // the managed settings file and the bundle's, as read
	disableAllFrom string        // the non-managed file whose disableAllHooks is in force
	urls           []string      // allowedHttpHookUrls merged over every file
	urlsSet        bool          // some file defines allowedHttpHookUrls
	// untrustedURLs are allowedHttpHookUrls of untrusted files: they narrow untrusted hooks only.
	untrustedURLs    []string
	untrustedURLsSet bool
}

// managedFile is a file read at managed precedence.
type managedFile struct {
	source string
	f      *dialect.File
}

// managedSettingsPath is where Claude Code reads managed policy settings on this platform.
func managedSettingsPath() string {
	switch runtime.GOOS {
	case "darwin":
		return "/Library/Application Support/ClaudeCode/managed-settings.json"
	case "windows":
		return `C:\Program Files\ClaudeCode\managed-settings.json`
	}
	return "/etc/claude-code/managed-settings.json"
}

// policy applies managed settings to the loaded hooks, as the reference says:
//   - allowManagedHooksOnly in managed settings disables every other hook;
//   - disableAllHooks in managed settings disables everything; set anywhere else it
//     disables every hook except the managed ones;
//   - allowedHttpHookUrls, defined in any file, disables http hooks whose url matches
//     none of the merged patterns ("*" matches any run of characters).
//
// What untrusted files (Options.Untrusted) say reaches untrusted hooks only.
func (l *loader) policy() {
	managedOnly, managedDisable := "", false
	for _, mf := range l.pol.managed {
		m := mf.f
		if m.AllowManagedHooksOnly != nil && *m.AllowManagedHooksOnly && managedOnly == "" {
			managedOnly = mf.source
		}
		managedDisable = managedDisable || m.DisableAll != nil && *m.DisableAll
	}
	hasManaged := false
	for i := range l.set.Hooks {
		hasManaged = hasManaged || l.set.Hooks[i].Managed
	}
	for i := range l.set.Hooks {
		if h := &l.set.Hooks[i]; managedOnly != "" && !h.Managed && h.Disabled == "" {
			h.Disabled = "allowManagedHooksOnly is set in managed settings " + managedOnly
		}
	}
	switch {
	case managedDisable:
		l.set.DisableAll = true
	case l.set.DisableAll && hasManaged:
		// Only managed settings can switch managed hooks off: disable the others one by one.
		l.set.DisableAll = false
		for i := range l.set.Hooks {
			if h := &l.set.Hooks[i]; !h.Managed && h.Disabled == "" {
				h.Disabled = "disableAllHooks is true in " + l.pol.disableAllFrom + " (managed hooks still run)"
			}
		}
	}
	if l.untrustedDisableAll != "" {
		for i := range l.set.Hooks {
			if h := &l.set.Hooks[i]; l.distrusts(h) && h.Disabled == "" {
				h.Disabled = "disableAllHooks is true in " + l.untrustedDisableAll + " (a project file awaiting approval: it switches off project hooks only)"
			}
		}
	}
	for i := range l.set.Hooks {
		h := &l.set.Hooks[i]
		allowed := !l.pol.urlsSet || urlAllowed(h.URL, l.pol.urls)
		if l.pol.untrustedURLsSet && l.distrusts(h) {
			allowed = allowed && urlAllowed(h.URL, l.pol.untrustedURLs)
		}
		if h.Type == "http" && !allowed {
			msg := "url " + h.URL + " is not in allowedHttpHookUrls"
			if h.Disabled == "" {
				h.Disabled = msg
			}
			label := h.Name
			if label == "" {
				label = h.Event
			}
			l.set.Warnings = append(l.set.Warnings, Warning{Source: h.Source, Hook: label, Message: msg, Error: true})
		}
	}
}

// urlAllowed matches url against allowedHttpHookUrls patterns, where "*" is any run of
// characters (including "/").
func urlAllowed(url string, patterns []string) bool {
	for _, p := range patterns {
		if starMatch(strings.Split(p, "*"), url) {
			return true
		}
	}
	return false
}

// starMatch matches s against a pattern split at "*" (segs[0] is the literal prefix).
func starMatch(segs []string, s string) bool {
	if len(segs) == 1 {
		return s == segs[0]
	}
	last := segs[len(segs)-1]
	if !strings.HasPrefix(s, segs[0]) || !strings.HasSuffix(s, last) || len(s) < len(segs[0])+len(last) {
		return false
	}
	s = s[len(segs[0]) : len(s)-len(last)]
	for _, seg := range segs[1 : len(segs)-1] {
		i := strings.Index(s, seg)
		if i < 0 {
			return false
		}
		s = s[i+len(seg):]
	}
	return true
}
