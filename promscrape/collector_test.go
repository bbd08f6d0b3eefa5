package promscrape

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// runFor runs s until it has recorded n samples (or 10 s have passed, so a
// broken test still ends) and returns the series.
func runFor(t *testing.T, s *Scraper, n int) *Series {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	seen := 0
	s.OnSample = func(Sample) {
		if seen++; seen == n {
			cancel()
		}
	}
	series := s.Run(ctx)
	if len(series.Samples) != n {
		t.Fatalf("recorded %d samples, want %d", len(series.Samples), n)
	}
	return series
}

func TestRunSurvivesFailures(t *testing.T) {
	// Only the slow server needs a short timeout; the others keep the
	// default so that reading 8 MiB on a busy machine never times out.
	tests := []struct {
		name    string
		url     func(t *testing.T) string
		timeout time.Duration
		kind    FailureKind
	}{
		{"down", func(t *testing.T) string { return downURL(t) }, 0, FailDown},
		{"slow", func(t *testing.T) string { return serveSlow(t).URL }, 60 * time.Millisecond, FailTimeout},
		{"garbage", func(t *testing.T) string { return serveText(t, "<html>oops</html>\n").URL }, 0, FailMalformed},
		{"10 MB", func(t *testing.T) string { return serveHuge(t).URL }, 0, FailTooLarge},
		{"error status", func(t *testing.T) string { return serveStatus(t, http.StatusInternalServerError).URL }, 0, FailStatus},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &Scraper{URL: tt.url(t), Interval: 10 * time.Millisecond, Timeout: tt.timeout}
			series := runFor(t, s, 3)
			for i, smp := range series.Samples {
				if smp.OK() || smp.Kind != tt.kind || !strings.Contains(smp.Err, s.URL) {
					t.Errorf("sample %d = %+v, want a %q failure naming %s", i, smp, tt.kind, s.URL)
				}
			}
			cov := series.Coverage()
			if cov.Scrapes != 3 || cov.OK != 0 || cov.Failed[tt.kind] != 3 || len(cov.Gaps) != 1 || cov.Gaps[0].Scrapes != 3 {
				t.Errorf("coverage = %+v, want 3 failed scrapes of kind %q in one gap", cov, tt.kind)
			}
			msg := cov.String()
			for _, want := range []string{"0 of 3 scrapes succeeded", "3 " + string(tt.kind), "no server metrics at all"} {
				if !strings.Contains(msg, want) {
					t.Errorf("coverage says %q, want it to contain %q", msg, want)
				}
			}
			if series.URL != s.URL || series.Interval != 10*time.Millisecond || series.End.Before(series.Start) {
				t.Errorf("series header = %q %v %v–%v", series.URL, series.Interval, series.Start, series.End)
			}
		})
	}
}

// TestRunMixed plays a server that recovers and fails in turn; the series
// must hold every scrape, in order, and say what was missing when.
func TestRunMixed(t *testing.T) {
	read := func(name string) []byte {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	first, later := read("vllm.prom"), read("vllm_later.prom")
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch n.Add(1) {
		case 1:
			_, _ = w.Write(first)
		case 2:
			_, _ = w.Write([]byte("vllm:num_requests_running{engine=\"0\" oops\n"))
		case 3:
			_, _ = w.Write(later)
		case 4:
			http.Error(w, "restarting", http.StatusServiceUnavailable)
		case 5:
			<-r.Context().Done() // past the timeout
		default:
			_, _ = w.Write(later)
		}
	}))
	defer srv.Close()

	s := &Scraper{URL: srv.URL, Interval: 10 * time.Millisecond, Timeout: 500 * time.Millisecond}
	series := runFor(t, s, 6)
	var kinds []FailureKind
	for _, smp := range series.Samples {
		kinds = append(kinds, smp.Kind)
	}
	want := []FailureKind{"", FailMalformed, "", FailStatus, FailTimeout, ""}
	if !slices.Equal(kinds, want) {
		t.Fatalf("sample kinds = %q, want %q", kinds, want)
	}
	cov := series.Coverage()
	if cov.OK != 3 || len(cov.Gaps) != 2 || cov.Gaps[0].Scrapes != 1 || cov.Gaps[1].Scrapes != 2 ||
		cov.Gaps[1].Kind != FailStatus || !slices.Equal(cov.Engines, []Engine{VLLM}) {
		t.Errorf("coverage = %+v, want 3 ok, gaps of 1 and 2 scrapes, engine vllm", cov)
	}
	// vLLM exports everything but SGLang's own hit-rate gauge and
	// llama.cpp's time counters.
	if want := []string{string(CacheHitRate), string(PrefillSeconds), string(DecodeSeconds), string(DecodeSteps)}; !slices.Equal(cov.Absent, want) {
		t.Errorf("absent = %q, want %q", cov.Absent, want)
	}
	msg := cov.String()
	for _, want := range []string{"3 of 6 scrapes succeeded", "1 malformed, 1 status, 1 timeout", "not exported: cache_hit_rate", "line 1"} {
		if !strings.Contains(msg, want) {
			t.Errorf("coverage says %q, want it to contain %q", msg, want)
		}
	}
}

// TestRunDropsCanceledScrape checks that a scrape cut short by the end of
// the run is not recorded as the server's failure.
func TestRunDropsCanceledScrape(t *testing.T) {
	srv := serveSlow(t)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	series := (&Scraper{URL: srv.URL, Timeout: 10 * time.Second}).Run(ctx)
	if len(series.Samples) != 0 {
		t.Fatalf("samples = %+v, want none", series.Samples)
	}
}

// TestRunCanceledBeforeStart checks that Run returns at once on a context
// that has already ended.
func TestRunCanceledBeforeStart(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	series := (&Scraper{URL: downURL(t)}).Run(ctx)
	if len(series.Samples) != 0 || series.End.IsZero() {
		t.Fatalf("series = %+v, want no samples and an end time", series)
	}
}

// TestRunInterval checks that scrapes are paced by the interval. Tickers
// never fire early, so the lower bound holds on any machine; no upper bound
// is asserted.
func TestRunInterval(t *testing.T) {
	srv := serveFile(t, "llamacpp.prom")
	series := runFor(t, &Scraper{URL: srv.URL, Interval: 40 * time.Millisecond}, 4)
	if span := series.Samples[3].At.Sub(series.Samples[0].At); span < 3*40*time.Millisecond-5*time.Millisecond {
		t.Errorf("4 scrapes spanned %v, want at least 3 intervals (120ms)", span)
	}
	for i, smp := range series.Samples {
		if !smp.OK() || smp.Snapshot.Engine != LlamaCpp {
			t.Errorf("sample %d = %+v, want a llama.cpp snapshot", i, smp)
		}
	}
}

// TestRunInvalidScraper checks that a misconfigured scraper still reports
// through the series instead of failing silently.
func TestRunInvalidScraper(t *testing.T) {
	series := runFor(t, &Scraper{URL: "localhost:9/metrics", Interval: 5 * time.Millisecond}, 2)
	for _, smp := range series.Samples {
		if smp.Kind != FailOther || !strings.Contains(smp.Err, "scheme must be http or https") {
			t.Errorf("sample = %+v, want the validation error", smp)
		}
	}
}
