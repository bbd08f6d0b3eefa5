package sweepserve

import (
	"context"
	"encoding/csv"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Every server setting is started once for its benchmark settings; pairs
// whose linked parameters disagree are skipped; each run's result gets
// its run number and parameters, in vLLM's order, and the caches are
// reset after every run, the warm-up included.
func TestSweepRunsEveryLinkedCombination(t *testing.T) {
	cfg := sweepConfig(t)
	cfg.ServeParams = []Item{item(t, `{"max_num_seqs": 16}`), item(t, `{"max_num_seqs": 64}`)}
	cfg.BenchParams = []Item{item(t, `{"max_concurrency": 16}`), item(t, `{"max_concurrency": 64}`)}
	cfg.Links = []Link{{"max_num_seqs", "max_concurrency"}}
	cfg.NumRuns, cfg.WarmupPrompts = 2, 5
	var out strings.Builder
	cfg.Stdout = &out
	res, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	if res.Skipped != 2 || len(res.Combinations) != 2 {
		t.Fatalf("%d skipped, %d run, want 2 and 2", res.Skipped, len(res.Combinations))
	}
	dir := filepath.Join(cfg.OutputDir, "exp")
	for i, n := range []string{"16", "64"} {
		c := res.Combinations[i]
		folder := filepath.Join(dir, "SERVE--max_num_seqs="+n+"-BENCH--max_concurrency="+n)
		if c.Dir != folder || len(c.Runs) != 2 || c.Failed != 0 {
			t.Fatalf("combination %d: %s, %d runs, %d failed", i, c.Dir, len(c.Runs), c.Failed)
		}
		run := readObject(t, filepath.Join(folder, "run=1.json"))
		wantKeys := []string{"date", "completed", "output_throughput", "max_concurrency", "p99_ttft_ms", "argv", "run_number", "max_num_seqs"}
		if !slices.Equal(keys(run), wantKeys) {
			t.Errorf("run=1.json keys %v, want %v", keys(run), wantKeys)
		}
		if x, _ := run.Number("run_number"); x != 1 {
			t.Errorf("run_number %v", x)
		}
		if x, _ := run.Number("output_throughput"); x != map[string]float64{"16": 160.5, "64": 640.5}[n] {
			t.Errorf("the benchmark ran with the wrong concurrency: %v tok/s", x)
		}
		raw, _ := run.Get("argv")
		var argv []string
		_ = jsonUnmarshal(raw, &argv)
		words := strings.Join(argv, " ")
		port := cfg.ServeCmd[4]
		if words != "--model model --num-prompts 50 --max-concurrency "+n+" --base-url http://127.0.0.1:"+port+
			" --run-name run=1 --overwrite --percentile-metrics ttft,tpot,itl,e2el --save-result --result-dir "+folder+" --result-filename run=1.json" {
			t.Errorf("benchmark arguments: %s", words)
		}
		warm := readObject(t, filepath.Join(folder, "warmup.json"))
		if x, _ := warm.Number("completed"); x != 5 {
			t.Errorf("the warm-up sent %v prompts, want --warmup-num-prompts 5", x)
		}
		if x, _ := warm.Number("run_number"); x != -1 {
			t.Errorf("the warm-up's run_number is %v, want -1", x)
		}
		var summary []Object
		if err := jsonUnmarshalFile(filepath.Join(folder, "summary.json"), &summary); err != nil || len(summary) != 2 {
			t.Errorf("summary.json: %d runs, %v", len(summary), err)
		}
		log := readText(t, filepath.Join(dir, "SERVE-max_num_seqs="+n+".log"))
		if !strings.Contains(log, "argv model --port ") || !strings.HasSuffix(strings.SplitN(log, "\n", 2)[0], "--max-num-seqs "+n) {
			t.Errorf("the server was started as %q", strings.SplitN(log, "\n", 2)[0])
		}
		for _, p := range []string{"/reset_prefix_cache", "/reset_mm_cache", "/reset_encoder_cache"} {
			if got := strings.Count(log, "reset "+p+"\n"); got != 3 {
				t.Errorf("%s reset %d times, want 3 (after the warm-up and both runs)", p, got)
			}
		}
	}
	f, err := os.Open(filepath.Join(dir, "summary.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil || len(rows) != 5 {
		t.Fatalf("summary.csv: %d rows, %v", len(rows), err)
	}
	if rows[0][0] != "" || rows[0][4] != "max_concurrency" || rows[4][0] != "3" || rows[4][4] != "64" || rows[1][7] != "0" || rows[2][7] != "1" {
		t.Errorf("summary.csv:\n%v", rows)
	}
	combos, ok, err := ReadExperiment(dir)
	if err != nil || !ok || len(combos) != 2 || combos[1].Name != "SERVE--max_num_seqs=64-BENCH--max_concurrency=64" || len(combos[1].Runs) != 0 {
		t.Errorf("ReadExperiment: %+v %v %v", combos, ok, err)
	}
	if _, err := FirstRuns(dir, combos); err == nil || !strings.Contains(err.Error(), "its runs have no goodput records") {
		t.Errorf("FirstRuns of runs another tool measured: %v", err)
	}
	if _, ok, _ := ReadExperiment(combos[0].Dir); ok {
		t.Error("a combination's folder taken for an experiment")
	}
	var table strings.Builder
	WriteTable(&table, res)
	lines := strings.Split(table.String(), "\n")
	if len(lines) < 3 || strings.Join(strings.Fields(lines[2]), " ") != "serve max_num_seqs=64, bench max_concurrency=64 2 – 640.5 – 12.2 – – 0.0 %" {
		t.Errorf("table:\n%s", table.String())
	}
}

func jsonUnmarshalFile(path string, v any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	return jsonUnmarshal(b, v)
}

// A run that fails is recorded beside where its result would be and the
// sweep goes on (--continue-on-error); --resume then runs only what has no
// result, and the server only for those.
func TestResumeRunsOnlyWhatFailed(t *testing.T) {
	cfg := sweepConfig(t)
	marker := filepath.Join(t.TempDir(), "failed-once")
	cfg.BenchCmd = append(cfg.BenchCmd, "--fail-once", marker)
	cfg.NumRuns, cfg.ContinueOnError = 2, true
	res, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(cfg.OutputDir, "exp")
	c := res.Combinations[0]
	if c.Dir != dir || len(c.Runs) != 1 || c.Failed != 1 {
		t.Fatalf("first pass: %s, %d runs, %d failed; want the experiment folder, 1 and 1", c.Dir, len(c.Runs), c.Failed)
	}
	fail := readObject(t, filepath.Join(dir, "run=0.failure.json"))
	if !slices.Equal(keys(fail), []string{"run_number", "error_type", "error", "serve_overrides", "bench_overrides"}) {
		t.Errorf("failure file keys %v", keys(fail))
	}
	if e, _ := fail.Get("error"); !strings.Contains(string(e), "run 1 of 2: the benchmark exited with status 1") {
		t.Errorf("failure: %s", e)
	}
	if _, err := Run(context.Background(), cfg); err == nil || !strings.Contains(err.Error(), "already exists: give --resume") {
		t.Errorf("a second sweep into the same folder: %v", err)
	}
	cfg.Resume = true
	var out strings.Builder
	cfg.Stdout = &out
	res, err = Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	c = res.Combinations[0]
	if len(c.Runs) != 2 || c.Resumed != 1 || c.Failed != 0 {
		t.Errorf("resumed: %d runs, %d done before, %d failed; want 2, 1, 0\n%s", len(c.Runs), c.Resumed, c.Failed, out.String())
	}
	// Resuming a finished sweep starts no server.
	res, err = Run(context.Background(), cfg)
	if err != nil || res.Combinations[0].Resumed != 2 {
		t.Fatalf("resuming a finished sweep: %v", err)
	}
	if strings.Count(readText(t, filepath.Join(dir, "SERVE-default.log")), "argv ") != 1 {
		t.Error("the server was started again for a sweep with nothing left to run")
	}
}

// A server that exits before it is ready is reported with the end of its
// output; with --continue-on-error the next setting still runs.
func TestServerThatDiesBeforeReady(t *testing.T) {
	cfg := sweepConfig(t)
	cfg.ServeParams = []Item{item(t, `{"exit_early": true}`), item(t, `{"max_num_seqs": 8}`)}
	_, err := Run(context.Background(), cfg)
	if err == nil || !strings.Contains(err.Error(), "the server command exited (exit status 3) before GET http://127.0.0.1:") ||
		!strings.Contains(err.Error(), "boom: no GPU") {
		t.Fatalf("err = %v", err)
	}
	cfg.Experiment, cfg.ContinueOnError = "exp2", true
	res, err := Run(context.Background(), cfg)
	if err != nil || len(res.Combinations) != 1 || len(res.Combinations[0].Runs) != 1 {
		t.Fatalf("with --continue-on-error: %v", err)
	}
	fail := readObject(t, filepath.Join(cfg.OutputDir, "exp2", "SERVE-exit_early=True-failure.json"))
	if s, _ := fail.Get("serve_overrides"); strings.Join(strings.Fields(string(s)), "") != `{"exit_early":true}` {
		t.Errorf("failure file: %v", fail)
	}
}

// Nothing is measured against a server that was there before the sweep
// started it: the results would be that server's.
func TestRefusesAPortAlreadyServed(t *testing.T) {
	cfg := sweepConfig(t)
	port := cfg.ServeCmd[4]
	ln, err := netListen("127.0.0.1:" + port)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	_, err = Run(context.Background(), cfg)
	if err == nil || !strings.Contains(err.Error(), "http://127.0.0.1:"+port+" already answers before the server command has started") {
		t.Errorf("err = %v", err)
	}
}

// --after-bench-cmd replaces the cache resets; a server whose caches
// goodput cannot reset needs it.
func TestAfterBenchCmd(t *testing.T) {
	cfg := sweepConfig(t)
	count := filepath.Join(t.TempDir(), "after")
	cfg.AfterBenchCmd = []string{cfg.Goodput[0], "touch", count}
	cfg.NumRuns = 2
	if _, err := Run(context.Background(), cfg); err != nil {
		t.Fatal(err)
	}
	if got := strings.Count(readText(t, count), "after\n"); got != 2 {
		t.Errorf("--after-bench-cmd ran %d times, want 2", got)
	}
	if log := readText(t, filepath.Join(cfg.OutputDir, "exp", "SERVE-default.log")); strings.Contains(log, "reset ") {
		t.Errorf("the caches were reset as well:\n%s", log)
	}
	cfg.ServeCmd = []string{"docker", "run", "-d", "-p", "8000:8000", "vllm/vllm-openai", "--model", "m"}
	if _, err := Run(context.Background(), cfg); err == nil || !strings.Contains(err.Error(), "runs a detached container (-d)") {
		t.Errorf("a detached container: %v", err)
	}
	cfg.ServeCmd = []string{"llama-server", "-m", "x.gguf"}
	cfg.AfterBenchCmd, cfg.Experiment = nil, "exp3"
	if _, err := Run(context.Background(), cfg); err == nil || !strings.Contains(err.Error(), "starts llama.cpp's llama-server, whose caches goodput cannot reset between runs: give --after-bench-cmd") {
		t.Errorf("llama-server without --after-bench-cmd: %v", err)
	}
}

// A reset endpoint the server lacks (an older vLLM) is warned of once, not
// failed on.
func TestMissingResetEndpointWarnsOnce(t *testing.T) {
	cfg := sweepConfig(t, "--old")
	cfg.NumRuns = 3
	res, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0], "/reset_encoder_cache: 404: this server has no such endpoint") {
		t.Errorf("warnings: %q", res.Warnings)
	}
}

