package bench

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/arrival"
	"github.com/goodput-dev/goodput/load"
	"github.com/goodput-dev/goodput/sim"
)

func TestSkipLate(t *testing.T) {
	ms := time.Millisecond
	cases := []struct {
		name    string
		plan    load.Plan
		cutoff  time.Duration
		skipped int
		offsets []time.Duration
		seqs    []int64
		warmups int
	}{
		// Nothing is past: the plan is untouched, its Seqs left nil.
		{"on time", load.Plan{Offsets: []time.Duration{0, 10 * ms}, Warmups: 1}, 0, 0, []time.Duration{0, 10 * ms}, nil, 1},
		// An unsharded plan gets explicit sequence numbers for what is left.
		{"unsharded", load.Plan{Offsets: []time.Duration{0, 10 * ms, 20 * ms, 30 * ms}}, 15 * ms, 2, []time.Duration{20 * ms, 30 * ms}, []int64{2, 3}, 0},
		// A shard keeps its global numbers; a request due at the cutoff is sent.
		{"shard", load.Plan{Offsets: []time.Duration{5 * ms, 15 * ms, 25 * ms}, Seqs: []int64{1, 4, 7}}, 15 * ms, 1, []time.Duration{15 * ms, 25 * ms}, []int64{4, 7}, 0},
		// The warm-up count loses the skipped requests, never below zero.
		{"warm-up", load.Plan{Offsets: []time.Duration{0, 0, 0, 10 * ms}, Warmups: 2}, ms, 3, []time.Duration{10 * ms}, []int64{3}, 0},
		// Everything past: nothing left.
		{"all", load.Plan{Offsets: []time.Duration{0, ms}}, time.Hour, 2, []time.Duration{}, []int64{}, 0},
		// An empty plan has nothing to skip.
		{"empty", load.Plan{}, time.Hour, 0, nil, nil, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			lp := c.plan
			n := skipLate(&lp, c.cutoff)
			if n != c.skipped || !slices.Equal(lp.Offsets, c.offsets) || !slices.Equal(lp.Seqs, c.seqs) || lp.Warmups != c.warmups {
				t.Errorf("skipped %d, offsets %v, seqs %v, warm-ups %d; want %d, %v, %v, %d", n, lp.Offsets, lp.Seqs, lp.Warmups, c.skipped, c.offsets, c.seqs, c.warmups)
			}
		})
	}
}

