package telemetry_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hookexec/hookexec/core/dispatch"
	"github.com/hookexec/hookexec/core/engine"
	"github.com/hookexec/hookexec/core/telemetry"
	"github.com/hookexec/hookexec/tests/otelcoltest"
)

// The real OpenTelemetry Collector (tests/otelcoltest) receives what engines export: the
// proof that spans, metrics and logs arrive over gRPC and HTTP with the agent's trace as
// their parent, and that a collector that is down, slow or refusing changes no decision and
// no fire's time.

const (
	agentTrace  = "4bf92f3577b34da6a3ce929d0e0e4736"
	agentSpan   = "00f067aa0ba902b7"
	traceParent = "00-" + agentTrace + "-" + agentSpan + "-01"
)

// guardConfig: a PreToolUse guard on Bash that allows, and one that denies.
const guardConfig = `{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[
	{"type":"command","command":"exit 0"},
	{"type":"command","command":"echo 'no rm' >&2; exit 2"}]}]}}`

const bashPayload = `{"session_id":"s1","tool_name":"Bash","tool_input":{"command":"rm -rf /"}}`

func yes() *bool { b := true; return &b }

func openEngine(t *testing.T, o engine.Options) *engine.Engine {
	t.Helper()
	dir := t.TempDir()
	o.Profile, o.ProjectDir, o.Home, o.Sources = "claude", dir, dir, []string{}
	if o.Config == nil {
		o.Config = json.RawMessage(guardConfig)
	}
	e, err := engine.Open(o)
	require.NoError(t, err)
	return e
}

func envMap(kv ...[]string) map[string]string {
	m := map[string]string{}
	for _, list := range kv {
		for _, s := range list {
			k, v, _ := strings.Cut(s, "=")
			m[k] = v
		}
	}
	return m
}