// Interrupting a sweep stops the running benchmark with SIGINT, sets
// aside the result it wrote as it stopped (it is no finished run), and
// stops the server; --resume runs that run again.
func TestInterruptSetsTheRunAside(t *testing.T) {
	cfg := sweepConfig(t)
	started := filepath.Join(t.TempDir(), "started")
	cfg.BenchCmd = append(cfg.BenchCmd, "--sleep", "30s", "--started", started)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		// Interrupt once the benchmark runs, however slow the machine.
		for deadline := time.Now().Add(20 * time.Second); !exists(started) && time.Now().Before(deadline); {
			time.Sleep(20 * time.Millisecond)
		}
		cancel()
	}()
	start := time.Now()
	res, err := Run(ctx, cfg)
	if err == nil || !strings.Contains(err.Error(), "interrupted during the benchmark, run 1 of 1: give --resume -e exp to continue") {
		t.Fatalf("err = %v", err)
	}
	if time.Since(start) > 25*time.Second {
		t.Errorf("the interrupted sweep took %v to stop", time.Since(start))
	}
	dir := filepath.Join(cfg.OutputDir, "exp")
	if exists(filepath.Join(dir, "run=0.json")) || !exists(filepath.Join(dir, "run=0.incomplete.json")) {
		t.Error("the interrupted run's result was not set aside")
	}
	if len(res.Combinations[0].Runs) != 0 {
		t.Error("the interrupted run counted as measured")
	}
}

