// Command gofire is the Go column of `make bench`: it opens an engine the way a Go host
// would and times fires (or opens) one by one, printing one line per iteration in
// nanoseconds. tests/bench/bench_fire.py builds and drives it.
//
//	gofire -config cfg.json -event PreToolUse -payload '{...}' -n 300
//	gofire -sources a.json,b.json,c.json,d.json -open -n 20
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
	cfgPath := flag.String("config", "", "inline config file")
	sources := flag.String("sources", "", "comma-separated source files")
	project := flag.String("project", ".", "project dir (also home)")
	event := flag.String("event", "PreToolUse", "event to fire")
	payload := flag.String("payload", "{}", "payload JSON")
	n := flag.Int("n", 100, "iterations")
	warm := flag.Int("warm", 3, "untimed iterations first")
	openOnly := flag.Bool("open", false, "time Open+Close instead of fires")
	flag.Parse()

	o := engine.Options{ProjectDir: *project, Home: *project}
	if *cfgPath != "" {
		b, err := os.ReadFile(*cfgPath)
		if err != nil {
			fail(err)
		}
		o.Config = json.RawMessage(b)
	}
	if *sources != "" {
		o.Sources = strings.Split(*sources, ",")
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
			t := time.Now()
			r, err := e.Fire(*event, data)
			d := time.Since(t)
			if err != nil {
				fail(err)
			}
			for _, h := range r.Hooks {
				if h.Error != "" {
					fail(fmt.Errorf("hook %s: %s", h.ID, h.Error))
				}
			}
			if i >= *warm {
				out = append(out, d.Nanoseconds())
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

func fail(err error) {
	fmt.Fprintln(os.Stderr, "gofire:", err)
	os.Exit(1)
}
