package report

import (
	"bytes"
	"encoding/json"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/metrics"
	"github.com/goodput-dev/goodput/record"
	"github.com/goodput-dev/goodput/sim"
)

// latencyKeys are the rows Compare gives intervals.
var latencyKeys = []string{"ttft_p50", "ttft_p99", "tpot_p50", "tpot_p99", "itl_p50", "itl_p99", "e2e_p50", "e2e_p99"}

func gpu(t testing.TB, name string) sim.GPU {
	t.Helper()
	g, err := sim.LookupGPU(name)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// baseLoad is a moderately loaded open-loop run on the simulator.
func baseLoad(seed uint64) simLoad {
	return simLoad{seed: seed, requests: 600, rate: 6, promptLo: 200, promptSp: 300, maxTokens: 256}
}

func TestCompareKnownDifference(t *testing.T) {
	// The same requests on the same schedule, served by an H100 and by a
	// slower A100: every latency is worse, and the interval says so.
	h1, fast := simulate(t, baseLoad(7))
	slow := baseLoad(7)
	slow.profile = sim.Profile{GPU: gpu(t, "A100-80GB")}
	h2, slowRecs := simulate(t, slow)
	c, err := Compare([]*Run{build(h1, fast, RunOptions{}), build(h2, slowRecs, RunOptions{})}, CompareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range latencyKeys {
		r := c.Row(k)
		d := r.Diffs[1]
		if !d.HasCI || d.Verdict != Worse || d.Lo <= 0 || d.Abs < d.Lo || d.Abs > d.Hi {
			t.Errorf("%s: %v → %v, Δ %v in [%v, %v] %q; want worse with an interval above zero holding Δ",
				k, r.Values[0], r.Values[1], d.Abs, d.Lo, d.Hi, d.Verdict)
		}
		if d.Rel < 0.2 {
			t.Errorf("%s: relative change %v, want the A100 at least 20 %% slower", k, d.Rel)
		}
	}
	// Same workload on both: nothing to warn about.
	if len(c.Warnings) != 0 {
		t.Errorf("warnings %+v", c.Warnings)
	}
	// The baseline's own column is all zero differences without intervals.
	if d := c.Row("ttft_p99").Diffs[0]; d.Abs != 0 || d.HasCI {
		t.Errorf("baseline diff %+v", d)
	}
}

func TestCompareSameLoadIsNoise(t *testing.T) {
	// One seeded schedule run twice: as over a real network, each request
	// leaves up to 2 ms late, differently in each run, and the server's
	// batches form differently. Every difference lies inside its
	// interval's noise.
	a, b := baseLoad(11), baseLoad(11)
	a.jitter, b.jitter = 2*time.Millisecond, 2*time.Millisecond
	a.jitterSeed, b.jitterSeed = 1, 2
	ha, ra := simulate(t, a)
	hb, rb := simulate(t, b)
	c, err := Compare([]*Run{build(ha, ra, RunOptions{}), build(hb, rb, RunOptions{})}, CompareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	changed := 0
	for _, k := range latencyKeys {
		r := c.Row(k)
		d := r.Diffs[1]
		if d.Abs != 0 {
			changed++
		}
		if d.Verdict != Noise || d.Lo > 0 || d.Hi < 0 {
			t.Errorf("%s: %v → %v (%+.1f %%), interval [%v, %v], verdict %q; want noise",
				k, r.Values[0], r.Values[1], 100*d.Rel, d.Lo, d.Hi, d.Verdict)
		}
	}
	if changed < len(latencyKeys)/2 {
		t.Errorf("only %d of %d latencies changed: the runs are too alike to test anything", changed, len(latencyKeys))
	}
	if len(c.Warnings) != 0 {
		t.Errorf("warnings %+v", c.Warnings)
	}
}

// TestCompareCalibration checks the intervals' coverage over several
// reruns of seeded loads whose server draws different answer lengths each
// time: a 95 % interval should call about one difference in twenty real
// when nothing changed. Resampling single requests instead of blocks calls
// about three in ten, which this would catch.
func TestCompareCalibration(t *testing.T) {
	if testing.Short() {
		t.Skip("simulates 16 runs")
	}
	calls, total := 0, 0
	for k := range uint64(8) {
		a, b := baseLoad(100+k), baseLoad(100+k)
		b.simSeed = 500 + k
		ha, ra := simulate(t, a)
		hb, rb := simulate(t, b)
		c, err := Compare([]*Run{build(ha, ra, RunOptions{}), build(hb, rb, RunOptions{})}, CompareOptions{Resamples: 400, Seed: k + 1})
		if err != nil {
			t.Fatal(err)
		}
		for _, key := range latencyKeys {
			total++
			if c.Row(key).Diffs[1].Verdict != Noise {
				calls++
			}
		}
	}
	if share := float64(calls) / float64(total); share > 0.15 {
		t.Errorf("%d of %d unchanged differences called real (%.0f %%), want about 5 %%", calls, total, 100*share)
	}
}

// shaped returns n fixed records, with the header config given as JSON.
func shaped(t *testing.T, config string, n int, gap time.Duration, tokens int, edit func(i int, r *record.Record)) (record.Header, []record.Record) {
	t.Helper()
	recs := fixedRecords(n, gap, 0, tokens, 10*time.Millisecond, func(i int) time.Duration { return time.Duration(20+i%30) * time.Millisecond })
	for i := range recs {
		if edit != nil {
			edit(i, &recs[i])
		}
	}
	h := record.Header{Kind: record.KindHeader, Schema: 1}
	if config != "" {
		h.Config = json.RawMessage(config)
	}
	return h, recs
}

func TestCompareWarnings(t *testing.T) {
	const load = `"arrival":"open loop: poisson arrivals at 8 req/s, seed 1","request_rate":8`
	base := `{` + load + `,"ignore_eos":true,"percentile_method":"linear","num_warmups":0}`
	expGaps := func(mean time.Duration) func(int, *record.Record) {
		// Exponential gaps of the given mean, from a fixed sequence of
		// unit-mean draws, shifting every later record.
		draws := []float64{0.1, 2.3, 0.4, 1.7, 0.05, 0.9, 3.1, 0.6, 0.2, 1.2}
		at := int64(0)
		return func(i int, r *record.Record) {
			shift := at - r.Scheduled
			r.Scheduled, r.Sent, r.End = r.Scheduled+shift, r.Sent+shift, r.End+shift
			for k := range r.Chunks {
				r.Chunks[k].At += shift
			}
			at += int64(draws[i%len(draws)] * float64(mean))
		}
	}
	tests := []struct {
		name string
		a, b func() (record.Header, []record.Record)
		want []WarningKind
	}{
		{
			// Same load, seeds differ: nothing to warn about.
			name: "comparable",
			a:    func() (record.Header, []record.Record) { return shaped(t, base, 200, 100*time.Millisecond, 10, nil) },
			b: func() (record.Header, []record.Record) {
				return shaped(t, strings.Replace(base, "seed 1", "seed 2", 1), 200, 100*time.Millisecond, 10, nil)
			},
		},
		{
			// 10 tokens against 30: the output lengths differ.
			name: "output lengths",
			a:    func() (record.Header, []record.Record) { return shaped(t, base, 200, 100*time.Millisecond, 10, nil) },
			b:    func() (record.Header, []record.Record) { return shaped(t, base, 200, 100*time.Millisecond, 30, nil) },
			want: []WarningKind{WarnOutputLengths},
		},
		{
			// ignore_eos on one side only, from the configurations.
			name: "stop criteria from config",
			a:    func() (record.Header, []record.Record) { return shaped(t, base, 200, 100*time.Millisecond, 10, nil) },
			b: func() (record.Header, []record.Record) {
				return shaped(t, strings.Replace(base, `"ignore_eos":true`, `"ignore_eos":false`, 1), 200, 100*time.Millisecond, 10, nil)
			},
			want: []WarningKind{WarnStopCriteria},
		},
		{
			// No configuration: every request of one run stopped at its
			// limit, every one of the other at the end of its text.
			name: "stop criteria from finish reasons",
			a:    func() (record.Header, []record.Record) { return shaped(t, "", 200, 100*time.Millisecond, 10, nil) },
			b: func() (record.Header, []record.Record) {
				return shaped(t, "", 200, 100*time.Millisecond, 10, func(_ int, r *record.Record) { r.Finish = "stop" })
			},
			want: []WarningKind{WarnStopCriteria},
		},
		{
			// Prompts of 100 against 500 tokens.
			name: "input lengths",
			a:    func() (record.Header, []record.Record) { return shaped(t, base, 200, 100*time.Millisecond, 10, nil) },
			b: func() (record.Header, []record.Record) {
				return shaped(t, base, 200, 100*time.Millisecond, 10, func(_ int, r *record.Record) { r.InputTokens = 500 })
			},
			want: []WarningKind{WarnInputLengths},
		},
		{
			// Warm-up records excluded from the baseline only.
			name: "warm and cold",
			a: func() (record.Header, []record.Record) {
				return shaped(t, base, 200, 100*time.Millisecond, 10, func(i int, r *record.Record) { r.Warmup = i < 5 })
			},
			b:    func() (record.Header, []record.Record) { return shaped(t, base, 200, 100*time.Millisecond, 10, nil) },
			want: []WarningKind{WarnWarmup},
		},
		{
			// A warm-up time in the configuration counts too.
			name: "warm-up from config",
			a:    func() (record.Header, []record.Record) { return shaped(t, base, 200, 100*time.Millisecond, 10, nil) },
			b: func() (record.Header, []record.Record) {
				return shaped(t, strings.Replace(base, `"num_warmups":0`, `"num_warmups":0,"warmup_seconds":30`, 1), 200, 100*time.Millisecond, 10, nil)
			},
			want: []WarningKind{WarnWarmup},
		},
		{
			// Reported with NumPy's interpolation, then with the seeds'
			// nearest rank.
			name: "percentile methods",
			a:    func() (record.Header, []record.Record) { return shaped(t, base, 200, 100*time.Millisecond, 10, nil) },
			b: func() (record.Header, []record.Record) {
				return shaped(t, strings.Replace(base, `"linear"`, `"nearest-rank"`, 1), 200, 100*time.Millisecond, 10, nil)
			},
			want: []WarningKind{WarnPercentileMethod},
		},
		{
			// 8 against 16 requests per second, from the configurations.
			name: "load shape from config",
			a:    func() (record.Header, []record.Record) { return shaped(t, base, 200, 100*time.Millisecond, 10, nil) },
			b: func() (record.Header, []record.Record) {
				return shaped(t, strings.NewReplacer("8 req/s", "16 req/s", `"request_rate":8`, `"request_rate":16`).Replace(base), 200, 100*time.Millisecond, 10, nil)
			},
			want: []WarningKind{WarnLoadShape},
		},
		{
			// No configuration: 10 against 20 requests per second.
			name: "load rate from records",
			a:    func() (record.Header, []record.Record) { return shaped(t, "", 200, 100*time.Millisecond, 10, nil) },
			b:    func() (record.Header, []record.Record) { return shaped(t, "", 200, 50*time.Millisecond, 10, nil) },
			want: []WarningKind{WarnLoadShape},
		},
		{
			// No configuration, the same mean rate: evenly spaced against
			// bursty (exponential) arrivals.
			name: "burstiness from records",
			a:    func() (record.Header, []record.Record) { return shaped(t, "", 200, 100*time.Millisecond, 10, nil) },
			b: func() (record.Header, []record.Record) {
				return shaped(t, "", 200, 100*time.Millisecond, 10, expGaps(100*time.Millisecond))
			},
			want: []WarningKind{WarnLoadShape},
		},
		{
			// Two models served the same load.
			name: "models",
			a: func() (record.Header, []record.Record) {
				return shaped(t, strings.Replace(base, `{`, `{"model":"Llama-3.1-8B",`, 1), 200, 100*time.Millisecond, 10, nil)
			},
			b: func() (record.Header, []record.Record) {
				return shaped(t, strings.Replace(base, `{`, `{"model":"Qwen-72B",`, 1), 200, 100*time.Millisecond, 10, nil)
			},
			want: []WarningKind{WarnModel},
		},
		{
			// One request against two hundred: no interval can tell.
			name: "few requests",
			a:    func() (record.Header, []record.Record) { return shaped(t, base, 200, 100*time.Millisecond, 10, nil) },
			b: func() (record.Header, []record.Record) {
				h, recs := shaped(t, base, 200, 100*time.Millisecond, 10, nil)
				return h, recs[:1]
			},
			want: []WarningKind{WarnFewRequests},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ha, ra := tt.a()
			hb, rb := tt.b()
			c, err := Compare([]*Run{build(ha, ra, RunOptions{}), build(hb, rb, RunOptions{})}, CompareOptions{Resamples: 100})
			if err != nil {
				t.Fatal(err)
			}
			var got []WarningKind
			for _, w := range c.Warnings {
				got = append(got, w.Kind)
				if w.Run != 1 || w.Text == "" {
					t.Errorf("warning %+v", w)
				}
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("warnings %v, want %v (%+v)", got, tt.want, c.Warnings)
			}
		})
	}
}

func TestCompareGates(t *testing.T) {
	ha, a := shaped(t, "", 100, 100*time.Millisecond, 10, nil)
	hb, b := shaped(t, "", 100, 100*time.Millisecond, 10, func(i int, r *record.Record) {
		// 30 ms later first tokens: TTFT 20..49 ms becomes 50..79 ms.
		for k := range r.Chunks {
			r.Chunks[k].At += int64(30 * time.Millisecond)
		}
		r.End += int64(30 * time.Millisecond)
	})
	o := RunOptions{Metrics: metrics.Options{Percentiles: []float64{50, 90, 99}}}
	rg, err := ParseRegressionGate("regression(p99 ttft) <= 10%")
	if err != nil {
		t.Fatal(err)
	}
	tput, err := ParseRegressionGate("regression(throughput) <= 5%")
	if err != nil {
		t.Fatal(err)
	}
	c, err := Compare([]*Run{build(ha, a, o), build(hb, b, o)}, CompareOptions{
		Resamples: 200, Gates: mustGates(t, "p99(ttft)<=100ms"), Regressions: []RegressionGate{rg, tput},
	})
	if err != nil {
		t.Fatal(err)
	}
	// The absolute gate is checked on the run, not on the baseline.
	if c.Gates[0] != nil || len(c.Gates[1]) != 1 || !c.Gates[1][0].Pass {
		t.Errorf("gates %+v", c.Gates)
	}
	// p99 TTFT went from 49 to 79 ms: +61.2 %, beyond 10 %.
	if len(c.Regressions) != 2 || c.Regressions[0].Pass || c.Regressions[0].Run != 1 ||
		math.Abs(c.Regressions[0].Regression-30.0/49) > 1e-9 || !c.Regressions[1].Pass {
		t.Errorf("regressions %+v", c.Regressions)
	}
	if c.Pass {
		t.Error("Pass with a failing regression gate")
	}
	var b1 bytes.Buffer
	if err := WriteCompareText(&b1, c); err != nil {
		t.Fatal(err)
	}
	if r := c.Regressions[0]; r.Judged != JudgedInterval || !r.HasCI || r.Verdict != Worse || r.Lo <= 0 {
		t.Errorf("p99 TTFT gate judged %q, interval %v [%v, %v] %q; want a worse interval", r.Judged, r.HasCI, r.Lo, r.Hi, r.Verdict)
	}
	if r := c.Regressions[1]; r.Judged != JudgedPoint || r.HasCI || !strings.Contains(r.Note, "no interval") {
		t.Errorf("throughput gate judged %q with note %q; want the point estimate, said so", r.Judged, r.Note)
	}
	for _, want := range []string{"B: p99(ttft)<=100ms: measured 79ms: pass",
		"B against A: regression(p99(ttft))<=10%: 49 ms → 79 ms (+61.2 %), 95 % CI of Δ [+28.00, +30.99] ms, worse: fail",
		"regression(throughput)<=5%: 99.8 → 99.5 (+0.3 %); no interval for this quantity: judged on the point estimate: pass",
		"Regression gates were judged with the intervals", "FAIL: 1 of 3 gates failed."} {
		if !strings.Contains(b1.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, b1.String())
		}
	}
}

// TestCompareGateNeverFailsOnNoise checks that a regression gate agrees
// with the verdict printed beside it: a difference the interval calls
// noise passes a gate its point estimate would fail, unless the gate asks
// for point estimates, and the output says which judgement was made.
func TestCompareGateNeverFailsOnNoise(t *testing.T) {
	// Two runs of one schedule whose TTFTs differ by a jitter of up to
	// 9 ms per request, 1.5 ms on average: the p50 rises, inside the noise.
	ha, a := shaped(t, "", 200, 50*time.Millisecond, 8, nil)
	hb, b := shaped(t, "", 200, 50*time.Millisecond, 8, func(i int, r *record.Record) {
		d := int64((i*7)%10) * int64(time.Millisecond)
		for k := range r.Chunks {
			r.Chunks[k].At += d - 3*int64(time.Millisecond)
		}
		r.End += d - 3*int64(time.Millisecond)
	})
	runs := []*Run{build(ha, a, RunOptions{}), build(hb, b, RunOptions{})}
	rg, err := ParseRegressionGate("regression(p50 ttft)<=1%")
	if err != nil {
		t.Fatal(err)
	}
	demand, err := ParseRegressionGate("regression(p50 ttft)<=-1%")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		point bool
		// want is whether the <=1% gate and the <=-1% (improvement) gate pass.
		want [2]bool
		text string
	}{
		// Noise counts as no change: within 1 %, not an improvement of 1 %.
		{"intervals", false, [2]bool{true, false}, "judged with the intervals"},
		// On the point estimate the p50 rose by more than 1 %: it fails.
		{"point estimates", true, [2]bool{false, false}, "judged on point estimates (--point-estimate)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Compare(runs, CompareOptions{Resamples: 400, Regressions: []RegressionGate{rg, demand}, PointEstimate: tt.point})
			if err != nil {
				t.Fatal(err)
			}
			row := c.Row("ttft_p50")
			if d := row.Diffs[1]; d.Verdict != Noise || d.Rel <= 0.01 {
				t.Fatalf("p50 TTFT %v → %v (%+.1f %%) %q: the test needs a rise above 1 %% inside the noise", row.Values[0], row.Values[1], 100*d.Rel, d.Verdict)
			}
			for i, r := range c.Regressions {
				if r.Pass != tt.want[i] || r.Verdict != Noise {
					t.Errorf("%s: pass %v verdict %q, want pass %v on noise (%s)", r.Gate, r.Pass, r.Verdict, tt.want[i], r)
				}
			}
			var b bytes.Buffer
			if err := WriteCompareText(&b, c); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(b.String(), tt.text) {
				t.Errorf("text lacks %q:\n%s", tt.text, b.String())
			}
			if !tt.point && !strings.Contains(b.String(), "within the noise, counted as no change; judged on the point estimate it would fail: pass") {
				t.Errorf("the passing gate does not say why:\n%s", b.String())
			}
		})
	}
}

