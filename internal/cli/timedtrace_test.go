package cli

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"github.com/goodput-dev/goodput/arrival"
	"github.com/goodput-dev/goodput/bench"
	"github.com/goodput-dev/goodput/internal/simtest"
	"github.com/goodput-dev/goodput/internal/tracefiles"
	"github.com/goodput-dev/goodput/sim"
)

// preparedBench parses a bench command line (the arguments after "bench")
// as bench does, up to where it
// would need a server, and returns the configuration it would run.
func preparedBench(t *testing.T, args []string) bench.Config {
	t.Helper()
	var cfg bench.Config
	c := benchCommand(quietEnv(), func(cmd *cobra.Command, env *Env, c bench.Config, fl *benchFlags) error {
		_, err := prepareBench(cmd, env, &c, fl)
		cfg = c
		return err
	})
	if err := readCommand(c, "bench", args); err != nil {
		t.Fatal(err)
	}
	return cfg
}

// timestamps reads the "timestamp" of the first n lines of a Mooncake
// file, without the trace package.
func timestamps(t *testing.T, path string, n int) []float64 {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var ts []float64
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for len(ts) < n && sc.Scan() {
		var row struct{ Timestamp float64 }
		if err := json.Unmarshal(sc.Bytes(), &row); err != nil {
			t.Fatal(err)
		}
		ts = append(ts, row.Timestamp)
	}
	if len(ts) != n {
		t.Fatalf("%s: %d rows, want %d (%v)", path, len(ts), n, sc.Err())
	}
	return ts
}

// vLLM's published replay of Mooncake's conversation trace plans its 100
// requests at the first 100 rows' timestamps × 0.001 s, prompts from
// 512-token blocks, output lengths enforced; its dry run says so.
func TestVLLMTimedTraceLinePlan(t *testing.T) {
	path := tracefiles.Path(t, tracefiles.MooncakeConversation)
	args := splitLine(strings.ReplaceAll(timedTraceLine, timedTracePath, path))
	cfg := preparedBench(t, args)
	if cfg.Arrival.Replay == nil {
		t.Fatal("--self-timed: the run does not replay the trace's timestamps")
	}
	plan, err := cfg.Arrival.Plan()
	if err != nil {
		t.Fatal(err)
	}
	if plan.Open == nil || len(plan.Open.Offsets) != 100 {
		t.Fatalf("plan %v, want 100 requests in an open loop", plan)
	}
	for i, ms := range timestamps(t, path, 100) {
		if want := time.Duration(ms) * time.Millisecond; plan.Open.Offsets[i] != want {
			t.Errorf("request %d is planned at %v, want row %d's %v ms", i, plan.Open.Offsets[i], i+1, ms)
		}
	}
	wl := cfg.Workload
	if !wl.IgnoreEOS() || wl.TimedTrace.ChunkSize != 512 || wl.TimedTrace.Fields.SecMultiplier != 0.001 {
		t.Errorf("ignore_eos %v, chunk %d, multiplier %v; want true, 512, 0.001", wl.IgnoreEOS(), wl.TimedTrace.ChunkSize, wl.TimedTrace.Fields.SecMultiplier)
	}

	out, errOut, code := run(t, "", append([]string{"bench", "--dry-run"}, args...)...)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{
		"Target: http://127.0.0.1:8000 (openai)",
		"Load: open loop: replay of timed_trace " + path + " at its own speed\n",
		"schedule: 100 requests from 0s to 33s",
		"Workload: vLLM's timed_trace of " + path + " (timestamps × 0.001 s, 512 prompt tokens per hash id): 100 rows over 33s",
		"output enforced with max_tokens and ignore_eos",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("dry run lacks %q:\n%s", want, out)
		}
	}
}

