package telemetry

import (
	"context"
	"slices"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/log"
	"go.opentelemetry.io/otel/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"

	"github.com/hookexec/hookexec/core/observe"
)

// export turns one decided fire into its span (with a child span per hook), its metric
// points and its decision record. It runs on the pipeline's worker, never on the fire.

type instruments struct {
	fireDuration, hookDuration                      metric.Float64Histogram
	fires, hookRuns, timeouts, failClosed, restarts metric.Int64Counter
}

// durationBuckets are in seconds, from a persistent hook's round trip to a slow guard.
var durationBuckets = []float64{0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60}

func newInstruments(m metric.Meter, dropped *atomic.Int64) instruments {
	var in instruments
	// A noop meter never fails; the SDK's fails only for an invalid name, and these are
	// constants: the zero instruments would record nothing, so errors are not kept.
	in.fireDuration, _ = m.Float64Histogram(metricFireDuration, metric.WithUnit("s"),
		metric.WithDescription("Duration of a fire: every hook selected, run and decided"), metric.WithExplicitBucketBoundaries(durationBuckets...))
	in.hookDuration, _ = m.Float64Histogram(metricHookDuration, metric.WithUnit("s"),
		metric.WithDescription("Duration of one hook's run within a fire"), metric.WithExplicitBucketBoundaries(durationBuckets...))
	in.fires, _ = m.Int64Counter(metricFires, metric.WithUnit("{fire}"), metric.WithDescription("Fires, by event and decision"))
	in.hookRuns, _ = m.Int64Counter(metricHookRuns, metric.WithUnit("{run}"), metric.WithDescription("Hook runs, by event, hook and decision"))
	in.timeouts, _ = m.Int64Counter(metricTimeouts, metric.WithUnit("{timeout}"), metric.WithDescription("Hook runs that timed out"))
	in.failClosed, _ = m.Int64Counter(metricFailClosed, metric.WithUnit("{block}"),
		metric.WithDescription("Hooks that failed and blocked anyway (onFailure block, fail_closed, a refused value)"))
	in.restarts, _ = m.Int64Counter(metricRestarts, metric.WithUnit("{restart}"), metric.WithDescription("New processes for persistent hooks whose process had died"))
	_, _ = m.Int64ObservableCounter(metricDropped, metric.WithUnit("{fire}"),
		metric.WithDescription("Fires not exported because the telemetry queue was full"),
		metric.WithInt64Callback(func(_ context.Context, o metric.Int64Observer) error {
			o.Observe(dropped.Load())
			return nil
		}))
	return in
}

// traceCarrier holds the caller's W3C trace context for the propagator to read, without
// the map a propagation.MapCarrier would allocate at every fire.
type traceCarrier struct{ parent, state string }

func (c *traceCarrier) Get(key string) string {
	switch key {
	case "traceparent":
		return c.parent
	case "tracestate":
		return c.state
	}
	return ""
}
func (c *traceCarrier) Set(string, string) {}
func (c *traceCarrier) Keys() []string     { return []string{"traceparent", "tracestate"} }

// scratch is the worker's reusable storage: the SDK copies every attribute it is handed
// (span options, SetAttributes, log records, StringSlice values), so one buffer serves every
// fire. Only the worker touches it.
type scratch struct {
	fire, hook     []attribute.KeyValue
	ids, decisions []string
	fireNames      map[string]string // "fire "+event, by event
	hooks          map[hookStatic]*hookAttrs
	carrier        traceCarrier
}

// hookStatic is what a hook's span shares with every other fire of the same hook.
type hookStatic struct {
	event, id, source, typ, exec, matcher string
	line                                  int
}

// hookAttrs are a hook's span name and the attributes that depend only on the hook (and
// the event), built at its first fire and kept (at most maxSets hooks; past that, built
// each time).
type hookAttrs struct {
	name       string
	head, tail []attribute.KeyValue // before and after the per-fire attributes
}

