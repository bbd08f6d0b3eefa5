package sweeprun

import (
	"encoding/json"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/bench"
	"github.com/goodput-dev/goodput/record"
	"github.com/goodput-dev/goodput/runfile"
	"github.com/goodput-dev/goodput/sim"
	"github.com/goodput-dev/goodput/sweep"
	"github.com/goodput-dev/goodput/workload"
)

// TestVirtualKneeNearSaturation sweeps the simulator in virtual time and
// checks that the knee found sits where the engine's cost model says the
// batch saturates.
//
// With short prompts and long fixed answers the work is decoding. A decode
// step of B sequences costs, by the roofline (memory-bound at these batch
// sizes),
//
//	step(B) = a + b·B,  a = step overhead + weight bytes ÷ achieved bandwidth,
//	                    b = per-sequence overhead + KV bytes of a mean context ÷ achieved bandwidth,
//
// so a closed loop of B requests makes B/step(B) tokens per second and each
// request lasts about N·step(B). Kleinrock's power, throughput ÷ latency, is
// then ∝ B/(a + b·B)², which peaks at B* = a/b: below it the fixed cost of a
// step is shared by too few sequences, above it each extra sequence slows
// every other one more than it adds. That is the engine's saturation point.
func TestVirtualKneeNearSaturation(t *testing.T) {
	a100, err := sim.LookupGPU("A100")
	if err != nil {
		t.Fatal(err)
	}
	// A per-sequence cost of 250 µs puts B* well below the batch at which
	// prefill and compute would matter, where the derivation holds.
	withSeqCost := func(d time.Duration) sim.Calibration {
		c := sim.DefaultCalibration
		c.SeqOverhead = d
		return c
	}
	tests := []struct {
		name string
		opts sim.Options
	}{
		// Llama-3.1-8B on an H100: B* ≈ 27.
		{"h100", sim.Options{Profile: sim.Profile{Calibration: withSeqCost(250 * time.Microsecond)}}},
		// Less bandwidth makes reading the weights dearer, so the fixed
		// cost of a step is shared by more sequences: B* ≈ 40.
		{"a100", sim.Options{Profile: sim.Profile{GPU: a100, Calibration: withSeqCost(250 * time.Microsecond)}}},
		// A dearer sequence saturates the batch sooner: B* ≈ 7.
		{"costly sequences", sim.Options{Profile: sim.Profile{Calibration: withSeqCost(time.Millisecond)}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			kneeNearSaturation(t, tt.opts)
		})
	}
}

