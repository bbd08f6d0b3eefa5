package clientmetrics

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/goodput-dev/goodput/bench"
	"github.com/goodput-dev/goodput/metrics"
	"github.com/goodput-dev/goodput/record"
)

const ms = int64(time.Millisecond)

// TestRecordCounts feeds records straight to a run's observer and checks
// each series, row by row.
func TestRecordCounts(t *testing.T) {
	e := New("test")
	good := func(q metrics.Request) bool { return q.HasFirstToken && q.TTFT <= 100*time.Millisecond }
	o := e.Begin(bench.RunInfo{Name: "r", BaseURL: "http://srv", Model: "m", Good: good, SLO: "ttft<=100ms"})
	for _, r := range []*record.Record{
		// A success: TTFT 50 ms, then a chunk of 3 tokens 30 ms later
		// (three ITLs of 10 ms), 4 tokens in all; good.
		{Scheduled: 0, Sent: 2 * ms, End: 80 * ms, InputTokens: 10, OutputTokens: 4, Chunks: []record.Chunk{{At: 50 * ms, Tokens: 1}, {At: 80 * ms, Tokens: 3}}},
		// A success too slow for the SLO: TTFT 300 ms, one token.
		{Scheduled: 0, Sent: 1 * ms, End: 300 * ms, InputTokens: 10, OutputTokens: 1, Chunks: []record.Chunk{{At: 300 * ms, Tokens: 1}}},
		// A failure: 503.
		{Scheduled: 0, Sent: 1 * ms, End: 5 * ms, Status: 503, Error: record.ErrUnavailable},
		// A dropped request, never sent: no dispatch lag.
		{Scheduled: 0, Error: record.ErrDropped},
		// A warm-up: counted apart only.
		{Scheduled: 0, Sent: 0, End: 10 * ms, Warmup: true, OutputTokens: 1, Chunks: []record.Chunk{{At: 10 * ms, Tokens: 1}}},
	} {
		o.Record(r)
	}
	o.End()
	lv := []string{"http://srv", "r"}
	for _, c := range []struct {
		name string
		got  float64
		want float64
	}{
		{"successes", testutil.ToFloat64(e.requests.WithLabelValues("http://srv", "r", OutcomeSuccess, "")), 2},
		{"503s", testutil.ToFloat64(e.requests.WithLabelValues("http://srv", "r", OutcomeFailure, "unavailable")), 1},
		{"dropped", testutil.ToFloat64(e.requests.WithLabelValues("http://srv", "r", OutcomeFailure, "dropped")), 1},
		{"warm-ups", testutil.ToFloat64(e.warmups.WithLabelValues(lv...)), 1},
		{"output tokens", testutil.ToFloat64(e.outputTokens.WithLabelValues(lv...)), 5},
		{"input tokens", testutil.ToFloat64(e.inputTokens.WithLabelValues(lv...)), 20},
		{"good requests", testutil.ToFloat64(e.goodRequests.WithLabelValues(lv...)), 1},
		{"good tokens", testutil.ToFloat64(e.goodTokens.WithLabelValues(lv...)), 4},
	} {
		if c.got != c.want {
			t.Errorf("%s: %v, want %v", c.name, c.got, c.want)
		}
	}
	fams, err := e.Registry().Gather()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]struct {
		n   uint64
		sum float64
	}{
		TTFT:        {2, 0.35},  // 50 ms and 300 ms
		TPOT:        {1, 0.01},  // (80 − 50) ms ÷ 3
		ITL:         {3, 0.03},  // three of 10 ms
		E2E:         {2, 0.38},  // 80 ms and 300 ms
		DispatchLag: {3, 0.004}, // 2, 1 and 1 ms; the dropped request was never sent
	}
	seen := 0
	for _, f := range fams {
		w, ok := want[f.GetName()]
		if !ok {
			continue
		}
		seen++
		h := f.GetMetric()[0].GetHistogram()
		if h.GetSampleCount() != w.n || abs(h.GetSampleSum()-w.sum) > 1e-9 {
			t.Errorf("%s: %d observations summing to %v, want %d summing to %v", f.GetName(), h.GetSampleCount(), h.GetSampleSum(), w.n, w.sum)
		}
		// Native as well as classic: a schema and spans beside the buckets.
		if h.Schema == nil || len(h.GetPositiveSpan()) == 0 || len(h.GetBucket()) == 0 {
			t.Errorf("%s: schema %v, %d spans, %d classic buckets; want both kinds", f.GetName(), h.Schema, len(h.GetPositiveSpan()), len(h.GetBucket()))
		}
	}
	if seen != len(want) {
		t.Errorf("found %d of the %d histograms", seen, len(want))
	}
}

