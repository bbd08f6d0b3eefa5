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
	in := FromPoint(point(t, sweep.Concurrency(24), 5.5, 1100, 4.25, 0.95))
	if in.PerReplicaQPS != 5.5 || in.ReplicaTokensPerSecond != 1100 || in.MaxNumSeqs != 24 || in.Latency != 4250*time.Millisecond {
		t.Errorf("FromPoint = %+v", in)
	}
	// Undefined numbers (a sweep's NaN) are "not given", never NaN.
	in = FromPoint(point(t, sweep.Concurrency(4), math.NaN(), math.NaN(), math.NaN(), 0))
	if in.PerReplicaQPS != 0 || in.ReplicaTokensPerSecond != 0 || in.MaxNumSeqs != 0 || in.Latency != 0 {
		t.Errorf("FromPoint(NaN) = %+v", in)
	}
	if _, err := Compute(in); err == nil || !strings.Contains(err.Error(), "no per-replica throughput") {
		t.Errorf("Compute(FromPoint(NaN)) = %v", err)
	}
	// A rate point has no concurrency to check Little's Law against.
	in = FromPoint(point(t, sweep.Rate(4), 3.9, 780, 2, 1))
	if in.PerReplicaQPS != 3.9 || in.MaxNumSeqs != 0 || in.Latency != 0 {
		t.Errorf("FromPoint(rate) = %+v", in)
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