func kneeNearSaturation(t *testing.T, opts sim.Options) {
	const input, output = 64, 256
	cfg := virtualConfig("")
	cfg.Virtual = &opts
	cfg.Bench.Arrival.NumPrompts = 400
	cfg.Bench.Workload.Random.InputLen = input
	cfg.Bench.Workload.Random.OutputLen = output
	cfg.Bench.Workload.Random.RangeRatio = 0

	info, err := sim.Resolve(opts)
	if err != nil {
		t.Fatal(err)
	}
	p := info.Profile
	mbu, mfu := p.Efficiency()
	byteRate := p.GPU.BandwidthTBps * 1e12 * mbu
	meanContext := float64(input) + float64(output)/2
	a := p.Calibration.StepOverhead.Seconds() + p.Model.WeightBytes()/byteRate
	b := p.Calibration.SeqOverhead.Seconds() + float64(p.Model.KVBytesPerToken())*meanContext/byteRate
	saturation := a / b
	// The model must be memory-bound there for the derivation to hold:
	// the FLOPs of B* tokens take less time than reading the weights.
	flopRate := p.GPU.TFLOPS * 1e12 * mfu
	if compute := 2 * p.Model.ParamsB * 1e9 * saturation / flopRate; compute >= p.Model.WeightBytes()/byteRate {
		t.Fatalf("decode at B* = %.1f is compute-bound (%.2f ms): the derivation does not apply", saturation, 1e3*compute)
	}

	r, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	auto := sweep.DefaultAuto(sweep.ModeConcurrency)
	out, err := r.Run(t.Context(), sweep.Plan{Mode: sweep.ModeConcurrency, Auto: &auto, Stop: sweep.DefaultStopRule()})
	if err != nil {
		t.Fatal(err)
	}
	knee := out.Summary.Power
	t.Logf("a = %.3f ms, b = %.3f ms: B* = %.1f; power knee at %s, curvature knee at %s",
		1e3*a, 1e3*b, saturation, knee.Load.Short(), out.Summary.Curvature.Load.Short())
	if !knee.Found {
		t.Fatalf("no power knee: %s", knee.Note)
	}
	// Power is flat near its peak: a load a factor 1.5 from B* still
	// delivers 96 % of the peak power (x·4/(1+x)² at x = 1.5 or 1/1.5).
	// The refined grid always holds a load within 2^¼ ≈ 1.19 of B*; the
	// rest of the band allows for what a, b leave out (prefill steps, the
	// per-request overhead, contexts growing during a decode).
	const factor = 1.5
	if k := knee.Load.Value; k < saturation/factor || k > saturation*factor {
		t.Errorf("knee at %v, want within %.1f× of B* = %.1f", k, factor, saturation)
	}
	// The band must exclude measured loads on both sides, or the check
	// above could not fail.
	var below, above bool
	for _, pt := range out.Summary.Points {
		below = below || pt.Load.Value < saturation/factor
		above = above || pt.Load.Value > saturation*factor
		// No batch can beat the model's asymptote of 1/b tokens a second.
		if thr := pt.Mean.OutputThroughput; thr >= 1/b {
			t.Errorf("%s: %.0f tok/s, above the model's limit of %.0f", pt.Load, thr, 1/b)
		}
	}
	if !below || !above {
		t.Errorf("the sweep's loads do not straddle the band around B* = %.1f", saturation)
	}
	if out.Measured != len(out.Summary.Points) || out.Resumed != 0 {
		t.Errorf("measured %d, resumed %d, for %d points", out.Measured, out.Resumed, len(out.Summary.Points))
	}
}

// TestVirtualPromptIDs checks what the token ids of prompts change: random
// prompts without a shared prefix, on an engine with room for them all, run
// alike with and without ids, as their ids can match no cached block; with
// a shared prefix the ids let the cache skip its prefill, and the runs
// differ, which shows the comparison can fail.
func TestVirtualPromptIDs(t *testing.T) {
	run := func(w workload.Config, ids bool) []record.Record {
		t.Helper()
		src, err := workload.New(w)
		if err != nil {
			t.Fatal(err)
		}
		var reqs []sim.VirtualRequest
		for _, it := range workload.Items(src, 48) {
			reqs = append(reqs, virtualRequest(it, ids, w.Request))
		}
		recs, err := sim.RunVirtualClosed(sim.Options{Seed: 3}, 8, reqs)
		if err != nil {
			t.Fatal(err)
		}
		return recs
	}
	same := func(a, b []record.Record) bool {
		for i := range a {
			if a[i].End != b[i].End || !slices.Equal(a[i].Chunks, b[i].Chunks) {
				return false
			}
		}
		return len(a) == len(b)
	}
	w := workload.DefaultConfig()
	w.Random.InputLen, w.Random.OutputLen = 256, 16
	if SharesPrefixes(w) {
		t.Fatal("a random workload without a prefix shares none")
	}
	if !same(run(w, true), run(w, false)) {
		t.Error("random prompts without a prefix: the run differs without token ids")
	}
	w.Random.PrefixLen = 128
	if !SharesPrefixes(w) {
		t.Fatal("a 128-token prefix is shared")
	}
	if same(run(w, true), run(w, false)) {
		t.Error("with a shared prefix the ids should let the cache skip prefill, but the runs are equal")
	}
}

