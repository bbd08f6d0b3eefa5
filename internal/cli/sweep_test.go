package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/internal/human"
	"github.com/goodput-dev/goodput/internal/simtest"
	"github.com/goodput-dev/goodput/record"
	"github.com/goodput-dev/goodput/runfile"
	"github.com/goodput-dev/goodput/sim"
	"github.com/goodput-dev/goodput/sweep"
	"github.com/goodput-dev/goodput/sweeprun"
)

// hookWriter collects what a command writes and calls hook once, when a
// write contains marker.
type hookWriter struct {
	mu     sync.Mutex // guards buf and hook
	buf    bytes.Buffer
	marker string
	hook   func()
}

func (w *hookWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(p)
	if w.hook != nil && bytes.Contains(p, []byte(w.marker)) {
		w.hook()
		w.hook = nil
	}
	return len(p), nil
}

func (w *hookWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}

// sweepCmd runs `goodput sweep args…` under ctx; stderr may carry a hook.
func sweepCmd(t *testing.T, ctx context.Context, stderr *hookWriter, args ...string) (string, string, int) {
	t.Helper()
	if stderr == nil {
		stderr = &hookWriter{}
	}
	var out bytes.Buffer
	env := &Env{Stdout: &out, Stderr: stderr, Stdin: strings.NewReader(""), Getenv: func(string) string { return "" }}
	root := NewRoot(env)
	root.SetArgs(append([]string{"sweep"}, args...))
	err := root.ExecuteContext(ctx)
	if err != nil {
		stderr.Write([]byte(Message(err) + "\n"))
	}
	return out.String(), stderr.String(), Code(err)
}

// sweptPoints returns the points a sweep's log says it measured, in order.
func sweptPoints(stderr string) []string {
	var out []string
	for _, line := range strings.Split(stderr, "\n") {
		rest, ok := strings.CutPrefix(line, "sweep: ")
		if !ok {
			continue
		}
		if name, tail, ok := strings.Cut(rest, ": "); ok && strings.Contains(tail, " requests, ") {
			out = append(out, name)
		}
	}
	return out
}

// TestSweepBuiltInSimulator is the acceptance run: a wall-clock sweep of six
// points against the built-in simulator over HTTP, writing every point's
// records and summary, the sweep summary (JSON and CSV) and the verdict.
func TestSweepBuiltInSimulator(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "sweep")
	start := time.Now()
	out, errOut, code := sweepCmd(t, t.Context(), nil, "--concurrency", "1,2,4,8,16,32", "--num-prompts", "8",
		"--random-input-len", "32", "--random-output-len", "16", "--ignore-eos", "--quiet", "--result-dir", dir)
	t.Logf("six points in %v", time.Since(start).Round(time.Millisecond))
	if code != ExitOK {
		t.Fatalf("exit %d\n%s\n%s", code, errOut, out)
	}
	points := []string{"c1", "c2", "c4", "c8", "c16", "c32"}
	if got := sweptPoints(errOut); !slices.Equal(got, points) {
		t.Errorf("measured %v, want %v\n%s", got, points, errOut)
	}
	for _, want := range []string{
		"load  reps  req/s  out tok/s  goodput  attain",
		"met the SLO (target 90 %)",
		"Wrote " + filepath.Join(dir, "sweep.json") + " and " + filepath.Join(dir, "sweep.csv"),
		"goodput plan --from " + filepath.Join(dir, "sweep.json") + " --peak-qps <QPS>",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	for _, want := range []string{"benchmarking the built-in simulator", "prefix cache is off"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("log lacks %q:\n%s", want, errOut)
		}
	}
	// The simulator exports its running and waiting gauges, so every
	// point waited for it to be idle.
	if strings.Contains(errOut, "not waiting for the server to be idle") {
		t.Errorf("the sweep did not wait for the simulator:\n%s", errOut)
	}
	for _, p := range points {
		for _, suffix := range []string{".jsonl", ".summary.json"} {
			if fi, err := os.Stat(filepath.Join(dir, p+suffix)); err != nil || fi.Size() == 0 {
				t.Errorf("%s%s: %v", p, suffix, err)
			}
		}
	}
	s, err := sweep.ReadFile(filepath.Join(dir, "sweep.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Points) != 6 || s.Verdict == "" || !strings.Contains(out, s.Verdict) {
		t.Errorf("sweep.json: %d points, verdict %q", len(s.Points), s.Verdict)
	}
	for i, p := range s.Points {
		// 8 requests, or 4 rounds of the concurrency: 8, 8, 16, 32, 64, 128.
		want := max(8, 4*int(p.Load.Value))
		if p.Load != sweep.Concurrency([]int{1, 2, 4, 8, 16, 32}[i]) || p.Mean.Requests != want || p.Mean.ErrorRate != 0 {
			t.Errorf("point %d: %s, %d requests, error rate %v; want %d requests", i, p.Load, p.Mean.Requests, p.Mean.ErrorRate, want)
		}
	}
	csv, err := os.ReadFile(filepath.Join(dir, "sweep.csv"))
	if err != nil || strings.Count(string(csv), "\n") != 7 {
		t.Errorf("sweep.csv: %v\n%s", err, csv)
	}
}