// --dataset-name timed_trace is goodput's too, with vLLM's flags: the
// rows in file order, at their timestamps × the multiplier, counted from
// the first row.
func TestBenchTimedTraceDryRun(t *testing.T) {
	timed := []string{"bench", "--dry-run", "--dataset-name", "timed_trace", "--dataset-path", mooncake40}
	ms := []string{"--timed-trace-sec-multiplier", "0.001"}
	tests := []struct {
		name string
		args []string
		want []string
	}{
		{"Mooncake's milliseconds, 512-token blocks", append(ms, "--timed-trace-chunk-hash-size", "512"), []string{
			"Load: open loop: replay of timed_trace " + mooncake40 + " at its own speed\n",
			"schedule: 40 requests from 0s to 12s",
			"Workload: vLLM's timed_trace of " + mooncake40 + " (timestamps × 0.001 s, 512 prompt tokens per hash id): 40 rows over 12s",
		}},
		// vLLM's default unit is the second: Mooncake's 12,000 ms last
		// 12,000 s, and its chunks are 16 tokens.
		{"vLLM's defaults", nil, []string{"schedule: 40 requests from 0s to 3h20m0s", "(timestamps × 1 s, 16 prompt tokens per hash id)"}},
		{"the first rows", append(ms, "--num-prompts", "26"), []string{"schedule: 26 requests from 0s to 3s", "26 rows over 3s"}},
		{"a speed-up", append(ms, "--trace-speedup", "4"), []string{"at 4× its speed", "40 requests from 0s to 3s"}},
		// vLLM's every row, planned from the file as the run is.
		{"every row", append(ms, "--num-prompts", "-1"), []string{"stops after 40 requests", "schedule: 40 requests from 0s to 12s"}},
		// Without the timestamps the rows go at the rate given, each
		// once: --num-prompts is capped at the 40 rows.
		{"--no-self-timed", append(ms, "--no-self-timed", "--request-rate", "5", "--num-prompts", "1000"), []string{
			"Load: open loop: poisson arrivals at 5 req/s, seed 0", "stops after 40 requests",
			"40 rows over 12s (mean 3.25 req/s)", "; sent by the run's arrival process, not at their timestamps (--no-self-timed)",
		}},
		// The last of --self-timed and --no-self-timed wins, as in vLLM.
		{"--no-self-timed then --self-timed", append(ms, "--no-self-timed", "--self-timed"), []string{"replay of timed_trace"}},
	}
	for _, tt := range tests {
		out, errOut, code := run(t, "", append(timed, tt.args...)...)
		if code != ExitOK {
			t.Fatalf("%s: exit %d: %s", tt.name, code, errOut)
		}
		for _, w := range tt.want {
			if !strings.Contains(out, w) {
				t.Errorf("%s: output lacks %q:\n%s", tt.name, w, out)
			}
		}
	}
	// goodput's own trace replay takes --no-self-timed too, and sends its
	// whole trace by default.
	out, errOut, code := run(t, "", "bench", "--dry-run", "--dataset-name", "trace", "--dataset-path", mooncake40, "--no-self-timed", "--request-rate", "4", "--max-concurrency", "2")
	if code != ExitOK || !strings.Contains(out, "poisson arrivals at 4 req/s") || !strings.Contains(out, "stops after 40 requests") || !strings.Contains(out, "at most 2 in flight") {
		t.Errorf("trace --no-self-timed: exit %d\n%s%s", code, out, errOut)
	}
}

// --no-self-timed sends the rows by the arrival process asked for: its
// plan is the one --request-rate, --burstiness and --seed give any
// dataset, not the trace's.
func TestBenchNoSelfTimedPlan(t *testing.T) {
	cfg := preparedBench(t, []string{"--base-url", "http://127.0.0.1:9", "--dataset-name", "timed_trace", "--dataset-path", mooncake40,
		"--no-self-timed", "--request-rate", "8", "--burstiness", "0.5", "--num-prompts", "30", "--seed", "4"})
	if cfg.Arrival.Replay != nil {
		t.Fatalf("--no-self-timed: the run replays %s", cfg.Arrival.Replay)
	}
	got, err := cfg.Arrival.Plan()
	if err != nil {
		t.Fatal(err)
	}
	want, err := arrival.Config{RequestRate: 8, Burstiness: 0.5, NumPrompts: 30, Seed: 4}.Plan()
	if err != nil {
		t.Fatal(err)
	}
	if got.Open == nil || !slices.Equal(got.Open.Offsets, want.Open.Offsets) {
		t.Errorf("offsets %v, want the gamma process's %v", got.Open, want.Open)
	}
}

