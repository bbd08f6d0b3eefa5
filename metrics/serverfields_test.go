package metrics

import (
	"testing"
	"time"

	"github.com/goodput-dev/goodput/record"
)

// An empty answer has no TTFT and is never good, even under an SLO that
// every other request meets; the summary counts it apart.
func TestNoTokenSuccessIsNeverGood(t *testing.T) {
	empty := &record.Record{Seq: 1, Scheduled: ms(0), Sent: ms(0), End: ms(30), Status: 200, TokenSource: record.SourceUsage}
	full := streamed(0, 10, 20)
	lenient := func(Request) bool { return true }
	res := summarize(t, Options{Good: lenient, SLO: "anything"}, full, empty)
	if res.Counts.Completed != 2 || res.Counts.NoToken != 1 {
		t.Errorf("completed %d, no token %d; want 2 and 1", res.Counts.Completed, res.Counts.NoToken)
	}
	if g := res.Goodput; g.GoodRequests != 1 || g.Attainment != 0.5 {
		t.Errorf("good %d, attainment %v; want 1 and 0.5", g.GoodRequests, g.Attainment)
	}
	if res.Latency.TTFT.Count != 1 || res.Latency.E2E.Count != 2 {
		t.Errorf("TTFT samples %d, e2e %d; want 1 and 2", res.Latency.TTFT.Count, res.Latency.E2E.Count)
	}
}

func TestRetriedRequestsAreCounted(t *testing.T) {
	a, b := streamed(0, 10), streamed(5, 20)
	a.Retries = 1
	failed := &record.Record{Seq: 3, Scheduled: ms(1), Sent: ms(1), End: ms(2), Error: record.ErrReset, Msg: "EOF", Retries: 1}
	res := summarize(t, Options{}, a, b, failed)
	if res.Counts.Retried != 2 {
		t.Errorf("retried = %d, want 2 (one success, one failure)", res.Counts.Retried)
	}
}

func TestPromptCacheHitRate(t *testing.T) {
	tests := []struct {
		name string
		recs []*record.Record
		want *PromptCache
	}{
		// Nothing reported: no cache view at all, not a 0 % hit rate.
		{"unreported", []*record.Record{withInput(streamed(0, 10), 100, -1)}, nil},
		// Two reports, 30 and 0 of 100 and 50 tokens; the request that said
		// nothing is left out of both sides.
		{"mixed", []*record.Record{
			withInput(streamed(0, 10), 100, 30), withInput(streamed(0, 10), 50, 0), withInput(streamed(0, 10), 70, -1),
		}, &PromptCache{Requests: 2, PromptTokens: 150, CachedTokens: 30, HitRate: 0.2}},
		// A failure's report does not count: it was never served.
		{"failure", []*record.Record{withInput(&record.Record{Error: record.ErrHTTP, Msg: "x"}, 10, 10)}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := summarize(t, Options{}, tt.recs...).PromptCache
			switch {
			case (got == nil) != (tt.want == nil):
				t.Fatalf("prompt cache %+v, want %+v", got, tt.want)
			case got != nil && *got != *tt.want:
				t.Errorf("prompt cache %+v, want %+v", *got, *tt.want)
			}
		})
	}
}

// withInput sets a record's prompt tokens and, when cached ≥ 0, the
// server's cache report.
func withInput(r *record.Record, in, cached int) *record.Record {
	r.InputTokens = in
	if cached >= 0 {
		r.CachedTokens, r.CacheReported = cached, true
	}
	return r
}

func TestServerTimings(t *testing.T) {
	a := streamed(0, 10, 20, 30, 40) // 4 tokens
	a.ServerPrefill, a.ServerDecode = ms(2), ms(8)
	b := streamed(0, 10, 20) // 2 tokens
	b.ServerPrefill, b.ServerDecode = ms(4), ms(2)
	one := streamed(0, 10) // 1 token: no step after the first
	one.ServerPrefill, one.ServerDecode = ms(6), ms(1)
	plain := streamed(0, 10)
	st := summarize(t, Options{Percentiles: []float64{50}}, a, b, one, plain).ServerTimings
	if st == nil {
		t.Fatal("no server timings")
	}
	if st.Requests != 3 || st.Prefill.Count != 3 || st.DecodePerToken.Count != 2 {
		t.Fatalf("%+v", st)
	}
	checkNear(t, "mean prefill", st.Prefill.Mean, 0.004)
	checkNear(t, "max prefill", st.Prefill.Max, 0.006)
	// The decode time spans the steps after the first token, as TPOT:
	// 8 ms over 3 and 2 ms over 1.
	checkNear(t, "mean decode per token", st.DecodePerToken.Mean, (8.0/3+2)/2/1e3)
	checkNear(t, "min decode per token", st.DecodePerToken.Min, float64(2*time.Millisecond)/1e9)
	if res := summarize(t, Options{}, plain); res.ServerTimings != nil {
		t.Errorf("server timings %+v from records without any", res.ServerTimings)
	}
}
