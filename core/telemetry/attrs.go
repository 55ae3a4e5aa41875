package telemetry

import "go.opentelemetry.io/otel/attribute"

// The attribute names hookexec exports, in one place: docs/observability.md has them in a
// table. OpenTelemetry's names (gen_ai.*, code.*, process.*, error.type) are used where
// one means the same thing; the rest are hookexec.*.
const (
	// GenAI semantic conventions. A hook span's operation is execute_hook, as VS Code's
	// Copilot Chat names its hook spans.
	keyOperation    = attribute.Key("gen_ai.operation.name")
	keyAgentName    = attribute.Key("gen_ai.agent.name")      // the engine's profile: claude, codex, ...
	keyConversation = attribute.Key("gen_ai.conversation.id") // the session id
	keyToolName     = attribute.Key("gen_ai.tool.name")       // tool events: the tool
	operationHook   = "execute_hook"

	keyCodeFile  = attribute.Key("code.file.path")   // the hook's source file
	keyCodeLine  = attribute.Key("code.line.number") // its line
	keyExitCode  = attribute.Key("process.exit.code")
	keyErrorType = attribute.Key("error.type") // timeout, error

	keyEvent        = attribute.Key("hookexec.event")
	keyFiredAs      = attribute.Key("hookexec.event.fired_as")
	keyProfile      = attribute.Key("hookexec.profile")
	keySubject      = attribute.Key("hookexec.subject")
	keySubjectField = attribute.Key("hookexec.subject.field")
	keyMatched      = attribute.Key("hookexec.matched")
	keyDecision     = attribute.Key("hookexec.decision")
	keyBlocked      = attribute.Key("hookexec.blocked")
	keyContinue     = attribute.Key("hookexec.continue")
	keyWarnings     = attribute.Key("hookexec.warnings")
	keyRewrote      = attribute.Key("hookexec.input_rewritten")
	keyHookIDs      = attribute.Key("hookexec.hook.ids") // logs: the hooks of the fire
	keyHookDecs     = attribute.Key("hookexec.hook.decisions")

	keyHookID         = attribute.Key("hookexec.hook.id")
	keyHookType       = attribute.Key("hookexec.hook.type")
	keyHookExec       = attribute.Key("hookexec.hook.exec")
	keyHookMatcher    = attribute.Key("hookexec.hook.matcher")
	keyHookDecision   = attribute.Key("hookexec.hook.decision")
	keyHookRan        = attribute.Key("hookexec.hook.ran")
	keyHookAsync      = attribute.Key("hookexec.hook.async")
	keyHookSignal     = attribute.Key("hookexec.hook.signal")
	keyHookTimedOut   = attribute.Key("hookexec.hook.timed_out")
	keyHookTruncated  = attribute.Key("hookexec.hook.truncated")
	keyHookPersistent = attribute.Key("hookexec.hook.persistent")
	keyHookWarm       = attribute.Key("hookexec.hook.warm")
	keyHookFailClosed = attribute.Key("hookexec.hook.fail_closed")
	keyHookRestarted  = attribute.Key("hookexec.hook.restarted")

	// Content: only with log_content / HOOKEXEC_TELEMETRY_CONTENT.
	keyReason       = attribute.Key("hookexec.reason")
	keyStopReason   = attribute.Key("hookexec.stop_reason")
	keyPayload      = attribute.Key("hookexec.payload")
	keyUpdatedInput = attribute.Key("hookexec.updated_input")
	keyHookCommand  = attribute.Key("hookexec.hook.command")
	keyHookError    = attribute.Key("hookexec.hook.error")
)

// Metric names.
const (
	metricFireDuration = "hookexec.fire.duration"
	metricFires        = "hookexec.fires"
	metricHookDuration = "hookexec.hook.duration"
	metricHookRuns     = "hookexec.hook.runs"
	metricTimeouts     = "hookexec.hook.timeouts"
	metricFailClosed   = "hookexec.hook.fail_closed"
	metricRestarts     = "hookexec.hook.restarts"
	metricDropped      = "hookexec.telemetry.dropped"
)

// logEventName is the event name of the decision records.
const logEventName = "hookexec.decision"
