package cli

import (
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/record"
)

// writeShardFile writes shard k of n of a run of total requests, one due
// every 100 ms, each answered with three tokens; a killed shard has no
// trailer and only its first half.
func writeShardFile(t *testing.T, dir string, k, n, total int, killed bool) string {
	t.Helper()
	start := time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)
	h := record.Header{Start: start, Tool: "goodput test", Host: "pod-" + string(rune('a'+k)),
		Shard: &record.Shard{Index: k, Count: n, StartAt: start, Ready: start.Add(-time.Minute), Planned: int64((total - k + n - 1) / n), Total: int64(total)},
		Clock: &record.Clock{Source: "http-date", Offset: int64(k) * 1000, Uncertainty: 2_000_000}}
	path := filepath.Join(dir, "goodput-20261129-100000-shard"+string(rune('0'+k))+"-of-"+string(rune('0'+n))+".jsonl")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w, err := record.NewWriter(f, h)
	if err != nil {
		t.Fatal(err)
	}
	ms := int64(time.Millisecond)
	sent := 0
	for q := k; q < total; q += n {
		if killed && sent >= (total/n)/2 {
			break
		}
		s := int64(q) * 100 * ms
		r := record.Record{Seq: int64(q), Scheduled: s, Sent: s + ms, End: s + 90*ms, InputTokens: 8, OutputTokens: 3,
			TokenSource: record.SourceUsage, Status: 200, Finish: "length",
			Chunks: []record.Chunk{{At: s + 30*ms, Tokens: 1}, {At: s + 60*ms, Tokens: 1}, {At: s + 90*ms, Tokens: 1}}}
		if err := w.Write(&r); err != nil {
			t.Fatal(err)
		}
		sent++
	}
	if !killed {
		w.Close(record.Trailer{End: int64(total) * 100 * ms})
	}
	return path
}

func TestMergeCommand(t *testing.T) {
	dir := t.TempDir()
	for k := range 3 {
		writeShardFile(t, dir, k, 3, 30, false)
	}
	os.WriteFile(filepath.Join(dir, "goodput-20261129-100000-shard0-of-3.server.json"), []byte(`{"samples":[]}`), 0o644)
	merged := filepath.Join(dir, "merged.jsonl")
	page := filepath.Join(dir, "report.html")
	out, errOut, code := run(t, "", "merge", dir, "--output", merged, "--report", page, "--gate", "p99(ttft)<=100ms")
	if code != ExitOK {
		t.Fatalf("exit %d: %s%s", code, out, errOut)
	}
	for _, want := range []string{
		"Merged Benchmark Result",
		"Shards: 3 of 3; 30 of 30 planned requests measured; window 2.99 s, all shards sending for 2.59 s of it",
		"shard 2 of 3 on pod-c, complete)",
		"Clocks: offsets from the server +0s to +2µs (each within ±2ms)",
		"Successful requests:                     30",
		// vLLM's seconds from the first send at 1 ms: ten requests of
		// three tokens in each.
		"Peak output token throughput (tok/s):    30.00\n", "Peak concurrent requests:                10.00\n",
		"Wrote " + merged, "Wrote " + page, "Gate: p99(ttft)<=100ms: measured 30ms: pass",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "WARNING") {
		t.Errorf("a whole run warns:\n%s", out)
	}
	if _, err := os.Stat(filepath.Join(dir, "merged.server.json")); err != nil {
		t.Errorf("the server series was not copied beside the merged run: %v", err)
	}
	// Merging again over the same directory skips the merged file.
	out, _, code = run(t, "", "merge", dir, "--output", merged)
	if code != ExitOK || !strings.Contains(out, "30 of 30 planned requests measured") {
		t.Errorf("second merge: exit %d\n%s", code, out)
	}
	// A gate on the merged run fails with 3.
	if _, _, code := run(t, "", "merge", dir, "--gate", "p99(ttft)<=10ms"); code != ExitGateFail {
		t.Errorf("failed gate: exit %d", code)
	}
}

