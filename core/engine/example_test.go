package engine_test

import (
	"fmt"
	"log"
	"os"

	"github.com/hookexec/hookexec/core/engine"
)

// A Go host (iteratr is one) opens an engine on the hooks of a profile's locations, or on
// an inline configuration as here, and closes it when done.
func ExampleOpen() {
	dir, _ := os.MkdirTemp("", "hookexec-example") // a project and home without hooks of their own
	defer os.RemoveAll(dir)
	e, err := engine.Open(engine.Options{
		Profile:    "claude",
		ProjectDir: dir,
		Home:       dir,
		Config: []byte(`{"hooks": {"PreToolUse": [{"matcher": "Bash",
			"hooks": [{"type": "command", "command": "echo checked"}]}]}}`),
	})
	if err != nil {
		log.Fatal(err)
	}
	defer e.Close()
	n, _ := e.Match("PreToolUse", "Bash")
	fmt.Println("hooks for Bash:", n)
	// Output: hooks for Bash: 1
}

// Fire runs the matching hooks and aggregates their answers into one Result: a hook that
// exits 2 blocks the tool call, with its stderr as the reason.
func ExampleEngine_Fire() {
	dir, _ := os.MkdirTemp("", "hookexec-example")
	defer os.RemoveAll(dir)
	e, err := engine.Open(engine.Options{
		ProjectDir: dir,
		Home:       dir,
		Config: []byte(`{"hooks": {"PreToolUse": [{"matcher": "bash_execute", "hooks": [
			{"type": "command", "command": "echo 'no rm -rf here' >&2; exit 2"}]}]}}`),
	})
	if err != nil {
		log.Fatal(err)
	}
	defer e.Close()

	r, err := e.Fire("PreToolUse", []byte(`{"tool_name": "bash_execute", "tool_input": {"command": "rm -rf /"}}`))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("matched:", r.Matched)
	fmt.Println("blocked:", r.Blocked, r.Decision)
	fmt.Printf("reason: %q\n", r.Reason)
	fmt.Println("exit code:", r.Hooks[0].ExitCode)
	// Output:
	// matched: 1
	// blocked: true deny
	// reason: "no rm -rf here"
	// exit code: 2
}
