package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goodput-dev/goodput/sweep"
)

// runPlan runs `goodput plan args…` and returns its stdout and exit code.
func runPlan(t *testing.T, args ...string) (string, int, error) {
	t.Helper()
	var out, errOut bytes.Buffer
	env := &Env{Stdout: &out, Stderr: &errOut, Stdin: strings.NewReader(""), Getenv: func(string) string { return "" }}
	root := NewRoot(env)
	root.SetArgs(append([]string{"plan"}, args...))
	err := root.ExecuteContext(context.Background())
	return out.String(), Code(err), err
}

func TestPlanCommand(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want []string // lines or fragments the output must hold
	}{
		// The seed's example: 64 slots ÷ 4 s = 16 QPS; 100 QPS → 7.
		{"little", []string{"--max-num-seqs", "64", "--latency", "4s", "--peak-qps", "100"}, []string{
			"7 replicas (7 GPUs) for 100 req/s at peak.",
			"λ = 64 requests in flight (max-num-seqs) ÷ 4.00 s mean latency = 16.0 req/s per replica",
			"replicas = ⌈100 req/s ÷ 16.0 req/s⌉ = ⌈6.25⌉ = 7",
		}},
		// 20 % headroom: ⌈120 ÷ 16⌉ = 8; with 250 tokens a request and 2
		// GPUs at $2.50: $5 ÷ (4,000 × 3,600) × 1e6 = $0.347 per million
		// for a replica, $40 ÷ (25,000 × 3,600) × 1e6 = $0.444 at the peak.
		{"headroom and cost", []string{"--max-num-seqs", "64", "--latency", "4s", "--peak-qps", "100",
			"--headroom", "20%", "--output-tokens", "250", "--gpu-hour-cost", "2.50", "--gpus-per-replica", "2"}, []string{
			"8 replicas (16 GPUs) for 100 req/s at peak with 20 % headroom: 32,000 output tok/s of capacity, $40.00 an hour, $0.444 per million output tokens at the peak.",
			"demand = 100 req/s peak × (1 + 20 % headroom) = 120 req/s",
			"per million output tokens at the operating point = $5.00 ÷ (4,000 tok/s × 3,600 s) × 1,000,000 = $0.347",
		}},
		// Headroom as a fraction, QPS given directly: ⌈50 × 1.1 ÷ 5⌉ = 11.
		{"per-replica qps", []string{"--per-replica-qps", "5", "--peak-qps", "50", "--headroom", "0.1"}, []string{
			"11 replicas (11 GPUs) for 50.0 req/s at peak with 10 % headroom.",
		}},
		// No peak: one replica's figures.
		{"no peak", []string{"--max-num-seqs", "8", "--latency", "500ms", "--output-tokens", "100", "--currency", "€", "--gpu-hour-cost", "1"}, []string{
			"One replica sustains 16.0 req/s (1,600 output tok/s) at €0.174 per million output tokens; give --peak-qps to size a fleet.",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, code, err := runPlan(t, tt.args...)
			if err != nil || code != ExitOK {
				t.Fatalf("exit %d: %v", code, err)
			}
			for _, w := range tt.want {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
		})
	}
}

