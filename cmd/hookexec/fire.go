package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/hookexec/hookexec/core/engine"
	"github.com/hookexec/hookexec/core/event"
)

func init() {
	var payload string
	register(&verb{
		name:    "fire",
		args:    "EVENT",
		summary: "fire an event for real and print the decision; exit 2 when blocked",
		help: `Runs the hooks of EVENT that match the payload, exactly as a host would, and prints the
aggregated decision and each hook's outcome. The exit status is 2 when the fire is blocked,
so a shell-based agent can call hookexec fire directly and test $?.`,
		example: `hookexec fire PreToolUse --payload '{"tool_name":"Bash","tool_input":{"command":"rm -rf /"}}'
echo '{"tool_name":"Write"}' | hookexec fire PostToolUse --payload -
hookexec fire Stop --payload @stop.json --json`,
		flags: func(fs *flag.FlagSet) {
			fs.StringVar(&payload, "payload", "", "the event's payload: `JSON`, @FILE, or - for stdin (default {})")
		},
		run: func(a *app, args []string) int { return runFire(a, args, payload) },
	})
}

func runFire(a *app, args []string, payloadArg string) int {
	name, data, err := a.eventAndPayload("fire", args, payloadArg)
	if err != nil {
		return a.fail(err)
	}
	return a.withEngine(func(eng *engine.Engine) (int, error) {
		res, err := a.fireWithProgress(eng, name, data)
		if err != nil {
			return 0, err
		}
		if a.globals.json {
			a.printRawJSON(res.JSON())
		} else {
			a.printResult(res)
		}
		if res.Blocked {
			return exitBlocked, nil
		}
		return exitOK, nil
	})
}

// eventAndPayload reads a verb's EVENT argument and --payload.
func (a *app) eventAndPayload(verb string, args []string, payloadArg string) (string, []byte, error) {
	name, err := oneEvent(verb, args)
	if err != nil {
		return "", nil, err
	}
	data, err := a.readPayload(payloadArg)
	return name, data, err
}

// oneEvent checks that args is exactly one event name hooks can be configured for.
func oneEvent(verb string, args []string) (string, error) {
	if len(args) != 1 {
		return "", usagef("%s: want one EVENT argument, got %d (see hookexec %s --help)", verb, len(args), verb)
	}
	return args[0], checkEventName(args[0])
}

// checkEventName rejects names no configuration could use: not a known event or alias and
// not an open-ended Pre*/Post* name.
func checkEventName(name string) error {
	if event.Lookup(name).Known {
		return nil
	}
	// A near miss of a known name is a typo even when it looks like an open-ended
	// Pre*/Post* event, as the config loader also decides.
	if s := event.Suggest(name); s != "" {
		return usagef("unknown event %q (did you mean %q?)", name, s)
	}
	if event.LooksOpenEnded(name) {
		return nil
	}
	return usagef("unknown event %q (known: %s)", name, strings.Join(event.CanonicalNames(), ", "))
}

// readPayload reads --payload: inline JSON, @FILE or - for stdin; "" is {}. The result is
// checked to be a JSON object.
func (a *app) readPayload(arg string) ([]byte, error) {
	var data []byte
	var from string
	switch {
	case arg == "":
		return []byte("{}"), nil
	case arg == "-":
		b, err := io.ReadAll(a.stdin)
		if err != nil {
			return nil, usagef("--payload -: reading stdin: %v", err)
		}
		data, from = b, "stdin"
	case strings.HasPrefix(arg, "@"):
		b, err := os.ReadFile(arg[1:])
		if err != nil {
			return nil, usagef("--payload: cannot read %s: %v", arg[1:], unwrapPathError(err))
		}
		data, from = b, arg[1:]
	default:
		data, from = []byte(arg), "--payload"
	}
	if err := checkObject(data); err != nil {
		return nil, usagef("%s: %v", from, err)
	}
	return data, nil
}

func unwrapPathError(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// checkObject reports whether data is one JSON object, naming the problem when not.
func checkObject(data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	var v any
	if err := dec.Decode(&v); err != nil {
		if err == io.EOF {
			return errors.New("empty payload, want a JSON object")
		}
		return fmt.Errorf("invalid JSON: %v", err)
	}
	if _, ok := v.(map[string]any); !ok {
		return fmt.Errorf("payload is %s, want a JSON object", jsonKind(v))
	}
	if dec.More() {
		return errors.New("invalid JSON: more than one value")
	}
	return nil
}

func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case float64:
		return "a number"
	case string:
		return "a string"
	case []any:
		return "an array"
	}
	return "an object"
}

// fireWithProgress fires the event; on a terminal, a hook that takes more than a second
// gets an elapsed-time line on stderr, erased when the fire returns.
func (a *app) fireWithProgress(eng *engine.Engine, name string, data []byte) (*engine.Result, error) {
	stop := a.progress(name)
	res, err := eng.Fire(name, data)
	stop()
	if errors.Is(err, engine.ErrInvalid) {
		return nil, usagef("%v", err)
	}
	return res, err
}