func TestCollectorReceivesEveryFire(t *testing.T) {
	for _, proto := range []otelcoltest.Protocol{otelcoltest.GRPC, otelcoltest.HTTP} {
		for _, route := range []string{"option", "environment"} {
			t.Run(string(proto)+" by "+route, func(t *testing.T) {
				c := otelcoltest.Start(t)
				service := fmt.Sprintf("hookexec-test-%s-%s", proto, route)
				o := engine.Options{Env: map[string]string{"TRACEPARENT": traceParent, "TRACESTATE": "vendor=agent"}}
				if route == "option" {
					o.Telemetry = &telemetry.Options{Enabled: yes(), Endpoint: c.Addr(proto).URL(), Protocol: string(proto), ServiceName: service}
				} else {
					o.Env = envMap(c.Env(proto), []string{"HOOKEXEC_TELEMETRY=1", "OTEL_SERVICE_NAME=" + service,
						"OTEL_RESOURCE_ATTRIBUTES=team=hooks", "TRACEPARENT=" + traceParent, "TRACESTATE=vendor=agent"})
				}
				e := openEngine(t, o)
				res, err := e.Fire("PreToolUse", []byte(bashPayload))
				require.NoError(t, err)
				require.True(t, res.Blocked)
				require.NoError(t, e.Close()) // flushes: the last engine of the pipeline

				spans := c.WaitSpans(t, func(s []otelcoltest.Span) bool { return len(s) >= 3 })
				fires := otelcoltest.SpanNamed(spans, "fire PreToolUse")
				require.Len(t, fires, 1)
				fire := fires[0]
				assert.Equal(t, agentTrace, fire.TraceID, "the agent's trace")
				assert.Equal(t, agentSpan, fire.ParentSpanID, "inside the agent's tool span")
				assert.Equal(t, "vendor=agent", fire.TraceState)
				assert.Equal(t, service, fire.Resource["service.name"])
				if route == "environment" {
					assert.Equal(t, "hooks", fire.Resource["team"])
				}
				assert.Equal(t, "deny", fire.Attributes["hookexec.decision"])
				assert.Equal(t, true, fire.Attributes["hookexec.blocked"])
				assert.Equal(t, int64(2), fire.Attributes["hookexec.matched"])
				assert.Equal(t, "Bash", fire.Attributes["gen_ai.tool.name"])
				assert.Equal(t, "s1", fire.Attributes["gen_ai.conversation.id"])
				assert.NotContains(t, fire.Attributes, "hookexec.reason", "content is off by default")
				var exits []int64
				for _, s := range spans {
					if s.Name == fire.Name {
						continue
					}
					assert.Equal(t, fire.SpanID, s.ParentSpanID, "a hook's span is in its fire's")
					assert.Equal(t, "execute_hook", s.Attributes["gen_ai.operation.name"])
					assert.Equal(t, "<inline>", s.Attributes["code.file.path"])
					assert.Equal(t, "Bash", s.Attributes["hookexec.hook.matcher"])
					assert.False(t, s.Start.Before(fire.Start) || s.End.After(fire.End), "within its fire")
					exits = append(exits, s.Attributes["process.exit.code"].(int64))
				}
				assert.ElementsMatch(t, []int64{0, 2}, exits)

				metrics := c.WaitMetrics(t, func(m []otelcoltest.Metric) bool {
					return len(otelcoltest.MetricNamed(m, "hookexec.hook.duration")) > 0
				})
				runs := otelcoltest.MetricNamed(metrics, "hookexec.hook.runs")
				require.NotEmpty(t, runs)
				decisions := map[string]int64{}
				for _, p := range runs[len(runs)-1].Points {
					decisions[p.Attributes["hookexec.hook.decision"].(string)] += p.Int
				}
				assert.Equal(t, map[string]int64{"none": 1, "deny": 1}, decisions)
				dur := otelcoltest.MetricNamed(metrics, "hookexec.hook.duration")
				var count uint64
				for _, p := range dur[len(dur)-1].Points {
					count += p.Count
				}
				assert.Equal(t, uint64(2), count)
				assert.Equal(t, "s", dur[0].Unit)

				logs := c.WaitLogs(t, func(l []otelcoltest.LogRecord) bool { return len(l) >= 1 })
				require.Len(t, logs, 1)
				assert.Equal(t, "hookexec.decision", logs[0].EventName)
				assert.Equal(t, "deny", logs[0].Body)
				assert.Equal(t, agentTrace, logs[0].TraceID)
				assert.Equal(t, fire.SpanID, logs[0].SpanID)
			})
		}
	}
}

// A collector that is down, never answers or refuses every export: the decisions are those
// of the same engine without telemetry, no fire waits for the exporter (whose timeout is
// far longer than the bound checked), and Close waits at most FlushBound for it.
func TestBrokenCollectorChangesNothing(t *testing.T) {
	plain := openEngine(t, engine.Options{})
	defer plain.Close()
	want, err := plain.Fire("PreToolUse", []byte(bashPayload))
	require.NoError(t, err)
	broken := map[string]func(t testing.TB) otelcoltest.Addr{
		"down":          otelcoltest.Refused,
		"never answers": func(t testing.TB) otelcoltest.Addr { return otelcoltest.StartBlackhole(t).Addr },
		"refusing":      func(t testing.TB) otelcoltest.Addr { return otelcoltest.StartRefusing(t).Addr },
	}
	for name, addr := range broken {
		for _, proto := range []otelcoltest.Protocol{otelcoltest.GRPC, otelcoltest.HTTP} {
			t.Run(name+" "+string(proto), func(t *testing.T) {
				a := addr(t)
				// Exports start at once and would wait 60 s each for an answer.
				e := openEngine(t, engine.Options{Env: envMap(a.Env(proto), []string{"HOOKEXEC_TELEMETRY=1",
					"OTEL_BSP_SCHEDULE_DELAY=1", "OTEL_BLRP_SCHEDULE_DELAY=1", "OTEL_METRIC_EXPORT_INTERVAL=1", "OTEL_EXPORTER_OTLP_TIMEOUT=60000"})})
				var worst time.Duration
				for range 20 {
					t0 := time.Now()
					res, err := e.Fire("PreToolUse", []byte(bashPayload))
					worst = max(worst, time.Since(t0))
					require.NoError(t, err)
					assert.Equal(t, want.Decision, res.Decision)
					assert.Equal(t, want.Reason, res.Reason)
					assert.Equal(t, want.Blocked, res.Blocked)
					assert.Empty(t, res.Warnings)
					time.Sleep(5 * time.Millisecond) // let the exporter try meanwhile
				}
				assert.Less(t, worst, 2*time.Second, "no fire waits for a 60 s export")
				t0 := time.Now()
				require.NoError(t, e.Close())
				assert.Less(t, time.Since(t0), telemetry.FlushBound+2*time.Second, "Close waits at most FlushBound for the exporter")
			})
		}
	}
}