// A run with a missing and a killed shard is merged and reported, and
// exits 1 unless told to accept it.
func TestMergeIncompleteRun(t *testing.T) {
	dir := t.TempDir()
	writeShardFile(t, dir, 0, 4, 40, false)
	writeShardFile(t, dir, 1, 4, 40, true)
	writeShardFile(t, dir, 3, 4, 40, false)
	merged := filepath.Join(dir, "merged.jsonl")
	out, errOut, code := run(t, "", "merge", dir, "-o", merged)
	if code != ExitTool {
		t.Fatalf("exit %d, want 1:\n%s%s", code, out, errOut)
	}
	for _, want := range []string{
		"Shards: 3 of 4 (1 partial); 25 of 40 planned requests measured",
		"WARNING: shard 1 of 4 is partial: attempt 0 (",
		"was cut off after 5 records: its process stopped before the end; 5 of its 10 planned requests were never measured",
		"WARNING: shard 2 of 4 is missing: no record file holds it: the merged run lacks its 10 planned requests",
		"Wrote " + merged,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if !strings.Contains(errOut, "goodput: the merged run is not the planned one (shard 2 missing; shard 1 partial)") {
		t.Errorf("stderr: %s", errOut)
	}
	if _, _, code := run(t, "", "merge", dir, "--allow-partial"); code != ExitOK {
		t.Errorf("--allow-partial: exit %d", code)
	}
	// analyze says the same of the shards, without failing.
	out, _, code = run(t, "", "analyze", filepath.Join(dir, "goodput-20261129-100000-shard0-of-4.jsonl"), filepath.Join(dir, "goodput-20261129-100000-shard1-of-4.jsonl"), filepath.Join(dir, "goodput-20261129-100000-shard3-of-4.jsonl"))
	if code != ExitOK || !strings.Contains(out, "WARNING: shard 2 of 4 is missing") || !strings.Contains(out, "Shards: 3 of 4 (1 partial)") {
		t.Errorf("analyze: exit %d\n%s", code, out)
	}
	// --wait gives up at its timeout and merges what is there.
	out, errOut, code = run(t, "", "merge", dir, "--wait", "--shards", "4", "--wait-timeout", "0s", "--allow-partial")
	if code != ExitOK || !strings.Contains(errOut, "2 of 4 shards finished; waiting for shards 1, 2") || !strings.Contains(errOut, "merging without a finished file of 2 shards") {
		t.Errorf("--wait: exit %d\n%s%s", code, out, errOut)
	}
}

func TestMergeUsage(t *testing.T) {
	dir := t.TempDir()
	shard := writeShardFile(t, dir, 0, 1, 2, false)
	cases := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"merge"}, ExitUsage, "give the record files of a run"},
		{[]string{"merge", dir, "--report", "r.html"}, ExitUsage, "--report renders the merged records: give --output too"},
		{[]string{"merge", dir, "--wait"}, ExitUsage, "--wait watches one directory for --shards shards"},
		{[]string{"merge", dir, "--shards", "5"}, ExitUsage, "--shards says how many shards --wait waits for: give --wait too"},
		{[]string{"merge", dir, "--format", "yaml"}, ExitUsage, `--format "yaml"`},
		{[]string{"merge", dir, "--slo", "ttft<<1"}, ExitUsage, "--slo"},
		{[]string{"merge", filepath.Join(dir, "none")}, ExitTool, "no such file"},
		{[]string{"merge", t.TempDir()}, ExitTool, "no record files"},
		{[]string{"merge", dir, "--output", shard}, ExitUsage, "--output " + shard + " is one of the files being merged"},
	}
	for _, c := range cases {
		_, errOut, code := run(t, "", c.args...)
		if code != c.code || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d, %q; want %d, %q", c.args, code, errOut, c.code, c.want)
		}
	}
}

// The result directory of a sharded run is one run to the commands that
// read runs: analyze and export merge its shards, as merge does; report,
// which reads one file, says to merge them first.
func TestShardDirectoryIsOneRun(t *testing.T) {
	dir := t.TempDir()
	for k := range 3 {
		writeShardFile(t, dir, k, 3, 12, false)
	}
	out, stderr, code := run(t, "", "analyze", dir)
	if code != ExitOK || !strings.Contains(out, "Shards: 3 of 3; 12 of 12 planned requests measured") || !strings.Contains(out, "Successful requests:                     12") {
		t.Errorf("analyze %s: exit %d\n%s%s", dir, code, out, stderr)
	}
	out, stderr, code = run(t, "", "export", dir)
	if rows := strings.Count(out, "\n"); code != ExitOK || rows != 13 {
		t.Errorf("export %s: exit %d, %d lines; want a header and 12 rows\n%s", dir, code, rows, stderr)
	}
	_, stderr, code = run(t, "", "report", dir, "-o", filepath.Join(t.TempDir(), "r.html"))
	if code != ExitTool || !strings.Contains(stderr, "holds the shards of one run") || !strings.Contains(stderr, "goodput merge "+dir) {
		t.Errorf("report %s: exit %d: %s; want 1 pointing to goodput merge", dir, code, stderr)
	}
	// A missing shard is said, by export as by analyze.
	os.Remove(filepath.Join(dir, "goodput-20261129-100000-shard1-of-3.jsonl"))
	_, stderr, code = run(t, "", "export", dir)
	if code != ExitOK || !strings.Contains(stderr, "shard 1 of 3 is missing") {
		t.Errorf("export with shard 1 gone: exit %d: %s", code, stderr)
	}
}

