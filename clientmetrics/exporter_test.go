package clientmetrics

import (
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"sync"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/goodput-dev/goodput/bench"
	"github.com/goodput-dev/goodput/internal/simtest"
	"github.com/goodput-dev/goodput/metrics"
	"github.com/goodput-dev/goodput/promserve"
	"github.com/goodput-dev/goodput/record"
	"github.com/goodput-dev/goodput/sim"
	"github.com/goodput-dev/goodput/slo"
)

// scrape reads the exposition at url in the text format.
func scrape(t *testing.T, url string) map[string]*dto.MetricFamily {
	t.Helper()
	fams, err := get(url)
	if err != nil {
		t.Fatal(err)
	}
	return fams
}

func get(url string) (map[string]*dto.MetricFamily, error) {
	resp, err := http.Get(url)
	if err != nil {
		return nil, fmt.Errorf("scrape %s: %w", url, err)
	}
	defer resp.Body.Close()
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("scrape %s: %w", url, err)
	}
	return fams, nil
}

// sum adds the values of every series of a counter or gauge family that
// has the given label values (name=value pairs).
func sum(fams map[string]*dto.MetricFamily, name string, labels ...string) float64 {
	f, ok := fams[name]
	if !ok {
		return math.NaN()
	}
	total := 0.0
	for _, m := range f.GetMetric() {
		if !hasLabels(m, labels) {
			continue
		}
		switch {
		case m.Counter != nil:
			total += m.GetCounter().GetValue()
		case m.Gauge != nil:
			total += m.GetGauge().GetValue()
		}
	}
	return total
}

func hasLabels(m *dto.Metric, pairs []string) bool {
	for i := 0; i+1 < len(pairs); i += 2 {
		found := false
		for _, l := range m.GetLabel() {
			if l.GetName() == pairs[i] && l.GetValue() == pairs[i+1] {
				found = true
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// histCount returns the sample count and sum of a histogram family's
// series (there is one per run here).
func histCount(t *testing.T, fams map[string]*dto.MetricFamily, name string) (uint64, float64) {
	t.Helper()
	f, ok := fams[name]
	if !ok {
		t.Fatalf("no %s in the exposition", name)
	}
	var n uint64
	var s float64
	for _, m := range f.GetMetric() {
		n += m.GetHistogram().GetSampleCount()
		s += m.GetHistogram().GetSampleSum()
	}
	return n, s
}

// TestScrapeDuringRunMatchesRecords serves the exporter while bench runs
// against the simulator, scrapes it during the run, and checks that the
// final counts equal what the record file and the run's summary say.
func TestScrapeDuringRunMatchesRecords(t *testing.T) {
	_, url := simtest.Serve(t, sim.Options{Seed: 1})
	e := New("test")
	srv, err := promserve.Listen("--metrics-listen", "127.0.0.1:0", e.Registry(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()

	cfg := bench.DefaultConfig()
	cfg.BaseURL = url
	cfg.Arrival.NumPrompts = 60
	cfg.Arrival.RequestRate = 30
	cfg.Workload.Random.InputLen = 64
	cfg.Workload.Random.OutputLen = 16
	cfg.Workload.Request.IgnoreEOS = true
	cfg.Warmups = 5
	cfg.NoServerMetrics = true
	cfg.ResultDir = t.TempDir()
	cfg.RunName = "live"
	cs, err := slo.ParseConditions("ttft<=200ms")
	if err != nil {
		t.Fatal(err)
	}
	cs.Apply(&cfg.Metrics)
	cfg.Observer = e

	// Scrape while the run goes: the request counter never falls, and
	// some scrape sees requests in flight.
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var maxInFlight, scrapes float64
	var fell bool
	wg.Add(1)
	go func() {
		defer wg.Done()
		last := 0.0
		for {
			select {
			case <-stop:
				return
			case <-time.After(40 * time.Millisecond):
			}
			fams, err := get(srv.URL())
			if err != nil {
				t.Error(err)
				return
			}
			scrapes++
			if v := sum(fams, InFlight); v > maxInFlight {
				maxInFlight = v
			}
			if n := sum(fams, Requests); !math.IsNaN(n) {
				fell = fell || n < last
				last = n
			}
		}
	}()
	out, err := bench.Run(t.Context(), cfg, nil, false)
	close(stop)
	wg.Wait()
	if err != nil {
		t.Fatal(err)
	}
	if scrapes < 3 || maxInFlight < 1 || fell {
		t.Errorf("during the run: %v scrapes, at most %v in flight, counter fell %v; want ≥ 3 scrapes seeing requests in flight, a counter that never falls",
			scrapes, maxInFlight, fell)
	}

	recs := readRecords(t, out.RecordsPath)
	var measured, warm, failed, outTok, inTok int
	for _, r := range recs {
		switch {
		case r.Warmup:
			warm++
		case !r.OK():
			measured++
			failed++
		default:
			measured++
			outTok += r.OutputTokens
			inTok += r.InputTokens
		}
	}
	res := out.Result
	fams := scrape(t, srv.URL())
	lv := []string{LabelTarget, url, LabelRun, "live"}
	for _, c := range []struct {
		name string
		got  float64
		want float64
	}{
		{"requests, both outcomes", sum(fams, Requests, lv...), float64(measured)},
		{"successes", sum(fams, Requests, append(lv, LabelOutcome, OutcomeSuccess)...), float64(measured - failed)},
		{"warm-up requests", sum(fams, WarmupRequests, lv...), float64(warm)},
		{"output tokens", sum(fams, OutputTokens, lv...), float64(outTok)},
		{"input tokens", sum(fams, InputTokens, lv...), float64(inTok)},
		{"good requests", sum(fams, GoodRequests, lv...), float64(res.Goodput.GoodRequests)},
		{"good output tokens", sum(fams, GoodOutputTokens, lv...), float64(res.Goodput.GoodOutputTokens)},
		{"in flight after the run", sum(fams, InFlight, lv...), 0},
		{"run info", sum(fams, RunInfo, append(lv, "slo", "ttft<=200ms")...), 1},
	} {
		if c.got != c.want {
			t.Errorf("%s: exported %v, records say %v", c.name, c.got, c.want)
		}
	}
	if measured != 55 || warm != 5 || outTok != 55*16 {
		t.Errorf("records: %d measured, %d warm-up, %d output tokens; want 55, 5, 880", measured, warm, outTok)
	}
	for _, h := range []struct {
		name string
		d    metrics.Distribution
	}{
		{TTFT, res.Latency.TTFT}, {TPOT, res.Latency.TPOT}, {ITL, res.Latency.ITL}, {E2E, res.Latency.E2E},
	} {
		n, s := histCount(t, fams, h.name)
		if int64(n) != h.d.Count || math.Abs(s-h.d.Mean*float64(h.d.Count)) > 1e-6*float64(n) {
			t.Errorf("%s: %d observations summing to %v s; the summary has %d with mean %v s", h.name, n, s, h.d.Count, h.d.Mean)
		}
	}
	if n, _ := histCount(t, fams, DispatchLag); int(n) != measured {
		t.Errorf("dispatch lag: %d observations, want one per measured request (%d)", n, measured)
	}
}

func readRecords(t *testing.T, path string) []record.Record {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	d := record.NewDecoder(f, path)
	if _, err := d.Header(); err != nil {
		t.Fatal(err)
	}
	var out []record.Record
	for {
		var r record.Record
		if err := d.Next(&r); err == io.EOF {
			return out
		} else if err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
}
