package suite

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/hookexec/hookexec/core/audit"
	"github.com/hookexec/hookexec/core/telemetry"
	"github.com/hookexec/hookexec/tests/live/livetest"
	"github.com/hookexec/hookexec/tests/otelcoltest"
)

// Telemetry mode (HOOKEXEC_LIVE_TELEMETRY=1 with dispatch mode, make test-claude-telemetry):
// the run starts one real OpenTelemetry Collector (tests/otelcoltest) and the dispatched run
// of every vector gives the agent HOOKEXEC_TELEMETRY=1, the collector's OTLP/gRPC endpoint,
// an audit log of its own and a TRACEPARENT of its own. The daemon exports for the agent it
// serves, so after the run every fire the audit log holds (the dispatcher served it) must
// have reached the collector as its fire span: the same session, event and tool, as many
// times, each with a child execute_hook span per hook the audit entry lists and, in the
// TRACEPARENT's trace, with that span as its parent. The audit log itself is checked against
// the recorder's log: the agent fired each event the dispatcher is installed for as many
// times as the audit log holds it.

// TelemetryEnv turns telemetry mode on (with HOOKEXEC_LIVE_DISPATCH).
const TelemetryEnv = "HOOKEXEC_LIVE_TELEMETRY"

// TelemetryTraceEnv names a file telemetry mode writes the collector's traces file to, as its
// file exporter wrote it (docs/live-testing.md shows a trace from it).
const TelemetryTraceEnv = "HOOKEXEC_LIVE_TELEMETRY_TRACE"

// TelemetryMode says whether the suite runs in telemetry mode.
func TelemetryMode() bool { return DispatchMode() && os.Getenv(TelemetryEnv) != "" }

// spanWait bounds how long the spans of a run may take to reach the collector: the daemon's
// span batches leave every 100 ms here (OTEL_BSP_SCHEDULE_DELAY), so seconds are a hang guard.
const spanWait = 30 * time.Second

// startCollector starts the run's collector (stopped when t, the suite's test, ends) and,
// with TelemetryTraceEnv, keeps its traces file then.
func startCollector(t *testing.T) {
	c := otelcoltest.Start(t)
	state.collector = c
	if out := os.Getenv(TelemetryTraceEnv); out != "" {
		t.Cleanup(func() {
			lines := c.TraceLines(t)
			var b strings.Builder
			for _, l := range lines {
				b.Write(l)
				b.WriteByte('\n')
			}
			if err := os.WriteFile(out, []byte(b.String()), 0o644); err != nil {
				t.Error(err)
			}
		})
	}
}

// telemetryRun is what a dispatched run exports under: its audit log and its parent span.
type telemetryRun struct {
	auditLog         string
	traceID, spanID  string
	traceparentGiven bool
	agentTraces      bool // the agent exports its own spans: the fire's parent is one of them
	// dispatched are the events install gave a dispatcher entry ("hookexec hook --agent …")
	// in the tree's settings: the agent's fires of other events (hooks it runs itself:
	// prompt, agent and mcp_tool handlers, managed and plugin hooks) reach no dispatcher.
	dispatched map[string]bool
	// servedWhy, when set, is the vector's reason (skip "served") why the agent's fires and
	// the dispatcher's do not match one for one; the spans are still checked.
	servedWhy string
}

// withTelemetry adds to v's environment what the agent passes to the dispatcher: telemetry
// on, to the run's collector over gRPC, an audit log in the tree and a TRACEPARENT.
func withTelemetry(t *testing.T, tree livetest.Tree, v *Vector) telemetryRun {
	r := telemetryRun{auditLog: filepath.Join(tree.Root, "audit.jsonl"), traceID: randomHex(t, 16), spanID: randomHex(t, 8),
		dispatched: dispatchedEvents(t, tree), servedWhy: v.Skip["served"]}
	v.Env["HOOKEXEC_TELEMETRY"] = "1"
	// Claude Code removes every OTEL_* variable from its hooks' environment: the settings
	// go in hookexec's spelling of them (core/telemetry PrefixOTel), which it passes.
	for _, kv := range append(state.collector.Env(otelcoltest.GRPC), "OTEL_BSP_SCHEDULE_DELAY=100", "OTEL_BLRP_SCHEDULE_DELAY=100") {
		k, val, _ := strings.Cut(kv, "=")
		v.Env[telemetry.PrefixOTel+k] = val
	}
	v.Env["HOOKEXEC_AUDIT_LOG"] = r.auditLog
	if os.Getenv(TelemetryEnv) == "agent" {
		// The agent's own tracing on, to the same collector: Claude Code then gives each
		// hook the TRACEPARENT of its span, which must be the fire span's parent.
		for _, kv := range append(state.collector.Env(otelcoltest.GRPC), state.a.TelemetryEnv...) {
			k, val, _ := strings.Cut(kv, "=")
			v.Env[k] = val
		}
		r.agentTraces = true
		return r
	}
	if _, ok := v.Env["TRACEPARENT"]; !ok {
		v.Env["TRACEPARENT"] = "00-" + r.traceID + "-" + r.spanID + "-01"
		r.traceparentGiven = true
	}
	return r
}

