package sweep

import (
	"math"
	"strings"
	"testing"
)

// server is a synthetic server that saturates at concurrency 28: below, it
// completes c/2 requests per second (100 tokens each) at 2 s mean e2e;
// above, it completes 14 per second and latency grows as c/28 (Little's
// Law). Attainment is 0.97 up to 24, 0.8 up to 32, then 0.1.
func server(t *testing.T, loads []Load) []Point {
	return curve(t, loads,
		func(c float64) float64 { return min(c, 28) / 2 },
		func(c float64) float64 { return 2 * max(1, c/28) },
		func(c float64) float64 {
			switch {
			case c <= 24:
				return 0.97
			case c <= 32:
				return 0.8
			}
			return 0.1
		})
}

func serverLoads() []Load {
	var ls []Load
	for _, c := range []int{1, 2, 4, 8, 16, 24, 32, 64, 128} {
		ls = append(ls, Concurrency(c))
	}
	return ls
}

func TestAnalyzeVerdict(t *testing.T) {
	tests := []struct {
		name   string
		points func(*testing.T) []Point
		o      Options
		want   string
	}{
		// The operating point is 24 (0.97 ≥ 0.9; 32 has 0.8). Its p99
		// TTFT is 1.5 × 2/5 = 600 ms, at 128 it is 1.5 × (2·128/28)/5 =
		// 2.743 s: 4.6×, for 1,400/1,200 − 1 = 17 % more throughput.
		// Power: 1,200/2 = 600 at 24, 1,400/2.286 = 612.5 at 32, so the
		// knee is 32; goodput 0.97·1,200 = 1,164 peaks at 24 too.
		{"operating point", func(t *testing.T) []Point { return server(t, serverLoads()) }, Options{},
			"At 24 concurrent requests the server delivers 1,200 tok/s (12.0 req/s) with p99 TTFT 600 ms " +
				"and p99 TPOT 30.0 ms; 97 % of requests met the SLO (target 90 %). " +
				"Past 24, going to 128 multiplies p99 TTFT by 4.6× for 17 % more output throughput. " +
				"Knee: 32 by both throughput ÷ mean e2e and curvature."},
		// At a 0.99 target nothing passes; the headline becomes the knee
		// (32: 1,400 tok/s, p99 TTFT 1.5 × 2.286/5 = 686 ms), and goodput,
		// which peaks elsewhere (24), gets its own sentence.
		{"no operating point", func(t *testing.T) []Point { return server(t, serverLoads()) }, Options{Target: 0.99},
			"No load met the SLO target of 99 % attainment: the lowest load, 1, reached only 97 %. " +
				"The knee (most output throughput per unit of mean e2e) is at 32 concurrent requests: " +
				"1,400 tok/s with p99 TTFT 686 ms and p99 TPOT 34.3 ms. " +
				"Past 32, going to 128 multiplies p99 TTFT by 4.0× for no more output throughput. " +
				"Goodput peaks at 1,164 tok/s at 24 concurrent requests. " +
				"Knee: 32 by both throughput ÷ mean e2e and curvature."},
		// Below saturation only: every load passes, power rises to the
		// end, latency is flat. Nothing lies past the headline.
		{"never saturated", func(t *testing.T) []Point { return server(t, serverLoads()[:5]) }, Options{},
			"At 16 concurrent requests the server delivers 800 tok/s (8.00 req/s) with p99 TTFT 600 ms " +
				"and p99 TPOT 30.0 ms; 97 % of requests met the SLO (target 90 %). " +
				"Every load met the target: the limit lies above the highest load measured. " +
				"No knee found: power (output throughput ÷ mean e2e) was still rising at the highest load, 16: " +
				"the sweep stopped short of the knee."},
		// Nothing met any SLO, no TTFT defined: the verdict says so and
		// falls back to the knee latency.
		{"no goodput", func(t *testing.T) []Point {
			ps := curve(t, concurrencies(1, 4, 1),
				func(c float64) float64 { return min(c, 2) },
				func(c float64) float64 { return max(1, c/2) }, always(0))
			for i := range ps {
				ps[i].Mean.TTFT.P99, ps[i].Mean.TPOT.P99 = math.NaN(), math.NaN()
			}
			return ps
		}, Options{},
			"No load met the SLO target of 90 % attainment: the lowest load, 1, reached only 0 %. " +
				"The knee (most output throughput per unit of mean e2e) is at 2 concurrent requests: 200 tok/s. " +
				"Past 2, going to 4 multiplies mean e2e by 2.0× for no more output throughput. " +
				"No load delivered goodput: no request met the SLO. " +
				"Knee: 2 by both throughput ÷ mean e2e and curvature."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Analyze(tt.points(t), tt.o)
			if err != nil {
				t.Fatal(err)
			}
			if s.Verdict != tt.want {
				t.Errorf("verdict:\n got %s\nwant %s", s.Verdict, tt.want)
			}
		})
	}
}

