package sweep

import (
	"math"
	"strings"
	"testing"
)

func TestSaturated(t *testing.T) {
	pl := plateau(t) // concurrency 4..64 by 4, saturating at 32
	upTo := func(c float64) []Point {
		var out []Point
		for _, p := range pl {
			if p.Load.Value <= c {
				out = append(out, p)
			}
		}
		return out
	}
	reversed := func(ps []Point) []Point {
		out := make([]Point, len(ps))
		for i, p := range ps {
			out[len(ps)-1-i] = p
		}
		return out
	}
	inf := math.Inf(1)
	ratePts := curve(t, []Load{Rate(1), Rate(2), Rate(4), Rate(inf)},
		func(r float64) float64 { return min(r, 4) },
		func(r float64) float64 { return min(r, 40) },
		always(1))
	collapse := curve(t, concurrencies(1, 3, 1), func(c float64) float64 { return c },
		always(1), func(c float64) float64 { return []float64{0.97, 0.5, 0.02}[int(c)-1] })
	rule := DefaultStopRule()

	tests := []struct {
		name   string
		points []Point
		rule   StopRule
		want   string // substring of the reason; empty means not saturated
	}{
		// 64 against 32: 1,600 tok/s both times, mean e2e 4.2 s against 2.6 s.
		{"plateau at 64", upTo(64), rule,
			"output throughput did not rise from 32 to 64 (2.0× the load) while mean e2e rose 1.6×"},
		// 48 against 24: 1,600 against 1,200 tok/s is +33 %: keep going.
		{"plateau at 48", upTo(48), rule, ""},
		// 60 against 28 (the highest load at most half of 60): 1,600
		// against 1,400, +14 %: keep going.
		{"plateau at 60", upTo(60), rule, ""},
		// Input order does not matter.
		{"reversed input", reversed(upTo(64)), rule, "did not rise from 32 to 64"},
		// A gain under 3 %: 2 % more for 2× the load with latency up.
		{"small gain", curve(t, concurrencies(2, 4, 2), func(c float64) float64 { return 1 + 0.02*(c-2)/2 },
			func(c float64) float64 { return c }, always(1)), rule, "rose only 2 % from 2 to 4"},
		// Throughput fell while latency rose.
		{"falling", curve(t, concurrencies(2, 4, 2), func(c float64) float64 { return 10 - c },
			func(c float64) float64 { return c }, always(1)), rule, "fell 25 % from 2 to 4"},
		// Flat throughput at flat latency is not saturation: latency must grow.
		{"flat latency", curve(t, concurrencies(2, 4, 2), always(5), always(1), always(1)), rule, ""},
		// No load at most half the top one: nothing to compare.
		{"no reference", curve(t, concurrencies(3, 5, 1), always(5), func(c float64) float64 { return c }, always(1)), rule, ""},
		// An unbounded rate is more than twice any rate: compared with 4.
		{"unbounded rate", ratePts, rule, "did not rise from 4.00 req/s to inf req/s (more than 2.0× the load)"},
		// Attainment fell from 97 % to 2 %, below the 5 % floor.
		{"collapse", collapse, rule, "SLO attainment collapsed to 2 % at 3 (it was 97 % at 1)"},
		// Attainment never reached the floor: nothing collapsed.
		{"never met", curve(t, concurrencies(1, 3, 1), func(c float64) float64 { return c }, always(1), always(0.01)), rule, ""},
		// The zero rule never stops.
		{"zero rule", upTo(64), StopRule{}, ""},
		// Only the floor: the plateau does not trip it.
		{"floor only", upTo(64), StopRule{Floor: 0.05}, ""},
		// Fewer than two points.
		{"one point", upTo(4), rule, ""},
		{"none", nil, rule, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, why := Saturated(tt.points, tt.rule, Options{})
			if got != (tt.want != "") || !strings.Contains(why, tt.want) {
				t.Fatalf("Saturated = %v, %q; want %v with %q", got, why, tt.want != "", tt.want)
			}
		})
	}
}

func TestStopRuleValidate(t *testing.T) {
	tests := []struct {
		name string
		r    StopRule
		err  string
	}{
		{"default", DefaultStopRule(), ""},
		{"zero", StopRule{}, ""},
		{"negative gain", StopRule{MinGain: -0.1, LoadFactor: 2}, "minimum gain -0.1"},
		{"nan gain", StopRule{MinGain: math.NaN()}, "minimum gain NaN"},
		{"factor 1", StopRule{LoadFactor: 1}, "load factor 1"},
		{"inf factor", StopRule{LoadFactor: math.Inf(1)}, "load factor +Inf"},
		{"floor above 1", StopRule{Floor: 1.5}, "attainment floor 1.5"},
		{"negative floor", StopRule{Floor: -1}, "attainment floor -1"},
	}
	for _, tt := range tests {
		err := tt.r.Validate()
		if (tt.err == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tt.err)) {
			t.Errorf("%s: Validate() = %v, want error containing %q", tt.name, err, tt.err)
		}
	}
}
