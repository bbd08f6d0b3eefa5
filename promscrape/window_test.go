package promscrape

import (
	"errors"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"
)

// fixtureSeries parses fixtures into a series, the i-th taken at secs[i].
func fixtureSeries(t *testing.T, opts Options, files []string, secs []float64) *Series {
	t.Helper()
	s := &Series{}
	for i, f := range files {
		sn := parseFile(t, f, opts)
		sn.At = at(secs[i])
		s.Samples = append(s.Samples, Sample{At: sn.At, Snapshot: &sn})
	}
	return s
}

// TestBetweenVLLM reads a window across two vLLM scrapes 10 s apart, where
// the Qwen engine restarted in between while the Llama engines went on.
// Every figure below is worked out by hand from the fixtures.
func TestBetweenVLLM(t *testing.T) {
	s := fixtureSeries(t, Options{}, []string{"vllm.prom", "vllm_later.prom"}, []float64{0, 10})
	w, err := s.Between(at(0), at(10))
	if err != nil {
		t.Fatal(err)
	}
	if w.Engine != VLLM || !w.From.Equal(at(0)) || !w.To.Equal(at(10)) || w.Scrapes != 2 || w.Failed != 0 {
		t.Errorf("window header = %v %v–%v %d/%d", w.Engine, w.From, w.To, w.Scrapes, w.Failed)
	}

	// Prompt tokens: Llama engines +600 and +1000; Qwen restarted and shows
	// 50 since. The sums alone (4500 → 5650) would have said 1150.
	wantCounters := map[Counter]float64{
		PromptTokens:       600 + 1000 + 50,
		GenerationTokens:   1000 + 2000 + 100,
		Preemptions:        1 + 0 + 0,
		PrefixCacheQueries: 200 + 300 + 40,
		PrefixCacheHits:    100 + 150 + 10,
		RequestsSucceeded:  10 + 15 + 5 + 3, // stop, stop, length; Qwen restarted with 3 stops
	}
	if !maps.EqualFunc(w.Counters, wantCounters, near) {
		t.Errorf("counters = %v, want %v", w.Counters, wantCounters)
	}
	if got, _ := w.PerSecond(GenerationTokens); !near(got, 310) {
		t.Errorf("generation tokens/s = %v, want 3100/10 s = 310", got)
	}
	if got, ok := w.PrefixHitRate(); !ok || !near(got, 260.0/540) {
		t.Errorf("prefix hit rate = %v, %v; want 260/540", got, ok)
	}

	// (count, sum) of each histogram's delta: Llama engine 0 + engine 1 +
	// Qwen since its restart.
	wantHists := map[Hist][2]float64{
		TTFT:    {10 + 20 + 3, 0.6 + 2.0 + 0.08},
		ITL:     {990 + 1980 + 97, 9.9 + 23.76 + 1.455},
		TPOT:    {10 + 20 + 3, 0.1 + 0.31 + 0.045},
		E2E:     {10 + 20 + 3, 21 + 51.5 + 6.2},
		Queue:   {10 + 20 + 3, 0.5 + 4 + 0.1},
		Prefill: {10 + 20 + 3, 0.4 + 1 + 0.06},
		Decode:  {10 + 20 + 3, 20 + 45 + 6},
	}
	for h, cs := range wantHists {
		got := w.Histograms[h]
		if !near(got.Count, cs[0]) || !near(got.Sum, cs[1]) {
			t.Errorf("%s delta (count, sum) = (%v, %v), want (%v, %v)", h, got.Count, got.Sum, cs[0], cs[1])
		}
	}
	if len(w.Histograms) != len(wantHists) {
		t.Errorf("histograms %v, want exactly %d", slices.Sorted(maps.Keys(w.Histograms)), len(wantHists))
	}

	// TTFT delta per bucket (not cumulative): 1 ≤ 20 ms, 4 in (20,40],
	// 9 in (40,60], 7 in (60,80], 7 in (80,100], 3 in (100,250], 2 in
	// (250,500]; cumulative 1, 5, 14, 21, 28, 31, 33.
	ttft := w.Histograms[TTFT]
	if got := ttft.Counts[3:10]; !slices.Equal(got, []float64{1, 5, 14, 21, 28, 31, 33}) {
		t.Errorf("TTFT cumulative counts 20–500 ms = %v", got)
	}
	quantiles := []struct {
		h            Hist
		q            float64
		value        float64
		lower, upper float64
	}{
		// Rank 16.5 of 33: 2.5 into the 7 of (60, 80] ms.
		{TTFT, 0.5, 0.06 + 0.02*2.5/7, 0.06, 0.08},
		// Rank 32.67: 1.67 into the 2 of (250, 500] ms.
		{TTFT, 0.99, 0.25 + 0.25*(0.99*33-31)/2, 0.25, 0.5},
		// ITL: 1000 ≤ 10 ms, 3007 ≤ 25 ms, 3067 ≤ 50 ms. Rank 1533.5 is
		// 533.5 into the 2007 of (10, 25] ms.
		{ITL, 0.5, 0.01 + 0.015*533.5/2007, 0.01, 0.025},
		// Rank 3036.33 is 29.33 into the 60 of (25, 50] ms.
		{ITL, 0.99, 0.025 + 0.025*(0.99*3067-3007)/60, 0.025, 0.05},
	}
	for _, tt := range quantiles {
		e, err := w.Quantile(tt.h, tt.q)
		if err != nil {
			t.Fatal(err)
		}
		if !near(e.Value, tt.value) || e.Lower != tt.lower || e.Upper != tt.upper || e.Overflow {
			t.Errorf("%s p%v = %+v, want %v in [%v, %v]", tt.h, tt.q*100, e, tt.value, tt.lower, tt.upper)
		}
	}

	// Where the latency went, from the histogram sums.
	wantPhases := []Phase{
		{Queue, 4.6 / 33, 4.6 / 78.7},
		{Prefill, 1.46 / 33, 1.46 / 78.7},
		{Decode, 71.0 / 33, 71 / 78.7},
	}
	phases := w.Phases()
	if len(phases) != len(wantPhases) {
		t.Fatalf("phases = %+v, want %+v", phases, wantPhases)
	}
	for i, p := range phases {
		if p.Name != wantPhases[i].Name || !near(p.Mean, wantPhases[i].Mean) || !near(p.Share, wantPhases[i].Share) {
			t.Errorf("phase %d = %+v, want %+v", i, p, wantPhases[i])
		}
	}

	// Gauges over the two scrapes: running 9 then 15, waiting 6 then 4,
	// KV usage 0.4 then 0.5.
	wantGauges := map[Gauge]GaugeStats{
		Running:      {Mean: 12, Peak: 15, Min: 9, Samples: 2},
		Waiting:      {Mean: 5, Peak: 6, Min: 4, Samples: 2},
		KVCacheUsage: {Mean: 0.45, Peak: 0.5, Min: 0.4, Samples: 2},
	}
	if !maps.EqualFunc(w.Gauges, wantGauges, func(a, b GaugeStats) bool {
		return near(a.Mean, b.Mean) && near(a.Peak, b.Peak) && near(a.Min, b.Min) && a.Samples == b.Samples
	}) {
		t.Errorf("gauges = %+v, want %+v", w.Gauges, wantGauges)
	}

	// The restart is reported, once per quantity it touched.
	for _, want := range []string{"counter prompt_tokens reset once", "counter requests_succeeded reset twice", "histogram ttft reset once"} {
		if !slices.ContainsFunc(w.Notes, func(n string) bool { return strings.Contains(n, want) }) {
			t.Errorf("notes %q lack %q", w.Notes, want)
		}
	}
}