// A dry run prints every command and runs none, creating nothing.
func TestDryRun(t *testing.T) {
	cfg := sweepConfig(t)
	cfg.DryRun = true
	cfg.BenchParams = []Item{item(t, `{"ignore_eos": false}`)}
	var out strings.Builder
	cfg.Stdout = &out
	if _, err := Run(context.Background(), cfg); err != nil {
		t.Fatal(err)
	}
	if exists(filepath.Join(cfg.OutputDir, "exp")) {
		t.Error("a dry run created the experiment folder")
	}
	s := out.String()
	if !strings.Contains(s, "Server as given: ") || !strings.Contains(s, "bench ignore_eos=False, run 1 of 1: ") ||
		!strings.Contains(s, "--ignore-eos=false --base-url http://127.0.0.1:") {
		t.Errorf("dry run output:\n%s", s)
	}
}

// A benchmark command that is goodput sweep runs a load sweep per run,
// in a folder named for the run, and the run's result is the sweep's
// findings: the operating point with its figures, the goodput peak and
// the knees.
func TestGoodputSweepAsTheBenchmark(t *testing.T) {
	cfg := sweepConfig(t)
	cfg.BenchCmd = []string{"goodput", "sweep", "--concurrency", "1,2,4", "--slo", "ttft<=100ms"}
	cfg.BenchParams = []Item{item(t, `{"max_good": 2}`), item(t, `{"max_good": 4}`)}
	res, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	c := res.Combinations[0]
	run := readObject(t, filepath.Join(c.Dir, "run=0.json"))
	want := []string{"load_mode", "points", "slo_target", "operating_point", "operating_point_load",
		"operating_point_request_throughput", "operating_point_output_throughput", "operating_point_goodput",
		"operating_point_attainment", "operating_point_p99_ttft_ms", "operating_point_p99_tpot_ms", "operating_point_p99_e2el_ms",
		"goodput_peak", "goodput_peak_load", "peak_goodput", "power_knee", "power_knee_load", "curvature_knee", "curvature_knee_load",
		"verdict", "run_number", "max_good"}
	if !slices.Equal(keys(run), want) {
		t.Errorf("keys %v\nwant %v", keys(run), want)
	}
	for key, want := range map[string]float64{"operating_point": 2, "operating_point_output_throughput": 200,
		"operating_point_p99_ttft_ms": 60, "points": 3, "slo_target": 0.9} {
		if got, _ := run.Number(key); got != want {
			t.Errorf("%s = %v, want %v", key, got, want)
		}
	}
	if op, _ := run.Get("operating_point_load"); string(op) != `"concurrency=2"` {
		t.Errorf("operating_point_load %s", op)
	}
	if !exists(filepath.Join(c.Dir, "run=0", "sweep.json")) {
		t.Error("the sweep's own files are not in run=0/")
	}
	var table strings.Builder
	WriteTable(&table, res)
	lines := strings.Split(table.String(), "\n")
	if !strings.Contains(lines[0], "op. load  op. out tok/s") || strings.Join(strings.Fields(lines[2]), " ") != "bench max_good=4 1 4 400.0 120.0 7.00 400.0 – –" {
		t.Errorf("table:\n%s", table.String())
	}
}

