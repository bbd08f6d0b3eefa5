package cli

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// writeFiles writes name → content into a fresh directory and returns it.
func writeFiles(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

const (
	runHeader  = `{"kind":"goodput.run","schema":1,"start":"2026-11-29T08:00:00Z","tool":"goodput test"}` + "\n"
	runTrailer = `{"kind":"goodput.end","records":1,"end":900000000}` + "\n"
	goodRecord = `{"seq":0,"s":0,"t0":1000,"te":400000000,"ct":[100000000,100000000,100000000],"in":10,"out":3,"src":"chunks","status":200}` + "\n"
)

// Every command that reads records refuses a file with none, and one with
// an impossible record, with exit 1 and the file, line and field named.
func TestReadersRefuseEmptyAndImpossibleFiles(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"empty.jsonl":  "",
		"header.jsonl": runHeader + `{"kind":"goodput.end","records":0,"end":5}` + "\n",
		// line 3: the response ends before its first token arrives
		"backwards.jsonl": runHeader + goodRecord + `{"seq":1,"s":0,"t0":1000,"te":5,"ct":[199450000],"out":1,"src":"chunks"}` + "\n" + runTrailer,
		// line 2: a negative token count
		"negative.jsonl": runHeader + `{"seq":0,"s":0,"t0":0,"te":9,"in":-5}` + "\n",
		"good.jsonl":     runHeader + goodRecord + runTrailer,
		// line 3: the record of line 2 again, counted by its end marker
		"twice.jsonl": runHeader + goodRecord + goodRecord + `{"kind":"goodput.end","records":2,"end":900000000}` + "\n",
	})
	p := func(name string) string { return filepath.Join(dir, name) }
	tests := []struct {
		name  string
		stdin string
		args  []string
		want  string
	}{
		// an empty file
		{"analyze empty", "", []string{"analyze", p("empty.jsonl")}, "no requests in " + p("empty.jsonl")},
		// empty standard input
		{"analyze stdin", "", []string{"analyze", "-"}, "no requests in standard input"},
		// a run that measured nothing
		{"analyze header only", "", []string{"analyze", p("header.jsonl")}, "no requests in " + p("header.jsonl")},
		// a second, empty shard among good ones
		{"analyze shards", "", []string{"analyze", p("good.jsonl"), p("empty.jsonl")}, "no requests in " + p("empty.jsonl")},
		// report and compare read the same way
		{"report empty", "", []string{"report", p("empty.jsonl"), "--format", "markdown"}, "no requests in " + p("empty.jsonl")},
		{"compare empty", "", []string{"compare", p("good.jsonl"), p("empty.jsonl")}, "no requests in " + p("empty.jsonl")},
		// times that go backwards: file, line and field
		{"analyze backwards", "", []string{"analyze", p("backwards.jsonl")}, p("backwards.jsonl") + `:3: impossible record: "te" 5 is before the last chunk`},
		{"report backwards", "", []string{"report", p("backwards.jsonl"), "--format", "markdown"}, p("backwards.jsonl") + ":3: impossible record"},
		{"compare backwards", "", []string{"compare", p("good.jsonl"), p("backwards.jsonl")}, p("backwards.jsonl") + ":3: impossible record"},
		// a negative count
		{"analyze negative", "", []string{"analyze", p("negative.jsonl")}, p("negative.jsonl") + `:2: impossible record: "in" -5 is negative`},
		// one request's record twice: every reader refuses to count it twice
		{"analyze twice", "", []string{"analyze", p("twice.jsonl")}, p("twice.jsonl") + ":3: seq 0 appears again (first at line 2): a request counted twice"},
		{"merge twice", "", []string{"merge", p("twice.jsonl")}, p("twice.jsonl") + ":3: seq 0 appears again (first at line 2)"},
		{"report twice", "", []string{"report", p("twice.jsonl"), "--format", "markdown"}, p("twice.jsonl") + ":3: seq 0 appears again"},
		{"export twice", "", []string{"export", p("twice.jsonl")}, p("twice.jsonl") + ":3: seq 0 appears again"},
		{"compare twice", "", []string{"compare", p("good.jsonl"), p("twice.jsonl")}, p("twice.jsonl") + ":3: seq 0 appears again"},
		{"analyze twice stdin", runHeader + goodRecord + goodRecord, []string{"analyze", "-"}, "-:3: seq 0 appears again (first at line 2): a request counted twice"},
		// the same from standard input
		{"analyze negative stdin", runHeader + `{"seq":0,"in":-5}`, []string{"analyze", "-"}, `-:2: impossible record: "in" -5 is negative`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, errOut, code := run(t, tc.stdin, tc.args...)
			if code != ExitTool || !strings.Contains(errOut, tc.want) {
				t.Errorf("exit %d, stderr %q, want exit 1 and %q", code, errOut, tc.want)
			}
			if strings.Contains(out, "Mean TTFT") || strings.Contains(out, "Successful requests") {
				t.Errorf("a summary was printed for an unreadable file:\n%s", out)
			}
		})
	}
}

