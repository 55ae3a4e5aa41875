package engine

import (
	"github.com/hookexec/hookexec/core/telemetry"
)

// Telemetry: with Options.Telemetry enabled, or $HOOKEXEC_TELEMETRY=1 in the engine's
// environment (the calling agent's, in the daemon), the engine gets an OpenTelemetry sink
// (core/telemetry) among its Sinks. Off, it has none and a fire pays nothing for it.

// TelemetryEnv is the Source of Check's warning when telemetry was asked for by the
// environment and cannot be used.
const TelemetryEnv = telemetry.EnvEnable

// openTelemetry adds the telemetry sink when it is on. A setting of the environment that
// cannot be used is a warning (the hooks still run); the option's own errors fail Open
// (ParseOptions and Open validate them first).
func (e *Engine) openTelemetry() string {
	c, err := telemetry.Resolve(e.opts.Telemetry, e.getenv())
	if err != nil {
		return err.Error() + "; telemetry is off"
	}
	if c == nil {
		return ""
	}
	s, err := telemetry.New(c)
	if err != nil {
		return "telemetry: " + err.Error() + "; telemetry is off"
	}
	e.sinks = append(e.sinks, s)
	return ""
}
