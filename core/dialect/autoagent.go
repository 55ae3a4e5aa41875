package dialect

import (
	"time"

	"github.com/valyala/fastjson"

	"github.com/hookexec/hookexec/core/event"
	"github.com/hookexec/hookexec/core/payload"
)

// AutoAgent is .autoagent/config.json (seed 000): flat hooks keyed by Pre*/Post* lifecycle
// event, timeouts in ms (default 60 s), the git-commit and git-push built-ins, an
// eventName/sessionId/workspace/timestamp envelope, and hooks run one after another, the
// fire stopping at the first block.
var AutoAgent = &Dialect{
	Name:        "autoagent",
	Unit:        time.Millisecond,
	Timeout:     60 * time.Second,
	Envelope:    payload.AutoAgent,
	Sequential:  true,
	StopOnBlock: true,
	Templates:   true,
	Types:       []string{"git-commit", "git-push"},
	Detect:      func(path string, v *fastjson.Value) bool { return claudeShaped(v) && looksAutoAgent(path, v) },
	Load:        loadClaudeShape,
}

// autoAgentKeys are top-level settings only AutoAgent's config.json has.
var autoAgentKeys = []string{"providers", "failoverDelay", "retryAttempts", "rateLimitCooldown", "gitAutoCommit", "gitAutoPush"}

func looksAutoAgent(path string, v *fastjson.Value) bool {
	if inDir(path, ".autoagent") {
		return true
	}
	for _, k := range autoAgentKeys {
		if v.Exists(k) {
			return true
		}
	}
	return anyHandler(v.Get("hooks"), func(ev string, h *fastjson.Value, flat bool) bool {
		if t := string(h.GetStringBytes("type")); t == "git-commit" || t == "git-push" {
			return true
		}
		// A flat hook under an AutoAgent lifecycle name (PreExecutionStart, ...).
		return flat && !event.Lookup(ev).Known && event.LooksOpenEnded(ev)
	})
}