// TestCompareVerdictIgnoresOtherRuns checks that the difference between
// two runs, interval and verdict included, is the same whether they are
// compared alone or among others, and wherever the run stands in the list.
func TestCompareVerdictIgnoresOtherRuns(t *testing.T) {
	shift := func(ms int) func(int, *record.Record) {
		return func(i int, r *record.Record) {
			d := int64((i*ms)%7) * int64(time.Millisecond)
			for k := range r.Chunks {
				r.Chunks[k].At += d
			}
			r.End += d
		}
	}
	ha, a := shaped(t, "", 150, 50*time.Millisecond, 8, nil)
	hb, b := shaped(t, "", 150, 50*time.Millisecond, 8, shift(3))
	hc, c := shaped(t, "", 150, 50*time.Millisecond, 8, shift(5))
	base, run, other := build(ha, a, RunOptions{}), build(hb, b, RunOptions{}), build(hc, c, RunOptions{})
	alone, err := Compare([]*Run{base, run}, CompareOptions{Resamples: 300})
	if err != nil {
		t.Fatal(err)
	}
	among, err := Compare([]*Run{base, other, run}, CompareOptions{Resamples: 300})
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range latencyKeys {
		x, y := alone.Row(k).Diffs[1], among.Row(k).Diffs[2]
		if x != y {
			t.Errorf("%s: %+v alone, %+v among three", k, x, y)
		}
	}
}