// An SLA search finds the highest concurrency whose runs meet the SLA: with
// p99 TTFT 10 ms per request in flight and a bound of 300 ms, 30 meets it
// and 31 does not. Concurrencies above the 200 prompts change nothing, so
// the failure at 65,536 counts as one at 200.
func TestSLASearchFindsTheHighestPassingLoad(t *testing.T) {
	cfg := sweepConfig(t)
	cfg.BenchCmd = []string{"vllm", "bench", "serve", "--num-prompts", "200", "--ttft-per-request", "10"}
	cfg.SLAParams = []SLA{{{Key: "p99_ttft_ms", Op: "<=", Target: 300}}, {{Key: "p99_ttft_ms", Op: "<", Target: 300}}}
	cfg.SLAVariable = "max_concurrency"
	var out strings.Builder
	cfg.Stdout = &out
	res, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	if len(res.Combinations) != 2 {
		t.Fatalf("%d searches, want one per SLA", len(res.Combinations))
	}
	for i, want := range []float64{30, 29} {
		o := res.Combinations[i].SLA
		if o.Best != want || o.Failing != want+1 || len(o.Tried) > 12 {
			t.Errorf("SLA %s: highest met %v, missed at %v, after %d loads %v; want %v and %v", o.SLA.Text(", "), o.Best, o.Failing, len(o.Tried), o.Tried, want, want+1)
		}
		if o.Tried[0] != 65536 || o.Tried[1] != 1 {
			t.Errorf("the search began at %v, want 65536 then 1", o.Tried[:2])
		}
	}
	dir := filepath.Join(cfg.OutputDir, "exp")
	run := readObject(t, filepath.Join(dir, "max_concurrency=30", "run=0.json"))
	if x, _ := run.Number("p99_ttft_ms"); x != 300 {
		t.Errorf("max_concurrency=30/run=0.json: p99 TTFT %v", x)
	}
	var gathered []Object
	if err := jsonUnmarshalFile(filepath.Join(dir, "SLA--p99_ttft_ms<=300.00.json"), &gathered); err != nil || len(gathered) != len(res.Combinations[0].SLA.Tried) {
		t.Errorf("SLA--p99_ttft_ms<=300.00.json: %d runs, %v", len(gathered), err)
	}
	var table strings.Builder
	WriteTable(&table, res)
	if lines := strings.Split(table.String(), "\n"); strings.Join(strings.Fields(lines[1]), " ") != "the benchmark p99_ttft_ms<=300.00 30 31 "+strconv.Itoa(len(res.Combinations[0].SLA.Tried))+" 300.5 300.0 –" {
		t.Errorf("table:\n%s", table.String())
	}
	// The search chooses the variable: the benchmark parameters must not.
	cfg.Experiment, cfg.BenchParams = "exp2", []Item{item(t, `{"max_concurrency": 8}`)}
	if _, err := Run(context.Background(), cfg); err == nil || !strings.Contains(err.Error(), "--bench-params sets max_concurrency, which the SLA search chooses") {
		t.Errorf("bench params setting the SLA variable: %v", err)
	}
	// A constraint on a figure the results lack is named.
	cfg.Experiment, cfg.BenchParams = "exp3", nil
	cfg.SLAParams = []SLA{{{Key: "p99_ttft_sec", Op: "<=", Target: 1}}}
	if _, err := Run(context.Background(), cfg); err == nil || !strings.Contains(err.Error(), "the SLA's p99_ttft_sec is not a figure of the benchmark's result") {
		t.Errorf("an SLA on a missing figure: %v", err)
	}
}