func TestPlanCommandErrors(t *testing.T) {
	tests := []struct {
		name string
		args []string
		code int
		err  string
	}{
		{"nothing", []string{"--peak-qps", "10"}, ExitUsage, "no per-replica throughput"},
		{"zero latency", []string{"--max-num-seqs", "64", "--latency", "0s"}, ExitUsage, "--latency 0s: must be positive"},
		{"negative latency", []string{"--max-num-seqs", "64", "--latency", "-4s"}, ExitUsage, "--latency -4s: must be positive"},
		{"latency alone", []string{"--latency", "4s"}, ExitUsage, "needs --max-num-seqs"},
		{"zero qps", []string{"--per-replica-qps", "0", "--peak-qps", "10"}, ExitUsage, "--per-replica-qps 0: must be positive"},
		{"nan qps", []string{"--per-replica-qps", "NaN"}, ExitUsage, "--per-replica-qps NaN"},
		// Zero and a negative peak are refused in the same words.
		{"zero peak", []string{"--per-replica-qps", "1", "--peak-qps", "0"}, ExitUsage, "--peak-qps 0: must be positive"},
		{"negative peak", []string{"--per-replica-qps", "1", "--peak-qps", "-3"}, ExitUsage, "--peak-qps -3: must be positive"},
		{"infinite peak", []string{"--per-replica-qps", "1", "--peak-qps", "+Inf"}, ExitUsage, "--peak-qps +Inf: must be a positive, finite number"},
		{"bad headroom", []string{"--per-replica-qps", "1", "--headroom", "lots"}, ExitUsage, `--headroom: headroom "lots": not a number`},
		{"negative headroom", []string{"--per-replica-qps", "1", "--headroom", "-50%"}, ExitUsage, `--headroom: headroom "-50%": negative`},
		{"exponent headroom", []string{"--per-replica-qps", "1", "--headroom", "1e308"}, ExitUsage, `--headroom: headroom "1e308": write it in plain digits`},
		{"percent typed as fraction", []string{"--per-replica-qps", "1", "--headroom", "20"}, ExitUsage, "did you mean 20%?"},
		{"zero gpus", []string{"--per-replica-qps", "1", "--gpus-per-replica", "0"}, ExitUsage, "--gpus-per-replica 0"},
		{"not a number", []string{"--peak-qps", "many"}, ExitUsage, `--peak-qps "many": want a number`},
		{"stray argument", []string{"sweep.json"}, ExitUsage, `unexpected argument "sweep.json" (a sweep file goes after --from)`},
		{"missing file", []string{"--from", filepath.Join(t.TempDir(), "none.json")}, ExitTool, "none.json"},
		// Tokens per request and a replica's token rate would disagree:
		// 3,000 ÷ 15 is 200, not 250.
		{"tokens twice", []string{"--per-replica-qps", "15", "--output-throughput", "3000", "--output-tokens", "250"}, ExitUsage,
			"--output-tokens 250 and --output-throughput 3000: give one"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, code, err := runPlan(t, tt.args...)
			if err == nil || code != tt.code || !strings.Contains(err.Error(), tt.err) {
				t.Fatalf("exit %d, %v; want %d with %q", code, err, tt.code, tt.err)
			}
		})
	}
}

