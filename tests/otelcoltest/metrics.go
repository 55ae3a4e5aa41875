package otelcoltest

import (
	"fmt"
	"time"
)

// Metric is one metric stream of one export as the collector received it.
type Metric struct {
	Name, Description, Unit string
	Type                    string // "gauge", "sum", "histogram", "exponentialHistogram" or "summary"
	Temporality             int    // sums and histograms: 1 delta, 2 cumulative
	Monotonic               bool   // sums
	Points                  []Point
	Resource                map[string]any
	Scope                   Scope
}

// Point is a data point. Which fields are set depends on the metric's Type.
type Point struct {
	Attributes  map[string]any
	Start, Time time.Time
	// Gauges and sums: the value, an integer when IsInt.
	IsInt  bool
	Int    int64
	Double float64
	// Histograms (Count, Sum, Min, Max, BucketCounts, Bounds), exponential histograms (Count,
	// Sum, Min, Max, Scale, ZeroCount, Positive, Negative) and summaries (Count, Sum, Quantiles).
	Count              uint64
	Sum                float64
	Min, Max           *float64 // nil when not recorded
	BucketCounts       []uint64
	Bounds             []float64 // explicit bucket bounds; len(BucketCounts) == len(Bounds)+1
	Scale              int32
	ZeroCount          uint64
	Positive, Negative ExpBuckets
	Quantiles          []Quantile
}

// Number is a gauge's or sum's value as a float64, integer or not.
func (p Point) Number() float64 {
	if p.IsInt {
		return float64(p.Int)
	}
	return p.Double
}

// ExpBuckets are one side of an exponential histogram.
type ExpBuckets struct {
	Offset int32
	Counts []uint64
}

// Quantile is one of a summary's quantiles.
type Quantile struct {
	Quantile, Value float64
}

// MetricNamed is the metric streams named name, in order.
func MetricNamed(metrics []Metric, name string) []Metric {
	var out []Metric
	for _, m := range metrics {
		if m.Name == name {
			out = append(out, m)
		}
	}
	return out
}

type wireMetrics struct {
	ResourceMetrics []struct {
		Resource     wireResource `json:"resource"`
		ScopeMetrics []struct {
			Scope   wireScope    `json:"scope"`
			Metrics []wireMetric `json:"metrics"`
		} `json:"scopeMetrics"`
	} `json:"resourceMetrics"`
}

type wirePoints struct {
	DataPoints             []wirePoint `json:"dataPoints"`
	AggregationTemporality int         `json:"aggregationTemporality"`
	IsMonotonic            bool        `json:"isMonotonic"`
}

type wireMetric struct {
	Name                 string      `json:"name"`
	Description          string      `json:"description"`
	Unit                 string      `json:"unit"`
	Gauge                *wirePoints `json:"gauge"`
	Sum                  *wirePoints `json:"sum"`
	Histogram            *wirePoints `json:"histogram"`
	ExponentialHistogram *wirePoints `json:"exponentialHistogram"`
	Summary              *wirePoints `json:"summary"`
}

type wireExpBuckets struct {
	Offset       int32     `json:"offset"`
	BucketCounts []jsonInt `json:"bucketCounts"`
}

type wirePoint struct {
	Attributes        []wireKeyValue `json:"attributes"`
	StartTimeUnixNano jsonInt        `json:"startTimeUnixNano"`
	TimeUnixNano      jsonInt        `json:"timeUnixNano"`
	AsInt             *jsonInt       `json:"asInt"`
	AsDouble          *jsonFloat     `json:"asDouble"`
	Count             jsonInt        `json:"count"`
	Sum               jsonFloat      `json:"sum"`
	Min               *jsonFloat     `json:"min"`
	Max               *jsonFloat     `json:"max"`
	BucketCounts      []jsonInt      `json:"bucketCounts"`
	ExplicitBounds    []jsonFloat    `json:"explicitBounds"`
	Scale             int32          `json:"scale"`
	ZeroCount         jsonInt        `json:"zeroCount"`
	Positive          wireExpBuckets `json:"positive"`
	Negative          wireExpBuckets `json:"negative"`
	QuantileValues    []struct {
		Quantile jsonFloat `json:"quantile"`
		Value    jsonFloat `json:"value"`
	} `json:"quantileValues"`
}

func decodeMetrics(req wireMetrics) ([]Metric, error) {
	var out []Metric
	for _, rm := range req.ResourceMetrics {
		for _, sm := range rm.ScopeMetrics {
			o, err := newOrigin(rm.Resource, sm.Scope)
			if err != nil {
				return nil, err
			}
			for _, wm := range sm.Metrics {
				m, err := wm.metric(o)
				if err != nil {
					return nil, fmt.Errorf("metric %q: %w", wm.Name, err)
				}
				out = append(out, m)
			}
		}
	}
	return out, nil
}

func (wm wireMetric) metric(o origin) (Metric, error) {
	m := Metric{Name: wm.Name, Description: wm.Description, Unit: wm.Unit, Resource: o.resource, Scope: o.scope}
	var points *wirePoints
	for _, c := range []struct {
		kind string
		p    *wirePoints
	}{{"gauge", wm.Gauge}, {"sum", wm.Sum}, {"histogram", wm.Histogram}, {"exponentialHistogram", wm.ExponentialHistogram}, {"summary", wm.Summary}} {
		if c.p != nil {
			m.Type, points = c.kind, c.p
		}
	}
	if points == nil {
		return Metric{}, fmt.Errorf("no data (none of gauge, sum, histogram, exponentialHistogram, summary)")
	}
	m.Temporality, m.Monotonic = points.AggregationTemporality, points.IsMonotonic
	for _, wp := range points.DataPoints {
		p, err := wp.point()
		if err != nil {
			return Metric{}, err
		}
		m.Points = append(m.Points, p)
	}
	return m, nil
}

func (wp wirePoint) point() (Point, error) {
	attrs, err := attributes(wp.Attributes)
	if err != nil {
		return Point{}, fmt.Errorf("data point: %w", err)
	}
	p := Point{
		Attributes: attrs, Start: unixNano(wp.StartTimeUnixNano), Time: unixNano(wp.TimeUnixNano),
		Count: uint64(wp.Count), Sum: float64(wp.Sum), Min: optFloat(wp.Min), Max: optFloat(wp.Max),
		BucketCounts: counts(wp.BucketCounts), Scale: wp.Scale, ZeroCount: uint64(wp.ZeroCount),
		Positive: ExpBuckets{Offset: wp.Positive.Offset, Counts: counts(wp.Positive.BucketCounts)},
		Negative: ExpBuckets{Offset: wp.Negative.Offset, Counts: counts(wp.Negative.BucketCounts)},
	}
	switch {
	case wp.AsInt != nil:
		p.IsInt, p.Int = true, int64(*wp.AsInt)
	case wp.AsDouble != nil:
		p.Double = float64(*wp.AsDouble)
	}
	for _, b := range wp.ExplicitBounds {
		p.Bounds = append(p.Bounds, float64(b))
	}
	for _, q := range wp.QuantileValues {
		p.Quantiles = append(p.Quantiles, Quantile{Quantile: float64(q.Quantile), Value: float64(q.Value)})
	}
	return p, nil
}

func optFloat(f *jsonFloat) *float64 {
	if f == nil {
		return nil
	}
	v := float64(*f)
	return &v
}

func counts(in []jsonInt) []uint64 {
	var out []uint64
	for _, n := range in {
		out = append(out, uint64(n))
	}
	return out
}
