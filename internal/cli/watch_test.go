package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/internal/simtest"
	"github.com/goodput-dev/goodput/serverview"
	"github.com/goodput-dev/goodput/sim"
)

// runWatch runs `goodput watch args…` with ctx and returns its stdout,
// stderr and exit code.
func runWatch(ctx context.Context, terminal bool, args ...string) (string, string, int, error) {
	var out, errOut bytes.Buffer
	env := &Env{Stdout: &out, Stderr: &errOut, Stdin: strings.NewReader(""), Getenv: func(string) string { return "" }, IsTerminal: terminal}
	root := NewRoot(env)
	root.SetArgs(append([]string{"watch"}, args...))
	err := root.ExecuteContext(ctx)
	return out.String(), errOut.String(), Code(err), err
}

// snapshot runs `goodput watch URL --once --format json` and decodes it.
func snapshot(t *testing.T, url string, extra ...string) serverview.View {
	t.Helper()
	args := append([]string{url, "--once", "--format", "json", "--interval", "200ms", "--window", "1s"}, extra...)
	out, _, code, err := runWatch(context.Background(), false, args...)
	if code != ExitOK {
		t.Fatalf("watch --once: exit %d: %v", code, err)
	}
	var v serverview.View
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatalf("watch --once printed %q: %v", out, err)
	}
	if strings.Count(out, "\n") != 1 {
		t.Errorf("watch --once printed %d lines, want one JSON object", strings.Count(out, "\n"))
	}
	return v
}

func TestWatchUsage(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string // fragment of the error
	}{
		// No URL.
		{"no url", nil, "want one URL"},
		// Two URLs.
		{"two urls", []string{"http://a", "http://b"}, "got 2 arguments"},
		// A zero interval would scrape in a busy loop.
		{"zero interval", []string{"http://a", "--interval", "0s"}, "--interval 0s: must be positive"},
		// A negative interval.
		{"negative interval", []string{"http://a", "--interval", "-1s"}, "--interval -1s: must be positive"},
		// A window shorter than one interval holds no difference.
		{"window under interval", []string{"http://a", "--interval", "2s", "--window", "1s"}, "--window 1s: must be at least --interval (2s)"},
		// A negative timeout.
		{"negative timeout", []string{"http://a", "--timeout", "-1s"}, "--timeout -1s: must not be negative"},
		// An unknown format.
		{"bad format", []string{"http://a", "--format", "xml"}, `--format "xml": want text or json`},
		// A URL that is not http.
		{"bad scheme", []string{"ftp://host/metrics"}, `server url "ftp://host/metrics": scheme "ftp" is not http or https`},
		// An empty URL.
		{"empty url", []string{""}, "server url is empty"},
		// A flag that is not a duration.
		{"bad duration", []string{"http://a", "--interval", "soon"}, `--interval "soon": want a duration with its unit`},
		// The URL twice, as an argument and as bench takes it.
		{"url and base-url", []string{"http://a", "--base-url", "http://b"}, "not both"},
		// --base-url is checked as the argument is.
		{"bad base-url", []string{"--base-url", "ftp://host"}, `scheme "ftp" is not http or https`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, _, code, err := runWatch(context.Background(), false, tt.args...)
			if code != ExitUsage || err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("exit %d, err %v; want exit %d and an error containing %q", code, err, ExitUsage, tt.want)
			}
			if out != "" {
				t.Errorf("printed %q on a usage error", out)
			}
		})
	}
}

// TestWatchOnceDown checks that a server that is down gives a JSON
// snapshot saying so, and exit status 1 for scripts.
func TestWatchOnceDown(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + ln.Addr().String()
	ln.Close()
	out, _, code, err := runWatch(context.Background(), false, url, "--once", "--format", "json", "--interval", "50ms")
	if code != ExitTool || err == nil || !strings.Contains(err.Error(), "server down") {
		t.Fatalf("exit %d, err %v; want exit 1 naming the server down", code, err)
	}
	var v serverview.View
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatalf("printed %q: %v", out, err)
	}
	if v.Status.Level != serverview.LevelUnknown || !strings.Contains(v.Error, "server down") || v.URL != url+"/metrics" {
		t.Errorf("snapshot = %+v, want an unknown status naming the failure at %s/metrics", v, url)
	}
	// The same server given as bench takes it.
	out, _, code, _ = runWatch(context.Background(), false, "--base-url", url, "--once", "--format", "json", "--interval", "50ms")
	if err := json.Unmarshal([]byte(out), &v); err != nil || code != ExitTool || v.URL != url+"/metrics" {
		t.Errorf("--base-url: exit %d, snapshot %q (%v); want the same snapshot of %s/metrics", code, out, err, url)
	}
}