func TestCompareRefuses(t *testing.T) {
	h, recs := shaped(t, "", 20, time.Second, 3, nil)
	lin := build(h, recs, RunOptions{})
	near := build(h, recs, RunOptions{Metrics: metrics.Options{Method: metrics.NearestRank}})
	tests := []struct {
		name string
		runs []*Run
		o    CompareOptions
		err  string
	}{
		{"one run", []*Run{lin}, CompareOptions{}, "need at least two runs"},
		{"nil run", []*Run{lin, nil}, CompareOptions{}, "run 2 is empty"},
		{"methods differ", []*Run{lin, near}, CompareOptions{}, "run 2 was read with nearest-rank percentiles and the baseline with linear"},
		{"too few resamples", []*Run{lin, lin}, CompareOptions{Resamples: 10}, "resamples 10: at least 100"},
		{"negative resamples", []*Run{lin, lin}, CompareOptions{Resamples: -1}, "resamples -1"},
		{"too many resamples", []*Run{lin, lin}, CompareOptions{Resamples: MaxResamples + 1}, "want 1 to 100000"},
		{"confidence too high", []*Run{lin, lin}, CompareOptions{Confidence: 1}, "confidence 1"},
		{"confidence too low", []*Run{lin, lin}, CompareOptions{Confidence: 0.3}, "confidence 0.3"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := Compare(tt.runs, tt.o); err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("error %v, want %q", err, tt.err)
			}
		})
	}
}

