package fit

import (
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestLoadReplay(t *testing.T) {
	rp, err := LoadReplay("testdata/llamacpp/c6-r1.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	// A closed loop of 6 with 60 requests, none failed; the server's
	// metrics (the summary beside it) showed 4 running while others waited:
	// llama-server's 4 slots.
	if rp.Concurrency != 6 || len(rp.Requests)+rp.Failed != 60 || rp.MaxRunning != 4 {
		t.Errorf("replay: concurrency %d, %d requests + %d failed, max running %d; want 6, 60 in all, 4",
			rp.Concurrency, len(rp.Requests), rp.Failed, rp.MaxRunning)
	}
	for i, q := range rp.Requests {
		if q.PromptTokens < 64 || q.PromptTokens > 192 || q.MaxTokens < 32 || q.MaxTokens > 96 || !q.IgnoreEOS || q.At != 0 {
			t.Fatalf("request %d: %+v; want the recorded lengths (64–192 in, 32–96 out), exact, in a closed loop", i, q)
		}
	}
	m := rp.measured.metrics()
	if !(m.OutputTokS > 100 && m.TTFT > 0 && m.TPOT > 0) {
		t.Errorf("measured %+v", m)
	}

	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, tt := range []struct{ name, text, want string }{
		{"no header", `{"seq":0,"s":0,"t0":0,"te":5,"ct":[5],"in":3,"out":1,"status":200}` + "\n", "no run header"},
		{"only failures", `{"kind":"goodput.run","schema":1,"start":"2026-01-01T00:00:00Z","tool":"t","config":{"max_concurrency":2,"request_rate":"inf"}}` + "\n" +
			`{"seq":0,"s":0,"t0":0,"te":5,"in":3,"out":0,"err":"reset","msg":"EOF"}` + "\n", "no successful requests"},
	} {
		if _, err := LoadReplay(write(tt.name+".jsonl", tt.text)); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v, want an error containing %q", tt.name, err, tt.want)
		}
	}
	if _, err := LoadReplay(filepath.Join(dir, "missing.jsonl")); err == nil {
		t.Error("a missing file was read")
	}
}

func TestGroupPoolsRepeats(t *testing.T) {
	var replays []*Replay
	for _, p := range []string{"testdata/llamacpp/c2-r1.jsonl", "testdata/llamacpp/c4-r1.jsonl", "testdata/llamacpp/c2-r2.jsonl"} {
		rp, err := LoadReplay(p)
		if err != nil {
			t.Fatal(err)
		}
		replays = append(replays, rp)
	}
	loads := Group(replays)
	if len(loads) != 2 || loads[0].Name != "c=2" || len(loads[0].Replays) != 2 || loads[1].Name != "c=4" {
		t.Fatalf("groups %+v; want c=2 (two files) then c=4", loads)
	}
	// Pooled: tokens over the two runs' total time, latencies over all
	// their requests; so between the two runs' own figures.
	a, b := replays[0].measured.metrics(), replays[2].measured.metrics()
	pooled := loads[0].Measured
	between := func(x, lo, hi float64) bool { return x >= min(lo, hi) && x <= max(lo, hi) }
	if !between(pooled.OutputTokS, a.OutputTokS, b.OutputTokS) || !between(pooled.TPOT, a.TPOT, b.TPOT) || !between(pooled.TTFT, a.TTFT, b.TTFT) {
		t.Errorf("pooled %+v, not between %+v and %+v", pooled, a, b)
	}
}

// A compressed run replays as the plain one, with the server's batch
// limit from its summary, compressed or not.
func TestLoadReplayOfACompressedRun(t *testing.T) {
	want, err := LoadReplay("testdata/llamacpp/c6-r1.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	gzipTo := func(src, dst string) {
		b, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		var z bytes.Buffer
		zw := gzip.NewWriter(&z)
		zw.Write(b)
		zw.Close()
		if err := os.WriteFile(dst, z.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	recs := filepath.Join(dir, "c6-r1.jsonl.gz")
	gzipTo("testdata/llamacpp/c6-r1.jsonl", recs)
	for _, compressed := range []bool{false, true} {
		sum := filepath.Join(dir, "c6-r1.summary.json")
		os.Remove(sum)
		os.Remove(sum + ".gz")
		if compressed {
			gzipTo("testdata/llamacpp/c6-r1.summary.json", sum+".gz")
		} else {
			b, _ := os.ReadFile("testdata/llamacpp/c6-r1.summary.json")
			os.WriteFile(sum, b, 0o644)
		}
		got, err := LoadReplay(recs)
		if err != nil {
			t.Fatal(err)
		}
		if got.MaxRunning != want.MaxRunning || got.MaxRunning != 4 || !reflect.DeepEqual(got.Requests, want.Requests) {
			t.Errorf("summary compressed %v: max running %d, %d requests; want %d and the plain run's %d", compressed, got.MaxRunning, len(got.Requests), want.MaxRunning, len(want.Requests))
		}
	}
}