// A sharded run's directory with its merged file in it, as the Kubernetes
// merge step leaves it (merged.jsonl beside the shards), is still one run:
// analyze, export and report read the merged file alone, which holds
// every shard. A merged file that misses a shard that is there (a merge
// that gave up waiting for it) is stale: the shards are read instead.
func TestShardDirectoryWithItsMergedFile(t *testing.T) {
	dir := t.TempDir()
	for k := range 3 {
		writeShardFile(t, dir, k, 3, 12, false)
	}
	merged := filepath.Join(dir, "merged.jsonl")
	if _, stderr, code := run(t, "", "merge", dir, "--output", merged); code != ExitOK {
		t.Fatalf("merge: exit %d: %s", code, stderr)
	}
	out, stderr, code := run(t, "", "analyze", dir)
	if code != ExitOK || !strings.Contains(out, "Records: "+merged+" (goodput") || !strings.Contains(out, "Successful requests:                     12") {
		t.Errorf("analyze %s: exit %d; want the merged file's 12 requests\n%s%s", dir, code, out, stderr)
	}
	out, stderr, code = run(t, "", "export", dir)
	if rows := strings.Count(out, "\n"); code != ExitOK || rows != 13 || !strings.HasSuffix(strings.SplitN(out, "\n", 2)[0], ",label_shard") {
		t.Errorf("export %s: exit %d, %d lines; want a header and the merged file's 12 rows\n%s%s", dir, code, rows, out, stderr)
	}
	page := filepath.Join(t.TempDir(), "r.html")
	if out, stderr, code := run(t, "", "report", dir, "-o", page); code != ExitOK || !strings.Contains(out, "Wrote "+page) {
		t.Errorf("report %s: exit %d\n%s%s", dir, code, out, stderr)
	}

	// Merged before shard 2 was there: the three shards are the run.
	stale := t.TempDir()
	for k := range 2 {
		writeShardFile(t, stale, k, 3, 12, false)
	}
	merged = filepath.Join(stale, "merged.jsonl")
	if _, stderr, code := run(t, "", "merge", stale, "--output", merged, "--allow-partial"); code != ExitOK {
		t.Fatalf("merge of two shards: exit %d: %s", code, stderr)
	}
	writeShardFile(t, stale, 2, 3, 12, false)
	out, stderr, code = run(t, "", "analyze", stale)
	if code != ExitOK || !strings.Contains(out, "Shards: 3 of 3; 12 of 12 planned requests measured") || !strings.Contains(out, "Successful requests:                     12") {
		t.Errorf("analyze %s: exit %d; want the three shards\n%s%s", stale, code, out, stderr)
	}
	out, stderr, code = run(t, "", "export", stale)
	if rows := strings.Count(out, "\n"); code != ExitOK || rows != 13 {
		t.Errorf("export %s: exit %d, %d lines; want a header and 12 rows\n%s", stale, code, rows, stderr)
	}
}

