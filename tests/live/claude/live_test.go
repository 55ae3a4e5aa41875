// Package claude is the Claude Code live conformance suite: every vector runs through the
// real, pinned Claude Code binary (tests/live/versions.json) against a fake Messages API,
// then through hookexec's engine with the payloads Claude Code actually sent, and the two
// are compared on what the host must do. `make test-claude` runs it; without
// HOOKEXEC_LIVE_CLAUDE=1 every test here skips at once, so `go test ./...` stays fast.
package claude

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hookexec/hookexec/core/engine"
	"github.com/hookexec/hookexec/tests/live/agents"
	"github.com/hookexec/hookexec/tests/live/fakeapi"
	"github.com/hookexec/hookexec/tests/live/livetest"
)

// vector is one tests/live/claude/vectors/*.json file (README.md in this directory).
type vector struct {
	Description string                     `json:"description"`
	Prompt      string                     `json:"prompt"`
	Script      []fakeapi.Turn             `json:"script"`
	Agents      map[string][]fakeapi.Turn  `json:"agents"`
	Side        string                     `json:"side"`
	Files       map[string]json.RawMessage `json:"files"`
	Args        []string                   `json:"args"`
	Env         map[string]string          `json:"env"`
	HTTP        map[string]route           `json:"http"`
	Hookexec    map[string]any             `json:"hookexec"`
	Deliberate  string                     `json:"deliberate"`
	// Unrecorded are the fires to give hookexec when Claude Code fires no hook at all (not
	// even the recorder: disableAllHooks), with the payloads it would have sent.
	Unrecorded []struct {
		Event   string          `json:"event"`
		Payload json.RawMessage `json:"payload"`
	} `json:"unrecorded"`
	// Skip lists comparison kinds this vector does not make (see compare), with why.
	Skip map[string]string `json:"skip"`
}

type route struct {
	Status  int             `json:"status"`
	Body    json.RawMessage `json:"body"`
	DelayMs int             `json:"delay_ms"`
}

// recorded are the events the recorder hook (in --settings) listens to.
var recorded = []string{"PreToolUse", "PostToolUse", "PostToolUseFailure", "PermissionRequest", "PermissionDenied",
	"UserPromptSubmit", "Notification", "Stop", "StopFailure", "SubagentStart", "SubagentStop", "SessionStart",
	"SessionEnd", "PreCompact", "PostCompact", "Setup", "InstructionsLoaded", "ConfigChange", "CwdChanged",
	"FileChanged", "TaskCreated", "TaskCompleted", "TeammateIdle", "WorktreeCreate", "WorktreeRemove",
	"Elicitation", "ElicitationResult", "DirectoryAdded", "UserPromptExpansion", "PostToolBatch"}

var (
	claudeBin, claudeVersion string
	recBin                   string
	report                   livetest.Report
	fieldsMu                 sync.Mutex
	payloadFields            = map[string]map[string]bool{}
)

func TestMain(m *testing.M) {
	if os.Getenv("HOOKEXEC_LIVE_CLAUDE") == "" {
		fmt.Println("tests/live/claude: skipped (set HOOKEXEC_LIVE_CLAUDE=1, or run make test-claude)")
		os.Exit(0)
	}
	var err error
	claudeBin, claudeVersion, err = agents.Install(context.Background(), "@anthropic-ai/claude-code", "claude")
	if errors.Is(err, agents.ErrNoNpm) {
		fmt.Println("tests/live/claude: SKIPPED: cannot install Claude Code:", err)
		os.Exit(0)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "tests/live/claude:", err)
		os.Exit(1)
	}
	dir, err := os.MkdirTemp("", "hookexec-live-")
	if err == nil {
		recBin, err = livetest.BuildRec(dir)
	}
	if err == nil {
		mcpBin, err = buildMCP(dir)
	}
	if err == nil && dispatchMode() {
		hookexecBin, err = buildHookexec(dir)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "tests/live/claude:", err)
		os.Exit(1)
	}
	start := time.Now()
	code := m.Run()
	os.RemoveAll(dir)
	fmt.Printf("Claude Code %s (%s):\n", claudeVersion, claudeBin)
	report.Print(os.Stdout)
	if fieldsCode := checkPayloadFields(); fieldsCode != 0 && code == 0 {
		code = fieldsCode
	}
	fmt.Printf("(%s)\n", time.Since(start).Round(time.Second))
	os.Exit(code)
}