// TestWatchModel checks the --model filter against the simulator, which
// labels its metrics with its served model name.
func TestWatchModel(t *testing.T) {
	_, base := simtest.Serve(t, sim.Options{ServedModelName: "served/one"})
	if v := snapshot(t, base, "--model", "served/one"); v.Running == nil || v.Status.Level != serverview.LevelOK || v.Model != "served/one" {
		t.Errorf("--model served/one: %+v", v)
	}
	out, _, code, err := runWatch(context.Background(), false, base, "--once", "--format", "json", "--interval", "50ms", "--model", "other")
	want := `model "other" is not in the server's metrics (it reports served/one)`
	if code != ExitTool || err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("--model other: exit %d, err %v; want exit 1 and %q", code, err, want)
	}
	var v serverview.View
	if err := json.Unmarshal([]byte(out), &v); err != nil || v.Status.Level != serverview.LevelUnknown || v.Running != nil {
		t.Errorf("--model other printed %q (%v): want a snapshot with an unknown status and no numbers", out, err)
	}
}

// TestWatchSimulatorUnderLoad watches the simulator before, during and
// after a load of 32 streaming clients on 8 sequences, through the cobra
// command, and checks that the numbers and the status follow the load.
func TestWatchSimulatorUnderLoad(t *testing.T) {
	_, base := simtest.Serve(t, sim.Options{MaxNumSeqs: 8, Seed: 7})

	idle := snapshot(t, base+"/v1")
	if idle.Engine != "vllm" || idle.Running == nil || *idle.Running != 0 || idle.Status.Text != "idle: nothing running or waiting, KV 0 %" {
		t.Fatalf("before the load: %+v", idle)
	}

	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		// Far more requests than the test waits for: the load runs until cancelled.
		if _, err := simtest.Drive(ctx, base, simtest.Load{Workers: 32, Requests: 1000, MaxTokens: 16}, time.Now()); err != nil {
			t.Error(err)
		}
	}()
	stop := func() { cancel(); wg.Wait() }
	defer stop()
	time.Sleep(500 * time.Millisecond) // let the queue form

	var busy []serverview.View
	for i := 0; i < 3; i++ {
		busy = append(busy, snapshot(t, base+"/metrics"))
	}
	for i, v := range busy {
		// Up to the 8 sequences run (one may be between requests) and the
		// other clients' requests queue.
		if v.Running == nil || *v.Running < 1 || *v.Running > 8 || v.Waiting == nil || *v.Waiting < 1 {
			t.Errorf("busy %d: running %v waiting %v; want 1–8 running and a queue", i, deref(v.Running), deref(v.Waiting))
		}
		if v.GenerationTokensPerSecond == nil || *v.GenerationTokensPerSecond <= 0 || v.TTFT.P50 == nil || v.TTFT.P99 == nil {
			t.Errorf("busy %d: generation %v tok/s, ttft %+v; want tokens flowing and TTFT percentiles", i, deref(v.GenerationTokensPerSecond), v.TTFT)
		}
		// Queued for several steps: the queue is a large share of latency.
		if v.QueueShare == nil || *v.QueueShare < serverview.QueueShareLow {
			t.Errorf("busy %d: queue share %v, want at least %v", i, deref(v.QueueShare), serverview.QueueShareLow)
		}
		if v.Status.Level != serverview.LevelWarn && v.Status.Level != serverview.LevelCritical || !strings.Contains(v.Status.Text, "waiting") && !strings.Contains(v.Status.Text, "queue") {
			t.Errorf("busy %d: status %+v, want a warning about the queue", i, v.Status)
		}
		t.Logf("busy %d: running %v waiting %v gen %.0f tok/s ttft p50 %.1f ms p99 %.1f ms: %s", i, *v.Running, *v.Waiting,
			*v.GenerationTokensPerSecond, 1e3*v.TTFT.P50.Value, 1e3*v.TTFT.P99.Value, v.Status.Text)
	}
	// Queueing behind eight running sequences, first tokens come far later
	// than on the idle server.
	if p50 := busy[0].TTFT.P50; p50 != nil && p50.Value < 0.1 {
		t.Errorf("busy TTFT p50 %.1f ms: want the queue in it (at least 100 ms)", 1e3*p50.Value)
	}

	stop()
	time.Sleep(1200 * time.Millisecond) // drain, and let the 1 s window pass
	after := snapshot(t, base+"/metrics")
	if after.Running == nil || *after.Running != 0 || after.GenerationTokensPerSecond == nil || *after.GenerationTokensPerSecond != 0 {
		t.Errorf("after the load: running %v, generation %v tok/s; want 0 and 0", deref(after.Running), deref(after.GenerationTokensPerSecond))
	}
	if after.Status.Level != serverview.LevelOK || !strings.HasPrefix(after.Status.Text, "idle") {
		t.Errorf("after the load: status %+v, want idle", after.Status)
	}
}

