package sweepserve

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/sweep"
)

// The test binary doubles as the commands a sweep runs: with
// SWEEPSERVE_HELPER set, "… serve" is a fake server, "… bench" a fake
// benchmark, "… touch FILE" appends a line to FILE and "… sleep" sleeps.
func TestMain(m *testing.M) {
	if os.Getenv("SWEEPSERVE_HELPER") == "" {
		os.Exit(m.Run())
	}
	args := os.Args[1:]
	switch {
	case len(args) > 0 && args[0] == "serve":
		fakeServe(args[1:])
	case len(args) > 0 && args[0] == "bench":
		os.Exit(fakeBench(args[1:]))
	case len(args) > 0 && args[0] == "sweep":
		os.Exit(fakeSweep(args[1:]))
	case len(args) > 1 && args[0] == "touch":
		f, _ := os.OpenFile(args[1], os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		fmt.Fprintln(f, "after")
		f.Close()
	case len(args) > 0 && args[0] == "sleep":
		time.Sleep(time.Hour)
	default:
		fmt.Fprintln(os.Stderr, "helper: unknown command", args)
		os.Exit(2)
	}
	os.Exit(0)
}

// option is the value of --name in args, as the next word or after "=".
func option(args []string, name string) string {
	for i, a := range args {
		if a == "--"+name && i+1 < len(args) {
			return args[i+1]
		}
		if v, ok := strings.CutPrefix(a, "--"+name+"="); ok {
			return v
		}
	}
	return ""
}

func has(args []string, name string) bool {
	for _, a := range args {
		if a == "--"+name {
			return true
		}
	}
	return false
}

// fakeServe serves /health on --port and prints what it is asked, so that
// a test reads its log. --exit-early fails at once; --ignore-term outlives
// SIGTERM; --child starts a process of its own (its pid printed); --old
// has no /reset_encoder_cache.
func fakeServe(args []string) {
	fmt.Printf("argv %s\n", strings.Join(args, " "))
	if m := os.Getenv("SERVE_MARK"); m != "" {
		fmt.Printf("SERVE_MARK=%s\n", m)
	}
	if has(args, "exit-early") {
		fmt.Println("boom: no GPU")
		os.Exit(3)
	}
	if has(args, "child") {
		c := exec.Command(os.Args[0], "sleep")
		c.Env = os.Environ()
		if err := c.Start(); err != nil {
			panic(err)
		}
		fmt.Printf("child %d\n", c.Process.Pid)
	}
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM)
	ln, err := net.Listen("tcp", "127.0.0.1:"+option(args, "port"))
	if err != nil {
		fmt.Println(err)
		os.Exit(1)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /health", func(w http.ResponseWriter, r *http.Request) {})
	for _, p := range []string{"/reset_prefix_cache", "/reset_mm_cache", "/reset_encoder_cache"} {
		mux.HandleFunc("POST "+p, func(w http.ResponseWriter, r *http.Request) {
			if p == "/reset_encoder_cache" && has(args, "old") {
				http.NotFound(w, r)
				return
			}
			fmt.Printf("reset %s\n", p)
		})
	}
	go http.Serve(ln, mux)
	for range sig {
		if !has(args, "ignore-term") {
			os.Exit(0)
		}
		fmt.Println("ignoring SIGTERM")
	}
}

// fakeBench writes a result as vllm bench serve would, after checking that
// the server it was pointed at answers. Its output throughput is 10 ×
// --max-concurrency; --fail-once FILE fails (status 1) when FILE does not
// exist yet, creating it; --sleep waits first, and SIGINT then makes it
// write a result and exit 130, as goodput bench does.
func fakeBench(args []string) int {
	if p := option(args, "fail-once"); p != "" {
		if _, err := os.Stat(p); err != nil {
			os.WriteFile(p, nil, 0o644)
			fmt.Fprintln(os.Stderr, "fake bench: failing once")
			return 1
		}
	}
	out := filepath.Join(option(args, "result-dir"), option(args, "result-filename"))
	conc, _ := strconv.Atoi(option(args, "max-concurrency"))
	prompts, _ := strconv.Atoi(option(args, "num-prompts"))
	// --ttft-per-request makes p99 TTFT that many ms per request in
	// flight, and the run reports the most in flight at once: the
	// concurrency, at most --num-prompts.
	ttft, extra := "12.25", ""
	if per := option(args, "ttft-per-request"); per != "" {
		x, _ := strconv.ParseFloat(per, 64)
		ttft = strconv.FormatFloat(x*float64(min(conc, prompts)), 'f', -1, 64)
		extra = fmt.Sprintf(`, "max_concurrent_requests": %d`, min(conc, prompts))
	}
	if m := os.Getenv("BENCH_MARK"); m != "" {
		extra += fmt.Sprintf(`, "bench_mark": %q`, m)
	}
	write := func() {
		argv, _ := json.Marshal(args)
		os.WriteFile(out, []byte(fmt.Sprintf(`{"date": "d", "completed": %d, "output_throughput": %d.5, "max_concurrency": %d, "p99_ttft_ms": %s%s, "argv": %s}`,
			prompts, 10*conc, conc, ttft, extra, argv)), 0o644)
	}
	if has(args, "no-result") {
		return 0
	}
	if d := option(args, "sleep"); d != "" {
		if p := option(args, "started"); p != "" {
			os.WriteFile(p, nil, 0o644)
		}
		dur, _ := time.ParseDuration(d)
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
		defer stop()
		select {
		case <-ctx.Done():
			write()
			return 130
		case <-time.After(dur):
		}
	}
	resp, err := http.Get(option(args, "base-url") + "/health")
	if err != nil || resp.StatusCode != 200 {
		fmt.Fprintln(os.Stderr, "fake bench: server not there:", err)
		return 1
	}
	write()
	return 0
}

// fakeSweep writes a sweep file into --result-dir as goodput sweep would:
// loads 1, 2 and 4 (concurrency), each delivering 100 tok/s per request in
// flight, all meeting the SLO up to --max-good and none above it.
func fakeSweep(args []string) int {
	dir := option(args, "result-dir")
	good, _ := strconv.Atoi(option(args, "max-good"))
	var points []sweep.Point
	for _, c := range []int{1, 2, 4} {
		att := 1.0
		if c > good {
			att = 0.25
		}
		s := sweep.Sample{Requests: 40, Window: 10, RequestThroughput: float64(c), OutputThroughput: 100 * float64(c),
			Goodput: 100 * float64(c) * att, RequestGoodput: float64(c) * att, Attainment: att,
			TTFT: sweep.Dist{Mean: 0.01 * float64(c), P50: 0.01 * float64(c), P90: 0.02 * float64(c), P99: 0.03 * float64(c)},
			TPOT: sweep.Dist{Mean: 0.005, P50: 0.005, P90: 0.006, P99: 0.007},
			ITL:  sweep.Dist{Mean: 0.005, P50: 0.005, P90: 0.006, P99: 0.007},
			E2E:  sweep.Dist{Mean: 0.5, P50: 0.5, P90: 0.6, P99: 0.7}, LittleL: float64(c) / 2, LittleLambdaW: float64(c) / 2}
		p, err := sweep.NewPoint(sweep.Concurrency(c), s)
		if err != nil {
			panic(err)
		}
		points = append(points, p)
	}
	sum, err := sweep.Analyze(points, sweep.Options{Target: 0.9})
	if err != nil {
		panic(err)
	}
	os.MkdirAll(dir, 0o755)
	f, err := os.Create(filepath.Join(dir, "sweep.json"))
	if err != nil {
		panic(err)
	}
	defer f.Close()
	if err := sweep.WriteJSON(f, sum); err != nil {
		panic(err)
	}
	return 0
}

// helperBin links the test binary into a folder as name (vllm makes the
// sweep take it for vLLM), and returns its path.
func helperBin(t *testing.T, name string) string {
	t.Helper()
	t.Setenv("SWEEPSERVE_HELPER", "1")
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), name)
	if err := os.Symlink(exe, p); err != nil {
		t.Fatal(err)
	}
	return p
}

func freePort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
}

// sweepConfig is a sweep of the fake vLLM server and benchmark.
func sweepConfig(t *testing.T, serveArgs ...string) Config {
	t.Helper()
	vllm := helperBin(t, "vllm")
	return Config{
		ServeCmd:     append([]string{vllm, "serve", "model", "--port", freePort(t)}, serveArgs...),
		BenchCmd:     []string{"vllm", "bench", "serve", "--model", "model", "--num-prompts", "50", "--max-concurrency", "4"},
		OutputDir:    t.TempDir(),
		Experiment:   "exp",
		NumRuns:      1,
		ReadyTimeout: 20 * time.Second,
		StopGrace:    5 * time.Second,
		Goodput:      []string{vllm},
	}
}

func readObject(t *testing.T, path string) Object {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var o Object
	if err := json.Unmarshal(b, &o); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return o
}

func keys(o Object) []string {
	var ks []string
	for _, f := range o {
		ks = append(ks, f.Key)
	}
	return ks
}

func readText(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func jsonUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }

func netListen(addr string) (net.Listener, error) { return net.Listen("tcp", addr) }
