// Command fakeapi serves a scripted fake Anthropic Messages API on 127.0.0.1 so a hook
// author can run real Claude Code offline against it (docs/live-testing.md):
//
//	go run ./tests/live/fakeapi/cmd/fakeapi -script turns.json -record requests.jsonl
//
// It prints the base URL (for ANTHROPIC_BASE_URL) on its first line, then serves until
// interrupted; every request is appended to the -record file as one JSON line.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"time"

	"github.com/hookexec/hookexec/tests/live/fakeapi"
)

func main() {
	script := flag.String("script", "", "JSON file: a list of turns, each {\"tools\": [{\"name\", \"input\"}], \"text\"}")
	side := flag.String("side", "", "the answer to requests without tools (prompt and agent hooks); default {\"ok\": true}")
	record := flag.String("record", "", "append every request to this file as a JSON line")
	flag.Parse()
	api := &fakeapi.Anthropic{Side: *side}
	if *script != "" {
		data, err := os.ReadFile(*script)
		if err == nil {
			err = json.Unmarshal(data, &api.Script)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "fakeapi: -script:", err)
			os.Exit(2)
		}
	}
	url, err := api.Start()
	if err != nil {
		fmt.Fprintln(os.Stderr, "fakeapi:", err)
		os.Exit(1)
	}
	fmt.Println(url)
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, os.Interrupt)
	written := 0
	flush := func() {
		reqs := api.Requests()
		if *record == "" || len(reqs) == written {
			return
		}
		f, err := os.OpenFile(*record, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err != nil {
			fmt.Fprintln(os.Stderr, "fakeapi: -record:", err)
			return
		}
		defer f.Close()
		for _, r := range reqs[written:] {
			line, _ := json.Marshal(r)
			fmt.Fprintf(f, "%s\n", line)
		}
		written = len(reqs)
	}
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-stop:
			flush()
			_ = api.Close()
			return
		case <-tick.C:
			flush()
		}
	}
}