func TestSweepDryRunSendsNothing(t *testing.T) {
	// A listener that counts connections: a dry run must make none.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var conns atomic.Int32
	accepted := make(chan struct{})
	go func() {
		defer close(accepted)
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			conns.Add(1)
			c.Close()
		}
	}()
	// And an address nobody listens on.
	closed, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	deadURL := "http://" + closed.Addr().String()
	closed.Close()

	tests := []struct {
		name string
		args []string
		want []string
	}{
		{"auto over a server", []string{"--base-url", "http://" + ln.Addr().String()}, []string{
			"target: http://" + ln.Addr().String(),
			"sweep plan: concurrency, auto, 1 measurement per load",
			"grid         concurrency=2, concurrency=4",
			"each point: 200 requests (at least 4 × the concurrency: 256 at concurrency 64, 512 at concurrency 128, 1024 at concurrency 256)",
			"SLO: ttft<=500ms,tpot<=50ms",
		}},
		{"list to nobody", []string{"--base-url", deadURL, "--request-rate", "1,2,inf", "--repeats", "3"}, []string{
			"sweep plan: request-rate, list, 3 measurements per load",
			"request_rate=1, request_rate=2, request_rate=inf",
			"each point: 200 requests\n",
			// Every load the user listed is measured.
			"early stop: off",
		}},
		{"list with early stop", []string{"--base-url", deadURL, "--concurrency", "1,2,4,8", "--early-stop"}, []string{
			"early stop: when output throughput gains under 3 %",
		}},
		// --no-early-stop on a list says what the list gets anyway.
		{"list without early stop", []string{"--base-url", deadURL, "--concurrency", "1,2,4,8", "--no-early-stop"}, []string{
			"early stop: off",
		}},
		{"search to nobody", []string{"--base-url", deadURL, "--search", "concurrency", "--concurrency", "8"}, []string{
			"SLO search by concurrency from 8: double until a probe misses 90 % attainment, then bisect; at most 12 probes",
		}},
		{"built-in simulator, not started", []string{"--request-rate", "auto"}, []string{
			"target: built-in simulator: Llama-3.1-8B on H100-SXM (started when the sweep runs)",
			"grid         (pending) 8 request rates",
		}},
		{"virtual", []string{"--virtual", "--sim-gpu", "A100", "--concurrency", "1,4"}, []string{
			"target: virtual-time simulator: Llama-3.1-8B on A100-80GB",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "sweep")
			args := append([]string{"--dry-run", "--result-dir", dir}, tt.args...)
			out, errOut, code := sweepCmd(t, t.Context(), nil, args...)
			if code != ExitOK {
				t.Fatalf("exit %d\n%s\n%s", code, errOut, out)
			}
			for _, w := range append(tt.want, "results: "+dir+" (dry run: nothing was sent, nothing written)") {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
			if strings.Contains(errOut, "benchmarking the built-in simulator") {
				t.Error("a dry run started the simulator")
			}
			if _, err := os.Stat(dir); !os.IsNotExist(err) {
				t.Errorf("a dry run created %s", dir)
			}
		})
	}
	ln.Close()
	<-accepted
	if n := conns.Load(); n != 0 {
		t.Errorf("dry runs opened %d connections", n)
	}
}