// TestBetweenOneModel filters the same scrapes to the Llama model, whose two
// engines never restarted: no notes, plain differences.
func TestBetweenOneModel(t *testing.T) {
	s := fixtureSeries(t, Options{Model: llama}, []string{"vllm.prom", "vllm_later.prom"}, []float64{0, 10})
	w, err := s.Between(at(0), at(10))
	if err != nil {
		t.Fatal(err)
	}
	if got := w.Counters[PromptTokens]; got != 1600 {
		t.Errorf("prompt tokens = %v, want 5600 − 4000 = 1600", got)
	}
	if got := w.Histograms[TTFT].Count; got != 30 {
		t.Errorf("TTFT observations = %v, want 60 − 30 = 30", got)
	}
	if len(w.Notes) != 0 {
		t.Errorf("notes = %q, want none", w.Notes)
	}
}

// TestBetweenLlamaCppRestart reads a window across a llama.cpp restart:
// counters without labels fall, and the new values are the increase.
func TestBetweenLlamaCppRestart(t *testing.T) {
	s := fixtureSeries(t, Options{}, []string{"llamacpp.prom", "llamacpp_restarted.prom"}, []float64{0, 5})
	w, err := s.Between(at(0), at(5))
	if err != nil {
		t.Fatal(err)
	}
	want := map[Counter]float64{PromptTokens: 4, GenerationTokens: 32, PrefillSeconds: 0.001, DecodeSeconds: 0.014, DecodeSteps: 32}
	if !maps.Equal(w.Counters, want) {
		t.Errorf("counters = %v, want %v", w.Counters, want)
	}
	if q := w.Gauges[Waiting]; !near(q.Mean, 15.5) || q.Peak != 31 {
		t.Errorf("waiting = %+v, want mean 15.5 and peak 31", q)
	}
	if _, ok := w.Gauges[KVCacheUsage]; ok {
		t.Error("a KV cache gauge from a server that exports none")
	}
	if len(w.Histograms) != 0 || w.Phases() != nil {
		t.Errorf("histograms %v, phases %v: llama.cpp exports none", w.Histograms, w.Phases())
	}
	if _, err := w.Quantile(TTFT, 0.5); !errors.Is(err, ErrAbsent) {
		t.Errorf("TTFT quantile error = %v, want ErrAbsent", err)
	}
	if _, ok := w.PrefixHitRate(); ok {
		t.Error("prefix hit rate reported for an engine that exports none")
	}
}