// The daemon's path: a Dispatcher's engines, one per agent, project and environment, get
// telemetry from the calling agent's environment (the daemon's own is cleared), share one
// pipeline, and the Dispatcher's Close (the daemon's exit) flushes it.
func TestDispatcherEnginesShareOnePipeline(t *testing.T) {
	c := otelcoltest.Start(t)
	d := dispatch.New()
	closed := false
	defer func() {
		if !closed {
			d.Close()
		}
	}()
	env := append(c.Env(otelcoltest.GRPC), "HOOKEXEC_TELEMETRY=1", "OTEL_SERVICE_NAME=hookexec-daemon-test")
	before := telemetry.Pipelines()
	// Two projects (two engines), and a third call in the first project with another tool
	// span of the agent's: a call's TRACEPARENT is its own and opens no engine.
	spanOf := []string{agentSpan, "1111111111111111", "2222222222222222"}
	var projects []string
	home := t.TempDir()
	for i := range 3 {
		if i < 2 {
			project := filepath.Join(t.TempDir(), "p")
			require.NoError(t, os.MkdirAll(filepath.Join(project, ".claude"), 0o755))
			require.NoError(t, os.WriteFile(filepath.Join(project, ".claude", "hookexec-hooks.json"), []byte(guardConfig), 0o644))
			projects = append(projects, project)
		}
		project := projects[i%2] // the third call is the first project's again
		call := append(slices.Clone(env), "TRACEPARENT=00-"+agentTrace+"-"+spanOf[i]+"-01")
		r, err := d.Dispatch(dispatch.Request{Agent: "claude", Project: project, Home: home, Env: call,
			Payload: json.RawMessage(fmt.Sprintf(`{"hook_event_name":"PreToolUse","session_id":"s%d","tool_name":"Bash","tool_input":{"command":"rm -rf /"},"cwd":%q}`, i, project))})
		require.NoError(t, err)
		assert.Contains(t, r.Stdout+r.Stderr, "no rm", "the guard's deny")
	}
	assert.Equal(t, 2, d.Engines(), "an engine per project, not per call")
	assert.Equal(t, before+1, telemetry.Pipelines(), "one pipeline for both engines")
	d.Close()
	closed = true
	assert.Equal(t, before, telemetry.Pipelines(), "the last engine's Close shut it down")
	spans := c.WaitSpans(t, func(s []otelcoltest.Span) bool { return len(otelcoltest.SpanNamed(s, "fire PreToolUse")) >= 3 })
	var parents []string
	for _, s := range otelcoltest.SpanNamed(spans, "fire PreToolUse") {
		parents = append(parents, s.ParentSpanID)
		assert.Equal(t, agentTrace, s.TraceID)
		assert.Equal(t, "hookexec-daemon-test", s.Resource["service.name"])
	}
	assert.ElementsMatch(t, spanOf, parents, "each fire in its own call's span")
}