func TestAnalyzeSortsAndPicks(t *testing.T) {
	ps := server(t, serverLoads())
	// Reverse the input: Analyze must not depend on its order.
	for i, j := 0, len(ps)-1; i < j; i, j = i+1, j-1 {
		ps[i], ps[j] = ps[j], ps[i]
	}
	s, err := Analyze(ps, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range s.Points {
		if p.Load != serverLoads()[i] {
			t.Fatalf("point %d is %s, want %s", i, p.Load, serverLoads()[i])
		}
	}
	if ps[0].Load != Concurrency(128) {
		t.Error("Analyze reordered the caller's slice")
	}
	if s.Operating.Load != Concurrency(24) || s.Power.Load != Concurrency(32) ||
		s.Curvature.Load != Concurrency(32) || s.GoodputPeak.Load != Concurrency(24) {
		t.Errorf("picks op %s power %s curve %s peak %s, want 24, 32, 32, 24",
			s.Operating.Load, s.Power.Load, s.Curvature.Load, s.GoodputPeak.Load)
	}
	if s.Options.Latency != StatE2EMean || s.Options.Target != 0.9 || s.Options.MinBend != 0.1 {
		t.Errorf("options %+v, want defaults filled in", s.Options)
	}
}

// In a rate sweep the synchronous point (concurrency 1) sits at the rate it
// achieved, and the unbounded rate last.
func TestAnalyzeRateSweepOrder(t *testing.T) {
	sync, _ := NewPoint(Concurrency(1), synth(0.4, 2.5, 1))
	flood, _ := NewPoint(Rate(math.Inf(1)), synth(5, 30, 0))
	r1, _ := NewPoint(Rate(1), synth(1, 2.6, 1))
	r4, _ := NewPoint(Rate(4), synth(3.9, 4, 0.95))
	s, err := Analyze([]Point{flood, r4, sync, r1}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range s.Points {
		got = append(got, p.Load.String())
	}
	if want := "concurrency=1 request_rate=1 request_rate=4 request_rate=inf"; strings.Join(got, " ") != want {
		t.Fatalf("order %v, want %s", got, want)
	}
	if s.Operating.Load != Rate(4) {
		t.Errorf("operating point %s, want request_rate=4", s.Operating.Load)
	}
}

func TestAnalyzeErrors(t *testing.T) {
	p, _ := NewPoint(Concurrency(1), synth(1, 1, 1))
	tests := []struct {
		name   string
		points []Point
		o      Options
		err    string
	}{
		{"no points", nil, Options{}, "no points"},
		{"duplicate load", []Point{p, p}, Options{}, "point 2: concurrency=1 repeats point 1"},
		{"invalid load", []Point{{Load: Concurrency(0)}}, Options{}, "point 1: concurrency 0"},
		{"unknown latency", []Point{p}, Options{Latency: "e2e_p42"}, `knee latency "e2e_p42": unknown`},
		{"throughput as latency", []Point{p}, Options{Latency: StatGoodput}, "not a latency"},
		{"latency as throughput", []Point{p}, Options{Throughput: StatTTFTP99}, "not a throughput"},
		{"target above 1", []Point{p}, Options{Target: 1.5}, "attainment target 1.5"},
		{"negative target", []Point{p}, Options{Target: -0.1}, "attainment target -0.1"},
		{"nan target", []Point{p}, Options{Target: math.NaN()}, "attainment target NaN"},
		{"bend 1", []Point{p}, Options{MinBend: 1}, "minimum bend 1"},
	}
	for _, tt := range tests {
		if _, err := Analyze(tt.points, tt.o); err == nil || !strings.Contains(err.Error(), tt.err) {
			t.Errorf("%s: Analyze error = %v, want one containing %q", tt.name, err, tt.err)
		}
	}
}