func (s *scratch) hookAttrs(event string, h *observe.Hook) *hookAttrs {
	k := hookStatic{event, h.ID, h.Source, h.Type, h.Exec, h.Matcher, h.Line}
	if a, ok := s.hooks[k]; ok {
		return a
	}
	a := &hookAttrs{name: "execute_hook " + h.ID,
		head: []attribute.KeyValue{keyOperation.String(operationHook), keyEvent.String(event), keyHookID.String(h.ID),
			keyHookType.String(h.Type), keyHookExec.String(h.Exec), keyHookMatcher.String(h.Matcher)},
		tail: []attribute.KeyValue{keyCodeFile.String(h.Source)}}
	if h.Line > 0 {
		a.tail = append(a.tail, keyCodeLine.Int(h.Line))
	}
	if s.hooks == nil {
		s.hooks = map[hookStatic]*hookAttrs{}
	}
	if len(s.hooks) < maxSets {
		s.hooks[k] = a
	}
	return a
}

func (s *scratch) fireName(event string) string {
	if n, ok := s.fireNames[event]; ok {
		return n
	}
	n := "fire " + event
	if s.fireNames == nil {
		s.fireNames = map[string]string{}
	}
	if len(s.fireNames) < maxSets {
		s.fireNames[event] = n
	}
	return n
}

func (p *pipeline) export(f *observe.Fire, content bool) {
	ctx := context.Background()
	if f.TraceParent != "" {
		p.scratch.carrier = traceCarrier{f.TraceParent, f.TraceState}
		ctx = p.prop.Extract(ctx, &p.scratch.carrier)
	}
	direct := p.batches != nil
	traces, logs := p.tp != nil || direct, p.lp != nil
	var fireAttrs []attribute.KeyValue
	if traces || logs {
		fireAttrs = p.fireAttributes(f)
	}
	end := f.Start.Add(f.Duration)
	var sdkSpan trace.Span // the SDK's, or a no-op one
	var fs *span           // the fire's direct span; nil when not direct or not sampled
	switch {
	case direct:
		name := p.scratch.fireName(f.Event)
		sc, sampled := spanContext(ctx, name, fireAttrs)
		if sampled {
			fs = &span{name: name, sc: sc, parent: trace.SpanContextFromContext(ctx), start: f.Start, end: end,
				attrs: p.withContent(fireAttrs, f, content), resource: p.res, scope: p.scope, spanKind: trace.SpanKindInternal}
		}
		ctx = trace.ContextWithSpanContext(ctx, sc)
	case traces:
		ctx, sdkSpan = p.tracer.Start(ctx, p.scratch.fireName(f.Event), trace.WithTimestamp(f.Start), trace.WithSpanKind(trace.SpanKindInternal),
			trace.WithAttributes(fireAttrs...))
		if content {
			sdkSpan.SetAttributes(p.withContent(nil, f, content)...)
		}
	default:
		ctx, sdkSpan = p.tracer.Start(ctx, "") // no-op: the caller's context stays the metrics' and records'
	}
	byEvent := metric.WithAttributeSet(p.sets.fire(f))
	p.inst.fires.Add(ctx, 1, byEvent)
	p.inst.fireDuration.Record(ctx, f.Duration.Seconds(), byEvent)
	ids, decisions := p.scratch.ids[:0], p.scratch.decisions[:0]
	for i := range f.Hooks {
		h := &f.Hooks[i]
		ids, decisions = append(ids, h.ID), append(decisions, h.Decision)
		p.hook(ctx, f, h, content, traces, fs)
	}
	p.scratch.ids, p.scratch.decisions = ids, decisions
	if sdkSpan != nil {
		sdkSpan.End(trace.WithTimestamp(end))
	}
	if fs != nil {
		p.addSpan(fs) // after its hooks' spans, in the order the SDK's spans end
	}
	if !logs {
		return
	}

	var rec log.Record
	rec.SetEventName(logEventName)
	rec.SetTimestamp(end)
	rec.SetSeverity(log.SeverityInfo)
	if f.Blocked {
		rec.SetSeverity(log.SeverityWarn)
	}
	rec.SetSeverityText(rec.Severity().String())
	rec.SetBody(attribute.StringValue(f.Decision))
	rec.AddAttributes(fireAttrs...)
	rec.AddAttributes(keyHookIDs.StringSlice(ids), keyHookDecs.StringSlice(decisions))
	if content {
		rec.AddAttributes(keyReason.String(f.Reason), keyPayload.String(string(f.Payload)))
		if f.UpdatedInput != nil {
			rec.AddAttributes(keyUpdatedInput.String(string(f.UpdatedInput)))
		}
	}
	p.logger.Emit(ctx, rec) // ctx holds the fire's span: the record carries its trace and span ids
}