func TestSweepResume(t *testing.T) {
	dir := t.TempDir()
	common := []string{"--virtual", "--num-prompts", "64", "--random-input-len", "64", "--random-output-len", "32", "--result-dir", dir}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	// Interrupted once the second point is measured, as by Ctrl-C.
	stderr := &hookWriter{marker: "sweep: c2: ", hook: cancel}
	out, errOut, code := sweepCmd(t, ctx, stderr, append(common, "--concurrency", "1,2,4,8")...)
	if code != ExitInterrupt || !strings.Contains(errOut, "continue with --resume --result-dir "+dir) {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	if got := sweptPoints(errOut); !slices.Equal(got, []string{"c1", "c2"}) {
		t.Fatalf("measured %v before the interruption", got)
	}
	if !strings.Contains(out, "Wrote "+filepath.Join(dir, "sweep.json")) {
		t.Errorf("an interrupted sweep should still write and show what it measured:\n%s", out)
	}

	out, errOut, code = sweepCmd(t, t.Context(), nil, append(common, "--concurrency", "1,2,4,8", "--resume")...)
	if code != ExitOK {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	if got := sweptPoints(errOut); !slices.Equal(got, []string{"c4", "c8"}) {
		t.Errorf("resume measured %v, want only c4 and c8", got)
	}
	if !strings.Contains(out, "Measured 2 point(s) now; 2 came from the result directory.") {
		t.Errorf("output:\n%s", out)
	}
	s, err := sweep.ReadFile(filepath.Join(dir, "sweep.json"))
	if err != nil || len(s.Points) != 4 {
		t.Fatalf("sweep.json: %v, %d points", err, len(s.Points))
	}

	// A dry run of a longer sweep shows what is done and what is left.
	out, errOut, code = sweepCmd(t, t.Context(), nil, append(common, "--concurrency", "1,2,4,8,16", "--resume", "--dry-run")...)
	if code != ExitOK || !strings.Contains(out, "concurrency=1 (done), concurrency=2 (done), concurrency=4 (done), concurrency=8 (done), concurrency=16\n") {
		t.Errorf("exit %d\n%s\n%s", code, errOut, out)
	}

	// Resuming with a different workload is refused, naming the change.
	_, errOut, code = sweepCmd(t, t.Context(), nil, "--virtual", "--num-prompts", "64", "--random-input-len", "65",
		"--random-output-len", "32", "--result-dir", dir, "--concurrency", "1,2,4,8,16", "--resume")
	if code != ExitUsage || !strings.Contains(errOut, `random_input_len was "64", now "65"`) {
		t.Errorf("exit %d\n%s", code, errOut)
	}
	// So is a new sweep into the same directory.
	_, errOut, code = sweepCmd(t, t.Context(), nil, append(common, "--concurrency", "1")...)
	if code != ExitUsage || !strings.Contains(errOut, "already holds 4 measurements") {
		t.Errorf("exit %d\n%s", code, errOut)
	}
}

func TestSweepVirtualSearch(t *testing.T) {
	dir := t.TempDir()
	out, errOut, code := sweepCmd(t, t.Context(), nil, "--virtual", "--search", "rate", "--request-rate", "4",
		"--slo", "ttft<=200ms", "--num-prompts", "200", "--random-input-len", "512", "--random-output-len", "32",
		"--sim-tensor-parallel-size", "2", "--result-dir", dir)
	if code != ExitOK {
		t.Fatalf("exit %d\n%s\n%s", code, errOut, out)
	}
	for _, want := range []string{
		"Search: highest load meeting 90 % SLO attainment:",
		"goodput plan --from " + filepath.Join(dir, "sweep.json") + " --peak-qps <QPS> --gpus-per-replica 2",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	// The plan command reads the search's answer.
	var pout bytes.Buffer
	env := &Env{Stdout: &pout, Stderr: &bytes.Buffer{}, Stdin: strings.NewReader(""), Getenv: func(string) string { return "" }}
	root := NewRoot(env)
	root.SetArgs([]string{"plan", "--from", filepath.Join(dir, "sweep.json"), "--peak-qps", "50"})
	if err := root.ExecuteContext(t.Context()); err != nil || !strings.Contains(pout.String(), "replicas") {
		t.Errorf("plan --from the search: %v\n%s", err, pout.String())
	}
}

// A sweep's gates are checked at its operating point, recomputed from that
// point's records.
func TestSweepGatesTheOperatingPoint(t *testing.T) {
	args := []string{"--virtual", "--concurrency", "1,4,16,64", "--num-prompts", "200", "--random-input-len", "256",
		"--random-output-len", "64", "--ignore-eos", "--slo", "ttft<=300ms"}
	out, errOut, code := sweepCmd(t, t.Context(), nil, append(args, "--result-dir", t.TempDir(),
		"--gate", "attainment>=0.9", "--gate", "p99(ttft)<=300ms")...)
	if code != ExitOK || !strings.Contains(out, "Gates at the operating point (16)") || strings.Count(out, "Gate: ") != 2 {
		t.Fatalf("passing gates: exit %d\n%s\n%s", code, errOut, out)
	}
	out, errOut, code = sweepCmd(t, t.Context(), nil, append(args, "--result-dir", t.TempDir(),
		"--gate", "goodput>=1000000")...)
	if code != ExitGateFail || !strings.Contains(errOut, "1 of 1 gates failed") {
		t.Fatalf("failing gate: exit %d\n%s\n%s", code, errOut, out)
	}
	// No load meets the SLO: no operating point, every gate fails.
	out, errOut, code = sweepCmd(t, t.Context(), nil, "--virtual", "--concurrency", "8,16", "--num-prompts", "100",
		"--random-input-len", "256", "--random-output-len", "64", "--slo", "ttft<=1ms", "--result-dir", t.TempDir(),
		"--gate", "attainment>=0.9")
	if code != ExitGateFail || !strings.Contains(out, "no operating point") {
		t.Fatalf("no operating point: exit %d\n%s\n%s", code, errOut, out)
	}
}

func TestSweepUsageErrors(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"both modes", []string{"--concurrency", "1,2", "--request-rate", "1"}, "give --concurrency or --request-rate, not both"},
		{"zero concurrency", []string{"--concurrency", "0,2"}, "--concurrency"},
		{"negative rate", []string{"--request-rate", "1,-2"}, "--request-rate"},
		{"repeated load", []string{"--concurrency", "2,2"}, "item 2: 2 repeats item 1"},
		{"zero repeats", []string{"--repeats", "0"}, "--repeats 0: must be from 1 to 100"},
		{"attainment zero", []string{"--attainment", "0"}, "--attainment 0: must be in (0, 1]"},
		{"attainment above one", []string{"--attainment", "1.5"}, "--attainment 1.5"},
		{"attainment NaN", []string{"--attainment", "NaN"}, "--attainment NaN"},
		{"knee statistic", []string{"--knee-latency", "speed"}, "--knee-latency"},
		{"auto flag on a list", []string{"--concurrency", "1,2", "--points", "3"}, "--points applies only to an auto sweep"},
		{"auto max in rate mode", []string{"--request-rate", "auto", "--auto-max-concurrency", "64"}, "--auto-max-concurrency applies to --concurrency auto"},
		{"bad spacing", []string{"--concurrency", "auto", "--spacing", "random"}, `spacing "random"`},
		{"search mode", []string{"--search", "latency"}, `--search "latency": want rate or concurrency`},
		{"search start list", []string{"--search", "rate", "--request-rate", "1,2"}, "a search starts from one finite load"},
		{"search from inf", []string{"--search", "rate", "--request-rate", "inf"}, "a search starts from one finite load"},
		{"search crossed start", []string{"--search", "rate", "--concurrency", "4"}, "starts from a --request-rate"},
		{"search with sweep flag", []string{"--search", "rate", "--no-early-stop"}, "--no-early-stop applies to a sweep, not to --search"},
		{"search flag without search", []string{"--search-tolerance", "0.1"}, "--search-tolerance applies only with --search"},
		{"both early-stop flags", []string{"--concurrency", "1,2", "--early-stop", "--no-early-stop"}, "give --early-stop or --no-early-stop, not both"},
		{"early stop on auto", []string{"--early-stop"}, "--early-stop applies to a list of loads"},
		{"gate on a search", []string{"--search", "rate", "--request-rate", "4", "--gate", "attainment>=0.9"}, "--gate: an SLO search has no operating point"},
		{"virtual with a server", []string{"--virtual", "--base-url", "http://127.0.0.1:9"}, "drop --base-url"},
		{"virtual with faults", []string{"--virtual", "--sim-fault", "error-rate=0.1"}, "a virtual-time sweep has none"},
		{"resume without dir", []string{"--resume"}, "--resume needs --result-dir"},
		{"cap in a concurrency sweep", []string{"--concurrency", "1,2", "--max-concurrency", "4"}, "sets the concurrency of each point itself"},
		{"virtual duration", []string{"--virtual", "--concurrency", "1,2", "--duration", "10s"}, "ends by count"},
		{"no bound", []string{"--num-prompts", "0"}, "--num-prompts or --duration"},
		{"reserved label", []string{"--label", "point=x"}, "--label point: the sweep sets this label itself"},
		{"bad slo", []string{"--slo", "ttft<=fast"}, "--slo"},
		{"bad simulator gpu", []string{"--sim-gpu", "abacus"}, "--sim-gpu"},
		{"bad simulator block size", []string{"--virtual", "--sim-block-size", "0"}, "--sim-block-size 0: must be positive"},
		{"bad simulator kv dtype", []string{"--virtual", "--sim-kv-cache-dtype", "int2"}, `--sim-kv-cache-dtype "int2"`},
		{"stray argument", []string{"now"}, `unexpected argument "now"`},
		{"missing dataset", []string{"--dataset-name", "custom", "--dataset-path", "no-such.jsonl"}, "--dataset-path: stat no-such.jsonl: no such file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "sweep")
			args := append([]string{"--dry-run"}, tt.args...)
			if !slices.Contains(tt.args, "--resume") {
				args = append(args, "--result-dir", dir)
			}
			out, errOut, code := sweepCmd(t, t.Context(), nil, args...)
			if code != ExitUsage || !strings.Contains(errOut, tt.want) {
				t.Fatalf("exit %d, want %d with %q\n%s\n%s", code, ExitUsage, tt.want, errOut, out)
			}
		})
	}
}