func randomHex(t *testing.T, n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(b)
}

// fireKey is what a fire is counted by: its session, event and tool.
type fireKey struct{ session, event, tool string }

func (k fireKey) String() string { return fmt.Sprintf("%s %s(%s)", k.event, k.tool, k.session) }

// servedFires reads the run's audit log once it has stopped growing (its writer appends
// within milliseconds of a fire; the agent has exited).
func servedFires(path string) ([]audit.Entry, error) {
	var entries []audit.Entry
	last := -1
	for deadline := time.Now().Add(spanWait); ; time.Sleep(300 * time.Millisecond) {
		entries = entries[:0]
		err := audit.ReadFiles(path, func(e audit.Entry) error {
			if e.Kind == audit.KindFire {
				entries = append(entries, e)
			} else {
				return fmt.Errorf("audit log: a %s entry (seq %d): the writer lost or cut decisions", e.Kind, e.Seq)
			}
			return nil
		})
		if errors.Is(err, os.ErrNotExist) {
			err, entries = nil, nil
		}
		if err != nil {
			return nil, err
		}
		if len(entries) == last || time.Now().After(deadline) {
			return entries, nil
		}
		last = len(entries)
	}
}

// checkTelemetry compares the fires the dispatcher served (the audit log) with the fire spans
// the collector received for the run's sessions, and the audit log with the agent's fires.
func checkTelemetry(t *testing.T, r telemetryRun, run Run) []string {
	served, err := servedFires(r.auditLog)
	if err != nil {
		return []string{"telemetry: " + err.Error()}
	}
	var problems []string
	if r.servedWhy == "" {
		problems = checkServedAll(served, run, r.dispatched)
	} else {
		t.Logf("telemetry: fires served not compared with the agent's: %s", r.servedWhy)
	}
	want := map[fireKey][]string{} // the hooks of each fire, sorted ids joined, one per fire
	sessions := map[string]bool{}
	for _, e := range served {
		k := fireKey{e.Session, e.Event, e.Tool}
		ids := make([]string, len(e.Hooks))
		for i, h := range e.Hooks {
			ids[i] = h.ID
		}
		sort.Strings(ids)
		want[k] = append(want[k], strings.Join(ids, ","))
		sessions[e.Session] = true
	}
	var got map[fireKey][]string
	var fires, spans []otelcoltest.Span
	byParent := map[string][]otelcoltest.Span{}
	for deadline := time.Now().Add(spanWait); ; time.Sleep(100 * time.Millisecond) {
		spans = state.collector.Spans(t)
		got, fires, byParent = map[fireKey][]string{}, nil, map[string][]otelcoltest.Span{}
		for _, s := range spans {
			if strings.HasPrefix(s.Name, "execute_hook ") {
				byParent[s.TraceID+"/"+s.ParentSpanID] = append(byParent[s.TraceID+"/"+s.ParentSpanID], s)
			}
		}
		for _, s := range spans {
			session, _ := s.Attributes["gen_ai.conversation.id"].(string)
			if !strings.HasPrefix(s.Name, "fire ") || !sessions[session] {
				continue
			}
			fires = append(fires, s)
			event, _ := s.Attributes["hookexec.event"].(string)
			tool, _ := s.Attributes["gen_ai.tool.name"].(string)
			var ids []string
			for _, h := range byParent[s.TraceID+"/"+s.SpanID] {
				ids = append(ids, strings.TrimPrefix(h.Name, "execute_hook "))
			}
			sort.Strings(ids)
			k := fireKey{session, event, tool}
			got[k] = append(got[k], strings.Join(ids, ","))
		}
		for _, m := range []map[fireKey][]string{want, got} {
			for _, ids := range m {
				sort.Strings(ids)
			}
		}
		if equalFires(want, got) && (!r.agentTraces || parentsArrived(fires, spans)) || time.Now().After(deadline) {
			break
		}
	}
	if !equalFires(want, got) {
		problems = append(problems, fmt.Sprintf("telemetry: the fires the dispatcher served (audit log) and the fire spans the collector received differ:\n    served    %s\n    collector %s",
			describeFires(want), describeFires(got)))
	}
	for _, s := range fires {
		if s.Name != "fire "+fmt.Sprint(s.Attributes["hookexec.event"]) {
			problems = append(problems, fmt.Sprintf("telemetry: span %q has hookexec.event %v", s.Name, s.Attributes["hookexec.event"]))
		}
		if r.traceparentGiven && (s.TraceID != r.traceID || s.ParentSpanID != r.spanID) {
			problems = append(problems, fmt.Sprintf("telemetry: %s's span is in trace %s under %q, not under the agent's TRACEPARENT span %s/%s",
				s.Name, s.TraceID, s.ParentSpanID, r.traceID, r.spanID))
		}
		if r.agentTraces {
			event, _ := s.Attributes["hookexec.event"].(string)
			if p := spanByID(spans, s.TraceID, s.ParentSpanID); s.ParentSpanID == "" && outsideTurn[event] {
				t.Logf("telemetry: %s's span is a root: the agent gave no TRACEPARENT outside a turn", s.Name)
			} else if p == nil || p.Resource["service.name"] == "hookexec" {
				problems = append(problems, fmt.Sprintf("telemetry: %s's span has no parent the agent exported (trace %s, parent %q)", s.Name, s.TraceID, s.ParentSpanID))
			} else {
				t.Logf("telemetry: %s's span is a child of the agent's %s (%v)", s.Name, p.Name, p.Resource["service.name"])
			}
		}
		for _, h := range byParent[s.TraceID+"/"+s.SpanID] {
			if h.Attributes["gen_ai.operation.name"] != "execute_hook" || h.Attributes["hookexec.event"] != s.Attributes["hookexec.event"] ||
				h.Attributes["hookexec.hook.id"] != strings.TrimPrefix(h.Name, "execute_hook ") {
				problems = append(problems, fmt.Sprintf("telemetry: hook span %q under %q has the attributes %v", h.Name, s.Name, h.Attributes))
			}
		}
	}
	return problems
}