// withContent appends to a (a copy the span keeps) the fire's content attributes when
// content is on, in the order the SDK path sets them.
func (p *pipeline) withContent(a []attribute.KeyValue, f *observe.Fire, content bool) []attribute.KeyValue {
	a = slices.Clip(a)
	if !content {
		return slices.Clone(a)
	}
	a = append(a, keyPayload.String(string(f.Payload)), keyReason.String(f.Reason))
	if f.StopReason != "" {
		a = append(a, keyStopReason.String(f.StopReason))
	}
	if f.UpdatedInput != nil {
		a = append(a, keyUpdatedInput.String(string(f.UpdatedInput)))
	}
	return a
}

// fireAttributes are the fire's span and record attributes, in the worker's buffer.
func (p *pipeline) fireAttributes(f *observe.Fire) []attribute.KeyValue {
	a := append(p.scratch.fire[:0], keyEvent.String(f.Event), keyProfile.String(f.Profile), keyAgentName.String(f.Profile),
		keyMatched.Int(f.Matched), keyDecision.String(f.Decision), keyBlocked.Bool(f.Blocked), keyContinue.Bool(f.Continue),
		keyWarnings.Int(len(f.Warnings)), keyRewrote.Bool(f.UpdatedInput != nil))
	if f.FiredAs != "" {
		a = append(a, keyFiredAs.String(f.FiredAs))
	}
	if f.SessionID != "" {
		a = append(a, keyConversation.String(f.SessionID))
	}
	if f.SubjectField != "" {
		a = append(a, keySubject.String(f.Subject), keySubjectField.String(f.SubjectField))
		if f.SubjectField == "tool_name" {
			a = append(a, keyToolName.String(f.Subject))
		}
	}
	p.scratch.fire = a
	return a
}

// hook records one hook: its span under the fire's (when traces are on), and its metric
// points.
func (p *pipeline) hook(ctx context.Context, f *observe.Fire, h *observe.Hook, content, traces bool, fs *span) {
	switch {
	case fs != nil:
		p.directHookSpan(ctx, f, h, content, fs)
	case traces && p.batches == nil:
		p.hookSpan(ctx, f, h, content)
	}
	hs := p.sets.hook(f.Event, h)
	byID := metric.WithAttributeSet(hs.byID)
	if h.FailClosed {
		p.inst.failClosed.Add(ctx, 1, byID)
	}
	if !h.Ran {
		return
	}
	byHook := metric.WithAttributeSet(hs.byHook)
	p.inst.hookRuns.Add(ctx, 1, byHook)
	p.inst.hookDuration.Record(ctx, h.Duration.Seconds(), byHook)
	if h.TimedOut {
		p.inst.timeouts.Add(ctx, 1, byID)
	}
	if h.Restarted {
		p.inst.restarts.Add(ctx, 1, metric.WithAttributeSet(hs.id))
	}
}

func (p *pipeline) hookSpan(ctx context.Context, f *observe.Fire, h *observe.Hook, content bool) {
	a, name, start, errType := p.hookAttributes(f, h, content)
	_, span := p.tracer.Start(ctx, name, trace.WithTimestamp(start), trace.WithSpanKind(trace.SpanKindInternal), trace.WithAttributes(a...))
	if errType != "" {
		span.SetStatus(codes.Error, errDescription(h, errType, content))
	}
	span.End(trace.WithTimestamp(start.Add(h.Duration)))
}

// directHookSpan writes the hook's span under the fire's direct span fs (spans.go).
func (p *pipeline) directHookSpan(ctx context.Context, f *observe.Fire, h *observe.Hook, content bool, fs *span) {
	a, name, start, errType := p.hookAttributes(f, h, content)
	fs.children++
	sc, sampled := spanContext(ctx, name, a)
	if !sampled {
		return
	}
	s := &span{name: name, sc: sc, parent: fs.sc, start: start, end: start.Add(h.Duration), attrs: slices.Clone(a),
		resource: p.res, scope: p.scope, spanKind: trace.SpanKindInternal}
	if errType != "" {
		s.status = sdktrace.Status{Code: codes.Error, Description: errDescription(h, errType, content)}
	}
	p.addSpan(s)
}