// TestBetweenSGLang checks the gauge-based hit rate and phases without
// prefill or decode histograms.
func TestBetweenSGLang(t *testing.T) {
	s := fixtureSeries(t, Options{}, []string{"sglang.prom", "sglang.prom"}, []float64{0, 1})
	w, err := s.Between(at(0), at(1))
	if err != nil {
		t.Fatal(err)
	}
	if got, ok := w.PrefixHitRate(); !ok || !near(got, 0.375) {
		t.Errorf("prefix hit rate = %v, %v; want the gauge's mean 0.375", got, ok)
	}
	// The same exposition twice: nothing observed in between, so no phase.
	if p := w.Phases(); len(p) != 0 {
		t.Errorf("phases = %+v, want none without observations", p)
	}
	if _, err := w.Quantile(TTFT, 0.5); !errors.Is(err, ErrNoObservations) {
		t.Errorf("TTFT quantile error = %v, want ErrNoObservations", err)
	}
}

func TestBetweenWindowSelection(t *testing.T) {
	c := func(sec, v, running float64) Sample {
		return ok(snap(sec, map[Gauge]float64{Running: running}, map[Counter]float64{PromptTokens: v}))
	}
	s := &Series{Samples: []Sample{
		c(0, 100, 1), c(10, 200, 5), failed(20, FailTimeout), c(30, 400, 3), c(40, 500, 2),
	}}
	tests := []struct {
		name       string
		start, end float64
		from, to   float64
		increase   float64 // -1: no counter in the window
		running    GaugeStats
		scrapes    int
		failed     int
		notes      []string
	}{
		// Scrapes on both edges: exact.
		{"aligned", 10, 30, 10, 30, 200, GaugeStats{Mean: 4, Peak: 5, Min: 3, Samples: 2}, 3, 1, nil},
		// Edges between scrapes: the scrapes just outside bracket the window.
		{"bracketed", 5, 35, 0, 40, 400, GaugeStats{Mean: 4, Peak: 5, Min: 3, Samples: 2}, 3, 1, nil},
		// The window starts before the first scrape and ends after the last.
		{"wider than the series", -10, 45, 0, 40, 400, GaugeStats{Mean: 2.75, Peak: 5, Min: 1, Samples: 4}, 5, 1,
			[]string{"first successful scrape 10s after the window start", "last successful scrape 5s before the window end"}},
		// Only a failed scrape inside: counters from the brackets, no gauges.
		{"failure inside", 15, 25, 10, 30, 200, GaugeStats{}, 1, 1,
			[]string{"no successful scrape inside the window"}},
		// After the last scrape: one anchor, nothing to subtract.
		{"after the end", 50, 60, 40, 40, -1, GaugeStats{}, 0, 0,
			[]string{"only one successful scrape", "no successful scrape inside the window"}},
		// An instant on a scrape: its gauge, no increase.
		{"instant", 30, 30, 30, 30, -1, GaugeStats{Mean: 3, Peak: 3, Min: 3, Samples: 1}, 1, 0,
			[]string{"only one successful scrape"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w, err := s.Between(at(tt.start), at(tt.end))
			if err != nil {
				t.Fatal(err)
			}
			if !w.From.Equal(at(tt.from)) || !w.To.Equal(at(tt.to)) {
				t.Errorf("from–to = %v–%v, want %v–%v", w.From, w.To, at(tt.from), at(tt.to))
			}
			got, has := w.Counters[PromptTokens]
			if tt.increase < 0 && has || tt.increase >= 0 && got != tt.increase {
				t.Errorf("increase = %v (present %v), want %v", got, has, tt.increase)
			}
			if w.Gauges[Running] != tt.running {
				t.Errorf("running = %+v, want %+v", w.Gauges[Running], tt.running)
			}
			if w.Scrapes != tt.scrapes || w.Failed != tt.failed {
				t.Errorf("scrapes = %d (%d failed), want %d (%d)", w.Scrapes, w.Failed, tt.scrapes, tt.failed)
			}
			if len(w.Notes) != len(tt.notes) {
				t.Fatalf("notes = %q, want %d notes", w.Notes, len(tt.notes))
			}
			for i, n := range tt.notes {
				if !strings.Contains(w.Notes[i], n) {
					t.Errorf("note %d = %q, want it to contain %q", i, w.Notes[i], n)
				}
			}
		})
	}
}

