// Command fakeapi serves a scripted fake model API on 127.0.0.1 so a hook author can run a
// real agent or agent framework offline against it (docs/live-testing.md):
//
//	go run ./tests/live/fakeapi/cmd/fakeapi -api anthropic -script turns.json -record requests.jsonl
//
// -api picks the wire format: anthropic (Messages; the default), chat (OpenAI Chat
// Completions), responses (OpenAI Responses) or gemini (generateContent). It prints the base
// URL on its first line (ANTHROPIC_BASE_URL; OPENAI_BASE_URL, which ends in /v1;
// GOOGLE_GEMINI_BASE_URL), then serves until interrupted or terminated; every request is
// appended to the -record file as one JSON line.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/hookexec/hookexec/tests/live/fakeapi"
)

func main() {
	kind := flag.String("api", "anthropic", "the API to serve: anthropic, chat, responses or gemini")
	script := flag.String("script", "", "JSON file: a list of turns, each {\"tools\": [{\"name\", \"input\"}], \"text\"}")
	side := flag.String("side", "", "the answer to requests without tools (prompt and agent hooks); default {\"ok\": true}")
	record := flag.String("record", "", "append every request to this file as a JSON line")
	flag.Parse()
	var turns []fakeapi.Turn
	if *script != "" {
		data, err := os.ReadFile(*script)
		if err == nil {
			err = json.Unmarshal(data, &turns)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "fakeapi: -script:", err)
			os.Exit(2)
		}
	}
	api, err := newAPI(*kind, turns, *side)
	if err != nil {
		fmt.Fprintln(os.Stderr, "fakeapi:", err)
		os.Exit(2)
	}
	url, err := api.Start()
	if err != nil {
		fmt.Fprintln(os.Stderr, "fakeapi:", err)
		os.Exit(1)
	}
	fmt.Println(url)
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, os.Interrupt, syscall.SIGTERM)
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

// server is what every fake API offers the command.
type server interface {
	Start() (string, error)
	Close() error
	Requests() []fakeapi.Request
}

// newAPI returns the fake of the API named kind, scripted with turns; side answers requests
// without tools ("" for the fake's default).
func newAPI(kind string, turns []fakeapi.Turn, side string) (server, error) {
	switch kind {
	case "anthropic":
		return &fakeapi.Anthropic{Script: turns, Side: side}, nil
	case "chat":
		api := (&fakeapi.Chat{}).With(turns)
		api.Side = side
		return api, nil
	case "responses":
		api := (&fakeapi.Responses{}).With(turns)
		api.Side = side
		return api, nil
	case "gemini":
		api := (&fakeapi.Gemini{}).With(turns)
		api.Side = side
		return api, nil
	}
	return nil, fmt.Errorf("-api %q: not one of anthropic, chat, responses, gemini", kind)
}
