//go:build !linux

package run

import (
	"context"
	"time"
)

func run(parent context.Context, spec *Spec, start time.Time) Result {
	return runExec(parent, spec, start)
}
