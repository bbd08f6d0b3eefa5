package capacity

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/sweep"
)

func point(t *testing.T, l sweep.Load, reqs, tok, e2e, att float64) sweep.Point {
	t.Helper()
	p, err := sweep.NewPoint(l, sweep.Sample{Requests: 100, RequestThroughput: reqs, OutputThroughput: tok,
		Goodput: tok * att, Attainment: att, E2E: sweep.Dist{Mean: e2e, P50: e2e, P90: e2e, P99: e2e}})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestFromPoint(t *testing.T) {
	// 1,100 tok/s at 5.5 req/s is 200 tokens a request.
	in := FromPoint(point(t, sweep.Concurrency(24), 5.5, 1100, 4.25, 0.95))
	want := Measured{QPS: true, Concurrency: true, OutputTokensPerSecond: 1100, RequestsPerSecond: 5.5}
	if in.PerReplicaQPS != 5.5 || in.OutputTokensPerRequest != 200 || in.ReplicaTokensPerSecond != 0 ||
		in.MaxNumSeqs != 24 || in.Latency != 4250*time.Millisecond || in.Measured != want {
		t.Errorf("FromPoint = %+v", in)
	}
	// Undefined numbers (a sweep's NaN) are "not given", never NaN.
	in = FromPoint(point(t, sweep.Concurrency(4), math.NaN(), math.NaN(), math.NaN(), 0))
	if in.PerReplicaQPS != 0 || in.OutputTokensPerRequest != 0 || in.MaxNumSeqs != 0 || in.Latency != 0 || in.Measured != (Measured{}) {
		t.Errorf("FromPoint(NaN) = %+v", in)
	}
	if _, err := Compute(in); err == nil || !strings.Contains(err.Error(), "no per-replica throughput") {
		t.Errorf("Compute(FromPoint(NaN)) = %v", err)
	}
	// A rate point has no concurrency to check Little's Law against.
	in = FromPoint(point(t, sweep.Rate(4), 3.9, 780, 2, 1))
	if in.PerReplicaQPS != 3.9 || in.MaxNumSeqs != 0 || in.Latency != 0 || in.Measured.Concurrency {
		t.Errorf("FromPoint(rate) = %+v", in)
	}
}

// Tokens per request belong to the workload: a request rate given in
// place of the measured one keeps them. A sweep measured 1,819.05 tok/s
// at 11.694 req/s (31,111 tokens in 200 requests over the same window),
// 155.555 tokens a request; at 20 req/s
// per replica and a peak of 100 req/s that is 5 replicas, each making
// 20 × 155.555 = 3,111.1 tok/s, and the fleet emitting 100 × 155.555 =
// 15,555.5 tok/s at the peak; five $2.50 GPUs cost $12.50 an hour, so
// $12.50 ÷ (15,555.5 × 3,600) × 1e6 = $0.223215 per million tokens.
func TestFromPointKeepsTokensPerRequest(t *testing.T) {
	const reqs, toks = 11.693948851349834, 1819.0522135717233 // as the sweep file holds them
	in := FromPoint(point(t, sweep.Concurrency(16), reqs, toks, 1.289, 1))
	in.PerReplicaQPS, in.Measured.QPS = 20, false
	in.PeakQPS, in.GPUHourCost = 100, 2.5
	p, err := Compute(in)
	if err != nil {
		t.Fatal(err)
	}
	tok := toks / reqs
	for _, tt := range []struct {
		name      string
		got, want float64
	}{
		{"tokens per request", p.TokensPerRequest, tok},
		{"per replica", p.ReplicaTokensPerSecond, 20 * tok},
		{"fleet", p.FleetTokensPerSecond, 100 * tok},
		{"at the peak", p.PeakTokensPerSecond, 100 * tok},
		{"per million at the peak", p.PeakCostPerMillion, 12.5 / (100 * tok * 3600) * 1e6},
	} {
		if !near(tt.got, tt.want) {
			t.Errorf("%s = %v, want %v", tt.name, tt.got, tt.want)
		}
	}
	if p.Replicas != 5 || math.Abs(p.PeakCostPerMillion-0.223215) > 1e-6 || math.Abs(tok-155.555) > 1e-9 {
		t.Errorf("%d replicas, %v per million, %v tokens; want 5, 0.223215, 155.555", p.Replicas, p.PeakCostPerMillion, tok)
	}
}

func TestFromSummary(t *testing.T) {
	pts := []sweep.Point{
		point(t, sweep.Concurrency(8), 2, 400, 4, 0.99),
		point(t, sweep.Concurrency(16), 3.8, 760, 4.2, 0.93),
		point(t, sweep.Concurrency(32), 4, 800, 8, 0.5),
	}
	s, err := sweep.Analyze(pts, sweep.Options{})
	if err != nil {
		t.Fatal(err)
	}
	in, err := FromSummary(s)
	if err != nil {
		t.Fatal(err)
	}
	if in.PerReplicaQPS != 3.8 || in.MaxNumSeqs != 16 ||
		in.Source != "the sweep's operating point, 16 concurrent requests (SLO attainment 93 % ≥ 90 %)" {
		t.Errorf("FromSummary = %+v", in)
	}
	// 100 QPS at 3.8 per replica: ⌈26.3⌉ = 27.
	in.PeakQPS = 100
	p, err := Compute(in)
	if err != nil || p.Replicas != 27 {
		t.Errorf("plan from the sweep: %d replicas, %v; want 27", p.Replicas, err)
	}

	s, _ = sweep.Analyze(pts, sweep.Options{Target: 0.999})
	if _, err := FromSummary(s); err == nil || !strings.Contains(err.Error(), "no operating point: the lowest load, 8, reached only 99 %") {
		t.Errorf("FromSummary without an operating point: %v", err)
	}
}

// A sweep whose operating point cannot size a fleet says so in the
// file's terms, never by naming a flag the user did not give.
func TestFromSummaryNeedsUsableFigures(t *testing.T) {
	analyze := func(p sweep.Point) sweep.Summary {
		s, err := sweep.Analyze([]sweep.Point{p}, sweep.Options{})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	// An e2e latency of 1e-300 s is under a nanosecond: no latency to
	// pair with the concurrency, but the measured rate still plans.
	in, err := FromSummary(analyze(point(t, sweep.Concurrency(16), 3.8, 760, 1e-300, 0.95)))
	if err != nil || in.MaxNumSeqs != 0 || in.Latency != 0 || in.PerReplicaQPS != 3.8 {
		t.Errorf("tiny latency: %+v, %v", in, err)
	}
	if _, err := Compute(in); err != nil {
		t.Errorf("tiny latency: Compute: %v", err)
	}
	// No request throughput at the operating point, and no latency for
	// Little's Law: nothing to plan from.
	_, err = FromSummary(analyze(point(t, sweep.Concurrency(16), 0, 760, math.NaN(), 0.95)))
	if err == nil || !strings.Contains(err.Error(), "operating point, 16 concurrent requests, has no request throughput") || strings.Contains(err.Error(), "--") {
		t.Errorf("no throughput: %v", err)
	}
}

// Past its knee a server can finish fewer requests at a higher load that
// still meets the SLO: thrashing preemptions, a batch too large for its
// KV cache. The operating point is then the higher load, but a replica
// capped at the lower one sustains more within the SLO, and the fleet is
// sized by what one replica sustains (replicas = ⌈peak ÷ per-replica
// QPS⌉): at 8 concurrent requests 8 req/s, at 16 only 7 req/s. For a
// peak of 16 req/s that is ⌈16 ÷ 8⌉ = 2 replicas, not ⌈16 ÷ 7⌉ = 3.
func TestFromSummaryTakesTheMostThroughputWithinTheSLO(t *testing.T) {
	pts := []sweep.Point{
		point(t, sweep.Concurrency(4), 4, 400, 1, 1),
		point(t, sweep.Concurrency(8), 8, 800, 1, 1),
		point(t, sweep.Concurrency(16), 7, 700, 2.3, 0.95),
		point(t, sweep.Concurrency(32), 6, 600, 5.3, 0.5),
	}
	s, err := sweep.Analyze(pts, sweep.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !s.Operating.Found || s.Operating.Load != sweep.Concurrency(16) {
		t.Fatalf("operating point = %+v, want concurrency 16", s.Operating)
	}
	in, err := FromSummary(s)
	if err != nil {
		t.Fatal(err)
	}
	if in.PerReplicaQPS != 8 || in.MaxNumSeqs != 8 || in.Latency != time.Second || in.OutputTokensPerRequest != 100 {
		t.Errorf("FromSummary = %+v, want the figures of concurrency 8", in)
	}
	for _, w := range []string{"8 concurrent requests", "8.00 req/s", "16 concurrent requests", "7.00 req/s"} {
		if !strings.Contains(in.Source, w) {
			t.Errorf("source %q lacks %q", in.Source, w)
		}
	}
	in.PeakQPS = 16
	p, err := Compute(in)
	if err != nil || p.Replicas != 2 {
		t.Errorf("plan: %d replicas, %v; want 2", p.Replicas, err)
	}

	// A tie keeps the operating point: the same rate at more headroom
	// for bursts is no reason to move.
	pts[2] = point(t, sweep.Concurrency(16), 8, 800, 2, 0.95)
	s, _ = sweep.Analyze(pts, sweep.Options{})
	if in, _ := FromSummary(s); in.MaxNumSeqs != 16 || !strings.HasPrefix(in.Source, "the sweep's operating point, 16 concurrent requests") {
		t.Errorf("tie: %+v", in)
	}
}

// When every load met the target the sweep never found the limit: one
// replica sustains at least the highest load's rate, perhaps much more,
// and a fleet sized on it may be larger than needed. The plan says so
// where it names its source, instead of presenting a floor as the
// replica's capacity.
func TestFromSummarySaysWhenTheLimitWasNotReached(t *testing.T) {
	pts := []sweep.Point{
		point(t, sweep.Concurrency(8), 2, 400, 4, 1),
		point(t, sweep.Concurrency(16), 3.8, 760, 4.2, 0.95),
	}
	s, err := sweep.Analyze(pts, sweep.Options{})
	if err != nil {
		t.Fatal(err)
	}
	in, err := FromSummary(s)
	if err != nil {
		t.Fatal(err)
	}
	if in.PerReplicaQPS != 3.8 || !strings.Contains(in.Source, "every load met the target") || !strings.Contains(in.Source, "at least") {
		t.Errorf("FromSummary = %+v", in)
	}
	// With a load that failed, the limit was found and nothing is added.
	pts = append(pts, point(t, sweep.Concurrency(32), 4, 800, 8, 0.5))
	s, _ = sweep.Analyze(pts, sweep.Options{})
	if in, _ := FromSummary(s); strings.Contains(in.Source, "every load") {
		t.Errorf("limit found: %q", in.Source)
	}
}

// The attainment in the source line is never rounded up to all requests,
// nor a target of 99.9 % down to 100 %: 99.5 % of requests met a 99 %
// target, not 100 % of them.
func TestFromSummaryAttainmentIsNotRoundedUp(t *testing.T) {
	s, err := sweep.Analyze([]sweep.Point{
		point(t, sweep.Concurrency(8), 2, 400, 4, 0.995),
		point(t, sweep.Concurrency(16), 3.8, 760, 4.2, 0.5),
	}, sweep.Options{Target: 0.99})
	if err != nil {
		t.Fatal(err)
	}
	in, err := FromSummary(s)
	if err != nil || !strings.Contains(in.Source, "(SLO attainment 99.5 % ≥ 99 %)") {
		t.Errorf("FromSummary = %q, %v", in.Source, err)
	}
	s, _ = sweep.Analyze(s.Points, sweep.Options{Target: 0.999})
	if _, err := FromSummary(s); err == nil {
		t.Errorf("99.5 %% met a 99.9 %% target")
	}
}
