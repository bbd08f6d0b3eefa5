package merge

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/record"
)

var startAt = time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)

const ms = int64(time.Millisecond)

// shardFile describes a record file of one shard for writeShard.
type shardFile struct {
	k, n, attempt int
	total         int64 // requests in the whole schedule
	seqs          []int64
	ended         string // record.EndedComplete, EndedInterrupted or EndedCutOff
	ready         time.Time
	clock         *record.Clock
	skipped       int64
	start         time.Time // header start; zero means startAt
	agreed        time.Time // the shard's --start-at; zero means startAt
	noShard       bool      // a plain run file, no shard in its header
	config        string    // the header's config, JSON
}

// seqsOf returns the sequence numbers k, k+n, … below total.
func seqsOf(k, n int, total int64) []int64 {
	var s []int64
	for q := int64(k); q < total; q += int64(n) {
		s = append(s, q)
	}
	return s
}

// rec is request seq of a schedule that sends one every 100 ms: three
// one-token chunks 50, 60 and 70 ms after it was due.
func rec(seq int64) record.Record {
	s := seq * 100 * ms
	return record.Record{
		Seq: seq, Scheduled: s, Sent: s + ms, End: s + 70*ms,
		Chunks:      []record.Chunk{{At: s + 50*ms, Tokens: 1}, {At: s + 60*ms, Tokens: 1}, {At: s + 70*ms, Tokens: 1}},
		InputTokens: 10, OutputTokens: 3, TokenSource: record.SourceUsage, Status: 200, Finish: "length",
	}
}

// writeShard writes f into dir as name and returns its path.
func writeShard(t *testing.T, dir, name string, f shardFile) string {
	t.Helper()
	h := record.Header{Start: startAt, Tool: "goodput test", Host: "pod-" + name, Config: json.RawMessage(f.config)}
	if !f.start.IsZero() {
		h.Start = f.start
	}
	if !f.noShard {
		ready := f.ready
		if ready.IsZero() {
			ready = startAt.Add(-10 * time.Second)
		}
		planned := int64(len(seqsOf(f.k, f.n, f.total)))
		agreed := f.agreed
		if agreed.IsZero() {
			agreed = startAt
		}
		h.Shard = &record.Shard{Index: f.k, Count: f.n, Attempt: f.attempt, StartAt: agreed, Ready: ready,
			Planned: planned, Total: f.total, Skipped: f.skipped}
		h.Clock = f.clock
	}
	var buf bytes.Buffer
	w, err := record.NewWriter(&buf, h)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range f.seqs {
		r := rec(q)
		if err := w.Write(&r); err != nil {
			t.Fatal(err)
		}
	}
	switch f.ended {
	case record.EndedComplete, "":
		w.Close(record.Trailer{End: 10 * int64(time.Second)})
	case record.EndedInterrupted:
		w.Close(record.Trailer{Interrupted: true, Reason: "interrupted"})
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// wholeRun writes the four complete shards of a 40-request run.
func wholeRun(t *testing.T, dir string) []string {
	var paths []string
	for k := range 4 {
		paths = append(paths, writeShard(t, dir, "run-shard"+string(rune('0'+k))+"-of-4.jsonl", shardFile{k: k, n: 4, total: 40, seqs: seqsOf(k, 4, 40)}))
	}
	return paths
}

// open opens paths and reads them, failing the test on errors.
func open(t *testing.T, paths []string) (*Set, []record.Record) {
	t.Helper()
	return openWith(t, paths, Options{})
}

// openWith is open with the checks of o.
func openWith(t *testing.T, paths []string, o Options) (*Set, []record.Record) {
	t.Helper()
	s, err := Open(paths, nil, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	var all []record.Record
	err = s.Each(func(_ int, recs []record.Record) error {
		for _, r := range recs {
			r.Chunks = append([]record.Chunk(nil), r.Chunks...)
			all = append(all, r)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return s, all
}