func abs(v float64) float64 {
	if v < 0 {
		return -v
	}
	return v
}

// TestRunsWithoutSLO: a run without an SLO has no good-token series, so a
// dashboard's goodput cannot read as zero.
func TestRunsWithoutSLO(t *testing.T) {
	e := New("test")
	o := e.Begin(bench.RunInfo{Name: "plain", BaseURL: "http://srv"})
	o.Record(&record.Record{End: 10 * ms, OutputTokens: 1, Chunks: []record.Chunk{{At: 10 * ms, Tokens: 1}}})
	if n := testutil.CollectAndCount(e.goodTokens); n != 0 {
		t.Errorf("%d good-token series for a run without an SLO, want 0", n)
	}
	// A second run of the same name gets a name of its own.
	e.Begin(bench.RunInfo{Name: "plain", BaseURL: "http://srv"})
	if v := testutil.ToFloat64(e.info.WithLabelValues("http://srv", "plain#2", "", "", "test")); v != 1 {
		t.Errorf("second run of one name: info %v, want a series named plain#2", v)
	}
}

// TestInFlight: Sending and Done from many goroutines leave the gauge at
// zero, having risen.
func TestInFlight(t *testing.T) {
	e := New("test")
	o := e.Begin(bench.RunInfo{Name: "r", BaseURL: "http://srv"})
	g := e.inFlight.WithLabelValues("http://srv", "r")
	var wg sync.WaitGroup
	for range 16 {
		o.Sending()
	}
	if v := testutil.ToFloat64(g); v != 16 {
		t.Fatalf("16 sent: in flight %v", v)
	}
	for range 16 {
		wg.Add(1)
		go func() { defer wg.Done(); o.Done() }()
	}
	wg.Wait()
	if v := testutil.ToFloat64(g); v != 0 {
		t.Errorf("all done: in flight %v", v)
	}
}

// TestPush: a Pushgateway receives the run's metrics when the pusher
// stops, under job "goodput" and this instance; a gateway that refuses is
// an error naming it.
func TestPush(t *testing.T) {
	var mu sync.Mutex
	var paths []string
	var bodies []string
	gw := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		paths = append(paths, r.Method+" "+r.URL.Path)
		bodies = append(bodies, string(b))
		mu.Unlock()
		w.WriteHeader(http.StatusOK)
	}))
	defer gw.Close()
	e := New("test")
	o := e.Begin(bench.RunInfo{Name: "short", BaseURL: "http://srv"})
	p, err := StartPush(e, gw.URL, "ci-runner", 0)
	if err != nil {
		t.Fatal(err)
	}
	o.Record(&record.Record{End: 10 * ms, OutputTokens: 7, Chunks: []record.Chunk{{At: 10 * ms, Tokens: 7}}})
	if err := p.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(paths) != 1 || paths[0] != "PUT /metrics/job/goodput/instance/ci-runner" {
		t.Fatalf("pushes: %q, want one PUT to /metrics/job/goodput/instance/ci-runner", paths)
	}
	if len(bodies[0]) == 0 {
		t.Error("the push carried no metrics")
	}

	refuse := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { http.Error(w, "no", http.StatusBadGateway) }))
	defer refuse.Close()
	p, err = StartPush(e, refuse.URL, "x", 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Stop(context.Background()); err == nil || !strings.Contains(err.Error(), refuse.URL) {
		t.Errorf("refused push: %v, want an error naming the gateway", err)
	}
	for _, bad := range []string{"", "gateway:9091", "ftp://x"} {
		if _, err := StartPush(e, bad, "", 0); err == nil {
			t.Errorf("StartPush(%q) did not fail", bad)
		}
	}
}