// TestWatchContinuous checks the three ways a running watch shows its
// refreshes: table rows when not on a terminal, a redrawn block on one,
// and JSON lines.
func TestWatchContinuous(t *testing.T) {
	_, base := simtest.Serve(t, sim.Options{})
	tests := []struct {
		name     string
		terminal bool
		args     []string
		check    func(t *testing.T, out string)
	}{
		// Not a terminal: a heading, then one row per refresh.
		{"plain", false, nil, func(t *testing.T, out string) {
			lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
			if len(lines) < 3 || lines[0] != serverview.ViewHeader() {
				t.Fatalf("want a heading and at least two rows, got %q", out)
			}
			for _, l := range lines[1:] {
				if !strings.HasSuffix(l, "idle: nothing running or waiting, KV 0 %") {
					t.Errorf("row %q lacks the idle status", l)
				}
			}
		}},
		// A terminal: each refresh clears the screen and redraws the block.
		{"terminal", true, nil, func(t *testing.T, out string) {
			if n := strings.Count(out, clearScreen); n < 2 || !strings.HasPrefix(out, clearScreen) || strings.Count(out, "Status:") != n {
				t.Errorf("want each of at least two refreshes to clear and redraw, got %q", out)
			}
		}},
		// --plain on a terminal appends rows anyway.
		{"plain on a terminal", true, []string{"--plain"}, func(t *testing.T, out string) {
			if strings.Contains(out, clearScreen) || !strings.HasPrefix(out, serverview.ViewHeader()+"\n") {
				t.Errorf("--plain redrew the screen: %q", out)
			}
		}},
		// JSON: one object a line.
		{"json", false, []string{"--format", "json"}, func(t *testing.T, out string) {
			lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
			if len(lines) < 2 {
				t.Fatalf("want at least two JSON lines, got %q", out)
			}
			for _, l := range lines {
				var v serverview.View
				if err := json.Unmarshal([]byte(l), &v); err != nil || v.Status.Level != serverview.LevelOK {
					t.Errorf("line %q: %v, status %+v", l, err, v.Status)
				}
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// Stopped by its context, as Ctrl-C stops it: exit 0.
			ctx, cancel := context.WithTimeout(context.Background(), 450*time.Millisecond)
			defer cancel()
			out, _, code, err := runWatch(ctx, tt.terminal, append([]string{base, "--interval", "100ms", "--window", "1s"}, tt.args...)...)
			if code != ExitOK {
				t.Fatalf("exit %d: %v", code, err)
			}
			tt.check(t, out)
		})
	}
}

func deref(p *float64) any {
	if p == nil {
		return nil
	}
	return *p
}

// A server whose metrics name no model (llama.cpp, TGI) is watched
// whole with --model, and watch says so once instead of filtering
// silently.
func TestWatchModelOfAServerThatNamesNone(t *testing.T) {
	prom, err := os.ReadFile("../../promscrape/testdata/llamacpp.prom")
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; version=0.0.4")
		w.Write(prom)
	}))
	defer ts.Close()
	out, errOut, code, err := runWatch(context.Background(), false, ts.URL, "--once", "--format", "json", "--interval", "50ms", "--model", "foo")
	want := "goodput watch: --model foo: the server's metrics (llamacpp) name no model, so they are the whole server's\n"
	if code != ExitOK || errOut != want {
		t.Errorf("exit %d (%v), stderr %q; want 0 and %q", code, err, errOut, want)
	}
	var v serverview.View
	if err := json.Unmarshal([]byte(out), &v); err != nil || v.Running == nil {
		t.Errorf("printed %q (%v): want the server's numbers", out, err)
	}
}