func TestCompareIsReproducible(t *testing.T) {
	h, recs := shaped(t, "", 200, 50*time.Millisecond, 8, nil)
	run := build(h, recs, RunOptions{})
	h2, recs2 := shaped(t, "", 200, 50*time.Millisecond, 8, func(i int, r *record.Record) { r.Chunks[0].At += int64(i%7) * int64(time.Millisecond) })
	other := build(h2, recs2, RunOptions{})
	first, err := Compare([]*Run{run, other}, CompareOptions{Seed: 9, Resamples: 300})
	if err != nil {
		t.Fatal(err)
	}
	second, _ := Compare([]*Run{run, other}, CompareOptions{Seed: 9, Resamples: 300})
	for i := range first.Rows {
		if a, b := first.Rows[i].Diffs[1], second.Rows[i].Diffs[1]; a.Lo != b.Lo || a.Hi != b.Hi {
			t.Errorf("%s: [%v, %v] then [%v, %v] with the same seed", first.Rows[i].Key, a.Lo, a.Hi, b.Lo, b.Hi)
		}
	}
}

// goldenComparison compares three fixed runs: the baseline, one a little
// slower in TTFT, and one with shorter outputs.
func goldenComparison(t *testing.T) *Comparison {
	t.Helper()
	cfg := `{"request_rate":10,"ignore_eos":true}`
	ha, a := shaped(t, cfg, 300, 100*time.Millisecond, 12, nil)
	hb, b := shaped(t, cfg, 300, 100*time.Millisecond, 12, func(i int, r *record.Record) {
		d := int64(i%5) * int64(time.Millisecond)
		for k := range r.Chunks {
			r.Chunks[k].At += d
		}
	})
	hc, c := shaped(t, cfg, 300, 100*time.Millisecond, 6, nil)
	o := RunOptions{SLO: mustSLO(t, "ttft<=40ms")}
	runs := []*Run{build(ha, a, o), build(hb, b, o), build(hc, c, o)}
	for i, n := range []string{"base", "slower", "shorter"} {
		runs[i].Name = n
	}
	rg, _ := ParseRegressionGate("regression(p99 ttft)<=5%")
	cmp, err := Compare(runs, CompareOptions{Resamples: 500, Regressions: []RegressionGate{rg}})
	if err != nil {
		t.Fatal(err)
	}
	return cmp
}