func TestClaudeLive(t *testing.T) {
	paths, err := filepath.Glob("vectors/*.json")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no vectors: %v", err)
	}
	if only := os.Getenv("HOOKEXEC_LIVE_ONLY"); only != "" {
		var keep []string
		for _, p := range paths {
			if strings.Contains(p, only) {
				keep = append(keep, p)
			}
		}
		paths = keep
	}
	// 6 at a time: a run spends most of its time starting Claude Code and waiting on the
	// shared cores; more only queues.
	sem := make(chan struct{}, 6)
	for _, path := range paths {
		name := strings.TrimSuffix(filepath.Base(path), ".json")
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			sem <- struct{}{}
			defer func() { <-sem }()
			run := runVector
			if dispatchMode() {
				run = runDispatchVector
			}
			problems, deliberate := run(t, path)
			report.Add(name, problems, deliberate)
			if len(problems) > 0 {
				t.Errorf("%s differs:\n  %s", name, strings.Join(problems, "\n  "))
			}
		})
	}
}

func serveHTTP(t *testing.T, routes map[string]route) string {
	if len(routes) == 0 {
		return ""
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rt, ok := routes[strings.TrimPrefix(r.URL.Path, "/")]
		if !ok {
			http.NotFound(w, r)
			return
		}
		_, _ = io.Copy(io.Discard, r.Body)
		select {
		case <-time.After(time.Duration(rt.DelayMs) * time.Millisecond):
		case <-r.Context().Done():
			return
		}
		var text string
		body := []byte(rt.Body)
		if json.Unmarshal(rt.Body, &text) == nil {
			body = []byte(text)
		}
		if rt.Status != 0 {
			w.WriteHeader(rt.Status)
		}
		_, _ = w.Write(body)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// claudeRun is what one run of the real binary left behind.
type claudeRun struct {
	api    *fakeapi.Anthropic
	log    []livetest.Entry
	stdout []byte
	stderr []byte
}

func runVector(t *testing.T, path string) ([]string, string) {
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var v vector
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if v.Description == "" {
		t.Fatalf("%s: every vector says what it checks", path)
	}
	tree, err := livetest.NewTree(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	vars := map[string]string{"$PROJECT": tree.Project, "$HOME": tree.Home, "$ROOT": tree.Root,
		"$REC": recBin, "$HTTP": serveHTTP(t, v.HTTP), "$MCP": mcpBin}
	raw = livetest.Substitute(raw, vars)
	v = vector{}
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if err := tree.WriteFiles(v.Files); err != nil {
		t.Fatal(err)
	}

	cr := runClaude(t, tree, v)
	fires := livetest.Fires(cr.log)
	unrecorded := len(fires) == 0 && len(v.Unrecorded) > 0
	if unrecorded {
		for _, u := range v.Unrecorded {
			fires = append(fires, livetest.Fire{Event: u.Event, Payload: string(u.Payload), Ran: livetest.Names(cr.log)})
		}
	}
	recordFields(fires)
	if testing.Verbose() {
		for _, f := range fires {
			t.Logf("claude fired %s ran %v: %s", f.Event, f.Ran, f.Payload)
		}
		t.Logf("claude stdout: %s\nstderr: %s", cr.stdout, cr.stderr)
	}
	results, ran := runHookexec(t, tree, v, fires)
	if testing.Verbose() {
		for i, r := range results {
			t.Logf("hookexec %s ran %v: %s", fires[i].Event, ran[i], r.JSON())
		}
	}
	if unrecorded {
		// Claude Code ran no hook at all: hookexec must run none either.
		var problems []string
		for i, f := range fires {
			if !reflect.DeepEqual(f.Ran, ran[i]) {
				problems = append(problems, fmt.Sprintf("%s: hooks run: claude %v, hookexec %v", f.Event, f.Ran, ran[i]))
			}
		}
		return problems, v.Deliberate
	}
	return append(compare(v, tree, cr, fires, results, ran), compareMCPCalls(tree)...), v.Deliberate
}

// env is the environment both sides give hooks (Claude Code passes its own to them).
func baseEnv(tree livetest.Tree, v vector, log string) map[string]string {
	env := map[string]string{
		"PATH":              os.Getenv("PATH"),
		"HOME":              tree.Home,
		"HOOKEXEC_LIVE_LOG": log,
		"LANG":              "C.UTF-8",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
		"DISABLE_TELEMETRY":                        "1",
		"DISABLE_AUTOUPDATER":                      "1",
		"DISABLE_ERROR_REPORTING":                  "1",
		"IS_SANDBOX":                               "1",
	}
	for k, val := range v.Env {
		env[k] = val
	}
	return env
}

func runClaude(t *testing.T, tree livetest.Tree, v vector) claudeRun {
	api := &fakeapi.Anthropic{Script: v.Script, Agents: v.Agents, Side: v.Side}
	base, err := api.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer api.Close()
	log := filepath.Join(tree.Root, "claude.log")
	// The recorder: one hook per event, in the --settings layer, logging every fire's stdin.
	hooks := map[string]any{}
	for _, ev := range recorded {
		hooks[ev] = []any{map[string]any{"hooks": []any{map[string]any{"type": "command", "command": recBin + " @" + ev}}}}
	}
	settings, _ := json.Marshal(map[string]any{"hooks": hooks})
	settingsFile := filepath.Join(tree.Root, "recorder-settings.json")
	if err := os.WriteFile(settingsFile, settings, 0o644); err != nil {
		t.Fatal(err)
	}
	prompt := v.Prompt
	if prompt == "" {
		prompt = "go"
	}
	// stream-json with hook events: every hook's outcome and every message shown to the
	// user are in the output, one JSON object per line.
	args := []string{"-p", prompt, "--output-format", "stream-json", "--verbose", "--include-hook-events",
		"--settings", settingsFile}
	if !slices.Contains(v.Args, "--permission-mode") {
		args = append(args, "--dangerously-skip-permissions")
	}
	args = append(args, v.Args...)
	// 240 s is a hang guard only: a run takes a few seconds.
	ctx, cancel := context.WithTimeout(context.Background(), 240*time.Second)
	defer cancel()
	cmd := claudeCommand(ctx, t, tree, claudeBin, args...)
	cmd.Dir = tree.Project
	env := baseEnv(tree, v, log)
	env["ANTHROPIC_BASE_URL"] = base
	env["ANTHROPIC_API_KEY"] = "sk-ant-fake-key-for-offline-tests"
	for k, val := range env {
		cmd.Env = append(cmd.Env, k+"="+val)
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil && ctx.Err() != nil {
		t.Fatalf("claude hung: %v\nstderr: %s", err, stderr.String())
	}
	entries, err := livetest.ReadLog(log)
	if err != nil {
		t.Fatal(err)
	}
	return claudeRun{api: api, log: entries, stdout: stdout.Bytes(), stderr: stderr.Bytes()}
}

// runHookexec fires, in order, every event Claude Code fired, with the stdin Claude Code
// gave its hooks, through hookexec's engine (profile claude, the same files and env).
func runHookexec(t *testing.T, tree livetest.Tree, v vector, fires []livetest.Fire) ([]*engine.Result, [][]string) {
	log := filepath.Join(tree.Root, "hookexec.log")
	opts := map[string]any{}
	for k, x := range v.Hookexec {
		opts[k] = x
	}
	opts["profile"], opts["project_dir"], opts["home"] = "claude", tree.Project, tree.Home
	opts["env"] = baseEnv(tree, v, log)
	optJSON, _ := json.Marshal(opts)
	o, err := engine.ParseOptions(optJSON)
	if err != nil {
		t.Fatal(err)
	}
	e, err := engine.Open(o)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	servers, err := mcpServers(tree, v)
	if err != nil {
		t.Fatal(err)
	}
	// Prompt and agent hooks: Claude Code asks the fake API, whose answer is v.Side; the
	// evaluator gives hookexec the same answer. mcp_tool hooks call the vector's MCP server.
	if err := e.SetEvaluator(func(ctx context.Context, hookType string, hook, _ []byte) (engine.Outcome, error) {
		if hookType == "mcp_tool" {
			return mcpEvaluate(ctx, servers, opts["env"].(map[string]string), hook)
		}
		var ans struct {
			OK     bool   `json:"ok"`
			Reason string `json:"reason"`
		}
		side := v.Side
		if side == "" {
			side = `{"ok": true}`
		}
		if err := json.Unmarshal([]byte(side), &ans); err != nil {
			return engine.Outcome{}, fmt.Errorf("the model's answer is not a verdict: %w", err)
		}
		return engine.Verdict(ans.OK, ans.Reason), nil
	}); err != nil {
		t.Fatal(err)
	}
	var results []*engine.Result
	var ran [][]string
	seen := 0
	for _, f := range fires {
		r, err := e.Fire(f.Event, []byte(f.Payload))
		if err != nil {
			t.Fatalf("hookexec fire %s: %v", f.Event, err)
		}
		entries, err := livetest.ReadLog(log)
		if err != nil {
			t.Fatal(err)
		}
		results = append(results, r)
		ran = append(ran, livetest.Names(entries[seen:]))
		seen = len(entries)
	}
	return results, ran
}

// texts is every string of the main conversation's requests (messages and system).
func texts(api *fakeapi.Anthropic) string {
	var b strings.Builder
	var walk func(x any)
	walk = func(x any) {
		switch y := x.(type) {
		case string:
			b.WriteString(y)
			b.WriteByte('\n')
		case []any:
			for _, z := range y {
				walk(z)
			}
		case map[string]any:
			keys := make([]string, 0, len(y))
			for k := range y {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				if k != "tools" {
					walk(y[k])
				}
			}
		}
	}
	for _, r := range api.MainRequests() {
		var body any
		_ = json.Unmarshal(r.Body, &body)
		walk(body)
	}
	return b.String()
}

// shellOutput is what `sh -c cmd` prints in dir: what the Bash tool should have returned.
func shellOutput(dir, cmd string) string {
	c := exec.Command("/bin/sh", "-c", cmd)
	c.Dir = dir
	out, _ := c.CombinedOutput()
	return strings.TrimSpace(string(out))
}

// compare says, fire by fire, where hookexec and Claude Code disagree on what the host
// must do. One string per disagreement; none means they agree.
func compare(v vector, tree livetest.Tree, cr claudeRun, fires []livetest.Fire, results []*engine.Result, ran [][]string) []string {
	var problems []string
	add := func(i int, format string, args ...any) {
		line := fmt.Sprintf("%s #%d: ", fires[i].Event, i) + fmt.Sprintf(format, args...)
		if len(line) > 400 {
			line = line[:400] + "…"
		}
		problems = append(problems, line)
	}
	all := texts(cr.api)
	toolResults := cr.api.ToolResults()
	if len(fires) == 0 {
		problems = append(problems, "Claude Code fired no event (stderr: "+strings.TrimSpace(string(cr.stderr))+")")
	}
	// System messages: what Claude Code showed against what hookexec returned, per event.
	var sys []string
	for i, r := range results {
		for _, line := range strings.Split(r.SystemMessage, "\n") {
			if line != "" {
				sys = append(sys, fires[i].Event+": "+line)
			}
		}
	}
	sort.Strings(sys)
	if got := shown(stream(cr.stdout)); !reflect.DeepEqual(sys, got) && v.Skip["system_message"] == "" && (len(sys) > 0 || len(got) > 0) {
		problems = append(problems, fmt.Sprintf("system messages: hookexec %q, Claude Code showed %q", sys, got))
	}
	for i, f := range fires {
		r := results[i]
		if !reflect.DeepEqual(f.Ran, ran[i]) && v.Skip["ran"] == "" {
			add(i, "hooks run: claude %v, hookexec %v", f.Ran, ran[i])
		}
		var p struct {
			ToolName  string          `json:"tool_name"`
			ToolInput json.RawMessage `json:"tool_input"`
			ToolUseID string          `json:"tool_use_id"`
		}
		_ = json.Unmarshal([]byte(f.Payload), &p)
		switch f.Event {
		case "PreToolUse", "Stop", "SubagentStop", "SessionEnd":
		default:
			if !r.Continue && hasLaterTurn(fires[i+1:]) {
				add(i, "hookexec continue=false (%q), but Claude Code went on", r.StopReason)
			}
		}
		switch f.Event {
		case "PreToolUse":
			// The tool ran when Claude Code fired PostToolUse(Failure) for its call: any hook
			// of the log got that payload (the recorder can lose the race when another
			// PostToolUse hook ends the session).
			toolRan := postToolFired(cr.log, p.ToolUseID)
			// In print mode there is nobody to ask: the host treats "ask" as a refusal.
			blocked := r.Blocked || r.Decision == "ask"
			// A PermissionRequest for the same call decides the tool's fate when this
			// fire lets it through (compared at that fire).
			askedPermission := permissionFire(fires, i) >= 0 && !blocked
			if blocked == toolRan && !askedPermission {
				add(i, "hookexec blocked=%v (%s %q) but Claude Code ran the tool=%v", blocked, r.Decision, r.Reason, toolRan)
			}
			stoppedLater := false
			for _, later := range results[i+1:] {
				stoppedLater = stoppedLater || !later.Continue
			}
			if wentOn := hasLaterTurn(fires[i+1:]); r.Continue != wentOn && !stoppedLater && v.Skip["continue"] == "" {
				add(i, "hookexec continue=%v, but Claude Code went on=%v", r.Continue, wentOn)
			}
			tr, ok := toolResults[p.ToolUseID]
			if !ok {
				break
			}
			if blocked {
				if r.Reason != "" && !reasonShown(r.Reason, tr.Text, v.Deliberate != "") {
					add(i, "reason: hookexec %q, Claude Code told the model %q", r.Reason, tr.Text)
				}
				break
			}
			if p.ToolName != "Bash" || askedPermission && !toolRan {
				break
			}
			input := map[string]any{}
			_ = json.Unmarshal(p.ToolInput, &input)
			if len(r.UpdatedInput) > 0 && string(r.UpdatedInput) != "null" {
				upd := map[string]any{}
				_ = json.Unmarshal(r.UpdatedInput, &upd)
				input = upd
			}
			command, _ := input["command"].(string)
			want := shellOutput(tree.Project, command)
			if tr.IsError && strings.Contains(tr.Text, "hook") {
				add(i, "hookexec lets the tool run (decision %s) but Claude Code blocked it: %q", r.Decision, tr.Text)
			} else if !strings.Contains(tr.Text, want) {
				add(i, "tool input: hookexec runs %q (prints %q), Claude Code's tool returned %q", command, want, tr.Text)
			}
		case "PermissionRequest":
			// The call this permission is for: the PreToolUse before it with the same input.
			for j := i - 1; j >= 0; j-- {
				if permissionFire(fires, j) != i {
					continue
				}
				var q struct {
					ToolUseID string `json:"tool_use_id"`
				}
				_ = json.Unmarshal([]byte(fires[j].Payload), &q)
				toolRan := postToolFired(cr.log, q.ToolUseID)
				// Only an allow runs the tool: print mode cannot ask anybody.
				if allowed := r.Decision == "allow"; allowed != toolRan {
					add(i, "permission: hookexec decision %s (%q), Claude Code ran the tool=%v", r.Decision, r.Reason, toolRan)
				}
				if tr, ok := toolResults[q.ToolUseID]; ok && r.Decision == "deny" && r.Reason != "" && !strings.Contains(tr.Text, r.Reason) {
					add(i, "permission reason: hookexec %q, Claude Code told the model %q", r.Reason, tr.Text)
				}
				break
			}
		case "Stop", "SubagentStop":
			continued := continuedAfter(fires, i)
			if r.Blocked != continued && v.Skip["stop"] == "" {
				add(i, "continuation: hookexec blocked=%v (%q), Claude Code continued=%v", r.Blocked, r.Reason, continued)
			}
			if r.Blocked && continued && r.Reason != "" && !strings.Contains(all, r.Reason) {
				add(i, "Stop reason %q never reached the model", r.Reason)
			}
		case "UserPromptSubmit":
			asked := len(cr.api.MainRequests()) > 0
			if r.Blocked == asked {
				add(i, "prompt: hookexec blocked=%v, Claude Code sent it to the model=%v", r.Blocked, asked)
			}
		case "PostToolUse", "PostToolUseFailure":
			if wentOn := hasLaterTurn(fires[i+1:]); !r.Continue && wentOn {
				add(i, "hookexec continue=false, but Claude Code went on")
			}
			if r.Blocked && r.Reason != "" && !strings.Contains(all, r.Reason) && v.Skip["reason"] == "" {
				add(i, "feedback %q never reached the model", r.Reason)
			}
		}
		// Claude Code adds each hook's context separately; hookexec joins them with "\n".
		for _, line := range strings.Split(r.AdditionalContext, "\n") {
			if line != "" && v.Skip["context"] == "" && !strings.Contains(all, line) {
				add(i, "additional context %q never reached the model", line)
			}
		}
		for k, val := range r.Env {
			found := false
			for _, tr := range toolResults {
				found = found || strings.Contains(tr.Text, val)
			}
			if !found {
				add(i, "env export %s=%q never reached a tool", k, val)
			}
		}
	}
	return problems
}

// streamEvent is one line of Claude Code's stream-json output that the comparison reads.
type streamEvent struct {
	Type      string `json:"type"`
	Subtype   string `json:"subtype"`
	HookEvent string `json:"hook_event"`
	Outcome   string `json:"outcome"`
	ExitCode  *int   `json:"exit_code"`
	Content   string `json:"content"`
	Stdout    string `json:"stdout"`
}

func stream(out []byte) []streamEvent {
	var evs []streamEvent
	for _, line := range bytes.Split(out, []byte("\n")) {
		var e streamEvent
		if json.Unmarshal(line, &e) == nil {
			evs = append(evs, e)
		}
	}
	return evs
}

// shown are the messages Claude Code showed the user ("<Event>[:<matcher>] says: <text>"),
// as "<Event>: <text>", sorted.
func shown(evs []streamEvent) []string {
	var out []string
	for _, e := range evs {
		if e.Type != "system" || e.Subtype != "informational" {
			continue
		}
		who, text, ok := strings.Cut(e.Content, " says: ")
		if !ok {
			continue
		}
		who, _, _ = strings.Cut(who, ":")
		out = append(out, who+": "+text)
	}
	sort.Strings(out)
	return out
}

// postToolFired says whether some hook of the log got a PostToolUse or PostToolUseFailure
// payload for the tool call id.
func postToolFired(log []livetest.Entry, id string) bool {
	for _, e := range log {
		var q struct {
			Event     string `json:"hook_event_name"`
			ToolUseID string `json:"tool_use_id"`
		}
		_ = json.Unmarshal([]byte(e.Stdin), &q)
		if (q.Event == "PostToolUse" || q.Event == "PostToolUseFailure") && q.ToolUseID == id {
			return true
		}
	}
	return false
}

// permissionFire returns the index of the PermissionRequest fire that asks about the tool
// call of PreToolUse fire i (same tool name and input, before the next PreToolUse), or -1.
func permissionFire(fires []livetest.Fire, i int) int {
	var p struct {
		ToolName  string          `json:"tool_name"`
		ToolInput json.RawMessage `json:"tool_input"`
	}
	_ = json.Unmarshal([]byte(fires[i].Payload), &p)
	for j := i + 1; j < len(fires); j++ {
		switch fires[j].Event {
		case "PreToolUse":
			return -1
		case "PermissionRequest":
			var q struct {
				ToolName  string          `json:"tool_name"`
				ToolInput json.RawMessage `json:"tool_input"`
			}
			_ = json.Unmarshal([]byte(fires[j].Payload), &q)
			if q.ToolName == p.ToolName && bytes.Equal(q.ToolInput, p.ToolInput) {
				return j
			}
		}
	}
	return -1
}

// continuedAfter says whether Claude Code went on after Stop (or SubagentStop) fire i: the
// next fire of the same event, for the same agent, says stop_hook_active, before any new
// prompt.
func continuedAfter(fires []livetest.Fire, i int) bool {
	var p struct {
		AgentID string `json:"agent_id"`
	}
	_ = json.Unmarshal([]byte(fires[i].Payload), &p)
	for _, g := range fires[i+1:] {
		if g.Event == "UserPromptSubmit" {
			return false
		}
		var q struct {
			AgentID        string `json:"agent_id"`
			StopHookActive bool   `json:"stop_hook_active"`
		}
		_ = json.Unmarshal([]byte(g.Payload), &q)
		if g.Event == fires[i].Event && q.AgentID == p.AgentID {
			return q.StopHookActive
		}
	}
	return false
}

// hasLaterTurn says whether the session went on after a fire: a later PreToolUse, Stop or
// PostToolBatch (SessionEnd and the PostToolUse of the same call do not count).
func hasLaterTurn(later []livetest.Fire) bool {
	for _, g := range later {
		switch g.Event {
		case "PreToolUse", "Stop", "PostToolBatch", "SubagentStop":
			return true
		}
	}
	return false
}

// reasonShown says whether hookexec's reason is what Claude Code told the model; with
// anyLine (a vector marked as a deliberate difference over several reasons), one of
// hookexec's reason lines suffices.
func reasonShown(reason, told string, anyLine bool) bool {
	if strings.Contains(told, reason) {
		return true
	}
	if anyLine {
		for _, line := range strings.Split(reason, "\n") {
			if line != "" && strings.Contains(told, line) {
				return true
			}
		}
	}
	return false
}

// recordFields adds the payload keys of each fire to the per-event sets.
func recordFields(fires []livetest.Fire) {
	fieldsMu.Lock()
	defer fieldsMu.Unlock()
	for _, f := range fires {
		var m map[string]json.RawMessage
		if json.Unmarshal([]byte(f.Payload), &m) != nil {
			continue
		}
		if payloadFields[f.Event] == nil {
			payloadFields[f.Event] = map[string]bool{}
		}
		for k := range m {
			payloadFields[f.Event][k] = true
		}
	}
}

// checkPayloadFields compares the payload fields seen with payload_fields.json (the fields
// the pinned version sends, per event); HOOKEXEC_LIVE_UPDATE=1 rewrites the file instead.
// Only a full run (no HOOKEXEC_LIVE_ONLY) checks it. Returns the exit code.
func checkPayloadFields() int {
	if os.Getenv("HOOKEXEC_LIVE_ONLY") != "" {
		return 0
	}
	fieldsMu.Lock()
	defer fieldsMu.Unlock()
	seen := map[string][]string{}
	for ev, set := range payloadFields {
		for k := range set {
			seen[ev] = append(seen[ev], k)
		}
		sort.Strings(seen[ev])
	}
	const file = "payload_fields.json"
	if os.Getenv("HOOKEXEC_LIVE_UPDATE") != "" {
		// One line per event, so a new version's fields show as a one-line diff.
		names := make([]string, 0, len(seen))
		for ev := range seen {
			names = append(names, ev)
		}
		sort.Strings(names)
		var b strings.Builder
		fmt.Fprintf(&b, "{\n  \"version\": %q,\n  \"events\": {\n", claudeVersion)
		for i, ev := range names {
			fields, _ := json.Marshal(seen[ev])
			sep := ","
			if i == len(names)-1 {
				sep = ""
			}
			fmt.Fprintf(&b, "    %q: %s%s\n", ev, fields, sep)
		}
		b.WriteString("  }\n}\n")
		if err := os.WriteFile(file, []byte(b.String()), 0o644); err != nil {
			fmt.Println("payload fields:", err)
			return 1
		}
		fmt.Println("payload fields: wrote", file)
		return 0
	}
	var golden struct {
		Version string              `json:"version"`
		Events  map[string][]string `json:"events"`
	}
	data, err := os.ReadFile(file)
	if err == nil {
		err = json.Unmarshal(data, &golden)
	}
	if err != nil {
		fmt.Println("payload fields:", err, "(HOOKEXEC_LIVE_UPDATE=1 writes it)")
		return 1
	}
	var diffs []string
	events := map[string]bool{}
	for ev := range seen {
		events[ev] = true
	}
	for ev := range golden.Events {
		events[ev] = true
	}
	names := make([]string, 0, len(events))
	for ev := range events {
		names = append(names, ev)
	}
	sort.Strings(names)
	for _, ev := range names {
		if !reflect.DeepEqual(seen[ev], golden.Events[ev]) {
			diffs = append(diffs, fmt.Sprintf("  %s: %s %v sends %v", ev, golden.Version, golden.Events[ev], seen[ev]))
		}
	}
	if len(diffs) > 0 {
		fmt.Printf("payload fields differ from %s (check the new fields, then HOOKEXEC_LIVE_UPDATE=1):\n%s\n", file, strings.Join(diffs, "\n"))
		return 1
	}
	fmt.Printf("payload fields: %d events as %s recorded them\n", len(names), golden.Version)
	return 0
}