func TestVirtualFiles(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "sweep")
	cfg := virtualConfig(dir)
	cfg.Bench.Workload.Request.IgnoreEOS = false // lengths drawn by the simulator's seed
	cfg.Bench.Workload.Random.OutputLen = 64
	cfg.Bench.Warmups = 2
	cfg.Bench.Labels = map[string]string{"team": "serving"}
	var log logBuf
	cfg.Log = &log
	r, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	plan := sweep.Plan{Mode: sweep.ModeConcurrency, Loads: []sweep.Load{sweep.Concurrency(4), sweep.Concurrency(1)}, Repeats: 2}
	out, err := r.Run(t.Context(), plan)
	if err != nil {
		t.Fatal(err)
	}
	if got := measuredPoints(log.String()); !slices.Equal(got, []string{"c1", "c1-r2", "c4", "c4-r2"}) {
		t.Errorf("measured %v, want c1, c1-r2, c4, c4-r2 in that order", got)
	}
	if out.JSONPath != filepath.Join(dir, SweepJSON) || out.CSVPath != filepath.Join(dir, SweepCSV) {
		t.Errorf("sweep files %q, %q", out.JSONPath, out.CSVPath)
	}
	for _, name := range []string{"c1", "c1-r2", "c4", "c4-r2"} {
		m := Measurement{Load: sweep.Concurrency(1), Repeat: 1}
		if strings.HasPrefix(name, "c4") {
			m.Load = sweep.Concurrency(4)
		}
		if strings.HasSuffix(name, "-r2") {
			m.Repeat = 2
		}
		checkMeasurementFiles(t, dir, name, m, 64)
	}
	s, err := sweep.ReadFile(out.JSONPath)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Points) != 2 {
		t.Fatalf("sweep.json has %d points", len(s.Points))
	}
	for _, p := range s.Points {
		// 64 requests less 2 warm-ups; two repeats drawn with different
		// seeds give different answers, hence a spread.
		if len(p.Repeats) != 2 || p.Mean.Requests != 62 || !(p.Spread.OutputThroughput > 0) {
			t.Errorf("%s: %d repeats, %d requests, output throughput spread %v", p.Load, len(p.Repeats), p.Mean.Requests, p.Spread.OutputThroughput)
		}
	}
	csv, err := os.ReadFile(out.CSVPath)
	if err != nil {
		t.Fatal(err)
	}
	if lines := strings.Count(string(csv), "\n"); lines != 3 {
		t.Errorf("sweep.csv has %d lines, want a header and 2 rows:\n%s", lines, csv)
	}
	var man manifestFile
	b, err := os.ReadFile(filepath.Join(dir, ConfigFile))
	if err != nil || json.Unmarshal(b, &man) != nil {
		t.Fatalf("sweep-config.json: %v\n%s", err, b)
	}
	if man.Schema != 1 || man.Settings["clock"] != "virtual" || man.Settings["mode"] != "concurrency" || man.Settings["num_prompts"] != "64" {
		t.Errorf("manifest %+v", man)
	}
}

// checkMeasurementFiles checks the records and summary of one measurement.
func checkMeasurementFiles(t *testing.T, dir, name string, m Measurement, requests int) {
	t.Helper()
	path := filepath.Join(dir, name+".jsonl")
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	d := record.NewDecoder(f, path)
	h, err := d.Header()
	if err != nil {
		t.Fatal(err)
	}
	want := m.Labels(map[string]string{"team": "serving"})
	for k, v := range want {
		if h.Labels[k] != v {
			t.Errorf("%s: header label %s = %q, want %q", name, k, h.Labels[k], v)
		}
	}
	n := 0
	for {
		var rec record.Record
		if err := d.Next(&rec); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		n++
		if rec.Labels["point"] != PointName(m.Load) || rec.Labels["repeat"] != want["repeat"] {
			t.Errorf("%s: record %d labels %v", name, rec.Seq, rec.Labels)
		}
		if rec.Warmup != (rec.Seq < 2) {
			t.Errorf("%s: record %d warm-up %v", name, rec.Seq, rec.Warmup)
		}
	}
	if tr, ok := d.Trailer(); n != requests || !ok || tr.Records != int64(requests) {
		t.Errorf("%s: %d records, trailer %+v (%v)", name, n, tr, ok)
	}
	var sf bench.SummaryFile
	b, err := os.ReadFile(filepath.Join(dir, name+summarySuffix))
	if err != nil || json.Unmarshal(b, &sf) != nil {
		t.Fatalf("%s summary: %v", name, err)
	}
	if sf.Kind != "goodput.summary" || sf.Records != path || sf.Interrupted || sf.Result.Counts.Completed != int64(requests-2) {
		t.Errorf("%s summary: kind %q, records %q, interrupted %v, counts %+v", name, sf.Kind, sf.Records, sf.Interrupted, sf.Result.Counts)
	}
}