// SLA files are vLLM's: a list of objects of "<op><number>" constraints.
func TestReadSLAParams(t *testing.T) {
	slas, err := ReadSLAParams(writeFile(t, "sla.json", `[{"p99_e2el_ms": "<=200"}, {"p99_ttft_ms": "< 500", "request_throughput": ">=2.5"}]`))
	if err != nil || len(slas) != 2 || slas[1].Text(", ") != "p99_ttft_ms<500.00, request_throughput>=2.50" {
		t.Fatalf("%v %v", slas, err)
	}
	for _, tt := range []struct{ text, want string }{
		{`[{"p99_e2el_ms": "=200"}]`, `SLA 1: p99_e2el_ms "=200": want an operator (<=, >=, < or >) and a number`},
		{`[{"p99_e2el_ms": "<=fast"}]`, `SLA 1: p99_e2el_ms "<=fast": "fast" is not a number`},
		{`[{"p99_e2el_ms": 200}]`, `SLA 1: p99_e2el_ms: want a string of an operator and a number`},
		{`[{}]`, `SLA 1: want an object of constraints`},
		{`[]`, `holds no SLA`},
		{`{"p99_e2el_ms": "<=200"}`, `want a JSON list of SLAs`},
	} {
		p := writeFile(t, "bad.json", tt.text)
		if _, err := ReadSLAParams(p); err == nil || !strings.Contains(err.Error(), tt.want) || !strings.HasPrefix(err.Error(), p) {
			t.Errorf("%s: %v, want %q", tt.text, err, tt.want)
		}
	}
}

