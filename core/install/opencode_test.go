package install

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hookexec/hookexec/core/native"
)

func opencodeAgent(t *testing.T) *native.Agent {
	t.Helper()
	a, err := native.Lookup("opencode")
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func TestOpencodePluginInstallIsAtomicIdempotentAndKeepsOthers(t *testing.T) {
	a := opencodeAgent(t)
	dir := t.TempDir()
	other := filepath.Join(dir, ".opencode", "plugin", "mine.js")
	config := filepath.Join(dir, "opencode.json")
	for path, text := range map[string]string{other: "export const Mine = async () => ({})\n", config: `{"model": "x/y"}` + "\n"} {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	argv := []string{"/opt/hookexec/hookexec-hook", "--agent", "opencode"}
	c, err := InstallPlugin(a, native.Project, dir, argv)
	if err != nil || c.Action != "installed" {
		t.Fatalf("install: %v %+v", err, c)
	}
	path := filepath.Join(dir, ".opencode", "plugin", "hookexec.js")
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`const DISPATCHER = ["/opt/hookexec/hookexec-hook","--agent","opencode"];`, `const AGENT = "opencode";`,
		`const DEFAULT_TIMEOUT_MS = 65000;`, `"tool.execute.before"`} {
		if !strings.Contains(string(src), want) {
			t.Errorf("the plugin lacks %s", want)
		}
	}
	if c, err := InstallPlugin(a, native.Project, dir, argv); err != nil || c.Action != "already installed" {
		t.Fatalf("second install: %v %+v", err, c)
	}
	for path, want := range map[string]string{other: "export const Mine = async () => ({})\n", config: `{"model": "x/y"}` + "\n"} {
		if got, _ := os.ReadFile(path); string(got) != want {
			t.Errorf("%s changed: %q", path, got)
		}
	}
	st, err := Status(a, native.Project, dir)
	if err != nil || len(st) != 1 || !st[0].Installed {
		t.Fatalf("status: %v %+v", err, st)
	}
	if ch, err := Uninstall(a, native.Project, dir); err != nil || ch[0].Action != "restored" {
		t.Fatalf("uninstall: %v %+v", err, ch)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("the plugin is still there: %v", err)
	}
	if _, err := os.Stat(other); err != nil {
		t.Errorf("uninstall removed another plugin: %v", err)
	}
}

func TestOpencodePluginInstallRefusesForeignFileAndLinksOut(t *testing.T) {
	a := opencodeAgent(t)
	dir := t.TempDir()
	path := filepath.Join(dir, ".opencode", "plugin", "hookexec.js")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("// someone else's\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := InstallPlugin(a, native.Project, dir, []string{"/x/hookexec-hook", "--agent", "opencode"}); err == nil {
		t.Fatal("install overwrote a plugin it did not write")
	}
	if got, _ := os.ReadFile(path); string(got) != "// someone else's\n" {
		t.Fatalf("the foreign plugin changed: %q", got)
	}
	if _, err := Uninstall(a, native.Project, dir); err == nil {
		t.Fatal("uninstall removed a plugin it did not write")
	}
	out := t.TempDir()
	dir2 := t.TempDir()
	if err := os.Symlink(out, filepath.Join(dir2, ".opencode")); err != nil {
		t.Fatal(err)
	}
	if _, err := InstallPlugin(a, native.Project, dir2, []string{"/x/hookexec-hook"}); err == nil {
		t.Fatal("install wrote through a link leading out of the project")
	}
	if _, err := PluginSource(a, nil); err == nil {
		t.Fatal("a plugin without a dispatcher")
	}
}

// TestOpencodePluginAppliesAnswersAndFailsClosed runs the embedded plugin under Node with
// dispatchers that answer each way, as opencode calls it (tool.execute.before's output.args
// is the object the tool then runs with).
func TestOpencodePluginAppliesAnswersAndFailsClosed(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed")
	}
	a := opencodeAgent(t)
	dir := t.TempDir()
	cases := []struct {
		name, script string
		timeoutMs    int
		// want: "threw: <substring>" or the args after the call, as JSON (mode "prompt": the
		// prompt's text parts; "later": the tool's output).
		want string
		// mode: "" a bash call, "batch" a batch call running bash "rm -rf x", "prompt" a
		// chat.message, "later" a call whose args another plugin changes after hookexec's.
		mode string
	}{
		{"exit 2 refuses with the reason", "cat >/dev/null; echo 'no rm here' >&2; exit 2", 0, "threw: no rm here", ""},
		{"deny refuses", `cat >/dev/null; echo '{"decision":"deny","reason":"nope"}'`, 0, "threw: nope", ""},
		{"ask refuses", `cat >/dev/null; echo '{"decision":"ask","reason":"sure?"}'`, 0, "threw: cannot ask", ""},
		{"continue false refuses", `cat >/dev/null; echo '{"continue":false,"stopReason":"halt"}'`, 0, "threw: halt", ""},
		{"allow runs as is", `cat >/dev/null; echo '{"decision":"allow"}'`, 0, `{"command":"rm -rf x","description":"d"}`, ""},
		{"nothing to say runs as is", `cat >/dev/null`, 0, `{"command":"rm -rf x","description":"d"}`, ""},
		{"a rewrite changes args in place", `cat >/dev/null; echo '{"updatedInput":{"command":"echo safe"}}'`, 0, `{"command":"echo safe"}`, ""},
		{"the payload is Claude-shaped", `p=$(cat); for f in '"hook_event_name":"PreToolUse"' '"tool_name":"bash"' '"tool_use_id":"call_1"' '"session_id":"ses_1"' '"tool_input":{"command":"rm -rf x"'; do case "$p" in *"$f"*) ;; *) echo "no $f" >&2; exit 2;; esac; done`, 0, `{"command":"rm -rf x","description":"d"}`, ""},
		{"garbage fails closed", `cat >/dev/null; echo 'not json'`, 0, "threw: not a JSON object", ""},
		{"a non-object answer fails closed", `cat >/dev/null; echo '[1]'`, 0, "threw: not a JSON object", ""},
		{"exit 1 fails closed", `cat >/dev/null; echo oops >&2; exit 1`, 0, "threw: exit 1", ""},
		{"a crash fails closed", `cat >/dev/null; kill -SEGV $$`, 0, "threw: killed by SIGSEGV", ""},
		{"a bad rewrite fails closed", `cat >/dev/null; echo '{"updatedInput":"rm"}'`, 0, "threw: not an object", ""},
		{"a hang fails closed at the timeout", `cat >/dev/null; sleep 30`, 500, "threw: did not answer within 500 ms", ""},
		{"a missing dispatcher fails closed", "", 0, "threw: could not run", ""},
		// L2: the dispatcher's output is bounded, decoded as UTF-8 across chunks, and a new
		// input cannot replace the arguments' prototype.
		{"an answer over 4 MiB fails closed at once", `cat >/dev/null; head -c 5000000 /dev/zero | tr '\0' a; sleep 30`, 0, "threw: more than 4194304 bytes", ""},
		{"a character split across chunks stays whole", `cat >/dev/null; printf '{"updatedInput":{"command":"echo caf\303'; sleep 0.3; printf '\251 \342\234'; sleep 0.3; printf '\223"}}'`, 0, `{"command":"echo café ✓"}`, ""},
		{"__proto__ in a rewrite stays a plain key", `cat >/dev/null; echo '{"updatedInput":{"command":"echo safe","__proto__":{"polluted":true},"constructor":1}}'`, 0, `{"command":"echo safe","__proto__":{"polluted":true},"constructor":1}`, ""},
		// M4: a batch's sub-calls each go through the hooks.
		{"a guarded call inside a batch refuses the batch", `p=$(cat); case "$p" in *'"tool_name":"bash","tool_input":{"command":"rm -rf x"'*) echo 'no rm' >&2; exit 2;; esac`, 0, "threw: call 2 of the batch (bash) is refused, so the batch is: no rm", "batch"},
		{"a rewrite inside a batch refuses the batch", `p=$(cat); case "$p" in *'"tool_name":"bash"'*) echo '{"updatedInput":{"command":"echo other"}}';; esac`, 0, "threw: rewrote call 2 of the batch", "batch"},
		{"a batch whose calls are allowed runs as is", `cat >/dev/null`, 0, `{"tool_calls":[{"tool":"read","parameters":{"filePath":"a"}},{"tool":"bash","parameters":{"command":"rm -rf x"}}]}`, "batch"},
		// chat.message is UserPromptSubmit.
		{"a blocked prompt is refused", `p=$(cat); case "$p" in *'"hook_event_name":"UserPromptSubmit"'*'"prompt":"hello"'*) echo 'no prompts' >&2; exit 2;; esac`, 0, "threw: no prompts", "prompt"},
		{"a prompt's context is added to its text", `cat >/dev/null; echo '{"additionalContext":"ctx-1"}'`, 0, `["hello\n\nctx-1","opencode's own"]`, "prompt"},
		{"a prompt whose hooks cannot run is refused", `cat >/dev/null; echo 'not json'`, 0, "threw: hooks of this prompt could not run", "prompt"},
		// L1: args changed by a later plugin are reported in the tool's output.
		{"args another plugin changed are reported", `cat >/dev/null`, 0, `"ran\n\nhookexec: this call ran with arguments changed after hookexec's hooks checked them (checked {\"command\":\"rm -rf x\",\"description\":\"d\"}, ran {\"command\":\"echo swapped\",\"description\":\"d\"})"`, "later"},
		{"args no one changed are not reported", `cat >/dev/null`, 0, `"ran"`, "later-same"},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			disp := filepath.Join(dir, "missing-dispatcher")
			if tc.script != "" {
				disp = filepath.Join(dir, "disp"+itoa(i))
				if err := os.WriteFile(disp, []byte("#!/bin/sh\n"+tc.script+"\n"), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			src, err := PluginSource(a, []string{disp})
			if err != nil {
				t.Fatal(err)
			}
			plugin := filepath.Join(dir, "plugin"+itoa(i)+".mjs")
			if err := os.WriteFile(plugin, src, 0o644); err != nil {
				t.Fatal(err)
			}
			driver := `const { HookexecPlugin } = await import(process.argv[1]);
const mode = process.env.MODE;
const hooks = await HookexecPlugin({ directory: process.cwd() });
try {
  if (mode === "prompt") {
    const output = { message: {}, parts: [{ type: "text", text: "hello" }, { type: "text", synthetic: true, text: "opencode's own" }] };
    await hooks["chat.message"]({ sessionID: "ses_1", agent: "build" }, output);
    console.log(JSON.stringify(output.parts.map((p) => p.text)));
  } else if (mode === "later" || mode === "later-same") {
    const output = { args: { command: "rm -rf x", description: "d" } };
    await hooks["tool.execute.before"]({ tool: "bash", sessionID: "ses_1", callID: "call_1" }, output);
    if (mode === "later") output.args.command = "echo swapped"; // a plugin loaded after hookexec's
    const result = { title: "t", output: "ran", metadata: {} };
    await hooks["tool.execute.after"]({ tool: "bash", sessionID: "ses_1", callID: "call_1", args: output.args }, result);
    console.log(JSON.stringify(result.output));
  } else {
    const output = mode === "batch"
      ? { args: { tool_calls: [{ tool: "read", parameters: { filePath: "a" } }, { tool: "bash", parameters: { command: "rm -rf x" } }] } }
      : { args: { command: "rm -rf x", description: "d" } };
    const args = output.args;
    await hooks["tool.execute.before"]({ tool: mode === "batch" ? "batch" : "bash", sessionID: "ses_1", callID: "call_1" }, output);
    if (output.args !== args) throw new Error("output.args was replaced, not changed in place");
    if (Object.getPrototypeOf(args) !== Object.prototype) throw new Error("the prototype of output.args was replaced");
    console.log(JSON.stringify(args));
  }
} catch (err) { console.log("threw: " + err.message); }`
			cmd := exec.Command(node, "--input-type=module", "-e", driver, plugin)
			cmd.Dir = dir
			cmd.Env = append(os.Environ(), "HOOKEXEC_PLUGIN_TIMEOUT_MS=", "MODE="+tc.mode)
			if tc.timeoutMs > 0 {
				cmd.Env = append(cmd.Env, "HOOKEXEC_PLUGIN_TIMEOUT_MS="+itoa(tc.timeoutMs))
			}
			start := time.Now()
			var stderr strings.Builder
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("node: %v: %s%s", err, out, stderr.String())
			}
			got := strings.TrimSpace(string(out))
			if want, ok := strings.CutPrefix(tc.want, "threw: "); ok {
				if !strings.HasPrefix(got, "threw: ") || !strings.Contains(got, want) {
					t.Fatalf("got %q, want a refusal containing %q", got, want)
				}
			} else {
				var g, w any
				if json.Unmarshal([]byte(got), &g) != nil || json.Unmarshal([]byte(tc.want), &w) != nil || !jsonEqual(g, w) {
					t.Fatalf("got %q, want args %s", got, tc.want)
				}
			}
			if time.Since(start) > 10*time.Second {
				t.Fatalf("the hang held the agent %v", time.Since(start))
			}
		})
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

func jsonEqual(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

// TestPluginStatusReportsAnEditedPlugin: the marker line alone does not make a plugin
// hookexec's (review35 L3): a copy edited by hand, or a look-alike a cloned repository ships,
// is "modified", not installed.
func TestPluginStatusReportsAnEditedPlugin(t *testing.T) {
	for _, name := range []string{"opencode", "kilo"} {
		a, err := native.Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		dir := t.TempDir()
		argv := []string{"/opt/hookexec/hookexec", "hook", "--agent", name}
		if _, err := InstallPlugin(a, native.Project, dir, argv); err != nil {
			t.Fatal(err)
		}
		path := a.Plugin.Path(native.Project, dir)
		good, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		lookalike := append(append([]byte{}, PluginMarker...), []byte(" --agent opencode`\nexport const HookexecPlugin = async () => ({});\n")...)
		for _, tc := range []struct {
			name                string
			text                []byte
			installed, modified bool
		}{
			{"as install wrote it", good, true, false},
			{"a guard edited out", []byte(strings.Replace(string(good), "if (ans.block) return ans.reason;", "", 1)), false, true},
			{"hookexec elsewhere, the rest the same", []byte(strings.Replace(string(good), `"/opt/hookexec/hookexec"`, `"/usr/bin/hookexec"`, 1)), true, false},
			{"another program as the dispatcher", []byte(strings.Replace(string(good), `"/opt/hookexec/hookexec"`, `"/tmp/allow-all"`, 1)), false, true},
			{"a look-alike with the marker", lookalike, false, true},
			{"someone else's plugin", []byte("export const P = async () => ({});\n"), false, false},
		} {
			if err := os.WriteFile(path, tc.text, 0o644); err != nil {
				t.Fatal(err)
			}
			st, err := Status(a, native.Project, dir)
			if err != nil || len(st) != 1 {
				t.Fatalf("%s %s: %v %+v", name, tc.name, err, st)
			}
			if st[0].Installed != tc.installed || st[0].Modified != tc.modified {
				t.Errorf("%s %s: installed=%v modified=%v, want %v %v", name, tc.name, st[0].Installed, st[0].Modified, tc.installed, tc.modified)
			}
		}
		if !strings.Contains(string(good), `const AGENT = "`+name+`";`) || path != filepath.Join(dir, "."+name, "plugin", "hookexec.js") {
			t.Errorf("%s: the plugin at %s names another agent", name, path)
		}
	}
}
