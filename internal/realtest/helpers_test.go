package realtest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/internal/cli"
	"github.com/goodput-dev/goodput/promscrape"
	"github.com/goodput-dev/goodput/record"
	"github.com/goodput-dev/goodput/transport"
)

// The servers the tests share, one per configuration, started on first use
// and stopped by TestMain: starting one costs a second or two, and the
// tests that share one run one after the other.
var (
	sharedMu sync.Mutex // guards shared
	shared   = map[int]*Server{}
)

func TestMain(m *testing.M) {
	// goodput sweep serve runs its benchmarks as its own executable: with
	// GOODPUT_AS_MAIN set, this test binary is goodput.
	if os.Getenv("GOODPUT_AS_MAIN") == "1" {
		_, _, code := goodputTo(context.Background(), os.Stdout, os.Stderr, os.Args[1:]...)
		os.Exit(code)
	}
	code := m.Run()
	sharedMu.Lock()
	for _, s := range shared {
		s.Stop()
	}
	sharedMu.Unlock()
	os.Exit(code)
}

// sharedServer returns the shared server with parallel slots, starting it
// on first use.
func sharedServer(t *testing.T, parallel int) *Server {
	t.Helper()
	e := Need(t)
	sharedMu.Lock()
	defer sharedMu.Unlock()
	if s, ok := shared[parallel]; ok {
		return s
	}
	var s *Server
	var err error
	for range 3 {
		if s, err = start(e, Options{Parallel: parallel}); err == nil {
			break
		}
	}
	if err != nil {
		t.Fatalf("start llama-server --parallel %d: %v", parallel, err)
	}
	shared[parallel] = s
	return s
}

// eachTransport runs f once per transport this build has, as a subtest
// named for it, with the --transport flag that chooses it: the event loop
// and net/http must both carry a real engine's streams.
func eachTransport(t *testing.T, f func(t *testing.T, flag []string)) {
	t.Helper()
	for _, k := range transport.Kinds() {
		t.Run(strings.ReplaceAll(string(k), "/", ""), func(t *testing.T) { f(t, []string{"--transport", string(k)}) })
	}
}

// goodput runs the goodput command in-process, as a user would from a
// shell, and returns its output and exit code.
func goodput(ctx context.Context, args ...string) (stdout, stderr string, code int) {
	var out, errb bytes.Buffer
	return goodputTo(ctx, &out, &errb, args...)
}

// goodputTo runs goodput with its output going to stdout and stderr; when
// those are buffers it returns what they hold.
func goodputTo(ctx context.Context, stdout, stderr io.Writer, args ...string) (string, string, int) {
	env := &cli.Env{Stdout: stdout, Stderr: stderr, Stdin: strings.NewReader(""), Getenv: func(string) string { return "" }}
	root := cli.NewRoot(env)
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	if err != nil {
		fmt.Fprintln(stderr, cli.Message(err))
	}
	text := func(w io.Writer) string {
		if b, ok := w.(*bytes.Buffer); ok {
			return b.String()
		}
		return ""
	}
	return text(stdout), text(stderr), cli.Code(err)
}

// benchJSON is the part of `goodput bench --format json` the tests read.
type benchJSON struct {
	Result struct {
		Counts struct {
			Total, Completed, Failed, Retried int64
			Errors                            map[string]int64
		}
		Tokens  struct{ Input, Output int64 }
		Latency struct {
			TTFT struct {
				Median, Max, Mean float64
				Count             int64
			}
			TPOT, ITL struct{ Count int64 }
			E2E       struct{ Mean float64 }
		}
		PromptCache *struct {
			HitRate float64 `json:"hit_rate"`
		} `json:"prompt_cache"`
		ServerTimings *struct {
			Prefill struct{ Median float64 }
		} `json:"server_timings"`
	}
	Probes *struct {
		Latencies []float64 `json:"e2el_seconds"`
		Failed    int
	}
	Tokens struct {
		Limited, LimitedOutput, LimitedAsked, EndedEarly int64
	} `json:"token_check"`
	Findings []string
	Warnings []string
	Notes    []string
	Records  string
	Server   *struct {
		Status  struct{ Level, Text string }
		Waiting *struct{ Peak, Mean float64 }
		Running *struct{ Peak, Mean float64 }
	}
}

// bench runs goodput bench against url with --format json, records in a
// fresh directory, and returns what it said. It fails the test unless the
// exit code is want.
func bench(t *testing.T, url string, want int, args ...string) (benchJSON, []record.Record) {
	t.Helper()
	dir := t.TempDir()
	all := append([]string{"bench", "--base-url", url, "--format", "json", "--quiet", "--result-dir", dir, "--run-name", "run"}, args...)
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	out, errOut, code := goodput(ctx, all...)
	if code != want {
		t.Fatalf("goodput %s: exit %d, want %d\n%s\n%s", strings.Join(all, " "), code, want, errOut, out)
	}
	var b benchJSON
	if err := json.Unmarshal([]byte(out), &b); err != nil {
		t.Fatalf("bench output: %v\n%s", err, out)
	}
	return b, readRecords(t, filepath.Join(dir, "run.jsonl"))
}

// readRecords reads a record file whole, checking that its trailer counts
// every record in it.
func readRecords(t *testing.T, path string) []record.Record {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	d := record.NewDecoder(f, path)
	var out []record.Record
	for {
		var r record.Record
		err := d.Next(&r)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
	tr, ok := d.Trailer()
	if !ok || tr.Records != int64(len(out)) {
		t.Fatalf("%s: trailer %+v for %d records", path, tr, len(out))
	}
	return out
}

// counters reads the server's prompt and generation token counters.
func counters(t *testing.T, url string) (prompt, generated float64) {
	t.Helper()
	s, err := promscrape.Scrape(t.Context(), nil, url+"/metrics")
	if err != nil {
		t.Fatal(err)
	}
	p, ok1 := s.Counter(promscrape.PromptTokens)
	g, ok2 := s.Counter(promscrape.GenerationTokens)
	if !ok1 || !ok2 {
		t.Fatalf("%s/metrics has no token counters", url)
	}
	return p, g
}

// sums adds up the records' tokens: input, output, and prompt tokens the
// server said it served from its cache.
func sums(recs []record.Record) (in, out, cached int) {
	for _, r := range recs {
		in += r.InputTokens
		out += r.OutputTokens
		cached += r.CachedTokens
	}
	return in, out, cached
}

func describe(r *record.Record) string {
	return fmt.Sprintf("seq %d: %s %q, in %d, out %d from %s, %d chunks, finish %q", r.Seq, r.Error, r.Msg,
		r.InputTokens, r.OutputTokens, r.TokenSource, len(r.Chunks), r.Finish)
}