// analyze says when a record file was cut off: no end marker, or an
// interrupted run.
func TestAnalyzeSaysAFileWasCutOff(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"killed.jsonl": runHeader + goodRecord,
		"done.jsonl":   runHeader + goodRecord + runTrailer,
	})
	out, errOut, code := run(t, "", "analyze", filepath.Join(dir, "killed.jsonl"))
	if code != 0 || !strings.Contains(out, "killed.jsonl has no end marker: the run that wrote it was cut off") {
		t.Errorf("exit %d, %s\n%s", code, errOut, out)
	}
	out, _, _ = run(t, "", "analyze", filepath.Join(dir, "done.jsonl"))
	if strings.Contains(out, "end marker") {
		t.Errorf("a finished run is said to be cut off:\n%s", out)
	}
}

// A pipe is read once: every command that reads a run reads a FIFO (or
// /dev/stdin) as records, where opening it a second time to see what it
// holds would find it empty, or wait for a writer that never comes.
func TestReadersReadAPipeOnce(t *testing.T) {
	content := runHeader + goodRecord + runTrailer
	for _, args := range [][]string{
		{"analyze"},
		{"report", "--format", "markdown"},
		{"export", "--format", "csv"},
		{"compare"},
	} {
		t.Run(args[0], func(t *testing.T) {
			fifo := filepath.Join(t.TempDir(), "records")
			if err := syscall.Mkfifo(fifo, 0o600); err != nil {
				t.Fatal(err)
			}
			// The writer serves each open of the FIFO: the records to the
			// first, nothing to any later one.
			done := make(chan struct{})
			go func() {
				defer close(done)
				for i := 0; ; i++ {
					w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
					if err != nil {
						return
					}
					if i == 0 {
						w.WriteString(content)
					}
					w.Close()
					if i > 0 {
						return
					}
				}
			}()
			t.Cleanup(func() {
				// A writer still waiting for a reader is released by
				// opening the FIFO to read, as often as it takes.
				for {
					select {
					case <-done:
						return
					case <-time.After(10 * time.Millisecond):
						if r, err := os.OpenFile(fifo, os.O_RDONLY|syscall.O_NONBLOCK, 0); err == nil {
							r.Close()
						}
					}
				}
			})
			cmd := append(append([]string(nil), args...), fifo)
			if args[0] == "compare" {
				cmd = []string{"compare", fifo, writeFiles(t, map[string]string{"b.jsonl": content}) + "/b.jsonl"}
			}
			type result struct {
				out, errOut string
				code        int
			}
			ran := make(chan result, 1)
			go func() {
				out, errOut, code := run(t, "", cmd...)
				ran <- result{out, errOut, code}
			}()
			var r result
			select {
			case r = <-ran:
			case <-time.After(20 * time.Second):
				t.Fatalf("%v did not finish in 20 s: it opened the pipe a second time and waits for a writer", cmd)
			}
			out, errOut, code := r.out, r.errOut, r.code
			if code != ExitOK || !strings.Contains(out, "100.00") {
				t.Errorf("%v: exit %d, %q %s; want the one request's 100 ms TTFT", cmd, code, out, errOut)
			}
		})
	}
}
