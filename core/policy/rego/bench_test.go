package rego_test

import (
	"context"
	"testing"

	"github.com/hookexec/hookexec/core/policy"
)

// BenchmarkRego evaluates the rm -rf rule (testdata/rmrf) and the five guards of
// docs/policy.md (testdata/five, with fresh facts per fire as the engine makes them) per
// fire: the payload parsed, the prepared query evaluated, the answer marshalled.
// docs/policy.md quotes it.
func BenchmarkRego(b *testing.B) {
	dir := b.TempDir() // the project: rm -rf / is outside it
	rmrf := compile(b, "rmrf", "data.rmrf.decision")
	five := compile(b, "five", "data.guard.decision")
	for _, bc := range []struct {
		name    string
		p       policy.Policy
		payload []byte
		answers bool
	}{
		{"rm -rf rule/deny", rmrf, bash("rm -rf /"), true},
		{"rm -rf rule/no match", rmrf, bash("ls -l"), false},
		{"five guards/deny", five, bash("rm -rf /"), true},
		{"five guards/no match", five, bash("ls -l"), false},
	} {
		p := bc.p
		b.Run(bc.name, func(b *testing.B) {
			ctx := context.Background()
			b.ReportAllocs()
			cpu := processCPU()
			for b.Loop() {
				in := &policy.Input{Payload: bc.payload, Event: "PreToolUse", Facts: policy.FactsFor(dir, bc.payload)}
				out, err := p.Eval(ctx, in)
				if err != nil || (out != nil) != bc.answers {
					b.Fatalf("%s, %v", out, err)
				}
			}
			if cpu > 0 {
				b.ReportMetric(float64(processCPU()-cpu)/float64(b.N), "cpu-ns/op")
			}
		})
	}
}
