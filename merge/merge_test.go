package merge

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/goodput-dev/goodput/metrics"
	"github.com/goodput-dev/goodput/record"
	"github.com/goodput-dev/goodput/runfile"
)

// The four shards of a whole run merge into exactly the run: every planned
// request once, each shard whole, nothing to warn about, and the merged
// file's summary the summary of all the shards' records.
func TestWholeRunMergesExactly(t *testing.T) {
	dir := t.TempDir()
	paths := wholeRun(t, dir)
	s, err := Open(paths, nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	merged := metrics.NewSummary(metrics.Options{})
	out := filepath.Join(dir, "merged.jsonl")
	rep, err := s.WriteFile(out, "goodput merge-test", Options{}, func(recs []record.Record) {
		for i := range recs {
			merged.Add(&recs[i])
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Complete() || rep.Count != 4 || rep.Total != 40 || rep.Distinct != 40 || rep.Records != 40 || len(rep.Warnings) != 0 {
		t.Fatalf("report %+v", rep)
	}
	if want := "Shards: 4 of 4; 40 of 40 planned requests measured; window 3.97 s, all shards sending for 3.37 s of it"; rep.Notes[0] != want {
		t.Errorf("first note %q, want %q", rep.Notes[0], want)
	}
	// Concatenated records, summarised directly, give the same numbers.
	direct := metrics.NewSummary(metrics.Options{})
	for _, p := range paths {
		f, err := runfile.Open(p, nil)
		if err != nil {
			t.Fatal(err)
		}
		var r record.Record
		for f.Next(&r) == nil {
			direct.Add(&r)
		}
		f.Close()
	}
	a, _ := json.Marshal(merged.Close())
	b, _ := json.Marshal(direct.Close())
	if string(a) != string(b) {
		t.Errorf("merged summary\n%s\nconcatenated records\n%s", a, b)
	}

	// The merged file: one header listing the parts, each record labelled
	// with its shard, a trailer of a whole run.
	f, err := runfile.Open(out, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	h := f.Header()
	if len(h.Parts) != 4 || h.Shard != nil || !h.Start.Equal(startAt) || h.Tool != "goodput merge-test" {
		t.Fatalf("merged header %+v", h)
	}
	for k, p := range h.Parts {
		if p.Shard == nil || p.Shard.Index != k || p.Records != 10 || p.Ended != record.EndedComplete || p.Host == "" {
			t.Errorf("part %d: %+v", k, p)
		}
	}
	var r record.Record
	n := 0
	for f.Next(&r) == nil {
		if r.Labels[LabelShard] != string(rune('0'+r.Seq%4)) {
			t.Errorf("seq %d labelled %v", r.Seq, r.Labels)
		}
		n++
	}
	tr, ok := f.Trailer()
	if n != 40 || !ok || tr.Records != 40 || tr.Interrupted || tr.End != 3970*ms {
		t.Errorf("%d records, trailer %+v %v", n, tr, ok)
	}
	// A directory holds the shards, not the merged file.
	found, err := Files([]string{dir})
	if err != nil || !slices.Equal(found, paths) {
		t.Errorf("Files(dir) = %v, %v; want %v", found, err, paths)
	}
}

// What is wrong with a run's shards is said by index, with the reason.
func TestMissingAndPartialShards(t *testing.T) {
	clock := func(off, unc time.Duration) *record.Clock {
		return &record.Clock{Source: "http-date", Offset: int64(off), Uncertainty: int64(unc), NTP: &record.NTP{Synced: true}}
	}
	cases := []struct {
		name     string
		files    []shardFile
		missing  []int
		partial  []int
		complete bool
		warn     []string // each must be in some warning
		note     string   // must be in some note
	}{
		// Shard 3 left no file.
		{"missing", []shardFile{
			{k: 0, n: 4, total: 40, seqs: seqsOf(0, 4, 40)},
			{k: 1, n: 4, total: 40, seqs: seqsOf(1, 4, 40)},
			{k: 2, n: 4, total: 40, seqs: seqsOf(2, 4, 40)},
		}, []int{3}, nil, false, []string{"shard 3 of 4 is missing: no record file holds it: the merged run lacks its 10 planned requests"}, "Shards: 3 of 4; 30 of 40 planned requests measured"},
		// Shard 1's process was killed after 6 records.
		{"killed", []shardFile{
			{k: 0, n: 2, total: 20, seqs: seqsOf(0, 2, 20)},
			{k: 1, n: 2, total: 20, seqs: seqsOf(1, 2, 20)[:6], ended: record.EndedCutOff},
		}, nil, []int{1}, false, []string{"shard 1 of 2 is partial: attempt 0 (", "was cut off after 6 records: its process stopped before the end; 4 of its 10 planned requests were never measured"}, "Shards: 2 of 2 (1 partial); 16 of 20 planned requests measured"},
		// An interrupted shard (SIGTERM, as an evicted pod gets) is partial.
		{"interrupted", []shardFile{
			{k: 0, n: 2, total: 20, seqs: seqsOf(0, 2, 20)[:3], ended: record.EndedInterrupted},
			{k: 1, n: 2, total: 20, seqs: seqsOf(1, 2, 20)},
		}, nil, []int{0}, false, []string{"was interrupted after 3 records", "7 of its 10 planned requests were never measured"}, ""},
		// A retry that sent the rest makes the shard whole again.
		{"retried whole", []shardFile{
			{k: 0, n: 2, total: 20, seqs: seqsOf(0, 2, 20)},
			{k: 1, n: 2, total: 20, seqs: seqsOf(1, 2, 20)[:6], ended: record.EndedCutOff},
			{k: 1, n: 2, total: 20, attempt: 1, seqs: seqsOf(1, 2, 20)[6:]},
		}, nil, nil, true, nil, "shard 1 of 2 is whole after a retry: attempt 0"},
		// A retry that started late skipped what had passed: partial.
		{"retried late", []shardFile{
			{k: 0, n: 2, total: 20, seqs: seqsOf(0, 2, 20)},
			{k: 1, n: 2, total: 20, seqs: seqsOf(1, 2, 20)[:6], ended: record.EndedCutOff},
			{k: 1, n: 2, total: 20, attempt: 1, seqs: seqsOf(1, 2, 20)[8:], skipped: 8},
		}, nil, []int{1}, false, []string{"skipped the 8 requests whose time had passed", "2 of its 10 planned requests were never measured"}, ""},
		// Two attempts measured one request both: counted twice, and said.
		{"duplicate", []shardFile{
			{k: 0, n: 2, total: 4, seqs: []int64{0, 2}},
			{k: 1, n: 2, total: 4, seqs: []int64{1}, ended: record.EndedCutOff},
			{k: 1, n: 2, total: 4, attempt: 1, seqs: []int64{1, 3}},
		}, nil, nil, false, []string{"1 requests were measured more than once"}, ""},
		// A record outside its shard's residue class: the shards disagreed.
		{"foreign", []shardFile{
			{k: 0, n: 2, total: 4, seqs: []int64{0, 1}},
			{k: 1, n: 2, total: 4, seqs: []int64{3}},
		}, nil, []int{1}, false, []string{"1 records have sequence numbers outside their shard's part"}, ""},
		// Shard 1 was ready 3 s after the agreed start.
		{"late start", []shardFile{
			{k: 0, n: 2, total: 4, seqs: []int64{0, 2}},
			{k: 1, n: 2, total: 4, seqs: []int64{1, 3}, ready: startAt.Add(3 * time.Second)},
		}, nil, nil, true, []string{"the shards began 3s apart (shard 0 at 2026-11-29T10:00:00Z, shard 1 at 2026-11-29T10:00:03Z), more than 1s"}, ""},
		// Clocks 1.25 s apart, each known to a few ms: said, with the
		// consequence.
		{"clocks disagree", []shardFile{
			{k: 0, n: 2, total: 4, seqs: []int64{0, 2}, clock: clock(0, 2*time.Millisecond)},
			{k: 1, n: 2, total: 4, seqs: []int64{1, 3}, clock: clock(1250*time.Millisecond, 3*time.Millisecond)},
		}, nil, nil, true, []string{"shard 1 is +1.25s ± 3ms from the server, shard 0 +0s ± 2ms, at least 1.245s apart"}, "Clocks: offsets from the server +0s to +1.25s (each within ±3ms)"},
		// Clocks that agree within their uncertainty raise nothing.
		{"clocks agree", []shardFile{
			{k: 0, n: 2, total: 4, seqs: []int64{0, 2}, clock: clock(-400*time.Millisecond, 500*time.Millisecond)},
			{k: 1, n: 2, total: 4, seqs: []int64{1, 3}, clock: clock(300*time.Millisecond, 500*time.Millisecond)},
		}, nil, nil, true, nil, "Clocks: offsets from the server -400ms to +300ms (each within ±500ms)"},
		// A shard killed before its first answer left its header only.
		{"empty shard", []shardFile{
			{k: 0, n: 2, total: 4, seqs: []int64{0, 2}},
			{k: 1, n: 2, total: 4, ended: record.EndedCutOff},
		}, nil, []int{1}, false, []string{"was cut off after 0 records", "2 of its 2 planned requests were never measured"}, ""},
		// A clock no time daemon keeps is said by shard.
		{"unsynchronised", []shardFile{
			{k: 0, n: 2, total: 4, seqs: []int64{0, 2}, clock: clock(0, time.Millisecond)},
			{k: 1, n: 2, total: 4, seqs: []int64{1, 3}, clock: &record.Clock{NTP: &record.NTP{Synced: false}}},
		}, nil, nil, true, nil, "Clocks: the kernel says no time daemon synchronises the clock of shard 1 (NTP)"},
		// A plain run among shards is merged in, and said to be no shard.
		{"not a shard", []shardFile{
			{k: 0, n: 1, total: 2, seqs: []int64{0, 1}, noShard: true},
			{k: 0, n: 2, total: 4, seqs: []int64{0, 2}},
			{k: 1, n: 2, total: 4, seqs: []int64{1, 3}},
		}, nil, nil, false, []string{"is not a shard of this run"}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			var paths []string
			for i, f := range c.files {
				paths = append(paths, writeShard(t, dir, "f"+string(rune('a'+i))+".jsonl", f))
			}
			s, _ := open(t, paths)
			rep, err := s.Report(Options{})
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(rep.Missing, c.missing) || !slices.Equal(rep.Partial, c.partial) || rep.Complete() != c.complete {
				t.Errorf("missing %v, partial %v, complete %v; want %v, %v, %v", rep.Missing, rep.Partial, rep.Complete(), c.missing, c.partial, c.complete)
			}
			all := strings.Join(rep.Warnings, "\n")
			for _, w := range c.warn {
				if !strings.Contains(all, w) {
					t.Errorf("no warning says %q:\n%s", w, all)
				}
			}
			if len(c.warn) == 0 && c.name != "not a shard" && len(rep.Warnings) > 0 {
				t.Errorf("unexpected warnings:\n%s", all)
			}
			if notes := strings.Join(rep.Notes, "\n"); c.note != "" && !strings.Contains(notes, c.note) {
				t.Errorf("no note says %q:\n%s", c.note, notes)
			}
		})
	}
}

// A merged file of an incomplete run says so in its trailer.
func TestIncompleteMergeIsMarked(t *testing.T) {
	dir := t.TempDir()
	paths := wholeRun(t, dir)
	s, err := Open(paths[:3], nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	out := filepath.Join(dir, "merged.jsonl")
	if _, err := s.WriteFile(out, "goodput", Options{}, nil); err != nil {
		t.Fatal(err)
	}
	f, err := runfile.Open(out, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var r record.Record
	for f.Next(&r) == nil {
	}
	tr, ok := f.Trailer()
	if !ok || !tr.Interrupted || tr.Reason != "merged from an incomplete run: shard 3 missing" || tr.Records != 30 {
		t.Errorf("trailer %+v %v", tr, ok)
	}
	// Nothing but the merged file is left behind in the directory.
	entries, _ := os.ReadDir(dir)
	if len(entries) != 5 {
		t.Errorf("%d files in the directory, want the 4 shards and the merged file", len(entries))
	}
}

// Files of different runs are refused, naming them.
func TestOpenRefusesDifferentRuns(t *testing.T) {
	cases := []struct {
		name  string
		files []shardFile
		want  string
	}{
		// Shards of 2 and of 4.
		{"shard counts", []shardFile{{k: 0, n: 2, total: 4, seqs: []int64{0}}, {k: 1, n: 4, total: 4, seqs: []int64{1}}}, "are shards of 2: files of different runs"},
		// The same planned size is part of one run.
		{"totals", []shardFile{{k: 0, n: 2, total: 4, seqs: []int64{0}}, {k: 1, n: 2, total: 6, seqs: []int64{1}}}, "plans 6 requests in all, other shards 4"},
		// Attempt 0 of shard 1, twice.
		{"same attempt", []shardFile{{k: 1, n: 2, total: 4, seqs: []int64{1}}, {k: 1, n: 2, total: 4, seqs: []int64{3}}}, "both hold attempt 0 of shard 1"},
		// As many shards and requests, asked of the server differently.
		{"settings", []shardFile{
			{k: 0, n: 2, total: 4, seqs: []int64{0}, config: `{"model":"m","random_input_len":256,"base_url":"http://a"}`},
			{k: 1, n: 2, total: 4, seqs: []int64{1}, config: `{"model":"m","random_input_len":100,"base_url":"http://b"}`}},
			"were run with different random_input_len (256, 100): files of different runs"},
		// Shard 1 of a run agreed to start 3 minutes after the other's:
		// the same arguments run again, not a part of this run.
		{"agreed starts", []shardFile{{k: 0, n: 2, total: 4, seqs: []int64{0, 2}},
			{k: 1, n: 2, total: 4, seqs: []int64{1, 3}, agreed: startAt.Add(3 * time.Minute), start: startAt.Add(3 * time.Minute)}},
			"fb.jsonl was agreed to start at 2026-11-29T10:03:00Z"},
		// A header that is no shard.
		{"bad index", []shardFile{{k: 2, n: 2, total: 4, seqs: []int64{0}}}, "shard 2 of 2 is not a shard"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			var paths []string
			for i, f := range c.files {
				paths = append(paths, writeShard(t, dir, "f"+string(rune('a'+i))+".jsonl", f))
			}
			_, err := Open(paths, nil, Options{})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("err = %v, want %q", err, c.want)
			}
		})
	}
	if _, err := Open(nil, nil, Options{}); err == nil {
		t.Error("no files is not an error")
	}
	// Shards of one run sent to different URLs, each its part of the plan.
	runDir := t.TempDir()
	sa := writeShard(t, runDir, "a.jsonl", shardFile{k: 0, n: 2, total: 4, seqs: []int64{0, 2},
		config: `{"model":"m","seed":0,"base_url":"http://a","arrival":"shard 0 of 2"}`})
	sb := writeShard(t, runDir, "b.jsonl", shardFile{k: 1, n: 2, total: 4, seqs: []int64{1, 3},
		config: `{"model":"m","seed":0,"base_url":"http://b","arrival":"shard 1 of 2"}`})
	if s, err := Open([]string{sa, sb}, nil, Options{}); err != nil {
		t.Errorf("shards of one run: %v", err)
	} else {
		s.Close()
	}
	// One file given twice, by two spellings of its path, or stdin twice:
	// its records would count twice.
	dir := t.TempDir()
	one := writeShard(t, dir, "run.jsonl", shardFile{k: 0, n: 1, total: 2, seqs: []int64{0, 1}})
	again := filepath.Join(dir, ".", "run.jsonl")
	if _, err := Open([]string{one, again}, nil, Options{}); err == nil || err.Error() != one+" and "+again+" are the same file: its records would count twice" {
		t.Errorf("the same file twice: %v", err)
	}
	// A copy of a shard's file is named a duplicate, not another run.
	shard := writeShard(t, dir, "shard1.jsonl", shardFile{k: 1, n: 2, total: 4, seqs: []int64{1, 3}})
	b, err := os.ReadFile(shard)
	if err != nil {
		t.Fatal(err)
	}
	cp := filepath.Join(dir, "copy-of-shard1.jsonl")
	if err := os.WriteFile(cp, b, 0o644); err != nil {
		t.Fatal(err)
	}
	want := cp + " is a duplicate of " + shard + ": both hold attempt 0 of shard 1 of the same run, and its records would count twice: leave one out"
	if _, err := Open([]string{shard, cp}, nil, Options{}); err == nil || err.Error() != want {
		t.Errorf("a copy of a shard: %v\nwant %s", err, want)
	}
	if _, err := Open([]string{"-", "-"}, strings.NewReader(""), Options{}); err == nil || !strings.Contains(err.Error(), "given twice") {
		t.Errorf("stdin twice: %v", err)
	}
	if _, err := Open([]string{filepath.Join(t.TempDir(), "none.jsonl")}, nil, Options{}); err == nil {
		t.Error("a missing file is not an error")
	}
}

// Runs that started at different instants are put on the earliest one's
// clock; the window and the overlap are measured on it. (Clients of one
// run 2 s apart are accepted as such when MaxStartSpread allows it.)
func TestPartsMoveToTheEarliestClock(t *testing.T) {
	dir := t.TempDir()
	a := writeShard(t, dir, "a.jsonl", shardFile{noShard: true, seqs: []int64{0, 1}, start: startAt.Add(2 * time.Second)})
	b := writeShard(t, dir, "b.jsonl", shardFile{noShard: true, seqs: []int64{0, 1}})
	s, recs := openWith(t, []string{a, b}, Options{MaxStartSpread: 3 * time.Second})
	if !s.Epoch().Equal(startAt) || s.Parts()[0].Shift != 2*int64(time.Second) || s.Parts()[1].Shift != 0 {
		t.Fatalf("epoch %v, shifts %d %d", s.Epoch(), s.Parts()[0].Shift, s.Parts()[1].Shift)
	}
	if recs[0].Scheduled != 2*int64(time.Second) || recs[2].Scheduled != 0 {
		t.Errorf("scheduled %d and %d after the shift", recs[0].Scheduled, recs[2].Scheduled)
	}
	rep, err := s.Report(Options{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Count != 0 || rep.Start != 0 || rep.End != 2170*ms || rep.OverlapOK || len(rep.Warnings) != 0 {
		t.Errorf("report %+v", rep)
	}
	if want := "Records: " + a + " (goodput test, 2 requests)"; rep.Notes[0] != want {
		t.Errorf("note %q, want %q", rep.Notes[0], want)
	}
}

func TestOverlapWindow(t *testing.T) {
	dir := t.TempDir()
	// Shard 0 sends seqs 0–9 (0 to 0.97 s); shard 1 seqs 5–19 (0.5 to 1.97 s).
	a := writeShard(t, dir, "a.jsonl", shardFile{k: 0, n: 2, seqs: []int64{0, 2, 4, 6, 8}})
	b := writeShard(t, dir, "b.jsonl", shardFile{k: 1, n: 2, seqs: []int64{5, 7, 9, 11, 13, 15, 17, 19}})
	s, _ := open(t, []string{a, b})
	rep, _ := s.Report(Options{})
	if rep.Start != 0 || rep.End != 1970*ms || !rep.OverlapOK || rep.OverlapStart != 500*ms || rep.OverlapEnd != 870*ms {
		t.Errorf("window [%d, %d], overlap [%d, %d] %v", rep.Start, rep.End, rep.OverlapStart, rep.OverlapEnd, rep.OverlapOK)
	}
}

func TestEachOnceAndReportAfter(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(wholeRun(t, dir), nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.Report(Options{}); err == nil {
		t.Error("Report before Each")
	}
	if err := s.Each(func(int, []record.Record) error { return nil }); err != nil {
		t.Fatal(err)
	}
	if err := s.Each(func(int, []record.Record) error { return nil }); err == nil {
		t.Error("Each twice")
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestFiles(t *testing.T) {
	dir := t.TempDir()
	paths := wholeRun(t, dir)
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("x"), 0o644)
	os.WriteFile(filepath.Join(dir, "junk.jsonl"), []byte("not json\n"), 0o644)
	os.WriteFile(filepath.Join(dir, ".hidden.jsonl"), []byte("{}\n"), 0o644)
	got, err := Files([]string{dir})
	if err != nil || !slices.Equal(got, paths) {
		t.Errorf("Files = %v, %v; want %v", got, err, paths)
	}
	// A file is kept as given, even one that Files would not pick itself.
	if got, err := Files([]string{filepath.Join(dir, "junk.jsonl")}); err != nil || len(got) != 1 {
		t.Errorf("a named file: %v, %v", got, err)
	}
	if _, err := Files([]string{t.TempDir()}); err == nil || !strings.Contains(err.Error(), "no record files") {
		t.Errorf("empty directory: %v", err)
	}
	if _, err := Files([]string{filepath.Join(dir, "none")}); err == nil {
		t.Error("a missing path is not an error")
	}
}

// A merge never writes over one of its own inputs: an earlier merge's
// output given again is left out, a shard named as --output is refused.
func TestWithoutOutput(t *testing.T) {
	dir := t.TempDir()
	paths := wholeRun(t, dir)
	s, err := Open(paths, nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	merged := filepath.Join(dir, "merged.jsonl")
	if _, err := s.WriteFile(merged, "goodput", Options{}, nil); err != nil {
		t.Fatal(err)
	}
	s.Close()
	withMerged := append(slices.Clone(paths), merged)
	if got, err := WithoutOutput(withMerged, merged); err != nil || !slices.Equal(got, paths) {
		t.Errorf("an earlier merge as output: %v, %v; want the shards alone", got, err)
	}
	// The same file by another spelling of its path.
	if got, err := WithoutOutput(withMerged, filepath.Join(dir, ".", "merged.jsonl")); err != nil || !slices.Equal(got, paths) {
		t.Errorf("another spelling: %v, %v", got, err)
	}
	if got, err := WithoutOutput(paths, filepath.Join(dir, "new.jsonl")); err != nil || !slices.Equal(got, paths) {
		t.Errorf("a new file: %v, %v", got, err)
	}
	want := "--output " + paths[0] + " is one of the files being merged, and writing the merge there would destroy its records: choose another file"
	if _, err := WithoutOutput(paths, paths[0]); err == nil || err.Error() != want {
		t.Errorf("a shard as output: %v\nwant %s", err, want)
	}
	before, _ := os.ReadFile(paths[0])
	if after, _ := os.ReadFile(paths[0]); !bytes.Equal(before, after) {
		t.Error("the shard changed")
	}
}

func TestPeek(t *testing.T) {
	dir := t.TempDir()
	complete := writeShard(t, dir, "a.jsonl", shardFile{k: 0, n: 2, seqs: []int64{0}})
	cut := writeShard(t, dir, "b.jsonl", shardFile{k: 1, n: 2, seqs: []int64{1}, ended: record.EndedCutOff})
	empty := filepath.Join(dir, "c.jsonl")
	os.WriteFile(empty, nil, 0o644)
	half := filepath.Join(dir, "d.jsonl")
	b, _ := os.ReadFile(complete)
	os.WriteFile(half, b[:len(b)-10], 0o644) // trailer cut mid-line
	cases := []struct {
		path            string
		header, trailer bool
	}{
		{complete, true, true}, // header and trailer
		{cut, true, false},     // killed: no trailer
		{empty, false, false},  // just created
		{half, true, false},    // the trailer's line cut short is no trailer
	}
	for _, c := range cases {
		st, err := peek(c.path)
		if err != nil || (st.header != nil) != c.header || (st.trailer != nil) != c.trailer {
			t.Errorf("%s: header %v trailer %v err %v", filepath.Base(c.path), st.header != nil, st.trailer != nil, err)
		}
	}
}

// The waiter returns as soon as every shard has finished, and at its
// timeout with the shards still pending.
func TestWaiter(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		dir := t.TempDir()
		writeShard(t, dir, "s0.jsonl", shardFile{k: 0, n: 3, seqs: []int64{0}})
		writeShard(t, dir, "s1.jsonl", shardFile{k: 1, n: 3, seqs: []int64{1}, ended: record.EndedCutOff})
		writeShard(t, dir, "s1b.jsonl", shardFile{k: 1, n: 3, attempt: 1, seqs: []int64{4}, ended: record.EndedInterrupted})
		var lines []string
		w := &Waiter{Dir: dir, Count: 3, Timeout: time.Minute, Poll: 10 * time.Second, Progress: func(s string) { lines = append(lines, s) }}
		go func() {
			time.Sleep(25 * time.Second)
			writeShard(t, dir, "s2.jsonl", shardFile{k: 2, n: 3, seqs: []int64{2}})
		}()
		start := time.Now()
		pending, err := w.Wait(context.Background())
		if err != nil || !slices.Equal(pending, []int{1}) || time.Since(start) != time.Minute {
			t.Errorf("pending %v after %v, err %v; want [1] after 1m", pending, time.Since(start), err)
		}
		want := []string{"1 of 3 shards finished; waiting for shards 1, 2", "2 of 3 shards finished; waiting for shard 1"}
		if !reflect.DeepEqual(lines, want) {
			t.Errorf("progress %q, want %q", lines, want)
		}
		// Once shard 1 finishes, a wait returns at its first look.
		writeShard(t, dir, "s1c.jsonl", shardFile{k: 1, n: 3, attempt: 2, seqs: []int64{1, 4}})
		start = time.Now()
		if pending, err := w.Wait(context.Background()); err != nil || len(pending) != 0 || time.Since(start) != 0 {
			t.Errorf("pending %v after %v, err %v", pending, time.Since(start), err)
		}
	})
	// A wait for 4 shards in a directory whose shards are of 3 can never
	// end but by its timeout (2 h by default): it fails at its first look.
	synctest.Test(t, func(t *testing.T) {
		dir := t.TempDir()
		writeShard(t, dir, "s0.jsonl", shardFile{k: 0, n: 3, seqs: []int64{0}})
		w := &Waiter{Dir: dir, Count: 4, Timeout: time.Hour}
		start := time.Now()
		_, err := w.Wait(context.Background())
		if err == nil || !strings.Contains(err.Error(), "s0.jsonl is shard 0 of 3, not of the 4 shards waited for") || time.Since(start) != 0 {
			t.Errorf("after %v: %v, want a refusal at once", time.Since(start), err)
		}
	})
	// A directory that does not exist yet is waited for, not an error.
	w := &Waiter{Dir: filepath.Join(t.TempDir(), "later"), Count: 1, Timeout: 0}
	if pending, err := w.Wait(context.Background()); err != nil || !slices.Equal(pending, []int{0}) {
		t.Errorf("pending %v, err %v", pending, err)
	}
	// A cancelled wait ends with the context's error.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	w = &Waiter{Dir: t.TempDir(), Count: 1, Timeout: time.Hour}
	if _, err := w.Wait(ctx); err == nil {
		t.Error("a cancelled wait is no error")
	}
}

// Files without a single record between them are nothing to merge.
func TestNothingToMerge(t *testing.T) {
	dir := t.TempDir()
	a := writeShard(t, dir, "a.jsonl", shardFile{k: 0, n: 2, total: 4, ended: record.EndedCutOff})
	b := writeShard(t, dir, "b.jsonl", shardFile{k: 1, n: 2, total: 4})
	s, err := Open([]string{a, b}, nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	err = s.Each(func(int, []record.Record) error { return nil })
	if !errors.Is(err, runfile.ErrNoRecords) {
		t.Errorf("err = %v, want ErrNoRecords", err)
	}
}

// Goodput files without a shard header, given together, are read as the
// concurrent clients of one run only when they are: the same settings,
// begun within MaxStartSpread. Two points of a sweep, two runs begun
// seconds apart and a copy of one file are refused, naming the files.
func TestFilesThatAreNoShardMustBeOneRun(t *testing.T) {
	dir := t.TempDir()
	const c1 = `{"model":"m","max_concurrency":1,"base_url":"http://a"}`
	client := func(name string, start time.Duration, config string) string {
		return writeShard(t, dir, name, shardFile{noShard: true, seqs: []int64{0, 1}, start: startAt.Add(start), config: config})
	}
	a := client("a.jsonl", 0, c1)
	// another client of the run, 300 ms later, sending to another URL
	b := client("b.jsonl", 300*time.Millisecond, `{"model":"m","max_concurrency":1,"base_url":"http://b"}`)
	s, recs := open(t, []string{a, b})
	if len(recs) != 4 || s.Parts()[1].Shift != 300*ms {
		t.Errorf("two clients of one run: %d records, shift %d; want 4 and 300 ms", len(recs), s.Parts()[1].Shift)
	}
	point := client("c4.jsonl", 200*time.Millisecond, `{"model":"m","max_concurrency":4}`)
	later := client("later.jsonl", 8*time.Second, c1)
	copied := filepath.Join(dir, "copy.jsonl")
	body, err := os.ReadFile(a)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(copied, body, 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name  string
		paths []string
		o     Options
		want  string
	}{
		// two points of a sweep
		{"other settings", []string{a, point}, Options{},
			a + " and " + point + " were run with different max_concurrency (1, 4): files of different runs (analyze each run apart, or compare them with goodput compare)"},
		// the same command run again 8 s later
		{"begun apart", []string{later, a}, Options{},
			a + " and " + later + " began 8s apart (at 2026-11-29T10:00:00Z and 2026-11-29T10:00:08Z), more than the 1s the clients of one run may be apart: files of different runs (analyze each run apart, or compare them with goodput compare; clients of one run that began further apart merge with goodput merge --max-start-spread)"},
		// ... even with a wider spread allowed than the default, but not this wide
		{"begun apart, wider spread", []string{a, later}, Options{MaxStartSpread: 5 * time.Second},
			a + " and " + later + " began 8s apart (at 2026-11-29T10:00:00Z and 2026-11-29T10:00:08Z), more than the 5s"},
		// a byte-for-byte copy: every request twice
		{"copy", []string{a, b, copied}, Options{},
			copied + " is a copy of " + a + ": both hold the run that goodput test began at 2026-11-29T10:00:00Z on pod-a.jsonl, and its records would count twice: leave one out"},
	}
	for _, c := range cases {
		s, err := Open(c.paths, nil, c.o)
		if err == nil {
			s.Close()
		}
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%s: %v\nwant %s", c.name, err, c.want)
		}
	}
	// A spread wide enough lets clients begun 8 s apart be one run.
	s, recs = openWith(t, []string{a, later}, Options{MaxStartSpread: 10 * time.Second})
	if len(recs) != 4 || s.Parts()[1].Shift != 8*int64(time.Second) {
		t.Errorf("clients 8 s apart with a 10 s spread: %d records, shift %d", len(recs), s.Parts()[1].Shift)
	}
}

// A merge's output given with one of the shards it was merged from is
// refused: every record of that shard would count twice. Alone, or with
// the shards alone, each reads.
func TestMergedFileBesideItsShards(t *testing.T) {
	dir := t.TempDir()
	paths := wholeRun(t, dir)
	s, err := Open(paths, nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "merged.jsonl")
	if _, err := s.WriteFile(out, "goodput merge-test", Options{}, func([]record.Record) {}); err != nil {
		t.Fatal(err)
	}
	s.Close()
	_, err = Open([]string{out, paths[2]}, nil, Options{})
	want := out + " was merged from " + paths[2] + ", which is given too: its records would count twice (give the merged file or its parts, not both)"
	if err == nil || err.Error() != want {
		t.Errorf("err = %v\nwant %s", err, want)
	}
	if _, recs := open(t, []string{out}); len(recs) != 40 {
		t.Errorf("the merged file alone: %d records, want 40", len(recs))
	}
}