// checkServedAll compares the audit log with the recorder's log of the same run: each event
// the agent fired (the recorder listens to all of them) was served by the dispatcher as many
// times, for every event the dispatcher served at least once (install registers it for the
// events hookexec knows; an event it does not register is the recorder's alone).
func checkServedAll(served []audit.Entry, run Run, dispatched map[string]bool) []string {
	byEvent := map[string]int{}
	for _, e := range served {
		name := e.Event
		if e.FiredAs != "" {
			name = e.FiredAs
		}
		byEvent[name]++
	}
	fired := map[string]int{}
	for _, f := range livetest.Fires(run.Log) {
		if dispatched[f.Event] {
			fired[f.Event]++
		}
	}
	var problems []string
	for ev, n := range byEvent {
		if !dispatched[ev] {
			problems = append(problems, fmt.Sprintf("telemetry: the dispatcher served %s %d times, an event install gave no dispatcher entry", ev, n))
			continue
		}
		if fired[ev] != n {
			problems = append(problems, fmt.Sprintf("telemetry: the agent fired %s %d times, the dispatcher's audit log holds %d", ev, fired[ev], n))
		}
	}
	if len(served) == 0 && len(fired) > 0 {
		problems = append(problems, fmt.Sprintf("telemetry: the agent fired %v and the dispatcher's audit log holds nothing", fired))
	}
	return problems
}

func equalFires(a, b map[fireKey][]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if strings.Join(v, ";") != strings.Join(b[k], ";") || len(v) != len(b[k]) {
			return false
		}
	}
	return true
}

// describeFires lists fires by key with their hooks, sorted, for a failure message.
func describeFires(m map[fireKey][]string) string {
	var out []string
	for k, hooks := range m {
		out = append(out, fmt.Sprintf("%s×%d[%s]", k, len(hooks), strings.Join(hooks, ";")))
	}
	sort.Strings(out)
	return strings.Join(out, " ")
}

// dispatchedEvents reads, from every JSON settings file of the tree (after install), the
// events whose hooks hold a dispatcher entry: a command ending in "--agent <Name>" (the C
// client's or "hookexec hook"'s).
func dispatchedEvents(t *testing.T, tree livetest.Tree) map[string]bool {
	out := map[string]bool{}
	mark := "--agent " + state.a.Name
	for _, root := range []string{tree.Home, tree.Project} {
		_ = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".json") {
				return nil
			}
			data, err := os.ReadFile(path)
			if err != nil || !strings.Contains(string(data), mark) {
				return nil
			}
			var doc struct {
				Hooks map[string]json.RawMessage `json:"hooks"`
			}
			if json.Unmarshal(data, &doc) != nil {
				return nil
			}
			for ev, raw := range doc.Hooks {
				if strings.Contains(string(raw), mark) {
					out[ev] = true
				}
			}
			return nil
		})
	}
	if len(out) == 0 {
		t.Logf("telemetry: install gave no event a dispatcher entry: the agent runs every hook of this vector itself")
	}
	return out
}

// outsideTurn are the events Claude Code 2.1.330 may fire with no span of its own active, so
// with no TRACEPARENT even with its tracing on: their fire spans are roots (SessionStart,
// InstructionsLoaded and SessionEnd in events_and_subjects; Setup in setup_init and
// setup_maintenance; WorktreeCreate for --worktree, before the first turn, in
// worktree_create_*). A fire of theirs that has a parent must still have the agent's; every
// other fire must be a child of the agent's span.
var outsideTurn = map[string]bool{"SessionStart": true, "InstructionsLoaded": true, "SessionEnd": true, "Setup": true, "WorktreeCreate": true}

// parentsArrived says whether every fire span's parent has reached the collector.
func parentsArrived(fires, spans []otelcoltest.Span) bool {
	for _, f := range fires {
		if f.ParentSpanID != "" && spanByID(spans, f.TraceID, f.ParentSpanID) == nil {
			return false
		}
	}
	return true
}

func spanByID(spans []otelcoltest.Span, trace, id string) *otelcoltest.Span {
	for i := range spans {
		if spans[i].TraceID == trace && spans[i].SpanID == id {
			return &spans[i]
		}
	}
	return nil
}