func TestBetweenErrors(t *testing.T) {
	s := &Series{Samples: []Sample{failed(0, FailDown), ok(snap(10, nil, nil))}}
	tests := []struct {
		name       string
		s          *Series
		start, end float64
		wantIs     error
		wantMsg    string
	}{
		// Backwards window.
		{"end before start", s, 10, 5, nil, "is before its start"},
		// Every successful scrape is after the window.
		{"window before the data", s, -20, 5, ErrNoSnapshots, ""},
		// No scrape at all.
		{"empty series", &Series{}, 0, 10, ErrNoSnapshots, ""},
		// Only failures.
		{"only failures", &Series{Samples: []Sample{failed(0, FailDown)}}, 0, 10, ErrNoSnapshots, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := tt.s.Between(at(tt.start), at(tt.end))
			switch {
			case err == nil:
				t.Fatal("no error")
			case tt.wantIs != nil && !errors.Is(err, tt.wantIs):
				t.Fatalf("error = %v, want %v", err, tt.wantIs)
			case tt.wantIs == nil && !strings.Contains(err.Error(), tt.wantMsg):
				t.Fatalf("error = %v, want one containing %q", err, tt.wantMsg)
			}
		})
	}
}

// TestBetweenHistogramChanges covers label sets that appear and bucket
// layouts that change inside a window.
func TestBetweenHistogramChanges(t *testing.T) {
	h := func(bounds []float64, n float64) Histogram {
		counts := make([]float64, len(bounds))
		for i := range counts {
			counts[i] = n
		}
		return Histogram{Bounds: bounds, Counts: counts, Count: n, Sum: n}
	}
	hs := func(sec float64, per map[string]Histogram) Sample {
		return ok(&Snapshot{At: at(sec), Engine: VLLM, Histograms: map[Hist]map[string]Histogram{E2E: per}})
	}
	one, two := []float64{1}, []float64{2}
	tests := []struct {
		name      string
		samples   []Sample
		wantCount float64
		wantNote  string
	}{
		// Growth over three scrapes adds up: 1 → 3 → 6 is 5.
		{"growth", []Sample{
			hs(0, map[string]Histogram{"a": h(one, 1)}),
			hs(1, map[string]Histogram{"a": h(one, 3)}),
			hs(2, map[string]Histogram{"a": h(one, 6)}),
		}, 5, ""},
		// A label set that appears counts whole: 2 more on a, 4 on b.
		{"label set appears", []Sample{
			hs(0, map[string]Histogram{"a": h(one, 1)}),
			hs(1, map[string]Histogram{"a": h(one, 3), "b": h(one, 4)}),
		}, 6, ""},
		// The layout changes (a restart with new buckets): what came after
		// counts, 3 then 2 more.
		{"layout changes", []Sample{
			hs(0, map[string]Histogram{"a": h(one, 2)}),
			hs(1, map[string]Histogram{"a": h(two, 3)}),
			hs(2, map[string]Histogram{"a": h(two, 5)}),
		}, 5, "histogram e2e reset once"},
		// Two label sets end on different layouts: only one can be summed.
		{"layouts diverge", []Sample{
			hs(0, map[string]Histogram{"a": h(one, 1), "b": h(one, 1)}),
			hs(1, map[string]Histogram{"a": h(one, 2), "b": h(two, 7)}),
		}, 1, "1 series left out"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &Series{Samples: tt.samples}
			w, err := s.Between(at(0), at(2))
			if err != nil {
				t.Fatal(err)
			}
			if got := w.Histograms[E2E].Count; got != tt.wantCount {
				t.Errorf("e2e observations = %v, want %v", got, tt.wantCount)
			}
			hasNote := slices.ContainsFunc(w.Notes, func(n string) bool { return tt.wantNote != "" && strings.Contains(n, tt.wantNote) })
			if tt.wantNote != "" && !hasNote {
				t.Errorf("notes %q lack %q", w.Notes, tt.wantNote)
			}
		})
	}
}