// analyze and merge read goodput files without a shard header together
// only as the clients of one run: two points of a sweep, two runs begun 8 s
// apart and a copy of one file are refused with what to do instead, and
// nothing is printed as a result.
func TestAnalyzeAndMergeRefuseFilesOfDifferentRuns(t *testing.T) {
	header := func(start, concurrency string) string {
		return `{"kind":"goodput.run","schema":1,"start":"` + start + `","tool":"goodput test","host":"h","config":{"model":"m","max_concurrency":` + concurrency + `}}` + "\n"
	}
	dir := writeFiles(t, map[string]string{
		"c1.jsonl":     header("2026-11-29T08:00:00Z", "1") + goodRecord + runTrailer,
		"client.jsonl": header("2026-11-29T08:00:00.4Z", "1") + goodRecord + runTrailer,
		"c4.jsonl":     header("2026-11-29T08:00:00.2Z", "4") + goodRecord + runTrailer,
		"later.jsonl":  header("2026-11-29T08:00:08Z", "1") + goodRecord + runTrailer,
		"copy.jsonl":   header("2026-11-29T08:00:00Z", "1") + goodRecord + runTrailer,
	})
	p := func(name string) string { return filepath.Join(dir, name) }
	const apart = "analyze each run apart, or compare them with goodput compare"
	tests := []struct {
		name  string
		files []string
		want  string
	}{
		// two points of a sweep
		{"sweep points", []string{p("c1.jsonl"), p("c4.jsonl")},
			p("c1.jsonl") + " and " + p("c4.jsonl") + " were run with different max_concurrency (1, 4): files of different runs (" + apart + ")"},
		// one command run twice, 8 s apart
		{"runs apart", []string{p("c1.jsonl"), p("later.jsonl")},
			p("c1.jsonl") + " and " + p("later.jsonl") + " began 8s apart (at 2026-11-29T08:00:00Z and 2026-11-29T08:00:08Z), more than the 1s the clients of one run may be apart: files of different runs (" + apart + "; clients of one run that began further apart merge with goodput merge --max-start-spread)"},
		// a copy of one file under another name
		{"copy", []string{p("c1.jsonl"), p("copy.jsonl")},
			p("copy.jsonl") + " is a copy of " + p("c1.jsonl") + ": both hold the run that goodput test began at 2026-11-29T08:00:00Z on h, and its records would count twice: leave one out"},
	}
	for _, tc := range tests {
		for _, cmd := range []string{"analyze", "merge"} {
			out, errOut, code := run(t, "", append([]string{cmd}, tc.files...)...)
			if code != ExitTool || errOut != "goodput: "+tc.want+"\n" || strings.Contains(out, "Successful requests") {
				t.Errorf("%s %s: exit %d, stderr %q, stdout %q\nwant exit 1 and %q", cmd, tc.name, code, errOut, out, tc.want)
			}
		}
	}
	// Two clients of one run, 400 ms apart, are read as one run of two
	// requests; merge reads clients further apart when told to.
	out, errOut, code := run(t, "", "analyze", p("c1.jsonl"), p("client.jsonl"))
	if code != ExitOK || !strings.Contains(out, "Successful requests:                     2\n") {
		t.Errorf("two clients: exit %d, %s\n%s", code, errOut, out)
	}
	out, errOut, code = run(t, "", "merge", p("c1.jsonl"), p("later.jsonl"), "--max-start-spread", "10s")
	if code != ExitOK || !strings.Contains(out, "Successful requests:                     2\n") {
		t.Errorf("merge --max-start-spread 10s: exit %d, %s\n%s", code, errOut, out)
	}
}

// merge --output NAME.jsonl.gz writes the merged run gzip-compressed: the
// same bytes as the plain file once decompressed, read back by analyze and
// report as the plain one, with the server's series beside it.
func TestMergeWritesACompressedRun(t *testing.T) {
	dir := t.TempDir()
	for k := range 3 {
		writeShardFile(t, dir, k, 3, 30, false)
	}
	os.WriteFile(filepath.Join(dir, "goodput-20261129-100000-shard0-of-3.server.json.gz"), gzipped(t, `{"samples":[]}`), 0o644)
	out := t.TempDir()
	plain, gz := filepath.Join(out, "plain.jsonl"), filepath.Join(out, "merged.jsonl.gz")
	page := filepath.Join(out, "report.html")
	if o, errOut, code := run(t, "", "merge", dir, "--output", plain); code != ExitOK {
		t.Fatalf("plain: exit %d: %s%s", code, o, errOut)
	}
	if o, errOut, code := run(t, "", "merge", dir, "--output", gz, "--report", page); code != ExitOK || !strings.Contains(o, "Wrote "+gz) {
		t.Fatalf("compressed: exit %d: %s%s", code, o, errOut)
	}
	sameOnceDecompressed(t, gz, plain)
	if _, err := os.Stat(filepath.Join(out, "merged.server.json.gz")); err != nil {
		t.Errorf("the compressed server series was not copied beside the merged run: %v", err)
	}
	if st, err := os.Stat(page); err != nil || st.Size() == 0 {
		t.Errorf("no report of the compressed run: %v", err)
	}
	a, errOut, code := run(t, "", "analyze", gz)
	b, _, _ := run(t, "", "analyze", plain)
	_, aBody, _ := strings.Cut(a, "\n")
	_, bBody, _ := strings.Cut(b, "\n")
	if code != ExitOK || aBody != bBody || !strings.Contains(aBody, "Successful requests:                     30") {
		t.Errorf("analyze of the compressed run (exit %d, %s):\n%s\nof the plain one:\n%s", code, errOut, a, b)
	}
}

// gzipped returns s gzip-compressed.
func gzipped(t *testing.T, s string) []byte {
	t.Helper()
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	zw.Write([]byte(s))
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}