// A retried shard never overwrites an earlier attempt's records: its
// default name takes the next free attempt number, and says which.
func TestRetriedShardNamesItsAttempt(t *testing.T) {
	dir := t.TempDir()
	cfg := DefaultConfig()
	cfg.ResultDir, cfg.NoServerMetrics = dir, true
	cfg.Arrival.Shard, cfg.Arrival.Shards = 1, 4
	start := time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)
	for want := range 3 {
		files, err := chooseFiles(cfg, start)
		if err != nil {
			t.Fatal(err)
		}
		wantName := "goodput-20261129-100000-shard1-of-4.jsonl"
		if want > 0 {
			wantName = fmt.Sprintf("goodput-20261129-100000-shard1-of-4-attempt%d.jsonl", want)
		}
		if files.attempt != want || filepath.Base(files.records) != wantName {
			t.Errorf("attempt %d at %s, want %d at %s", files.attempt, files.records, want, wantName)
		}
		if err := os.WriteFile(files.records, []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// An unsharded run's default name moves on as before.
	cfg.Arrival.Shard, cfg.Arrival.Shards = 0, 0
	os.WriteFile(filepath.Join(dir, "goodput-20261129-100000.jsonl"), nil, 0o644)
	if files, err := chooseFiles(cfg, start); err != nil || filepath.Base(files.records) != "goodput-20261129-100000-2.jsonl" || files.attempt != 0 {
		t.Errorf("unsharded: %+v, %v", files, err)
	}
}

// A shard that starts long after --start-at, as a retried pod does, sends
// only what is still ahead of it, at its planned times, and says how many
// it skipped; its records go to a new attempt's file.
func TestLateShardSkipsWhatHasPassed(t *testing.T) {
	url := startSim(t, sim.Options{Seed: 5})
	cfg := smallConfig(t, url)
	cfg.Warmups, cfg.SaveResult, cfg.VLLMResult, cfg.RunName = 0, false, false, ""
	cfg.Arrival.MaxConcurrency = 0
	cfg.Arrival.RequestRate, cfg.Arrival.Arrival = 10, arrival.KindConstant
	cfg.Arrival.NumPrompts = 50 // 5 s of schedule
	cfg.Arrival.Shard, cfg.Arrival.Shards = 1, 2
	cfg.StartAt = time.Now().Add(-2 * time.Second).Round(0).UTC()
	stem := "goodput-" + cfg.StartAt.Format("20060102-150405") + "-shard1-of-2"
	if err := os.WriteFile(filepath.Join(cfg.ResultDir, stem+".jsonl"), []byte("{\"kind\":\"goodput.run\"}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := Run(t.Context(), cfg, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Base(out.RecordsPath) != stem+"-attempt1.jsonl" {
		t.Errorf("records at %s, want the second attempt's file", out.RecordsPath)
	}
	recs, h, tr := readRecords(t, out.RecordsPath)
	sh := h.Shard
	if sh == nil || sh.Attempt != 1 || sh.Planned != 25 || tr == nil {
		t.Fatalf("shard %+v, trailer %+v", sh, tr)
	}
	// Shard 1 of a constant 10 req/s schedule sends at 0.1 s, 0.3 s, …:
	// at least the ten before 2 s had passed.
	plan, _ := cfg.Arrival.Plan()
	before := 0
	for _, off := range plan.Open.Offsets {
		if int64(off) < sh.SkippedBefore {
			before++
		}
	}
	if sh.Skipped < 10 || int64(before) != sh.Skipped || sh.SkippedBefore < int64(2*time.Second) {
		t.Errorf("skipped %d before %v; the plan has %d before then", sh.Skipped, time.Duration(sh.SkippedBefore), before)
	}
	if int64(len(recs)) != sh.Planned-sh.Skipped {
		t.Errorf("%d records, want %d planned − %d skipped", len(recs), sh.Planned, sh.Skipped)
	}
	for _, r := range recs {
		if r.Scheduled < sh.SkippedBefore || r.Seq%2 != 1 {
			t.Errorf("seq %d scheduled at %v, before the skip point %v", r.Seq, time.Duration(r.Scheduled), time.Duration(sh.SkippedBefore))
		}
	}
	if !slices.ContainsFunc(out.Warnings, func(w string) bool {
		return strings.Contains(w, "shard 1 of 2 started") && strings.Contains(w, "were not sent")
	}) {
		t.Errorf("no warning of the late start: %q", out.Warnings)
	}
}

// A shard that starts after its whole schedule has nothing to send, and
// fails saying so rather than sending everything at once.
func TestShardAfterItsScheduleFails(t *testing.T) {
	url := startSim(t, sim.Options{Seed: 5})
	cfg := smallConfig(t, url)
	cfg.Warmups = 0
	cfg.Arrival.MaxConcurrency = 0
	cfg.Arrival.RequestRate = math.Inf(1)
	cfg.Arrival.Shard, cfg.Arrival.Shards = 0, 2
	cfg.StartAt = time.Now().Add(-time.Hour)
	_, err := Run(t.Context(), cfg, nil, false)
	if err == nil || !strings.Contains(err.Error(), "nothing is left to send") {
		t.Errorf("err = %v", err)
	}
}

// A closed loop bounded by --duration as well as --num-prompts stops at
// whichever comes first, so its count is a bound, not a plan: the shard
// header must not promise it, or the merge reports a run that ended on
// time as partial. A count alone is the plan.
func TestShardOfClosedLoopPlansOnlyACount(t *testing.T) {
	cases := []struct {
		name           string
		count          int
		dur            time.Duration
		planned, total int64
	}{
		// 40 requests over 2 shards: 20 of 40 each.
		{"count", 40, 0, 20, 40},
		// 1000 requests or 2 s: not known in advance.
		{"count and duration", 1000, 2 * time.Second, 0, 0},
		// Duration alone: not known either.
		{"duration", 0, 2 * time.Second, 0, 0},
	}
	for _, c := range cases {
		cfg := DefaultConfig()
		cfg.Arrival.RequestRate, cfg.Arrival.MaxConcurrency = math.Inf(1), 4
		cfg.Arrival.NumPrompts, cfg.Arrival.Duration = c.count, c.dur
		cfg.Arrival.Shard, cfg.Arrival.Shards = 1, 2
		plan, err := cfg.Arrival.Plan()
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		sh := shardOf(cfg, plan, time.Now())
		if sh.Planned != c.planned || sh.Total != c.total {
			t.Errorf("%s: shard plans %d of %d, want %d of %d", c.name, sh.Planned, sh.Total, c.planned, c.total)
		}
	}
}
