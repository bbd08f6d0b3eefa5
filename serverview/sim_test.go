package serverview

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/internal/simtest"
	"github.com/goodput-dev/goodput/metrics"
	"github.com/goodput-dev/goodput/promscrape"
	"github.com/goodput-dev/goodput/sim"
)

// loopbackOverhead bounds what a request spends outside the simulated
// engine on loopback: HTTP, JSON, goroutine scheduling. It is generous so
// that a busy two-core machine, or the race detector, does not fail the
// test; a real gap is milliseconds.
const loopbackOverhead = 50 * time.Millisecond

// TestAgreesWithSimulator runs 32 concurrent streaming clients against the
// simulator while a Recorder scrapes its /metrics, and checks that the
// server's view agrees with the client's: the same number of first tokens,
// the same number of generated tokens, and TTFT percentiles whose bucket
// estimate holds the client's value up to loopback overhead.
func TestAgreesWithSimulator(t *testing.T) {
	if raceEnabled {
		t.Skip("timing comparison: the race detector slows the client's HTTP path far beyond loopback overhead")
	}
	// The client and the simulator share this process, so a machine busy
	// with other work can stall one behind the other by more than the
	// stall watch sees; the timing checks are measured up to three times,
	// each against the same bounds, so that a real disagreement fails all
	// three.
	var fails []string
	for attempt := 1; attempt <= 3; attempt++ {
		if fails = agreeWithSimulator(t); fails == nil {
			return
		}
		for _, f := range fails {
			t.Logf("attempt %d: %s", attempt, f)
		}
	}
	for _, f := range fails {
		t.Error(f)
	}
}

// agreeWithSimulator measures one run against a fresh simulator and returns
// what disagreed, nil when nothing did.
func agreeWithSimulator(t *testing.T) []string {
	t.Helper()
	var fails []string
	fail := func(format string, args ...any) { fails = append(fails, fmt.Sprintf(format, args...)) }
	_, base := simtest.Serve(t, sim.Options{Seed: 1})
	metricsURL, err := DefaultMetricsURL(base + "/v1")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	rec := Start(ctx, metricsURL, Options{Interval: 100 * time.Millisecond})
	epoch := time.Now()
	stall := watchStalls()
	recs, err := simtest.Drive(ctx, base, simtest.Load{Workers: 32, Requests: 5, MaxTokens: 16}, epoch)
	// A machine busy with other work delays the client's reads as much as
	// it stalls this process's timers: allow for the worst stall seen.
	overhead := loopbackOverhead + stall()
	series := rec.Stop()
	if err != nil {
		t.Fatal(err)
	}
	sum := metrics.NewSummary(metrics.Options{Percentiles: []float64{50, 99}})
	for i := range recs {
		sum.Add(&recs[i])
	}
	res := sum.Close()
	if res.Counts.Completed != 160 || res.Counts.Failed != 0 {
		t.Fatalf("completed %d, failed %d (%v); want 160, 0", res.Counts.Completed, res.Counts.Failed, res.Counts.Errors)
	}
	start, end := RunWindow(epoch, res)
	c, err := Compare(series, start, end, res)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Missing) != 0 || len(c.Notes) != 0 {
		fail("missing %q, notes %q; want neither from the simulator", c.Missing, c.Notes)
	}
	// Every request's first token and every token fell between the
	// bracketing scrapes.
	if c.TTFT.ServerObservations != 160 {
		fail("server saw %v first tokens, want 160", c.TTFT.ServerObservations)
	}
	if g, cl := c.GenerationTokens, c.ClientOutputTokens; g == nil || cl == nil || g.Count != 160*16 || cl.Count != 160*16 {
		fail("generated tokens: server %+v, client %+v; want 2560 each", g, cl)
	}
	for _, q := range []struct {
		name string
		qc   *QuantileComparison
	}{{"p50", c.TTFT.P50}, {"p99", c.TTFT.P99}} {
		if q.qc == nil || q.qc.Server == nil || q.qc.Client == nil || q.qc.Gap == nil {
			fail("ttft %s = %+v: want both sides and a gap", q.name, q.qc)
			continue
		}
		e, client := *q.qc.Server, *q.qc.Client
		// The server's clock starts later and stops earlier than the
		// client's, so the client's percentile cannot be below the
		// server's bucket, and exceeds it by the loopback overhead at most.
		if client < e.Lower || client > e.Upper+overhead.Seconds() {
			fail("ttft %s: client %.1f ms outside the server's bucket [%.1f, %.1f] ms + %v",
				q.name, 1e3*client, 1e3*e.Lower, 1e3*e.Upper, overhead)
		}
		if q.qc.Gap.Upper < 0 || q.qc.Gap.Lower > overhead.Seconds() {
			fail("ttft %s gap %+v: want a range that holds a small non-negative gap", q.name, *q.qc.Gap)
		}
	}
	// 32 clients on 256 sequences: a request waits at most for the next
	// step, so queueing is a sliver of latency, and the decode phase
	// dominates a 16-token request.
	if c.Running == nil || c.Running.Peak < 1 || c.Running.Peak > 32 || c.Waiting == nil {
		fail("running %+v, waiting %+v; want up to 32 running", c.Running, c.Waiting)
	}
	if len(c.Phases) != 3 || c.Phases[0].Share >= QueueShareLow || c.Phases[2].Share < c.Phases[1].Share {
		fail("phases = %+v, want a small queue share and decode longer than prefill", c.Phases)
	}
	if c.Status.Level != LevelOK {
		fail("status = %+v, want ok", c.Status)
	}
	t.Logf("server TTFT p50 %.1f ms [%.0f, %.0f], client %.1f ms; p99 %.1f ms [%.0f, %.0f], client %.1f ms; %s",
		1e3*c.TTFT.P50.Server.Value, 1e3*c.TTFT.P50.Server.Lower, 1e3*c.TTFT.P50.Server.Upper, 1e3**c.TTFT.P50.Client,
		1e3*c.TTFT.P99.Server.Value, 1e3*c.TTFT.P99.Server.Lower, 1e3*c.TTFT.P99.Server.Upper, 1e3**c.TTFT.P99.Client, c.Status.Text)
	return fails
}

