package promscrape

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

// ok wraps a snapshot as a successful sample taken at its time.
func ok(s *Snapshot) Sample { return Sample{At: s.At, Snapshot: s} }

// failed is a failed sample at sec seconds.
func failed(sec float64, kind FailureKind) Sample {
	return Sample{At: at(sec), Kind: kind, Err: "scrape http://127.0.0.1:1/metrics: " + string(kind)}
}

// counterSnap is a snapshot at sec seconds whose prompt-token counter has
// the given value per label set.
func counterSnap(sec float64, per map[string]float64) Sample {
	return ok(&Snapshot{At: at(sec), Engine: VLLM, Counters: map[Counter]map[string]float64{PromptTokens: per}})
}

func TestSeriesRate(t *testing.T) {
	one := func(sec, v float64) Sample { return counterSnap(sec, map[string]float64{"": v}) }
	tests := []struct {
		name    string
		samples []Sample
		want    []Point
	}{
		// Increase over elapsed seconds, stamped at the later scrape.
		{"steady", []Sample{one(0, 100), one(1, 150), one(2, 250)},
			[]Point{{at(1), 50}, {at(2), 100}}},
		// A drop is a restart: the new value is the increase since.
		{"reset", []Sample{one(0, 100), one(1, 150), one(2, 30), one(4, 90)},
			[]Point{{at(1), 50}, {at(2), 30}, {at(4), 30}}},
		// A failed scrape is spanned, not read as zero.
		{"failure spanned", []Sample{one(0, 100), failed(1, FailTimeout), one(2, 200)},
			[]Point{{at(2), 50}}},
		// A snapshot without the counter is spanned too.
		{"absent spanned", []Sample{one(0, 100), ok(snap(1, nil, nil)), one(2, 300)},
			[]Point{{at(2), 100}}},
		// Two scrapes stamped alike give no rate, and the next rate counts
		// from the later of them.
		{"no elapsed time", []Sample{one(0, 100), one(0, 150), one(1, 250)},
			[]Point{{at(1), 100}}},
		// One engine restarts while the sum still rises (1100 → 1160): per
		// label set the increase is 50 + 10.
		{"one label set resets", []Sample{
			counterSnap(0, map[string]float64{"a": 100, "b": 1000}),
			counterSnap(1, map[string]float64{"a": 150, "b": 10}),
		}, []Point{{at(1), 60}}},
		// A label set that appears counts from zero.
		{"label set appears", []Sample{
			counterSnap(0, map[string]float64{"a": 100}),
			counterSnap(2, map[string]float64{"a": 120, "b": 20}),
		}, []Point{{at(2), 20}}},
		// Sad paths: one scrape, none, only failures.
		{"single", []Sample{one(0, 5)}, nil},
		{"empty", nil, nil},
		{"only failures", []Sample{failed(0, FailDown), failed(1, FailDown)}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &Series{Samples: tt.samples}
			got := s.Rate(PromptTokens)
			if len(got) != len(tt.want) {
				t.Fatalf("Rate = %v, want %v", got, tt.want)
			}
			for i := range got {
				if !got[i].At.Equal(tt.want[i].At) || !near(got[i].Value, tt.want[i].Value) {
					t.Errorf("point %d = %v, want %v", i, got[i], tt.want[i])
				}
			}
		})
	}
}

func TestSeriesGauge(t *testing.T) {
	s := &Series{Samples: []Sample{
		ok(snap(0, map[Gauge]float64{Running: 3}, nil)),
		failed(1, FailDown),
		ok(snap(2, map[Gauge]float64{Waiting: 1}, nil)), // no running gauge
		ok(snap(3, map[Gauge]float64{Running: 0}, nil)), // zero is a value, not absence
	}}
	want := []Point{{at(0), 3}, {at(3), 0}}
	if got := s.Gauge(Running); !reflect.DeepEqual(got, want) {
		t.Errorf("Gauge(running) = %v, want %v", got, want)
	}
	if got := s.Gauge(KVCacheUsage); got != nil {
		t.Errorf("Gauge(kv_cache_usage) = %v, want nil", got)
	}
}