// errDescription is a failed hook's span status: its error with content on, else its kind.
func errDescription(h *observe.Hook, errType string, content bool) string {
	if content {
		return h.Error
	}
	return errType
}

// hookAttributes are a hook's span attributes (in the worker's buffer), its span name and
// start, and its error.type ("" when it did not fail).
func (p *pipeline) hookAttributes(f *observe.Fire, h *observe.Hook, content bool) (a []attribute.KeyValue, name string, start time.Time, errType string) {
	start = h.Start
	if start.IsZero() {
		start = f.Start // not run: a span of no length where the fire began
	}
	st := p.scratch.hookAttrs(f.Event, h)
	a = append(p.scratch.hook[:0], st.head...)
	a = append(a, keyHookDecision.String(h.Decision),
		keyHookRan.Bool(h.Ran), keyHookAsync.Bool(h.Async), keyHookTimedOut.Bool(h.TimedOut), keyHookTruncated.Bool(h.Truncated),
		keyHookPersistent.Bool(h.Persistent), keyHookFailClosed.Bool(h.FailClosed))
	a = append(a, st.tail...)
	if h.Persistent {
		a = append(a, keyHookWarm.Bool(h.Warm), keyHookRestarted.Bool(h.Restarted))
	}
	if h.Ran && h.ExitCode >= 0 {
		a = append(a, keyExitCode.Int(h.ExitCode))
	}
	if h.Signal != "" {
		a = append(a, keyHookSignal.String(h.Signal))
	}
	switch {
	case h.TimedOut:
		errType = "timeout"
	case h.Error != "" && !h.Async:
		errType = "error"
	}
	if errType != "" {
		a = append(a, keyErrorType.String(errType))
	}
	if content {
		a = append(a, keyHookCommand.String(h.Command))
		if h.Error != "" {
			a = append(a, keyHookError.String(h.Error))
		}
	}
	p.scratch.hook = a
	return a, st.name, start, errType
}

// attrSets keeps the metric attribute sets already built: the same few combinations of event,
// hook and decision recur at every fire, and building a set sorts and allocates. Bounded:
// past maxSets combinations a set is built each time, as without the cache.
type attrSets struct {
	fires map[fireKey]attribute.Set
	hooks map[hookKey]hookSets
}

const maxSets = 4096

type fireKey struct {
	event, profile, decision string
	blocked                  bool
}

type hookKey struct{ event, id, typ, decision string }

type hookSets struct{ byHook, byID, id attribute.Set }

func (a *attrSets) fire(f *observe.Fire) attribute.Set {
	k := fireKey{f.Event, f.Profile, f.Decision, f.Blocked}
	if s, ok := a.fires[k]; ok {
		return s
	}
	s := attribute.NewSet(keyEvent.String(f.Event), keyProfile.String(f.Profile), keyDecision.String(f.Decision), keyBlocked.Bool(f.Blocked))
	if a.fires == nil {
		a.fires = map[fireKey]attribute.Set{}
	}
	if len(a.fires) < maxSets {
		a.fires[k] = s
	}
	return s
}

func (a *attrSets) hook(event string, h *observe.Hook) hookSets {
	k := hookKey{event, h.ID, h.Type, h.Decision}
	if s, ok := a.hooks[k]; ok {
		return s
	}
	s := hookSets{
		byHook: attribute.NewSet(keyEvent.String(event), keyHookID.String(h.ID), keyHookType.String(h.Type), keyHookDecision.String(h.Decision)),
		byID:   attribute.NewSet(keyEvent.String(event), keyHookID.String(h.ID)),
		id:     attribute.NewSet(keyHookID.String(h.ID)),
	}
	if a.hooks == nil {
		a.hooks = map[hookKey]hookSets{}
	}
	if len(a.hooks) < maxSets {
		a.hooks[k] = s
	}
	return s
}
