// Command gofire is the Go column of `make bench`: it opens an engine the way a Go host
// would and times fires (or opens) one by one, printing one line per iteration in
// nanoseconds. tests/bench/bench_fire.py builds and drives it.
//
//	gofire -config cfg.json -event PreToolUse -payload '{...}' -n 300
//	gofire -config a.json,b.json,c.json -payload '{...}' -n 3000 -batch 10
//	gofire -sources a.json,b.json,c.json,d.json -open -n 20
//
// With several configs, one engine each, their fires take turns (a, b, c, a, b, c, ...), so
// that the load of a shared machine hits them alike, and each line holds one figure per
// config in their order. With -batch each figure is the mean of that many fires in a row.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/hookexec/hookexec/core/engine"
)

func main() {
	cfgPaths := flag.String("config", "", "inline config file, or several comma-separated, fired in turns")
	batch := flag.Int("batch", 1, "fires per figure (their mean)")
	sources := flag.String("sources", "", "comma-separated source files")
	project := flag.String("project", ".", "project dir (also home)")
	profile := flag.String("profile", "", "the engine's profile (default cli-agent)")
	event := flag.String("event", "PreToolUse", "event to fire")
	payload := flag.String("payload", "{}", "payload JSON")
	n := flag.Int("n", 100, "iterations")
	warm := flag.Int("warm", 3, "untimed iterations first")
	openOnly := flag.Bool("open", false, "time Open+Close instead of fires")
	flag.Parse()

	o := engine.Options{ProjectDir: *project, Home: *project, Profile: *profile}
	if *sources != "" {
		o.Sources = strings.Split(*sources, ",")
	}
	if strings.Contains(*cfgPaths, ",") {
		inTurns(o, strings.Split(*cfgPaths, ","), *event, []byte(*payload), *n, *warm, *batch)
		return
	}
	if *cfgPaths != "" {
		o.Config = readConfig(*cfgPaths)
	}
	out := make([]int64, 0, *n)
	if *openOnly {
		for i := range *n + *warm {
			t := time.Now()
			e, err := engine.Open(o)
			if err != nil {
				fail(err)
			}
			d := time.Since(t)
			e.Close()
			if i >= *warm {
				out = append(out, d.Nanoseconds())
			}
		}
	} else {
		e, err := engine.Open(o)
		if err != nil {
			fail(err)
		}
		data := []byte(*payload)
		for i := range *n + *warm {
			d := fires(e, *event, data, *batch)
			if i >= *warm {
				out = append(out, d)
			}
		}
		e.Close()
	}
	var b strings.Builder
	for _, ns := range out {
		fmt.Fprintln(&b, ns)
	}
	os.Stdout.WriteString(b.String())
}

// inTurns opens one engine per config and fires them in turns, printing one line per round.
func inTurns(o engine.Options, paths []string, event string, payload []byte, n, warm, batch int) {
	engines := make([]*engine.Engine, len(paths))
	for i, p := range paths {
		o.Config = readConfig(p)
		e, err := engine.Open(o)
		if err != nil {
			fail(fmt.Errorf("%s: %w", p, err))
		}
		defer e.Close()
		engines[i] = e
	}
	var b strings.Builder
	for round := range n + warm {
		for i, e := range engines {
			d := fires(e, event, payload, batch)
			if round < warm {
				continue
			}
			if i > 0 {
				b.WriteByte(' ')
			}
			fmt.Fprint(&b, d)
		}
		if round >= warm {
			b.WriteByte('\n')
		}
	}
	os.Stdout.WriteString(b.String())
}

// fires fires batch times and returns the mean nanoseconds of one fire; a hook's error fails
// the run (a benchmark of a broken guard measures nothing).
func fires(e *engine.Engine, event string, payload []byte, batch int) int64 {
	t := time.Now()
	for range batch {
		r, err := e.Fire(event, payload)
		if err != nil {
			fail(err)
		}
		for _, h := range r.Hooks {
			if h.Error != "" {
				fail(fmt.Errorf("hook %s: %s", h.ID, h.Error))
			}
		}
	}
	return time.Since(t).Nanoseconds() / int64(max(batch, 1))
}

func readConfig(path string) json.RawMessage {
	b, err := os.ReadFile(path)
	if err != nil {
		fail(err)
	}
	return json.RawMessage(b)
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "gofire:", err)
	os.Exit(1)
}