func TestCompareTextGolden(t *testing.T) {
	var b bytes.Buffer
	if err := WriteCompareText(&b, goldenComparison(t)); err != nil {
		t.Fatal(err)
	}
	golden(t, "compare.txt", b.Bytes())
}

func TestCompareMarkdownGolden(t *testing.T) {
	var b bytes.Buffer
	if err := WriteCompareMarkdown(&b, goldenComparison(t)); err != nil {
		t.Fatal(err)
	}
	golden(t, "compare.md", b.Bytes())
}

func TestRunLetter(t *testing.T) {
	for i, want := range map[int]string{0: "A", 1: "B", 25: "Z", 26: "R27", 99: "R100"} {
		if got := runLetter(i); got != want {
			t.Errorf("runLetter(%d) = %q, want %q", i, got, want)
		}
	}
}

func TestKSDistance(t *testing.T) {
	tests := []struct {
		a, b []int32
		want float64
	}{
		{[]int32{1, 2, 3}, []int32{1, 2, 3}, 0},            // identical
		{[]int32{1, 1, 1}, []int32{5, 5, 5}, 1},            // disjoint
		{[]int32{1, 2, 3, 4}, []int32{3, 4, 5, 6}, 0.5},    // half shifted
		{[]int32{1, 2, 2, 3}, []int32{2, 2, 2, 2}, 0.25},   // ties
		{[]int32{10}, []int32{10, 10, 10, 20}, 0.25},       // different sizes
		{[]int32{7, 3, 5}, []int32{5, 3, 7}, 0},            // order does not matter
		{[]int32{1, 2, 3, 4, 5}, []int32{1, 2, 3, 4}, 0.2}, // one extra value
	}
	for _, tt := range tests {
		if got := ksDistance(tt.a, tt.b); math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("ksDistance(%v, %v) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
}

func TestArrivalStats(t *testing.T) {
	even := []int64{0, 1e8, 2e8, 3e8, 4e8}
	rate, cv, ok := arrivalStats(even)
	if !ok || math.Abs(rate-10) > 1e-9 || cv > 1e-9 {
		t.Errorf("even: rate %v cv %v ok %v, want 10 req/s, 0", rate, cv, ok)
	}
	// Order does not matter; too few or simultaneous arrivals say nothing.
	if r, _, _ := arrivalStats([]int64{4e8, 0, 2e8, 1e8, 3e8}); math.Abs(r-10) > 1e-9 {
		t.Errorf("shuffled rate %v", r)
	}
	for _, s := range [][]int64{nil, {0, 1}, {5, 5, 5}} {
		if _, _, ok := arrivalStats(s); ok {
			t.Errorf("arrivalStats(%v) ok", s)
		}
	}
}
