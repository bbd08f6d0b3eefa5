package sweeprun

import (
	"encoding/json"
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/bench"
	"github.com/goodput-dev/goodput/record"
	"github.com/goodput-dev/goodput/sweep"
	"github.com/goodput-dev/goodput/trace"
	"github.com/goodput-dev/goodput/workload"
)

// mooncake40 is the first 40 rows of Mooncake's conversation trace (see
// trace/testdata/README.md for its source and licence).
const mooncake40 = "../trace/testdata/mooncake_conversation_first40.jsonl"

// TestVirtualTraceSweep sweeps a replay of 40 Mooncake rows over two rates
// in virtual time: each point sends every row, at the trace's times scaled
// to the point's mean rate, with the row's own lengths.
func TestVirtualTraceSweep(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "sweep")
	cfg := virtualConfig(dir)
	w := &cfg.Bench.Workload
	w.Dataset, w.Path, w.Trace.LengthScale = workload.DatasetTrace, mooncake40, 1.0/16
	w.Request.IgnoreEOS = false // the replay asks for it itself
	cfg.Bench.Arrival.NumPrompts = 0
	cfg.Bench.Arrival.Replay = w.Arrivals()
	r, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	plan := sweep.Plan{Mode: sweep.ModeRate, Loads: []sweep.Load{sweep.Rate(2), sweep.Rate(13)}, Repeats: 1}
	if _, err := r.Run(t.Context(), plan); err != nil {
		t.Fatal(err)
	}
	s, err := trace.Scan(trace.Config{Path: mooncake40}, true)
	if err != nil {
		t.Fatal(err)
	}
	// 40 rows over 12 s are 3.25 req/s: 2 req/s is 0.615× their speed
	// and 13 req/s 4×.
	for _, p := range []struct {
		name  string
		speed float64
	}{{"r2", 2 / 3.25}, {"r13", 4}} {
		recs, h, _ := readPoint(t, filepath.Join(dir, p.name+".jsonl"))
		if len(recs) != 40 {
			t.Fatalf("%s: %d records, want 40", p.name, len(recs))
		}
		if !strings.Contains(string(h.Config), `"ignore_eos":true`) {
			t.Errorf("%s: the header does not say ignore_eos: %s", p.name, h.Config)
		}
		for _, rec := range recs {
			want := time.Duration(math.Round(float64(s.Times[rec.Seq]) / p.speed))
			if d := time.Duration(rec.Scheduled) - want; d < -time.Microsecond || d > time.Microsecond || !rec.OK() {
				t.Errorf("%s: request %d at %v (%s), want %v", p.name, rec.Seq, time.Duration(rec.Scheduled), rec.Error, want)
			}
		}
	}
}

func TestVirtualTraceRefusesAConcurrencySweep(t *testing.T) {
	cfg := virtualConfig("")
	w := &cfg.Bench.Workload
	w.Dataset, w.Path = workload.DatasetTrace, mooncake40
	cfg.Bench.Arrival.NumPrompts = 0
	cfg.Bench.Arrival.Replay = w.Arrivals()
	r, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	err = r.Check(sweep.ModeConcurrency, false)
	if err == nil || !strings.Contains(err.Error(), "a replay in virtual time keeps the trace's arrivals") {
		t.Errorf("concurrency sweep of a replay in virtual time: %v", err)
	}
}

// readPoint reads a point's record file.
func readPoint(t *testing.T, path string) ([]record.Record, record.Header, bool) {
	t.Helper()
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
	var out []record.Record
	for {
		var r record.Record
		if err := d.Next(&r); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
	_, ok := d.Trailer()
	return out, h, ok
}

// TestVirtualPrefixGroups sweeps random prompts behind 3 system prompts in
// virtual time: each record names its prompt's group, and the point's
// result gives the groups' TTFT.
func TestVirtualPrefixGroups(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "sweep")
	cfg := virtualConfig(dir)
	cfg.Bench.Workload.SystemPrompts = workload.SystemPromptConfig{Count: 3, Len: 64, Zipf: 1}
	r, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	plan := sweep.Plan{Mode: sweep.ModeRate, Loads: []sweep.Load{sweep.Rate(20)}, Repeats: 1}
	if _, err := r.Run(t.Context(), plan); err != nil {
		t.Fatal(err)
	}
	recs, _, _ := readPoint(t, filepath.Join(dir, "r20.jsonl"))
	byGroup := map[string]int64{}
	for _, rec := range recs {
		g := rec.Labels[record.LabelPrefixGroup]
		if !strings.HasPrefix(g, "system-") || rec.Labels["point"] != "r20" {
			t.Fatalf("record %d labels %v", rec.Seq, rec.Labels)
		}
		byGroup[g]++
	}
	b, err := os.ReadFile(filepath.Join(dir, "r20"+summarySuffix))
	if err != nil {
		t.Fatal(err)
	}
	var sf bench.SummaryFile
	if err := json.Unmarshal(b, &sf); err != nil {
		t.Fatal(err)
	}
	res := sf.Result
	if res == nil || len(res.PrefixGroups) != len(byGroup) || len(byGroup) != 3 {
		t.Fatalf("point result groups %+v, records %v", res, byGroup)
	}
	for _, g := range res.PrefixGroups {
		if g.Requests != byGroup[g.Group] || g.TTFT.Count != g.Requests {
			t.Errorf("group %s: %d requests (%d TTFTs), records %d", g.Group, g.Requests, g.TTFT.Count, byGroup[g.Group])
		}
	}
}