// The flags the sweep appends are vLLM's, which would make a goodput
// bench command a vLLM command line and turn ignore_eos on; a goodput
// command line that was not one keeps ignore_eos off, unless it says.
func TestGoodputBenchKeepsItsIgnoreEOS(t *testing.T) {
	for _, tt := range []struct {
		cmd      []string
		vllmLine bool
		want     bool // --ignore-eos=false appended
	}{
		{[]string{"goodput", "bench", "--num-prompts", "8"}, false, true},
		{[]string{"goodput", "bench", "--num-prompts", "8"}, true, false},
		{[]string{"goodput", "bench", "--ignore-eos"}, false, false},
		{[]string{"goodput", "bench", "--ignore_eos=false"}, false, false},
		{[]string{"vllm", "bench", "serve", "--num-prompts", "8"}, false, false},
	} {
		cfg := sweepConfig(t)
		cfg.BenchCmd, cfg.DryRun = tt.cmd, true
		var seen []string
		cfg.VLLMLine = func(args []string) bool { seen = args; return tt.vllmLine }
		var out strings.Builder
		cfg.Stdout = &out
		if _, err := Run(context.Background(), cfg); err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(out.String(), " --ignore-eos=false "); got != tt.want {
			t.Errorf("%v (a vLLM line: %v): --ignore-eos=false appended %v, want %v\n%s", tt.cmd, tt.vllmLine, got, tt.want, out.String())
		}
		if seen != nil && (slices.Contains(seen, "--percentile-metrics") || slices.Contains(seen, "--result-filename")) {
			t.Errorf("the command line was judged with the sweep's own flags: %q", seen)
		}
	}
}

// A benchmark that exits 0 without writing its result is a failed run,
// recorded as such with --continue-on-error.
func TestBenchmarkWithoutAResultFails(t *testing.T) {
	cfg := sweepConfig(t)
	cfg.BenchCmd = append(cfg.BenchCmd, "--no-result")
	cfg.ContinueOnError = true
	res, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if c := res.Combinations[0]; c.Failed != 1 || len(c.Runs) != 0 {
		t.Fatalf("%d failed, %d runs", c.Failed, len(c.Runs))
	}
	fail := readObject(t, filepath.Join(cfg.OutputDir, "exp", "run=0.failure.json"))
	if e, _ := fail.Get("error"); !strings.Contains(string(e), "the benchmark, run 1 of 1: the benchmark exited with status 0 but wrote no result at ") {
		t.Errorf("failure: %s", e)
	}
}

// Variables set before a command (CUDA_VISIBLE_DEVICES=0,1 vllm serve …)
// are its environment, as a shell runs it, for the server and the
// benchmark alike; the benchmark still runs as goodput bench.
func TestCommandsKeepTheirVariables(t *testing.T) {
	cfg := sweepConfig(t)
	cfg.ServeCmd = append([]string{"SERVE_MARK=serve-side"}, cfg.ServeCmd...)
	cfg.BenchCmd = append([]string{"env", "BENCH_MARK=bench-side"}, cfg.BenchCmd...)
	res, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if log := readText(t, filepath.Join(cfg.OutputDir, "exp", "SERVE-default.log")); !strings.Contains(log, "SERVE_MARK=serve-side\n") {
		t.Errorf("the server did not get its variable:\n%s", log)
	}
	run := res.Combinations[0].Runs[0]
	if m, _ := run.Get("bench_mark"); string(m) != `"bench-side"` {
		t.Errorf("the benchmark did not get its variable: %s", m)
	}
	if argv, _ := run.Get("argv"); !strings.Contains(string(argv), `"--base-url"`) {
		t.Errorf("the benchmark did not run as goodput bench: %s", argv)
	}
}

// With an SLO the table gives the requests per second that met it.
func TestTableShowsGoodputWithAnSLO(t *testing.T) {
	res := &Result{Combinations: []*Combination{{Serve: item(t, `{"max_num_seqs": 8}`), Runs: []Object{
		readObjectText(t, `{"request_throughput": 10, "request_goodput": 7.5, "output_throughput": 100}`),
		readObjectText(t, `{"request_throughput": 12, "request_goodput": 8.5, "output_throughput": 120}`)}}}}
	var b strings.Builder
	WriteTable(&b, res)
	lines := strings.Split(b.String(), "\n")
	if !strings.Contains(lines[0], "req/s  goodput req/s  out tok/s") || strings.Join(strings.Fields(lines[1]), " ") != "serve max_num_seqs=8 2 11.00 8.00 110.0 – – – – 18.2 % !" {
		t.Errorf("table:\n%s", b.String())
	}
}

func readObjectText(t *testing.T, js string) Object {
	t.Helper()
	var o Object
	if err := jsonUnmarshal([]byte(js), &o); err != nil {
		t.Fatal(err)
	}
	return o
}