// The sweep runner's defaults are the command's.
func TestSweepDefaults(t *testing.T) {
	cmd := newSweepCmd(&Env{})
	for flag, want := range map[string]string{
		"min-rounds":   "4",
		"idle-timeout": sweeprun.DefaultIdleTimeout.String(),
		"num-prompts":  "200",
		"attainment":   "0.9",
		"points":       "7",
		"refine":       "2",
	} {
		if got := cmd.Flags().Lookup(flag).DefValue; got != want {
			t.Errorf("--%s defaults to %s, want %s", flag, got, want)
		}
	}
}

// --duration alone bounds each point by time, as in bench.
func TestSweepDurationLiftsPromptDefault(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "sweep")
	out, errOut, code := sweepCmd(t, t.Context(), nil, "--dry-run", "--concurrency", "1,2", "--duration", "5s", "--result-dir", dir)
	if code != ExitOK || !strings.Contains(out, "each point: at most 5s\n") {
		t.Errorf("exit %d, %q%s; want each point bounded by 5s alone", code, out, errOut)
	}
}

// --format json prints the sweep file's contents on standard output, and
// where the files went and the gates on standard error.
func TestSweepFormatJSON(t *testing.T) {
	dir := t.TempDir()
	out, errOut, code := sweepCmd(t, t.Context(), nil, "--virtual", "--concurrency", "1,8", "--num-prompts", "64",
		"--random-input-len", "64", "--random-output-len", "32", "--result-dir", dir, "--format", "json", "--gate", "error_rate<=0.01")
	if code != ExitOK {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	if !strings.Contains(errOut, "Gates at the operating point") || !strings.Contains(errOut, "Gate: error_rate<=0.01") {
		t.Errorf("standard error lacks the gates:\n%s", errOut)
	}
	s, err := sweep.ReadJSON(strings.NewReader(out))
	if err != nil || len(s.Points) != 2 {
		t.Fatalf("standard output is not the sweep: %v\n%s", err, out)
	}
	file, err := os.ReadFile(filepath.Join(dir, "sweep.json"))
	if err != nil || string(file) != out {
		t.Errorf("standard output differs from sweep.json (%v)", err)
	}
	if !strings.Contains(errOut, "Wrote "+filepath.Join(dir, "sweep.json")) {
		t.Errorf("standard error lacks the files:\n%s", errOut)
	}
	if _, errOut, code := sweepCmd(t, t.Context(), nil, "--virtual", "--format", "yaml"); code != ExitUsage || !strings.Contains(errOut, `--format "yaml"`) {
		t.Errorf("exit %d %s", code, errOut)
	}
}

// countingProxy serves the simulator through a proxy that counts the
// completions it is sent.
func countingProxy(t *testing.T) (string, *atomic.Int64) {
	t.Helper()
	_, base := simtest.Serve(t, sim.Options{Seed: 4})
	target, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	proxy := httputil.NewSingleHostReverseProxy(target)
	proxy.FlushInterval = -1 // stream as the server does
	proxy.ErrorLog = log.New(io.Discard, "", 0)
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && r.URL.Path == "/v1/completions" {
			n.Add(1)
		}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.URL, &n
}

// sweep spells warm-ups and labels as bench does: --num-warmups are
// vLLM's extra requests before each point, left out of it; --warmup-first
// marks a point's own first requests; --record-label (and --label, its
// old spelling) labels the records.
func TestSweepWarmupsAndLabelsAsBench(t *testing.T) {
	t.Run("num-warmups", func(t *testing.T) {
		base, sent := countingProxy(t)
		dir := t.TempDir()
		_, stderr, code := sweepCmd(t, t.Context(), nil, "--base-url", base, "--concurrency", "1,2", "--num-prompts", "4",
			"--min-rounds", "0", "--random-input-len", "16", "--random-output-len", "4", "--num-warmups", "2",
			"--record-label", "team=a", "--label", "branch=main", "--idle-timeout", "0", "--quiet", "--result-dir", dir)
		if code != ExitOK {
			t.Fatalf("exit %d\n%s", code, stderr)
		}
		for _, point := range []string{"c1", "c2"} {
			recs := readRecords(t, filepath.Join(dir, point+".jsonl"))
			if len(recs) != 4 {
				t.Errorf("%s: %d records, want the 4 of --num-prompts", point, len(recs))
			}
			for _, r := range recs {
				if r.Warmup || r.Labels["team"] != "a" || r.Labels["branch"] != "main" {
					t.Errorf("%s seq %d: warmup %v, labels %v; want no warm-up and both labels", point, r.Seq, r.Warmup, r.Labels)
					break
				}
			}
		}
		// Each point: its 2 warm-ups, then its 4 requests (the token-id
		// probe is one more completion, sent once per point).
		if got := sent.Load(); got < 2*(2+4) || got > 2*(2+4+1) {
			t.Errorf("the server got %d completions, want 2 points × (2 warm-ups + 4) and at most a probe each", got)
		}
	})
	t.Run("warmup-first", func(t *testing.T) {
		dir := t.TempDir()
		_, stderr, code := sweepCmd(t, t.Context(), nil, "--virtual", "--concurrency", "1", "--num-prompts", "5",
			"--min-rounds", "0", "--warmup-first", "2", "--result-dir", dir)
		if code != ExitOK {
			t.Fatalf("exit %d\n%s", code, stderr)
		}
		warm := 0
		recs := readRecords(t, filepath.Join(dir, "c1.jsonl"))
		for _, r := range recs {
			if r.Warmup {
				warm++
			}
		}
		if len(recs) != 5 || warm != 2 {
			t.Errorf("%d records, %d warm-up; want 5 and the first 2", len(recs), warm)
		}
	})
	t.Run("num-warmups with --virtual", func(t *testing.T) {
		_, stderr, code := sweepCmd(t, t.Context(), nil, "--virtual", "--concurrency", "1", "--num-warmups", "2")
		if code != ExitUsage || !strings.Contains(stderr, "--num-warmups") || !strings.Contains(stderr, "--warmup-first") {
			t.Errorf("exit %d: %s; want 2 pointing to --warmup-first", code, stderr)
		}
	})
}

// readRecords reads every record of a record file.
func readRecords(t *testing.T, path string) []record.Record {
	t.Helper()
	f, err := runfile.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []record.Record
	for {
		var r record.Record
		err := f.Next(&r)
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		out = append(out, r)
	}
}

// Without --result-dir a sweep's directory is named for the second it
// started in; a second sweep started in the same second (a virtual one
// takes less) gets the next free name instead of a refusal about a
// --result-dir it never gave.
func TestSweepDefaultDirOfSweepsStartedTogether(t *testing.T) {
	t.Chdir(t.TempDir())
	now := time.Now()
	for i := range 3 { // this second and the next two: wherever the sweep starts
		name := now.Add(time.Duration(i) * time.Second).Format(sweepDirLayout)
		if err := os.Mkdir(name, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(name, "c1.summary.json"), []byte("{}"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	stdout, stderr, code := sweepCmd(t, t.Context(), nil, "--virtual", "--concurrency", "1", "--num-prompts", "4")
	if code != ExitOK {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	dirs, _ := filepath.Glob("sweep-*-2")
	if len(dirs) != 1 || !strings.Contains(stdout, "Wrote "+dirs[0]+"/sweep.json") {
		t.Errorf("directories %v; want one …-2 named in the output:\n%s", dirs, stdout)
	}
}

// A sweep file that cannot be written is named as the user knows it, not
// by the temporary file beside it.
func TestSweepFileErrorNamesTheFile(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "sweep-config.json"), 0o755); err != nil {
		t.Fatal(err)
	}
	_, stderr, code := sweepCmd(t, t.Context(), nil, "--virtual", "--concurrency", "1", "--num-prompts", "2", "--result-dir", dir)
	if code != ExitTool || !strings.Contains(stderr, filepath.Join(dir, "sweep-config.json")+" is a directory") || strings.Contains(stderr, ".sweep-config.json.") {
		t.Errorf("exit %d: %s; want 1 naming %s/sweep-config.json and no temporary file", code, stderr, dir)
	}
}

// A sweep sends the requests bench would: the request flags (sampling,
// --stream, --request-id-prefix) reach every request of every point, and
// each request's x-request-id, kept in its record, names its point, so
// that ids stay apart across points whose requests are each numbered from
// 0. Without --request-id-prefix the ids begin sweep- and 8 hex digits;
// with an empty one there are none.
func TestSweepSendsTheRequestsBenchWould(t *testing.T) {
	_, base := simtest.Serve(t, sim.Options{Seed: 4})
	target, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	proxy := httputil.NewSingleHostReverseProxy(target)
	proxy.FlushInterval = -1
	proxy.ErrorLog = log.New(io.Discard, "", 0)
	var mu sync.Mutex
	bodies := map[string]map[string]any{} // by x-request-id
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if id := r.Header.Get("X-Request-Id"); r.Method == http.MethodPost && id != "" {
			b, _ := io.ReadAll(r.Body)
			var m map[string]any
			json.Unmarshal(b, &m)
			mu.Lock()
			bodies[id] = m
			mu.Unlock()
			r.Body = io.NopCloser(bytes.NewReader(b))
		}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	sweepOf := func(t *testing.T, extra ...string) string {
		dir := t.TempDir()
		args := append([]string{"--base-url", srv.URL, "--concurrency", "1,2", "--num-prompts", "3", "--min-rounds", "0",
			"--random-input-len", "16", "--random-output-len", "4", "--idle-timeout", "0", "--quiet", "--result-dir", dir}, extra...)
		if _, stderr, code := sweepCmd(t, t.Context(), nil, args...); code != ExitOK {
			t.Fatalf("exit %d\n%s", code, stderr)
		}
		return dir
	}

	dir := sweepOf(t, "--temperature", "0.5", "--top-k", "7", "--stream=false", "--request-id-prefix", "t-")
	for _, point := range []string{"c1", "c2"} {
		recs := readRecords(t, filepath.Join(dir, point+".jsonl"))
		if len(recs) != 3 {
			t.Fatalf("%s: %d records", point, len(recs))
		}
		for _, r := range recs {
			want := fmt.Sprintf("t-%s-%d", point, r.Seq)
			mu.Lock()
			body, sent := bodies[want]
			mu.Unlock()
			if r.RequestID != want || !sent {
				t.Fatalf("%s seq %d: record's id %q, sent %v; want %q", point, r.Seq, r.RequestID, sent, want)
			}
			if body["temperature"] != 0.5 || body["top_k"] != 7.0 || body["stream"] != false {
				t.Errorf("%s: request %s: temperature %v, top_k %v, stream %v; want 0.5, 7, false", point, want, body["temperature"], body["top_k"], body["stream"])
			}
		}
	}

	dir = sweepOf(t)
	id := regexp.MustCompile(`^sweep-[0-9a-f]{8}-c2-[0-2]$`)
	for _, r := range readRecords(t, filepath.Join(dir, "c2.jsonl")) {
		if !id.MatchString(r.RequestID) {
			t.Errorf("default id %q, want sweep-<8 hex digits>-c2-<seq>", r.RequestID)
		}
	}

	// An empty prefix sends no id: bare numbers would repeat across points.
	dir = sweepOf(t, "--request-id-prefix", "")
	for _, r := range readRecords(t, filepath.Join(dir, "c2.jsonl")) {
		if r.RequestID != "" {
			t.Errorf("id %q with an empty prefix, want none", r.RequestID)
		}
	}
}

// A sweep none of whose loads measured an output token fails, as bench
// does: here the server answers every request with a web page.
func TestSweepThatMeasuredNothingFails(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v1/models" {
			io.WriteString(w, `{"data":[{"id":"m"}]}`)
			return
		}
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, "<html><body>hello</body></html>")
	}))
	t.Cleanup(srv.Close)
	dir := filepath.Join(t.TempDir(), "sw")
	out, errOut, code := run(t, "", "sweep", "--base-url", srv.URL, "--concurrency", "1,2", "--num-prompts", "4",
		"--random-input-len", "8", "--random-output-len", "4", "--tokenizer", "none", "--result-dir", dir, "--quiet")
	if code != ExitTool || !strings.Contains(errOut, "none of the 2 loads measured an output token (error rate 100% at the first)") {
		t.Errorf("exit %d, want %d\n%s\n%s", code, ExitTool, errOut, out)
	}
}