func TestWindowAccessors(t *testing.T) {
	// No time spanned: no rate.
	w := Window{From: at(5), To: at(5), Counters: map[Counter]float64{PromptTokens: 10}}
	if _, ok := w.PerSecond(PromptTokens); ok {
		t.Error("PerSecond reported a rate over no time")
	}
	// No prefix lookups at all: no hit rate (not 0/0).
	w = Window{Counters: map[Counter]float64{PrefixCacheQueries: 0, PrefixCacheHits: 0}}
	if _, ok := w.PrefixHitRate(); ok {
		t.Error("PrefixHitRate reported a rate over no lookups")
	}
	// No end-to-end histogram: shares are of the phases' total, 1 + 3 s.
	w = Window{Histograms: map[Hist]Histogram{
		Queue:  {Bounds: []float64{1}, Counts: []float64{2}, Count: 2, Sum: 1},
		Decode: {Bounds: []float64{5}, Counts: []float64{2}, Count: 2, Sum: 3},
	}}
	want := []Phase{{Queue, 0.5, 0.25}, {Decode, 1.5, 0.75}}
	if got := w.Phases(); !slices.Equal(got, want) {
		t.Errorf("Phases() = %+v, want %+v", got, want)
	}
	// An end-to-end sum above the phases': shares of it (1 and 3 of 8 s).
	w.Histograms[E2E] = Histogram{Bounds: []float64{5}, Counts: []float64{2}, Count: 2, Sum: 8}
	want = []Phase{{Queue, 0.5, 0.125}, {Decode, 1.5, 0.375}}
	if got := w.Phases(); !slices.Equal(got, want) {
		t.Errorf("with e2e: Phases() = %+v, want %+v", got, want)
	}
	// Phases above the end-to-end sum (queue times recorded at scheduling,
	// requests scheduled but not ended): shares of the phases' total, so
	// that none is above 1.
	w.Histograms[E2E] = Histogram{Bounds: []float64{5}, Counts: []float64{1}, Count: 1, Sum: 0.5}
	want = []Phase{{Queue, 0.5, 0.25}, {Decode, 1.5, 0.75}}
	if got := w.Phases(); !slices.Equal(got, want) {
		t.Errorf("phases above e2e: Phases() = %+v, want %+v", got, want)
	}
	if d := (Window{From: at(1), To: at(3.5)}).Duration(); d != 2500*time.Millisecond {
		t.Errorf("Duration() = %v, want 2.5s", d)
	}
}

// TestBetweenDamagedHistogram checks that a histogram with fewer counts than
// bounds, as a hand-edited or damaged series file may hold, is passed over
// instead of crashing the summary.
func TestBetweenDamagedHistogram(t *testing.T) {
	good := Histogram{Bounds: []float64{1, 2}, Counts: []float64{1, 2}, Count: 2}
	bad := Histogram{Bounds: []float64{1, 2}, Counts: []float64{5}, Count: 5}
	hs := func(sec float64, h Histogram) Sample {
		return ok(&Snapshot{At: at(sec), Histograms: map[Hist]map[string]Histogram{TTFT: {"": h}}})
	}
	s := &Series{Samples: []Sample{hs(0, good), hs(1, bad), hs(2, good), hs(3, bad)}}
	w, err := s.Between(at(0), at(3))
	if err != nil {
		t.Fatal(err)
	}
	if got := w.Histograms[TTFT]; got.Count != 0 {
		t.Errorf("TTFT delta = %+v, want the two good scrapes' difference, 0", got)
	}
	if _, err := bad.Quantile(0.5); !errors.Is(err, ErrNoBuckets) {
		t.Errorf("quantile of a damaged histogram: %v, want ErrNoBuckets", err)
	}
	if d, reset := bad.Delta(good); !reset || d.Count != 5 {
		t.Errorf("Delta(damaged) = %+v, %v; want a reset", d, reset)
	}
}