// progress starts the elapsed-time line for a slow fire on a terminal and returns the
// function that ends it.
func (a *app) progress(what string) func() {
	if !a.term.errTTY {
		return func() {}
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		start := time.Now()
		shown := false
		tick := time.NewTicker(100 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-done:
				if shown {
					fmt.Fprint(a.stderr, "\r\x1b[K")
				}
				return
			case <-tick.C:
				el := time.Since(start)
				if el < time.Second {
					continue
				}
				shown = true
				fmt.Fprintf(a.stderr, "\r\x1b[K%s running %s hooks… %.1fs", spinner(el), what, el.Seconds())
			}
		}
	}()
	return func() { close(done); wg.Wait() }
}

func spinner(d time.Duration) string {
	frames := []string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"}
	return frames[int(d/(100*time.Millisecond))%len(frames)]
}

// printResult prints a fire's outcome for a person.
func (a *app) printResult(r *engine.Result) {
	t := a.term
	w := a.stdout
	verdict := cell{text: "allowed", paint: green}
	switch {
	case r.Blocked:
		verdict = cell{text: "blocked", paint: red}
	case r.Matched == 0:
		verdict = cell{text: "no hooks matched", paint: dim}
	}
	head := fmt.Sprintf("%s: %s", t.paint(bold, r.Event), t.paint(verdict.paint, verdict.text))
	if r.Decision != "none" {
		head += " (decision " + r.Decision + ")"
	}
	fmt.Fprintln(w, head)
	field := func(label, v string) {
		if v != "" {
			fmt.Fprintf(w, "  %s %s\n", t.paint(dim, label+":"), indentRest(v, "    "))
		}
	}
	field("reason", r.Reason)
	if !r.Continue {
		field("continue", "false")
		field("stop reason", r.StopReason)
	}
	if len(r.UpdatedInput) > 0 && string(r.UpdatedInput) != "null" {
		field("updated input", string(r.UpdatedInput))
	}
	field("additional context", r.AdditionalContext)
	field("system message", r.SystemMessage)
	for _, o := range r.AgentOutput {
		field("agent output", o)
	}
	if len(r.Hooks) > 0 {
		tb := newTable(t, "ID", "EXIT", "TIME", "DECISION", "COMMAND")
		tb.right[1], tb.right[2] = true, true
		tb.shrink = 4
		for _, h := range r.Hooks {
			exit := cell{text: exitText(h)}
			switch {
			case h.Error != "" || h.TimedOut || h.Signal != "":
				exit.paint = red
			case h.ExitCode == 0:
				exit.paint = green
			case h.ExitCode == 2:
				exit.paint = yellow
			}
			tb.rowCells(cell{text: h.ID, paint: cyan}, exit, cell{text: duration(h.DurationMs)},
				cell{text: h.Decision}, cell{text: oneLine(h.Command)})
		}
		tb.write(w, "  ")
		for _, h := range r.Hooks {
			if h.Error != "" {
				fmt.Fprintf(w, "  %s %s\n", t.paint(cyan, h.ID), t.paint(red, "error: "+h.Error))
			}
			for _, s := range []struct{ name, text string }{{"stdout", h.Stdout}, {"stderr", h.Stderr}} {
				if strings.TrimSpace(s.text) == "" {
					continue
				}
				fmt.Fprintf(w, "  %s %s %s\n", t.paint(cyan, h.ID), t.paint(dim, s.name+":"), indentRest(excerpt(s.text, 5), "    "))
			}
		}
	}
	for _, warn := range r.Warnings {
		fmt.Fprintf(w, "  %s %s\n", t.paint(yellow, "warning:"), warn)
	}
	fmt.Fprintf(w, "%s in %s\n", plural(r.Matched, "hook")+" ran", strings.TrimSpace(duration(r.DurationMs)))
}

func exitText(h engine.HookResult) string {
	switch {
	case h.Async:
		return "async"
	case h.TimedOut:
		return "timeout"
	case h.Signal != "":
		return h.Signal
	case h.ExitCode < 0:
		return "-"
	}
	return fmt.Sprint(h.ExitCode)
}

// duration renders milliseconds in a fixed width so that tables keep their layout.
func duration(ms float64) string {
	if ms >= 10000 {
		return fmt.Sprintf("%6.1fs", ms/1000)
	}
	return fmt.Sprintf("%5.0fms", ms)
}

// excerpt keeps the first n lines of s, saying how many were left out.
func excerpt(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) <= n {
		return strings.Join(lines, "\n")
	}
	return strings.Join(lines[:n], "\n") + fmt.Sprintf("\n… %d more lines", len(lines)-n)
}

func indentRest(s, indent string) string {
	return strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n"+indent)
}