func TestVirtualRateSweep(t *testing.T) {
	// An open loop in virtual time follows the arrival schedule: at a rate
	// well below capacity the achieved rate is close to the offered one.
	cfg := virtualConfig("")
	cfg.Bench.Arrival.NumPrompts = 200
	r, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	out, err := r.Run(t.Context(), sweep.Plan{Mode: sweep.ModeRate, Loads: []sweep.Load{sweep.Rate(2), sweep.Rate(8), sweep.Rate(math.Inf(1))}})
	if err != nil {
		t.Fatal(err)
	}
	pts := out.Summary.Points
	if len(pts) != 3 {
		t.Fatalf("%d points", len(pts))
	}
	for _, p := range pts[:2] {
		// Poisson arrivals over 200 requests: the achieved rate is within
		// a few standard errors (1/√200 ≈ 7 %) of the offered one.
		if got, want := p.Mean.RequestThroughput, p.Load.Value; math.Abs(got-want) > 0.25*want {
			t.Errorf("%s: achieved %.2f req/s", p.Load, got)
		}
	}
	// Sent all at once, every request queues: TTFT grows far above the
	// light load's.
	if pts[2].Mean.TTFT.P99 < 10*pts[0].Mean.TTFT.P99 {
		t.Errorf("unbounded rate: p99 TTFT %v, light load %v", pts[2].Mean.TTFT.P99, pts[0].Mean.TTFT.P99)
	}
}

// TestVirtualSweepSendsPromptIDs runs a point whose requests do not fit in
// the KV cache together, so that the engine preempts: a preempted request
// finds the blocks it had computed in the prefix cache only if its prompt
// came as ids, as it does from a real client. The runner's records must be
// those of the run with ids, and differ from a run without them.
func TestVirtualSweepSendsPromptIDs(t *testing.T) {
	l4, err := sim.LookupGPU("L4")
	if err != nil {
		t.Fatal(err)
	}
	opts := sim.Options{Profile: sim.Profile{GPU: l4}, GPUMemoryUtilization: 0.8, Seed: 1}
	dir := filepath.Join(t.TempDir(), "sweep")
	cfg := virtualConfig(dir)
	cfg.Virtual = &opts
	cfg.Bench.Arrival.NumPrompts = 48
	cfg.Bench.Workload.Random.InputLen, cfg.Bench.Workload.Random.OutputLen = 1200, 400
	r, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Run(t.Context(), sweep.Plan{Mode: sweep.ModeConcurrency, Loads: []sweep.Load{sweep.Concurrency(32)}}); err != nil {
		t.Fatal(err)
	}
	f, err := runfile.Open(filepath.Join(dir, "c32.jsonl"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var swept []int64
	for {
		var rec record.Record
		if err := f.Next(&rec); err != nil {
			break
		}
		swept = append(swept, rec.End)
	}
	direct := func(ids bool) []int64 {
		src, err := workload.New(cfg.Bench.Workload)
		if err != nil {
			t.Fatal(err)
		}
		var reqs []sim.VirtualRequest
		// As many as the point sent: a sweep sends at least MinRounds ×
		// the concurrency.
		for _, it := range workload.Items(src, len(swept)) {
			reqs = append(reqs, virtualRequest(it, ids, cfg.Bench.Workload.Request))
		}
		o := opts
		o.Seed = Measurement{Load: sweep.Concurrency(32), Repeat: 1}.Seed(opts.Seed)
		recs, err := sim.RunVirtualClosed(o, 32, reqs)
		if err != nil {
			t.Fatal(err)
		}
		var ends []int64
		for _, rec := range recs {
			ends = append(ends, rec.End)
		}
		return ends
	}
	sorted := func(xs []int64) []int64 { xs = slices.Clone(xs); slices.Sort(xs); return xs }
	withIDs, withoutIDs := sorted(direct(true)), sorted(direct(false))
	if slices.Equal(withIDs, withoutIDs) {
		t.Fatal("the workload preempts nothing: ids and lengths run alike, so the check below cannot fail")
	}
	if got := sorted(swept); !slices.Equal(got, withIDs) {
		t.Errorf("the sweep's point ran as without ids (last end %v; with ids %v, without %v)",
			time.Duration(got[len(got)-1]), time.Duration(withIDs[len(withIDs)-1]), time.Duration(withoutIDs[len(withoutIDs)-1]))
	}
}
