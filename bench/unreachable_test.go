package bench

import (
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/record"
	"github.com/goodput-dev/goodput/sim"
)

func TestUnreachableRule(t *testing.T) {
	refused := func(end time.Duration) record.Record {
		return record.Record{Error: record.ErrConnect, End: int64(end), Msg: "connection refused"}
	}
	ok := record.Record{End: 1}
	tests := []struct {
		name   string
		recs   []record.Record
		stopAt int // index of the record that stops the run; -1 none
	}{
		// 50 refusals in a row, however fast.
		{"fifty in a row", repeat(refused(time.Millisecond), 50), 49},
		{"forty-nine", repeat(refused(time.Millisecond), 49), -1},
		// A success starts the count again.
		{"interrupted by a success", append(append(repeat(refused(0), 30), ok), repeat(refused(0), 30)...), -1},
		// Other failures mean the server is there.
		{"a reset", append(append(repeat(refused(0), 30), record.Record{Error: record.ErrReset}), repeat(refused(0), 30)...), -1},
		// A slow open loop: nothing but refusals for 5 s.
		{"five seconds", []record.Record{refused(0), refused(2 * time.Second), refused(5 * time.Second)}, 2},
		{"just under five seconds", []record.Record{refused(0), refused(4999 * time.Millisecond)}, -1},
		// One refusal alone is no span, however late.
		{"one", []record.Record{refused(time.Hour)}, -1},
	}
	for _, tt := range tests {
		u := unreachable{url: "http://x:1"}
		at := -1
		var why string
		for i := range tt.recs {
			if w := u.add(&tt.recs[i]); w != "" && at < 0 {
				at, why = i, w
			}
		}
		if at != tt.stopAt {
			t.Errorf("%s: stopped at %d, want %d (%s)", tt.name, at, tt.stopAt, why)
		}
		if at >= 0 && (!strings.Contains(why, "http://x:1 became unreachable") || !strings.Contains(why, "connection refused")) {
			t.Errorf("%s: reason %q names no URL or first failure", tt.name, why)
		}
	}
}

func repeat(r record.Record, n int) []record.Record {
	out := make([]record.Record, n)
	for i := range out {
		out[i] = r
	}
	return out
}

// A server that goes away mid-run stops the run within seconds: every
// record measured is kept, the trailer says why, and the outcome too.
func TestRunStopsWhenTheServerGoesAway(t *testing.T) {
	s, err := sim.New(sim.Options{Seed: 12})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var served atomic.Int64
	var ts *httptest.Server
	ts = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v1/completions" && served.Add(1) == 10 {
			go ts.Close() // the server dies with this request in flight
		}
		s.ServeHTTP(w, r)
	}))
	defer ts.Close()
	cfg := smallConfig(t, ts.URL)
	cfg.Arrival.NumPrompts, cfg.Arrival.MaxConcurrency, cfg.Warmups = 100_000, 4, 0
	cfg.NoServerMetrics = true
	start := time.Now()
	out, err := Run(t.Context(), cfg, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took > 30*time.Second {
		t.Errorf("stopping took %v", took)
	}
	// Stopped, not interrupted: nobody pressed Ctrl-C.
	if !strings.Contains(out.Stopped, ts.URL+" became unreachable") || out.Run.Interrupted {
		t.Fatalf("stopped %q, interrupted %v", out.Stopped, out.Run.Interrupted)
	}
	recs, _, tr := readRecords(t, out.RecordsPath)
	if tr == nil || tr.Reason != "server unreachable" || !tr.Interrupted || tr.Records != int64(len(recs)) {
		t.Errorf("trailer %+v for %d records", tr, len(recs))
	}
	if int64(len(recs)) != out.Run.Sent || out.Result.Counts.Total != int64(len(recs)) {
		t.Errorf("%d records, %d sent, %d counted", len(recs), out.Run.Sent, out.Result.Counts.Total)
	}
	if out.Result.Counts.Errors[string(record.ErrConnect)] < UnreachableRun || out.Result.Counts.Completed < 5 {
		t.Errorf("counts %+v", out.Result.Counts)
	}
}

// A server that goes away near the end of a run leaves too few requests
// to stop it: the plan runs out on refusals, and the outcome says the
// server was gone when it ended, rather than reading as a run with errors.
func TestRunEndsWithTheServerGone(t *testing.T) {
	s, err := sim.New(sim.Options{Seed: 12})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var served atomic.Int64
	var ts *httptest.Server
	ts = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v1/completions" && served.Add(1) == 10 {
			go ts.Close()
		}
		s.ServeHTTP(w, r)
	}))
	defer ts.Close()
	cfg := smallConfig(t, ts.URL)
	cfg.Arrival.NumPrompts, cfg.Arrival.MaxConcurrency, cfg.Warmups = 40, 4, 0
	cfg.NoServerMetrics = true
	out, err := Run(t.Context(), cfg, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	refused := out.Result.Counts.Errors[string(record.ErrConnect)]
	if out.Stopped != "" || refused < 20 || refused >= UnreachableRun {
		t.Fatalf("stopped %q with %d refused: want the plan run out, 20 to %d refusals", out.Stopped, refused, UnreachableRun-1)
	}
	if !strings.Contains(out.Gone, ts.URL+" was unreachable when the run ended: the last ") || !slices.Contains(out.Warnings, out.Gone) {
		t.Errorf("gone %q, warnings %q", out.Gone, out.Warnings)
	}
}

// A run whose few last requests failed to connect among many is no run
// that lost its server.
func TestAtEndNeedsATenthOfTheRun(t *testing.T) {
	u := unreachable{url: "http://x:1"}
	u.add(&record.Record{Sent: 1})
	for i := range 9 {
		u.add(&record.Record{Sent: int64(10 + i), Error: record.ErrConnect, Msg: "refused " + strconv.Itoa(i)})
	}
	if why := u.atEnd(100); why != "" {
		t.Errorf("9 of 100: %q", why)
	}
	// A request sent before the refusals, ending after them, reached
	// the server before it went away: the refusals still trail.
	u.add(&record.Record{Sent: 5})
	u.add(&record.Record{Sent: 30, Error: record.ErrConnect, Msg: "refused 9"})
	if why := u.atEnd(100); !strings.Contains(why, "the last 10 requests sent failed to connect (first: refused 0)") {
		t.Errorf("10 of 100: %q", why)
	}
	// One sent after them that reached the server: no longer gone.
	u.add(&record.Record{Sent: 31})
	if why := u.atEnd(100); why != "" {
		t.Errorf("after a success: %q", why)
	}
}
