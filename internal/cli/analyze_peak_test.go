package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goodput-dev/goodput/record"
)

// writeRecords writes rs as a goodput record file at path.
func writeRecords(t *testing.T, path string, rs []record.Record) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	h, _ := record.NewHeader("goodput bench", nil)
	w, err := record.NewWriter(f, h)
	if err != nil {
		t.Fatal(err)
	}
	for i := range rs {
		if err := w.Write(&rs[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(record.Trailer{}); err != nil {
		t.Fatal(err)
	}
}

// okRecord is a successful streamed request sent at sent (ms) whose chunks of
// one token each arrived at the times given (ms).
func okRecord(seq int64, sent int64, at ...int64) record.Record {
	r := record.Record{Seq: seq, Scheduled: sent * 1e6, Sent: sent * 1e6, InputTokens: 4, OutputTokens: len(at),
		TokenSource: record.SourceChunks, Status: 200, Finish: "length"}
	for _, a := range at {
		r.Chunks = append(r.Chunks, record.Chunk{At: a * 1e6, Tokens: 1})
	}
	r.End = r.Chunks[len(r.Chunks)-1].At
	return r
}

// analyze prints vLLM's two peak lines as vLLM counts them: in whole
// seconds from the earliest send of a successful request, a failure's
// earlier send moving nothing. Counted from the run's start instead, or
// from the failure, both figures would differ (6 tokens, 2 requests).
func TestAnalyzePrintsVLLMsPeaks(t *testing.T) {
	failed := record.Record{Seq: 0, Scheduled: 100e6, Sent: 100e6, End: 150e6, Status: 500, Error: record.ErrHTTP}
	rs := []record.Record{
		failed,
		// m = 500 ms: A's five tokens all fall in m's first second.
		okRecord(1, 500, 600, 700, 1200, 1300, 1450),
		// B's seven tokens all fall in the second from 1,500 ms.
		okRecord(2, 1600, 1700, 1800, 1900, 2000, 2100, 2200, 2300),
		okRecord(3, 2600, 2700),
	}
	path := filepath.Join(t.TempDir(), "run.jsonl")
	writeRecords(t, path, rs)
	out, errOut, code := run(t, "", "analyze", path)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{
		"Peak output token throughput (tok/s):    7.00\n",
		"Peak concurrent requests:                1.00\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("summary lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "reads below the mean") {
		t.Errorf("a peak above the mean rate is explained as one below it:\n%s", out)
	}
}

// A record sent before the run's clock began (a file edited by hand)
// leaves vLLM's seconds unknown: the peak lines are left out, not made
// up, and the rest of the summary is printed.
func TestAnalyzeLeavesOutPeaksOfTimesBeforeTheStart(t *testing.T) {
	rs := []record.Record{okRecord(0, -50, 10, 20), okRecord(1, 0, 30, 40)}
	path := filepath.Join(t.TempDir(), "run.jsonl")
	writeRecords(t, path, rs)
	out, errOut, code := run(t, "", "analyze", path)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if strings.Contains(out, "Peak output") || strings.Contains(out, "Peak concurrent") || !strings.Contains(out, "Successful requests:                     2") {
		t.Errorf("want the summary without peak lines:\n%s", out)
	}
}

// A bench run's records, analyzed again, give the peak lines bench
// printed.
func TestAnalyzeGivesBenchsPeaks(t *testing.T) {
	dir := t.TempDir()
	out, errOut, code := run(t, "", "bench", "serve", "--num-prompts", "12", "--random-input-len", "8", "--random-output-len", "16",
		"--max-concurrency", "4", "--result-dir", dir, "--run-name", "r", "--disable-tqdm")
	if code != ExitOK {
		t.Fatalf("bench: exit %d: %s", code, errOut)
	}
	again, errOut, code := run(t, "", "analyze", filepath.Join(dir, "r.jsonl"))
	if code != ExitOK {
		t.Fatalf("analyze: exit %d: %s", code, errOut)
	}
	for _, key := range []string{"Peak output token throughput (tok/s):", "Peak concurrent requests:"} {
		b, a := lineOf(out, key), lineOf(again, key)
		if b == "" || a != b {
			t.Errorf("bench printed %q, analyze %q", b, a)
		}
	}
}

// lineOf returns the line of s that begins with prefix, or "".
func lineOf(s, prefix string) string {
	for l := range strings.SplitSeq(s, "\n") {
		if strings.HasPrefix(l, prefix) {
			return l
		}
	}
	return ""
}