func TestCoverage(t *testing.T) {
	tgi := &Snapshot{At: at(2), Engine: TGI, Gauges: map[Gauge]float64{Running: 1, Waiting: 0},
		Skipped: []string{`tgi_queue_size{}: no usable value`}}
	tests := []struct {
		name    string
		samples []Sample
		want    Coverage
		says    []string
	}{
		// No scrape at all: every quantity is missing.
		{"nothing", nil, Coverage{Absent: quantityNames()}, []string{"no scrapes"}},
		// Two gaps, split by a success; kinds counted.
		{"gaps", []Sample{failed(0, FailDown), failed(1, FailDown), ok(tgi), failed(3, FailTimeout)},
			Coverage{Scrapes: 4, OK: 1, Failed: map[FailureKind]int{FailDown: 2, FailTimeout: 1},
				Gaps: []Gap{
					{From: at(0), To: at(1), Scrapes: 2, Kind: FailDown, Err: "scrape http://127.0.0.1:1/metrics: down"},
					{From: at(3), To: at(3), Scrapes: 1, Kind: FailTimeout, Err: "scrape http://127.0.0.1:1/metrics: timeout"},
				},
				Engines: []Engine{TGI},
				Absent: []string{"kv_cache_usage", "cache_hit_rate", "prompt_tokens", "generation_tokens", "preemptions",
					"prefix_cache_queries", "prefix_cache_hits", "requests_succeeded", "prefill_seconds", "decode_seconds", "decode_steps",
					"ttft", "itl", "tpot", "e2e", "queue", "prefill", "decode"},
				Skipped: []string{`tgi_queue_size{}: no usable value`},
			},
			[]string{"1 of 4 scrapes succeeded", "failed: 2 down, 1 timeout", "(2 scrapes, down)", "not exported: kv_cache_usage, "}},
		// Scrapes that worked but found no engine.
		{"no engine", []Sample{ok(&Snapshot{At: at(0)})},
			Coverage{Scrapes: 1, OK: 1, Absent: quantityNames()},
			[]string{"1 of 1 scrapes succeeded", "no known engine metrics"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := (&Series{Samples: tt.samples}).Coverage()
			if got.Skipped == nil {
				got.Skipped = tt.want.Skipped // nil and empty say the same
			}
			if tt.want.Skipped == nil && len(got.Skipped) == 0 {
				got.Skipped = nil
			}
			if !reflect.DeepEqual(got, tt.want) {
				type plain Coverage // print the fields, not String()
				t.Errorf("Coverage() =\n%+v\nwant\n%+v", plain(got), plain(tt.want))
			}
			for _, s := range tt.says {
				if !strings.Contains(got.String(), s) {
					t.Errorf("String() = %q, want it to contain %q", got.String(), s)
				}
			}
		})
	}
}

// TestCoverageManyGaps checks that a long outage list is shortened.
func TestCoverageManyGaps(t *testing.T) {
	var samples []Sample
	for i := range 5 {
		samples = append(samples, failed(float64(2*i), FailDown), ok(snap(float64(2*i+1), nil, nil)))
	}
	msg := (&Series{Samples: samples}).Coverage().String()
	if strings.Count(msg, "no data") != 3 || !strings.Contains(msg, "and 2 more gaps") {
		t.Errorf("String() = %q, want 3 gaps listed and 2 more counted", msg)
	}
}

// TestSeriesJSON checks that a series survives a save and load, with the
// snake_case names a run file uses.
func TestSeriesJSON(t *testing.T) {
	first := parseFile(t, "vllm.prom", Options{})
	first.At = at(0)
	later := parseFile(t, "vllm_later.prom", Options{})
	later.At = at(2)
	in := &Series{URL: "http://127.0.0.1:8000/metrics", Model: llama, Interval: time.Second,
		Start: at(0), End: at(3),
		Samples: []Sample{
			{At: at(0), Took: 3 * time.Millisecond, Snapshot: &first},
			{At: at(1), Took: time.Second, Kind: FailTimeout, Err: "scrape http://127.0.0.1:8000/metrics: timeout"},
			{At: at(2), Took: 2 * time.Millisecond, Snapshot: &later},
		}}
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{`"interval_ns":1000000000`, `"took_ns":`, `"error_kind":"timeout"`, `"kv_cache_usage":`, `"histograms":{`} {
		if !strings.Contains(string(b), key) {
			t.Errorf("JSON lacks %s", key)
		}
	}
	var out Series
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(&out, in) {
		t.Fatalf("round trip changed the series")
	}
	// The loaded series analyses like the original.
	w1, err1 := in.Between(at(0), at(2))
	w2, err2 := out.Between(at(0), at(2))
	if err1 != nil || err2 != nil || !reflect.DeepEqual(w1, w2) {
		t.Errorf("windows differ after the round trip: %v %v", err1, err2)
	}
	if !slices.Equal(out.Samples[0].Snapshot.Models, []string{qwen, llama}) {
		t.Errorf("models = %q", out.Samples[0].Snapshot.Models)
	}
}