// measure runs load against the simulator at base while recording its
// metrics, and compares the two views.
func measure(t *testing.T, base string, load simtest.Load) *Comparison {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	rec := Start(ctx, base+"/metrics", Options{Interval: 100 * time.Millisecond})
	epoch := time.Now()
	recs, err := simtest.Drive(ctx, base, load, epoch)
	series := rec.Stop()
	if err != nil {
		t.Fatal(err)
	}
	sum := metrics.NewSummary(metrics.Options{Percentiles: []float64{50, 99}})
	for i := range recs {
		sum.Add(&recs[i])
	}
	res := sum.Close()
	if res.Counts.Failed != 0 {
		t.Fatalf("%d requests failed: %v", res.Counts.Failed, res.Counts.Errors)
	}
	start, end := RunWindow(epoch, res)
	c, err := Compare(series, start, end, res)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestQueueTimeRisesPastTheKnee loads a simulator that runs 8 sequences at
// a time with 4 clients (below its knee) and then 32 (past it), and checks
// that the server's view shows where the extra latency went: into the
// queue, not into prefill or decode.
func TestQueueTimeRisesPastTheKnee(t *testing.T) {
	_, base := simtest.Serve(t, sim.Options{MaxNumSeqs: 8, Seed: 3})
	below := measure(t, base, simtest.Load{Workers: 4, Requests: 8, MaxTokens: 16})
	past := measure(t, base, simtest.Load{Workers: 32, Requests: 3, MaxTokens: 16})
	phase := func(c *Comparison, name promscrape.Hist) promscrape.Phase {
		for _, p := range c.Phases {
			if p.Name == name {
				return p
			}
		}
		t.Fatalf("no %s phase in %+v", name, c.Phases)
		return promscrape.Phase{}
	}
	qb, qp := phase(below, promscrape.Queue), phase(past, promscrape.Queue)
	if qb.Share >= QueueShareLow || qp.Share < 3*QueueShareLow {
		t.Errorf("queue share %.3f below the knee and %.3f past it; want under %v, then over %v", qb.Share, qp.Share, QueueShareLow, 3*QueueShareLow)
	}
	// Three of every four requests wait for a whole batch to finish: the
	// mean queue time is several times a request's decode time.
	if dp := phase(past, promscrape.Decode); qp.Mean < dp.Mean {
		t.Errorf("past the knee: mean queue %.1f ms, decode %.1f ms; want queueing to dominate", 1e3*qp.Mean, 1e3*dp.Mean)
	}
	if below.Waiting == nil || past.Waiting == nil || past.Waiting.Peak < 16 {
		t.Errorf("waiting below %+v, past %+v; want 24 queued behind 8 running past the knee", below.Waiting, past.Waiting)
	}
	if below.Status.Level != LevelOK || past.Status.Level == LevelOK || past.Status.Level == LevelUnknown {
		t.Errorf("status below %+v, past %+v; want ok, then a warning", below.Status, past.Status)
	}
	// The client feels it as TTFT; the server's TTFT shows the same.
	if past.TTFT.P50.Server.Lower < below.TTFT.P50.Server.Upper {
		t.Errorf("server TTFT p50 %+v past the knee does not lie above %+v below it", *past.TTFT.P50.Server, *below.TTFT.P50.Server)
	}
	t.Logf("below: queue %.1f%% (%.1f ms), %s", 100*qb.Share, 1e3*qb.Mean, below.Status.Text)
	t.Logf("past:  queue %.1f%% (%.1f ms), %s", 100*qp.Share, 1e3*qp.Mean, past.Status.Text)
}

// watchStalls starts timing how late a 5 ms timer fires, again and again;
// the returned function stops it and gives the worst lateness seen.
func watchStalls() func() time.Duration {
	stop := make(chan struct{})
	worst := make(chan time.Duration, 1)
	go func() {
		var w time.Duration
		for {
			due := time.Now().Add(5 * time.Millisecond)
			select {
			case <-stop:
				worst <- w
				return
			case <-time.After(5 * time.Millisecond):
				w = max(w, time.Since(due))
			}
		}
	}()
	return func() time.Duration { close(stop); return <-worst }
}