// A run with --no-self-timed on the simulator: rows 1,000 s apart are all
// sent within a second at 50 req/s, each once.
func TestBenchNoSelfTimedRun(t *testing.T) {
	var b strings.Builder
	for i := range 6 {
		fmt.Fprintf(&b, `{"timestamp": %d, "input_length": %d, "output_length": 4, "hash_ids": [1, %d]}`+"\n", 1000*i, 20+i, 10+i)
	}
	path := filepath.Join(t.TempDir(), "far_apart.jsonl")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	_, url := simtest.Serve(t, sim.Options{Seed: 2})
	start := time.Now()
	out, errOut, code := run(t, "", "bench", "--quiet", "--base-url", url, "--dataset-name", "timed_trace", "--dataset-path", path,
		"--no-self-timed", "--request-rate", "50", "--seed", "3")
	if code != ExitOK {
		t.Fatalf("exit %d: %s\n%s", code, errOut, out)
	}
	for _, want := range []string{
		"Successful requests:                     6\nFailed requests:                         0\n",
		"Request rate configured (RPS):           50.00",
		"Total generated tokens:                  24\n", // 6 rows × 4, ignore_eos
	} {
		if !strings.Contains(out, want) {
			t.Errorf("summary lacks %q:\n%s", want, out)
		}
	}
	if d := time.Since(start); d > time.Minute {
		t.Errorf("the run took %v: the rows were not sent by the rate", d)
	}
}

func TestBenchTimedTraceUsageErrors(t *testing.T) {
	timed := []string{"bench", "--base-url", "http://127.0.0.1:9", "--dataset-name", "timed_trace", "--dataset-path", mooncake40}
	tests := []struct {
		args []string
		want string
	}{
		// vLLM refuses both with a dataset that has no timestamps.
		{[]string{"bench", "--dataset-name", "random", "--self-timed"},
			"--self-timed says whether a trace's rows are sent at their timestamps: it applies to --dataset-name timed_trace (and trace), not random"},
		{[]string{"bench", "--dataset-name", "sharegpt", "--dataset-path", "x.json", "--no-self-timed"}, "--no-self-timed says whether"},
		{[]string{"bench", "--port", "8000", "--model", "m", "--dataset-name", "random", "--self-timed=false"}, "--self-timed says whether"},
		// Its prompts are token ids, which chat messages cannot carry.
		{append(timed, "--backend", "openai-chat"),
			"--dataset-name timed_trace sends its prompts as token ids, which --backend openai-chat cannot carry: use --backend openai or vllm (completions), as vLLM requires"},
		{append(timed, "--trace-block-size", "512"), "--trace-block-size does not apply to --dataset-name timed_trace: give --timed-trace-chunk-hash-size"},
		{append(timed, "--trace-format", "mooncake"), "--trace-format does not apply to --dataset-name timed_trace"},
		{append(timed, "--timed-trace-chunk-hash-size", "-1"), "--timed-trace-chunk-hash-size must be in [1, 16777216], got -1"},
		{append(timed, "--timed-trace-sec-multiplier", "0"), `invalid argument "0" for "--timed-trace-sec-multiplier" flag: want a positive finite number`},
		{append(timed, "--timed-trace-sec-multiplier", "NaN"), "want a positive finite number"},
		{append(timed, "--timed-trace-label-timestamp", ""), "empty: give the name of a field"},
		{append(timed, "--timed-trace-label-input-length", "timestamp"), `--timed-trace-label-timestamp and --timed-trace-label-input-length both name the field "timestamp"`},
		{[]string{"bench", "--dataset-name", "timed_trace"}, "--dataset-name timed_trace needs --dataset-path"},
	}
	for _, tc := range tests {
		_, errOut, code := run(t, "", tc.args...)
		if code != ExitUsage || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, %q; want 2 and %q", tc.args, code, errOut, tc.want)
		}
	}
	// A field the file lacks is named with its line and the flag that
	// renames it.
	_, errOut, code := run(t, "", append(timed, "--dry-run", "--timed-trace-label-timestamp", "ts")...)
	if want := mooncake40 + `:1: missing "ts" (--timed-trace-label-timestamp names the field)`; code != ExitUsage || !strings.Contains(errOut, want) {
		t.Errorf("exit %d, %q; want 2 and %q", code, errOut, want)
	}
}