// A sweep whose every request was answered 404 says so at its end, with
// the URL the requests went to, as bench does.
func TestSweepEveryRequestNotFound(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/health" {
			return
		}
		http.Error(w, `{"error":{"message":"File Not Found","type":"not_found_error","code":404}}`, http.StatusNotFound)
	}))
	t.Cleanup(srv.Close)
	dir := filepath.Join(t.TempDir(), "sw")
	_, errOut, code := run(t, "", "sweep", "--base-url", srv.URL, "--model", "m", "--backend", "tgi", "--concurrency", "1,2",
		"--num-prompts", "4", "--no-calibrate", "--no-server-metrics", "--result-dir", dir, "--quiet")
	want := "none of the 2 loads measured an output token (error rate 100% at the first): every request of a load failed: 4 http (http 404 Not Found"
	hint := "; the server has no POST " + srv.URL + "/generate_stream: --backend tgi sends its requests there, and --endpoint changes the path"
	if code != ExitTool || !strings.Contains(errOut, want) || !strings.Contains(errOut, hint) {
		t.Errorf("exit %d, %q; want 1, saying %q and %q", code, errOut, want, hint)
	}
}

// A short run hides overload: 300 requests at 40 req/s arrive in 7.5 s, the
// simulator's batch absorbs them and every one meets the SLO, but they end
// at about 24 req/s. The sweep marks 40 req/s short, warns with both rates,
// and takes 20 req/s as the operating point. The control measures 2000
// requests a point, where 20 req/s is delivered and 40 req/s misses the
// SLO outright, as the short point's attainment hid.
func TestSweepShortRatePoint(t *testing.T) {
	workload := []string{"--virtual", "--slo", "ttft<=500ms,tpot<=50ms", "--attainment", "0.99",
		"--random-input-len", "256", "--random-output-len", "256", "--ignore-eos", "--quiet"}
	run := func(prompts string, rates string) (sweep.Summary, string) {
		t.Helper()
		dir := t.TempDir()
		out, errOut, code := sweepCmd(t, t.Context(), nil, append(workload, "--request-rate", rates,
			"--num-prompts", prompts, "--result-dir", dir)...)
		if code != ExitOK {
			t.Fatalf("exit %d\n%s\n%s", code, errOut, out)
		}
		s, err := sweep.ReadFile(filepath.Join(dir, "sweep.json"))
		if err != nil {
			t.Fatal(err)
		}
		return s, out
	}

	s, out := run("300", "5,10,20,40")
	if op := s.Operating; !op.Found || op.Load != sweep.Rate(20) || !slices.Equal(op.Short, []sweep.Load{sweep.Rate(40)}) {
		t.Fatalf("operating point %+v, want 20 req/s with 40 req/s short", op)
	}
	p40 := s.Points[3]
	if p40.Mean.Attainment != 1 || p40.Mean.RequestThroughput/40 > 0.7 {
		t.Fatalf("40 req/s: attainment %v at %v req/s; the case needs 100 %% at well under 40", p40.Mean.Attainment, p40.Mean.RequestThroughput)
	}
	for _, want := range []string{
		"Warning: at an offered 40.0 req/s the server finished only " + human.Number(p40.Mean.RequestThroughput) +
			" req/s (" + human.Percent(p40.Mean.RequestThroughput/40) + " of it): the requests arrived faster than they ended.",
		"give more --num-prompts or a --duration so that each point reaches steady state.",
		"peak,short",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}

	s, out = run("2000", "20,40")
	if op := s.Operating; op.Load != sweep.Rate(20) || op.Short != nil || strings.Contains(out, "Warning:") {
		t.Errorf("control: operating point %+v\n%s", op, out)
	}
	if d, _ := s.Points[0].Delivery(); d.Share() < 0.95 || s.Points[1].Mean.Attainment > 0.5 {
		t.Errorf("control: 20 req/s delivered %v, 40 req/s attained %v; want ≥ 95 %% and under 50 %%", d.Share(), s.Points[1].Mean.Attainment)
	}
}

