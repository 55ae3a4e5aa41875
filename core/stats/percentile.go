package stats

import (
	"math"
	"slices"
)

// Latency summarises a set of durations in milliseconds. Percentiles are exact, by the
// nearest-rank method: the p-th percentile of n sorted values is the value of rank
// ceil(p/100 × n) (1-based), a duration that really occurred; so p50 of 1, 2, 3, 4 is 2 and
// p99 of fewer than 100 values is the largest.
type Latency struct {
	Count   int     `json:"count"`
	TotalMs float64 `json:"total_ms"`
	MeanMs  float64 `json:"mean_ms"`
	MinMs   float64 `json:"min_ms"`
	P50Ms   float64 `json:"p50_ms"`
	P90Ms   float64 `json:"p90_ms"`
	P99Ms   float64 `json:"p99_ms"`
	MaxMs   float64 `json:"max_ms"`
}

// summarise sorts ms in place and summarises it; the zero Latency for none.
func summarise(ms []float64) Latency {
	if len(ms) == 0 {
		return Latency{}
	}
	slices.Sort(ms)
	l := Latency{Count: len(ms), MinMs: ms[0], MaxMs: ms[len(ms)-1]}
	for _, v := range ms {
		l.TotalMs += v
	}
	l.MeanMs = l.TotalMs / float64(len(ms))
	l.P50Ms, l.P90Ms, l.P99Ms = Percentile(ms, 50), Percentile(ms, 90), Percentile(ms, 99)
	return l
}

// Percentile is the p-th percentile (0 < p <= 100) of sorted by the nearest-rank method;
// 0 for no values.
func Percentile(sorted []float64, p float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	rank := int(math.Ceil(p * float64(len(sorted)) / 100)) // p×n first: 99.9×1000 is exact, 99.9/100 is not
	return sorted[min(max(rank, 1), len(sorted))-1]
}
