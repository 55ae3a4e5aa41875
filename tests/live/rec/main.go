// Command rec is the hook the live suites configure: it records that it ran and what it
// was given on stdin (one JSON line appended to $HOOKEXEC_LIVE_LOG), then behaves as its
// flags say, or runs the command after "--" with the same stdin. $HOOKEXEC_LIVE_TAG, when
// set, is put before NAME. The same rec line runs under
// the real agent and under hookexec, so the two logs show which hooks each one ran. With
// -done it logs a second line, NAME/done, when it has slept and run its command: a hook
// killed on the way (a timeout, a budget) has no NAME/done.
//
//	rec NAME [-out TEXT] [-err TEXT] [-exit N] [-sleep SECONDS] [-done] [-- command args...]
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"time"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: rec NAME [-out TEXT] [-err TEXT] [-exit N] [-sleep SECONDS] [-done] [-- command args...]")
		os.Exit(64)
	}
	// HOOKEXEC_LIVE_TAG marks the hooks that ran under something that set it (a shell
	// prefix, a wrapper), so the log shows which ones did; recorders ("@Event") stay as named.
	name := os.Args[1]
	if !strings.HasPrefix(name, "@") {
		name = os.Getenv("HOOKEXEC_LIVE_TAG") + name
	}
	fs := flag.NewFlagSet("rec", flag.ExitOnError)
	out := fs.String("out", "", "write this to stdout")
	errText := fs.String("err", "", "write this to stderr")
	code := fs.Int("exit", 0, "exit with this code")
	sleep := fs.Float64("sleep", 0, "sleep this many seconds first")
	done := fs.Bool("done", false, "log NAME/done when finished")
	_ = fs.Parse(os.Args[2:])
	stdin, _ := io.ReadAll(os.Stdin)
	logLine(name, stdin)
	if *sleep > 0 {
		time.Sleep(time.Duration(*sleep * float64(time.Second)))
	}
	if args := fs.Args(); len(args) > 0 {
		cmd := exec.Command(args[0], args[1:]...)
		cmd.Stdin, cmd.Stdout, cmd.Stderr = bytes.NewReader(stdin), os.Stdout, os.Stderr
		err := cmd.Run()
		if *done {
			logLine(name+"/done", stdin)
		}
		var exit *exec.ExitError
		switch {
		case errors.As(err, &exit):
			os.Exit(exit.ExitCode())
		case err != nil:
			fmt.Fprintln(os.Stderr, "rec:", err)
			os.Exit(127)
		}
		os.Exit(0)
	}
	if *done {
		logLine(name+"/done", stdin)
	}
	fmt.Print(*out)
	fmt.Fprint(os.Stderr, *errText)
	os.Exit(*code)
}

// logLine appends {"name", "stdin", "pid"} to $HOOKEXEC_LIVE_LOG.
func logLine(name string, stdin []byte) {
	log := os.Getenv("HOOKEXEC_LIVE_LOG")
	if log == "" {
		return
	}
	line, _ := json.Marshal(map[string]any{"name": name, "stdin": string(stdin), "pid": os.Getpid()})
	// One write of one line to an O_APPEND file: concurrent hooks' lines do not mix.
	if f, err := os.OpenFile(log, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644); err == nil {
		_, _ = f.Write(append(line, '\n'))
		_ = f.Close()
	}
}