// The SLO search of the same workload: before, the short probes passed and
// it named 68 req/s; now a probe its server does not keep pace with fails,
// and the answer stays below the 26 req/s the server can end.
func TestSweepSearchShortRate(t *testing.T) {
	dir := t.TempDir()
	out, errOut, code := sweepCmd(t, t.Context(), nil, "--virtual", "--search", "rate", "--slo", "ttft<=500ms,tpot<=50ms",
		"--attainment", "0.99", "--num-prompts", "300", "--random-input-len", "256", "--random-output-len", "256",
		"--ignore-eos", "--quiet", "--result-dir", dir)
	if code != ExitOK {
		t.Fatalf("exit %d\n%s\n%s", code, errOut, out)
	}
	s, err := sweep.ReadFile(filepath.Join(dir, "sweep.json"))
	if err != nil {
		t.Fatal(err)
	}
	op := s.Operating
	if !op.Found || op.Load.Value < 16 || op.Load.Value > 26 || len(op.Short) == 0 {
		t.Fatalf("operating point %+v, want between 16 and 26 req/s, with short loads above", op)
	}
	want := fmt.Sprintf("Search: highest load meeting 99 %% SLO attainment: %s (it fails at ", op.Load.Short())
	if !strings.Contains(out, want) || !strings.Contains(out, "the server did not keep pace: it finished") {
		t.Errorf("output lacks %q and the reason:\n%s", want, out)
	}
}