// A speculative decoder's counters are read over the window, and the
// accepted tokens by draft position kept per position.
func TestBetweenSpecDecode(t *testing.T) {
	s := fixtureSeries(t, Options{}, []string{"vllm_spec.prom", "vllm_spec_later.prom"}, []float64{0, 10})
	w, err := s.Between(at(0), at(10))
	if err != nil {
		t.Fatal(err)
	}
	for c, want := range map[Counter]float64{SpecDrafts: 300, SpecDraftTokens: 900, SpecAcceptedTokens: 600, SpecAcceptedByPosition: 600} {
		if got := w.Counters[c]; got != want {
			t.Errorf("%s = %v, want %v", c, got, want)
		}
	}
	want := map[string]float64{
		`engine="0",model_name="m",position="0"`: 250,
		`engine="0",model_name="m",position="1"`: 200,
		`engine="0",model_name="m",position="2"`: 150,
	}
	if got := w.CounterSeries[SpecAcceptedByPosition]; !maps.Equal(got, want) {
		t.Errorf("by position %v, want %v", got, want)
	}
	// A server without speculative decoding misses nothing.
	plain := fixtureSeries(t, Options{}, []string{"vllm.prom", "vllm_later.prom"}, []float64{0, 10})
	if cov := plain.Coverage(); slices.ContainsFunc(cov.Absent, func(q string) bool { return strings.HasPrefix(q, "spec_decode") }) {
		t.Errorf("absent %q names speculative decoding", cov.Absent)
	}
}

// A diffusion model's counters are read over the window and summed over
// the engines, engine 1's counting from zero after its restart: 800 + 400
// steps, 25600 + 12800 positions, 4000 + 2400 committed tokens. The sums
// alone (1400 → 1700 steps) would have said 300.
func TestBetweenDiffusion(t *testing.T) {
	s := fixtureSeries(t, Options{}, []string{"vllm_diffusion.prom", "vllm_diffusion_later.prom"}, []float64{0, 10})
	w, err := s.Between(at(0), at(10))
	if err != nil {
		t.Fatal(err)
	}
	for c, want := range map[Counter]float64{DiffusionSteps: 1200, DiffusionPositions: 38400, DiffusionCommitted: 6400} {
		if got := w.Counters[c]; got != want {
			t.Errorf("%s = %v, want %v", c, got, want)
		}
	}
	if !slices.Contains(w.Notes, "counter diffusion_denoising_steps reset once in the window (a server or engine restart); counts after a reset start from zero") {
		t.Errorf("notes %q do not say the steps counter reset", w.Notes)
	}
	// A server of another kind of model misses nothing.
	plain := fixtureSeries(t, Options{}, []string{"vllm.prom", "vllm_later.prom"}, []float64{0, 10})
	if cov := plain.Coverage(); slices.ContainsFunc(cov.Absent, func(q string) bool { return strings.HasPrefix(q, "diffusion") }) {
		t.Errorf("absent %q names diffusion decoding", cov.Absent)
	}
}

// SGLang reports its speculative decoding by gauges per rank: they are
// averaged over the ranks, not summed, and their absence elsewhere is no
// gap.
func TestSGLangSpecGauges(t *testing.T) {
	text := `# TYPE sglang:num_running_reqs gauge
sglang:num_running_reqs{model_name="m",tp_rank="0"} 3
sglang:num_running_reqs{model_name="m",tp_rank="1"} 5
# TYPE sglang:spec_accept_length gauge
sglang:spec_accept_length{model_name="m",tp_rank="0"} 2.5
sglang:spec_accept_length{model_name="m",tp_rank="1"} 3.5
# TYPE sglang:spec_accept_rate gauge
sglang:spec_accept_rate{model_name="m",tp_rank="0"} 0.4
sglang:spec_accept_rate{model_name="m",tp_rank="1"} 0.6
`
	s, err := Parse(strings.NewReader(text), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if s.Engine != SGLang || s.Gauges[Running] != 8 || s.Gauges[SpecAcceptLength] != 3 || !near(s.Gauges[SpecAcceptRate], 0.5) {
		t.Errorf("engine %s, gauges %v: want 8 running (summed), accept length 3 and rate 0.5 (averaged)", s.Engine, s.Gauges)
	}
	if !SpecAcceptRate.Fraction() || SpecAcceptLength.Fraction() {
		t.Error("the rate is a share and the length a count of tokens")
	}
}
