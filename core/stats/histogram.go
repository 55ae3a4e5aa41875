package stats

import (
	"math"
	"sort"
)

// Bin is one bar of a latency histogram: the durations d with LoMs <= d < HiMs (the last
// bin includes its HiMs, the largest duration).
type Bin struct {
	LoMs  float64 `json:"lo_ms"`
	HiMs  float64 `json:"hi_ms"`
	Count int     `json:"count"`
}

// MaxBins is the most bars a histogram has.
const MaxBins = 20

// Histogram bins sorted durations: Sturges' rule (1 + ceil(log2 n) bins, at most MaxBins)
// over [min, max], the bins equally wide, or equally wide on a log scale when the largest
// duration is 10 times the smallest or more (hook latencies have long tails: a cold start,
// a timeout). All equal durations make one bin; no durations, none.
func Histogram(sorted []float64) []Bin {
	n := len(sorted)
	if n == 0 {
		return nil
	}
	lo, hi := sorted[0], sorted[n-1]
	if lo == hi {
		return []Bin{{LoMs: lo, HiMs: hi, Count: n}}
	}
	k := min(MaxBins, 1+int(math.Ceil(math.Log2(float64(n)))))
	edges := make([]float64, k+1)
	logScale := lo > 0 && hi/lo >= 10
	for i := range edges {
		f := float64(i) / float64(k)
		if logScale {
			edges[i] = lo * math.Pow(hi/lo, f)
		} else {
			edges[i] = lo + (hi-lo)*f
		}
	}
	edges[0], edges[k] = lo, hi
	bins := make([]Bin, k)
	for i := range bins {
		bins[i] = Bin{LoMs: edges[i], HiMs: edges[i+1]}
	}
	for _, d := range sorted {
		// The bin whose upper edge is the first above d; the last bin takes hi itself.
		i := sort.Search(k, func(i int) bool { return edges[i+1] > d })
		bins[min(i, k-1)].Count++
	}
	return bins
}