func writeSweep(t *testing.T, target float64) string {
	t.Helper()
	mk := func(c int, reqs, e2e, att float64) sweep.Point {
		p, err := sweep.NewPoint(sweep.Concurrency(c), sweep.Sample{Requests: 500, RequestThroughput: reqs,
			OutputThroughput: reqs * 200, Goodput: reqs * 200 * att, Attainment: att,
			E2E: sweep.Dist{Mean: e2e, P50: e2e, P90: e2e, P99: e2e}})
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	s, err := sweep.Analyze([]sweep.Point{mk(8, 2, 4, 0.99), mk(16, 3.8, 4.2, 0.93), mk(32, 4, 8, 0.4)}, sweep.Options{Target: target})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "sweep.json")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := sweep.WriteJSON(f, s); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestPlanCommandFromSweep(t *testing.T) {
	path := writeSweep(t, 0.9)
	// The operating point is concurrency 16: 3.8 req/s and 760 tok/s.
	// 100 QPS needs ⌈26.3⌉ = 27 replicas; 27 × 760 = 20,520 tok/s.
	out, code, err := runPlan(t, "--from", path, "--peak-qps", "100")
	if err != nil || code != ExitOK {
		t.Fatalf("exit %d: %v", code, err)
	}
	for _, w := range []string{
		"27 replicas (27 GPUs) for 100 req/s at peak: 20,520 output tok/s of capacity.",
		"from " + path + "'s operating point, 16 concurrent requests (SLO attainment 93 % ≥ 90 %)",
		// Little's Law from the sweep's own numbers: 16 ÷ 4.2 s = 3.81.
		"Little's Law check: 3.81 req/s against 3.80 req/s measured, 0.3 % apart",
		"tokens per request, as measured: 760 tok/s ÷ 3.80 req/s = 200",
		"per replica = 3.80 req/s × 200 tokens per request = 760 tok/s",
	} {
		if !strings.Contains(out, w) {
			t.Errorf("output lacks %q:\n%s", w, out)
		}
	}

	// A flag overrides the sweep: 5 req/s per replica → ⌈100 ÷ 5⌉ = 20,
	// and the rate is labelled as given, not measured.
	out, _, err = runPlan(t, "--from", path, "--peak-qps", "100", "--per-replica-qps", "5")
	if err != nil || !strings.HasPrefix(out, "20 replicas") || !strings.Contains(out, "per-replica throughput, as given: 5.00 req/s") {
		t.Errorf("override: %v\n%s", err, out)
	}

	// No load met a 99.9 % target: no operating point to plan from.
	path = writeSweep(t, 0.999)
	_, code, err = runPlan(t, "--from", path, "--peak-qps", "100")
	if code != ExitTool || err == nil || !strings.Contains(err.Error(), "no operating point: the lowest load, 8, reached only 99 %") {
		t.Errorf("sweep without an operating point: exit %d, %v", code, err)
	}

	// A broken file names itself.
	bad := filepath.Join(t.TempDir(), "bad.json")
	if err := os.WriteFile(bad, []byte(`{"schema":1,"points":[{"load":"c=0"}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	_, code, err = runPlan(t, "--from", bad)
	if code != ExitTool || err == nil || !strings.Contains(err.Error(), bad+": sweep file") {
		t.Errorf("broken sweep file: exit %d, %v", code, err)
	}
}

// Figures outside their domain in a sweep file are the file's fault
// (exit 1, naming the file, point and key), never a usage error that
// asks for flags already given.
func TestPlanFromASweepWithImpossibleFigures(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name, sample, want string
	}{
		// 200 % attainment
		{"attainment.json", `{"requests":100,"request_throughput":3,"attainment":2}`, `point 1: repeat 1: "attainment" 2: must be from 0 to 1`},
		// negative throughput
		{"negative.json", `{"requests":100,"request_throughput":-3,"attainment":0.95}`, `point 1: repeat 1: "request_throughput" -3: must be ≥ 0`},
		// no server delivers 1e308 tok/s: planned, it was "inf tok/s of capacity" at "$0.00 per million tokens"
		{"huge-tokens.json", `{"requests":100,"request_throughput":3,"output_throughput":1e308,"attainment":0.95}`, `point 1: repeat 1: "output_throughput" 1e+308: above 1e9 tok/s, more than any run measures`},
		{"huge-requests.json", `{"requests":100,"request_throughput":2e7,"attainment":0.95}`, `point 1: repeat 1: "request_throughput" 2e+07: above 1e7 req/s, more than any run measures`},
	}
	for _, tc := range tests {
		path := filepath.Join(dir, tc.name)
		in := `{"schema":1,"points":[{"load":"c=16","repeats":[` + tc.sample + `]}]}`
		if err := os.WriteFile(path, []byte(in), 0o644); err != nil {
			t.Fatal(err)
		}
		out, code, err := runPlan(t, "--from", path, "--peak-qps", "100")
		if code != ExitTool || err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), tc.want) ||
			strings.Contains(err.Error(), "give --") || out != "" {
			t.Errorf("%s: exit %d, %v\n%s", tc.name, code, err, out)
		}
	}
	// A latency under a nanosecond: planned from the measured rate, with
	// no word of a --latency nobody gave.
	path := filepath.Join(dir, "tiny.json")
	in := `{"schema":1,"points":[{"load":"c=16","repeats":[{"requests":100,"request_throughput":3.8,"attainment":0.95,"e2e_mean":1e-300}]}]}`
	if err := os.WriteFile(path, []byte(in), 0o644); err != nil {
		t.Fatal(err)
	}
	out, code, err := runPlan(t, "--from", path, "--peak-qps", "100")
	if code != ExitOK || !strings.HasPrefix(out, "27 replicas") {
		t.Errorf("tiny latency: exit %d, %v\n%s", code, err, out)
	}
}

// --format json gives every figure with its input, undefined ones null.
func TestPlanCommandJSON(t *testing.T) {
	out, errOut, code := run(t, "", "plan", "--max-num-seqs", "64", "--latency", "4s", "--peak-qps", "100", "--headroom", "20%", "--format", "json")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var p struct {
		Input struct {
			MaxNumSeqs     int      `json:"max_num_seqs"`
			LatencySeconds float64  `json:"latency_seconds"`
			GPUHourCost    *float64 `json:"gpu_hour_cost"`
		} `json:"input"`
		PerReplicaQPS  float64  `json:"per_replica_qps"`
		Replicas       int      `json:"replicas"`
		CostPerMillion *float64 `json:"cost_per_million_tokens"`
		Summary        string   `json:"summary"`
	}
	if err := json.Unmarshal([]byte(out), &p); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	// 64 ÷ 4 s = 16 req/s a replica; ⌈100 × 1.2 ÷ 16⌉ = 8.
	if p.Input.MaxNumSeqs != 64 || p.Input.LatencySeconds != 4 || p.PerReplicaQPS != 16 || p.Replicas != 8 ||
		p.Input.GPUHourCost != nil || p.CostPerMillion != nil || !strings.HasPrefix(p.Summary, "8 replicas") {
		t.Errorf("plan %+v\n%s", p, out)
	}
	if _, errOut, code := run(t, "", "plan", "--per-replica-qps", "3", "--format", "yaml"); code != ExitUsage || !strings.Contains(errOut, `--format "yaml"`) {
		t.Errorf("exit %d %s", code, errOut)
	}
}

// Tokens per request come from the sweep's measurement, whatever request
// rate a flag gives. The sweep's operating point (concurrency 16) made
// 760 tok/s at 3.8 req/s, 200 tokens a request. At 20 req/s a replica,
// a peak of 100 needs ⌈100 ÷ 20⌉ = 5 replicas, each making 20 × 200 =
// 4,000 tok/s; at the peak the fleet emits 100 × 200 = 20,000 tok/s, and
// five $2.50 GPUs cost $12.50 an hour: $12.50 ÷ (20,000 × 3,600) × 1e6 =
// $0.174 per million. Dividing 760 tok/s by 20 req/s instead would make
// it 38 tokens a request and $0.914.
func TestPlanFromSweepKeepsTokensPerRequest(t *testing.T) {
	path := writeSweep(t, 0.9)
	args := []string{"--from", path, "--peak-qps", "100", "--per-replica-qps", "20", "--gpu-hour-cost", "2.5"}
	out, code, err := runPlan(t, args...)
	if err != nil || code != ExitOK {
		t.Fatalf("exit %d: %v", code, err)
	}
	for _, w := range []string{
		"5 replicas (5 GPUs) for 100 req/s at peak: 20,000 output tok/s of capacity, $12.50 an hour, $0.174 per million output tokens at the peak.",
		"per-replica throughput, as given: 20.0 req/s",
		"tokens per request, as measured: 760 tok/s ÷ 3.80 req/s = 200",
		"per replica = 20.0 req/s × 200 tokens per request = 4,000 tok/s",
		"at the peak the fleet emits 100 req/s × 200 tokens = 20,000 tok/s",
	} {
		if !strings.Contains(out, w) {
			t.Errorf("output lacks %q:\n%s", w, out)
		}
	}
	out, code, err = runPlan(t, append(args, "--format", "json")...)
	var p struct {
		TokensPerRequest   float64 `json:"tokens_per_request"`
		PeakCostPerMillion float64 `json:"peak_cost_per_million_tokens"`
	}
	if err != nil || code != ExitOK || json.Unmarshal([]byte(out), &p) != nil ||
		math.Abs(p.TokensPerRequest-200) > 1e-9 || math.Abs(p.PeakCostPerMillion-12.5/(20000*3600)*1e6) > 1e-12 {
		t.Errorf("json: exit %d, %v, %+v\n%s", code, err, p, out)
	}

	// A token figure given by a flag replaces the measured one.
	out, _, err = runPlan(t, append(args, "--output-tokens", "250")...)
	if err != nil || !strings.Contains(out, "per replica = 20.0 req/s × 250 tokens per request = 5,000 tok/s") ||
		strings.Contains(out, "as measured: 760") {
		t.Errorf("--output-tokens: %v\n%s", err, out)
	}
}

// --max-num-seqs and --latency beside a sweep are labelled as given, not
// as the measured concurrency (16 in the sweep), and their gap from the
// measured rate is not blamed on the measurement: 64 ÷ 2 s = 32 req/s
// against 3.8 measured is 742 % apart.
func TestPlanFromSweepLabelsGivenConcurrency(t *testing.T) {
	path := writeSweep(t, 0.9)
	out, code, err := runPlan(t, "--from", path, "--peak-qps", "100", "--max-num-seqs", "64", "--latency", "2s")
	if err != nil || code != ExitOK {
		t.Fatalf("exit %d: %v", code, err)
	}
	for _, w := range []string{
		"λ = 64 requests in flight (max-num-seqs, as given) ÷ 2.00 s mean latency, as given = 32.0 req/s per replica",
		"per-replica throughput, as measured: 3.80 req/s",
		"Little's Law check: 32.0 req/s against 3.80 req/s measured, 742 % apart (a large gap means they do not describe the same load)",
	} {
		if !strings.Contains(out, w) {
			t.Errorf("output lacks %q:\n%s", w, out)
		}
	}
	if strings.Contains(out, "the measured concurrency") || strings.Contains(out, "steady state") {
		t.Errorf("a given concurrency is called measured:\n%s", out)
	}
	// From the sweep alone both are measured: 16 ÷ 4.2 s.
	out, _, _ = runPlan(t, "--from", path, "--peak-qps", "100")
	if w := "λ = 16 requests in flight (the measured concurrency) ÷ 4.20 s measured mean latency = 3.81 req/s per replica"; !strings.Contains(out, w) {
		t.Errorf("output lacks %q:\n%s", w, out)
	}
}

// A sweep whose point claims 1e308 tok/s, in its mean and its repeats, is
// refused by every reader of sweep files with one message naming the
// file, the point and the key: plan printed "inf output tok/s of
// capacity" and report "the server delivers 1e+308 tok/s".
func TestSweepWithAnImpossibleThroughputIsRefused(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "sweep.json")
	in := `{"schema":1,"points":[` +
		`{"load":"c=1","mean":{"requests":20,"request_throughput":2,"output_throughput":250,"attainment":1},"repeats":[{"requests":20,"request_throughput":2,"output_throughput":250,"attainment":1}]},` +
		`{"load":"c=4","mean":{"requests":20,"request_throughput":6,"output_throughput":1e308,"attainment":1},"repeats":[{"requests":20,"request_throughput":6,"output_throughput":1e308,"attainment":1}]}]}`
	if err := os.WriteFile(path, []byte(in), 0o644); err != nil {
		t.Fatal(err)
	}
	want := path + `: sweep file: point 2: repeat 1: "output_throughput" 1e+308: above 1e9 tok/s, more than any run measures`
	for _, args := range [][]string{
		{"plan", "--from", path, "--peak-qps", "100", "--gpu-hour-cost", "2"},
		{"report", path, "--format", "markdown"},
		{"report", dir, "-o", filepath.Join(dir, "report.html")},
	} {
		out, stderr, code := run(t, "", args...)
		prefix := "goodput: plan: --from: "
		if args[0] == "report" {
			prefix = "goodput: report: "
		}
		if code != ExitTool || strings.TrimSpace(stderr) != prefix+want || out != "" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit %d and %q", args, code, out, stderr, ExitTool, prefix+want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "report.html")); err == nil {
		t.Error("a report of the impossible sweep was written")
	}
}
