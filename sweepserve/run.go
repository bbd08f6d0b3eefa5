package sweepserve

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/kballard/go-shellquote"
)

// Config is one sweep over server settings.
type Config struct {
	ServeCmd      []string // the server command, as vllm serve MODEL …
	BenchCmd      []string // the benchmark command, as vllm bench serve …
	AfterBenchCmd []string // run after each benchmark instead of the cache resets; nil: reset them

	ServeParams []Item // server parameter combinations; nil runs ServeCmd as it is
	BenchParams []Item // benchmark parameter combinations; nil runs BenchCmd as it is
	Links       []Link // parameters that must agree for a combination to run

	OutputDir  string // results go under OutputDir/Experiment
	Experiment string
	NumRuns    int // runs of each combination, at least 1
	// WarmupPrompts, when above 0, runs each combination once with that
	// many prompts before its measured runs, into warmup.json.
	WarmupPrompts int

	ContinueOnError bool // record a failed run or server and go on
	DryRun          bool // print the commands, run nothing
	Resume          bool // the experiment folder exists: run what it lacks
	ShowStdout      bool // print the commands' output, not only log it

	ReadyTimeout time.Duration // how long a server has to answer /health
	StopGrace    time.Duration // how long a server has after SIGTERM; 0: 30 s

	// Goodput is the command that runs goodput itself (its executable): a
	// benchmark command that is vllm bench serve or goodput bench runs as
	// Goodput bench.
	Goodput []string

	// SLAParams, when set, runs vLLM's serve_sla: for every combination
	// and SLA it searches the highest SLAVariable (request_rate or
	// max_concurrency) whose runs meet the SLA.
	SLAParams   []SLA
	SLAVariable string

	Stdout io.Writer // progress and the commands' output
	Stderr io.Writer // warnings and the commands' errors
}

// Combination is one server and one benchmark parameter combination, and
// what its runs gave.
type Combination struct {
	Serve, Bench Item
	Dir          string      // its folder (the experiment's when neither item sets anything)
	Runs         []Object    // the measured runs' results, with their parameters
	Failed       int         // runs that failed (with ContinueOnError)
	Resumed      int         // runs whose result was already there
	SLA          *SLAOutcome // in an SLA search, what it found
}

// Result is what a sweep did.
type Result struct {
	Dir          string // the experiment folder
	Combinations []*Combination
	Skipped      int      // combinations whose linked parameters disagree
	Warnings     []string // things the reader should know, said once each
}

// Run runs the sweep. It returns what it measured even when it stops on
// an error (then the error too), and writes summary.csv of the runs that
// finished either way. A ctx that ends interrupts the running benchmark
// (SIGINT), stops the server and returns ctx's error: --resume continues.
func Run(ctx context.Context, cfg Config) (*Result, error) {
	if err := cfg.check(); err != nil {
		return nil, err
	}
	res := &Result{Dir: filepath.Join(cfg.OutputDir, cfg.Experiment)}
	switch _, err := os.Stat(res.Dir); {
	case cfg.Resume && err != nil:
		return nil, fmt.Errorf("--resume: %s does not exist: give the -e/--experiment-name of the sweep to continue", res.Dir)
	case !cfg.Resume && err == nil:
		return nil, fmt.Errorf("%s already exists: give --resume to continue that sweep, or another -e/--experiment-name", res.Dir)
	}
	if !cfg.DryRun {
		if err := os.MkdirAll(res.Dir, 0o755); err != nil {
			return nil, err
		}
	}
	r := &runner{cfg: cfg, res: res}
	err := r.run(ctx)
	if !cfg.DryRun {
		if werr := writeCSV(filepath.Join(res.Dir, "summary.csv"), res); werr != nil && err == nil {
			err = werr
		}
	}
	return res, err
}

func (c *Config) check() error {
	switch {
	case len(c.ServeCmd) == 0:
		return errors.New("--serve-cmd is empty")
	case len(c.BenchCmd) == 0:
		return errors.New("--bench-cmd is empty")
	case c.NumRuns < 1:
		return fmt.Errorf("--num-runs %d: must be at least 1", c.NumRuns)
	case c.WarmupPrompts < 0:
		return fmt.Errorf("--warmup-num-prompts %d: must be 0 or more", c.WarmupPrompts)
	case c.ReadyTimeout <= 0:
		return fmt.Errorf("--server-ready-timeout %v: must be above 0", c.ReadyTimeout)
	case c.AfterBenchCmd == nil && !KindOf(c.ServeCmd).CanReset():
		return fmt.Errorf("--serve-cmd %q starts %s, whose caches goodput cannot reset between runs: give --after-bench-cmd, a command to run after each benchmark ('true' resets nothing)", c.ServeCmd[0], KindOf(c.ServeCmd))
	}
	if len(c.ServeParams) == 0 {
		c.ServeParams = []Item{{}}
	}
	if len(c.BenchParams) == 0 {
		c.BenchParams = []Item{{}}
	}
	if c.SLAParams != nil {
		if c.SLAVariable != "request_rate" && c.SLAVariable != "max_concurrency" {
			return fmt.Errorf("--sla-variable %q: want request_rate or max_concurrency", c.SLAVariable)
		}
		if anyHas(c.BenchParams, c.SLAVariable) {
			return fmt.Errorf("--bench-params sets %s, which the SLA search chooses: leave it out", c.SLAVariable)
		}
	}
	for _, l := range c.Links {
		if !anyHas(c.ServeParams, l.Serve) {
			return fmt.Errorf("--link-vars %s=%s: no --serve-params combination sets %s, so nothing would run", l.Serve, l.Bench, l.Serve)
		}
		if !anyHas(c.BenchParams, l.Bench) {
			return fmt.Errorf("--link-vars %s=%s: no --bench-params combination sets %s, so nothing would run", l.Serve, l.Bench, l.Bench)
		}
	}
	if c.StopGrace <= 0 {
		c.StopGrace = 30 * time.Second
	}
	if c.Stdout == nil {
		c.Stdout = io.Discard
	}
	if c.Stderr == nil {
		c.Stderr = io.Discard
	}
	return nil
}

func anyHas(items []Item, key string) bool {
	for _, it := range items {
		if _, ok := it.param(key); ok {
			return true
		}
	}
	return false
}

type runner struct {
	cfg Config
	res *Result
}

func (r *runner) printf(format string, args ...any) { fmt.Fprintf(r.cfg.Stdout, format, args...) }

func (r *runner) warn(msg string) {
	r.res.Warnings = append(r.res.Warnings, msg)
	fmt.Fprintln(r.cfg.Stderr, "warning: "+msg)
}

// show is where the commands' output goes besides their logs.
func (r *runner) show() io.Writer {
	if r.cfg.ShowStdout {
		return r.cfg.Stdout
	}
	return nil
}

func (r *runner) run(ctx context.Context) error {
	if r.kindOfBench() == goodputBench && !r.cfg.DryRun && filepath.Base(r.cfg.BenchCmd[0]) == "vllm" {
		r.printf("The benchmarks run as goodput bench, which takes the flags of vllm bench serve.\n")
	}
	for _, serve := range r.cfg.ServeParams {
		var combs []*Combination
		for _, bench := range r.cfg.BenchParams {
			if !linked(serve, bench, r.cfg.Links) {
				r.res.Skipped++
				continue
			}
			dir := filepath.Join(r.res.Dir, comboName(serve, bench))
			if r.cfg.SLAParams == nil {
				combs = append(combs, &Combination{Serve: serve, Bench: bench, Dir: dir})
				continue
			}
			for _, sla := range r.cfg.SLAParams {
				combs = append(combs, &Combination{Serve: serve, Bench: bench, Dir: dir, SLA: &SLAOutcome{SLA: sla, Variable: r.cfg.SLAVariable}})
			}
		}
		if len(combs) == 0 {
			continue
		}
		if err := r.serve(ctx, serve, combs); err != nil {
			if ctx.Err() != nil || !r.cfg.ContinueOnError {
				return err
			}
			r.failServer(serve, err)
		}
	}
	return ctx.Err()
}

// serve runs the combinations of one server setting: the server is started
// only when one of their runs has no result yet.
func (r *runner) serve(ctx context.Context, serve Item, combs []*Combination) error {
	argv := serve.Apply(r.cfg.ServeCmd, Negated)
	r.printf("\nServer %s: %s\n", labelOr(serve, "as given"), shellquote.Join(argv...))
	var srv *server
	if r.needServer(combs) && !r.cfg.DryRun {
		logPath := filepath.Join(r.res.Dir, sanitize("SERVE-"+labelOr(serve, "default")+".log"))
		var err error
		srv, err = startServer(argv, logPath, r.show(), r.cfg.StopGrace)
		if err != nil {
			return err
		}
		defer func() {
			if err := srv.stop(); err != nil {
				r.warn(err.Error())
			}
			r.printf("Server stopped.\n")
		}()
		start := time.Now()
		if err := srv.waitReady(ctx, r.cfg.ReadyTimeout); err != nil {
			return err
		}
		r.printf("Server ready at %s after %.1f s (its output: %s).\n", srv.addr, time.Since(start).Seconds(), logPath)
	}
	for _, c := range combs {
		r.res.Combinations = append(r.res.Combinations, c)
		run := r.combination
		if c.SLA != nil {
			run = r.slaCombination
		}
		if err := run(ctx, srv, c); err != nil {
			return err
		}
	}
	return nil
}

// needServer reports whether any run of combs has no result yet.
func (r *runner) needServer(combs []*Combination) bool {
	for _, c := range combs {
		if r.cfg.WarmupPrompts > 0 && !exists(filepath.Join(c.Dir, "warmup.json")) {
			return true
		}
		if c.SLA != nil {
			if !exists(slaPath(c, c.SLA.SLA)) {
				return true
			}
			continue
		}
		for n := range r.cfg.NumRuns {
			if !exists(runPath(c.Dir, n)) {
				return true
			}
		}
	}
	return false
}

func (r *runner) combination(ctx context.Context, srv *server, c *Combination) error {
	if err := r.warmup(ctx, srv, c); err != nil {
		return err
	}
	for n := range r.cfg.NumRuns {
		data, err := r.bench(ctx, srv, c, c.Bench, n, runPath(c.Dir, n))
		if err != nil {
			if ctx.Err() != nil || !r.cfg.ContinueOnError {
				return err
			}
			c.Failed++
			continue
		}
		if data != nil {
			c.Runs = append(c.Runs, data)
		}
	}
	if r.cfg.DryRun {
		return nil
	}
	if len(c.Runs) == 0 {
		r.printf("No run of %s finished: it stays to be run again with --resume.\n", comboLabel(c))
		return nil
	}
	b, err := writeJSON(c.Runs)
	if err == nil {
		err = os.WriteFile(filepath.Join(c.Dir, "summary.json"), b, 0o644)
	}
	return err
}

// warmup runs the combination's warm-up, when there is one.
func (r *runner) warmup(ctx context.Context, srv *server, c *Combination) error {
	if r.cfg.WarmupPrompts <= 0 {
		return nil
	}
	w := c.Bench.With("num_prompts", json.RawMessage(strconv.Itoa(r.cfg.WarmupPrompts)))
	_, err := r.bench(ctx, srv, c, w, -1, filepath.Join(c.Dir, "warmup.json"))
	if err != nil && ctx.Err() == nil && r.cfg.ContinueOnError {
		return nil
	}
	return err
}

// slaCombination searches the combination's SLA and gathers the runs of
// every load it measured in SLA--….json.
func (r *runner) slaCombination(ctx context.Context, srv *server, c *Combination) error {
	if err := r.warmup(ctx, srv, c); err != nil {
		return err
	}
	out, err := r.slaSearch(ctx, srv, c, c.SLA.SLA)
	c.SLA = out
	if err != nil {
		if ctx.Err() != nil || !r.cfg.ContinueOnError {
			return err
		}
		c.Failed++
		return nil
	}
	if r.cfg.DryRun {
		return nil
	}
	switch {
	case out.Best == 0:
		r.printf("  %s: the SLA %s is missed even at %s 1.\n", comboLabel(c), out.SLA.Text(", "), out.Variable)
	case out.Failing == 0:
		r.printf("  %s: the SLA %s holds even at %s %d, the top of the search.\n", comboLabel(c), out.SLA.Text(", "), out.Variable, slaMax)
	default:
		r.printf("  %s: the highest %s meeting %s is %g (it is missed at %g).\n", comboLabel(c), out.Variable, out.SLA.Text(", "), out.Best, out.Failing)
	}
	b, err := writeJSON(c.Runs)
	if err == nil {
		err = os.WriteFile(slaPath(c, out.SLA), b, 0o644)
	}
	return err
}

// bench runs one benchmark (run n, or -1 for the warm-up) into out, or
// reads the result an earlier sweep left there. It returns the result with
// the run's parameters added, nil in a dry run.
func (r *runner) bench(ctx context.Context, srv *server, c *Combination, bench Item, n int, out string) (Object, error) {
	what := fmt.Sprintf("run %d of %d", n+1, r.cfg.NumRuns)
	if n < 0 {
		what = "warm-up"
	}
	argv := r.benchArgv(bench, srv, out)
	if exists(out) {
		data, err := r.result(out, c.Serve, bench, n)
		if err == nil {
			c.Resumed++
			r.printf("  %s, %s: done before (%s)\n", comboLabel(c), what, out)
		}
		return data, err
	}
	r.printf("  %s, %s: %s\n", comboLabel(c), what, shellquote.Join(argv...))
	if r.cfg.DryRun {
		return nil, nil
	}
	if srv == nil {
		return nil, fmt.Errorf("%s: no result at %s, and no server was started for it", comboLabel(c), out)
	}
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return nil, err
	}
	err := runCommand(ctx, argv, r.show(), r.cfg.Stderr)
	var ee *exitError
	// Exit status 3 is goodput bench's failed SLO gate: the run measured,
	// and its result stands.
	if errors.As(err, &ee) && ee.code == 3 && r.kindOfBench() == goodputBench && exists(out) {
		r.printf("  (an SLO gate of the benchmark failed)\n")
		err = nil
	}
	if err == nil && r.kindOfBench() == goodputSweep {
		err = sweepResult(strings.TrimSuffix(out, ".json"), out)
	}
	if err == nil && !srv.running() {
		err = fmt.Errorf("the server command exited (%v) during the benchmark%s", srv.err, srv.tail())
	}
	if err == nil {
		err = r.afterBench(ctx, srv)
	} else if ctx.Err() == nil && srv.running() {
		_ = r.afterBench(ctx, srv)
	}
	if err != nil {
		// A result the benchmark wrote as it stopped early is not one
		// --resume may take as done.
		setAside(out)
		if ctx.Err() != nil {
			return nil, fmt.Errorf("interrupted during %s, %s: give --resume -e %s to continue", comboLabel(c), what, r.cfg.Experiment)
		}
		err = fmt.Errorf("%s, %s: the benchmark %w", comboLabel(c), what, err)
		if r.cfg.ContinueOnError {
			r.failRun(c, bench, n, out, err)
		}
		return nil, err
	}
	data, err := r.result(out, c.Serve, bench, n)
	if err != nil {
		return nil, err
	}
	b, err := writeJSON(data)
	if err == nil {
		err = os.WriteFile(out, b, 0o644)
	}
	if err != nil {
		return nil, err
	}
	r.printf("  %s\n", runLine(data))
	return data, nil
}

func (r *runner) afterBench(ctx context.Context, srv *server) error {
	if r.cfg.AfterBenchCmd != nil {
		if err := runCommand(ctx, r.cfg.AfterBenchCmd, r.show(), r.cfg.Stderr); err != nil {
			return fmt.Errorf("ran, but --after-bench-cmd %w", err)
		}
		return nil
	}
	if err := srv.reset(ctx, r.warn); err != nil {
		return fmt.Errorf("ran, but %w", err)
	}
	return nil
}

// result reads a run's result and adds the run's number and parameters,
// as vLLM does: run_number, then the server's, then the benchmark's.
func (r *runner) result(path string, serve, bench Item, n int) (Object, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("the benchmark command wrote no result at %s", path)
	}
	if err != nil {
		return nil, err
	}
	var o Object
	if err := json.Unmarshal(b, &o); err != nil {
		return nil, jsonError(path, b, err)
	}
	o.Set("run_number", json.RawMessage(strconv.Itoa(n)))
	o.Update(serve.Params)
	o.Update(bench.Params)
	return o, nil
}

// failRun records a failed run beside where its result would have been,
// as vLLM's --continue-on-error does.
func (r *runner) failRun(c *Combination, bench Item, n int, out string, err error) {
	path := strings.TrimSuffix(out, ".json") + ".failure.json"
	b, _ := writeJSON(Object{
		{"run_number", json.RawMessage(strconv.Itoa(n))},
		{"error_type", quote(errorType(err))},
		{"error", quote(err.Error())},
		{"serve_overrides", objectJSON(c.Serve.Params)},
		{"bench_overrides", objectJSON(bench.Params)},
	})
	if werr := os.WriteFile(path, b, 0o644); werr != nil {
		r.warn(werr.Error())
	}
	fmt.Fprintf(r.cfg.Stderr, "run failed: %v (details: %s)\n", err, path)
}

// failServer records a server setting that would not start or failed.
func (r *runner) failServer(serve Item, err error) {
	path := filepath.Join(r.res.Dir, sanitize("SERVE-"+labelOr(serve, "default")+"-failure.json"))
	b, _ := writeJSON(Object{
		{"error_type", quote(errorType(err))},
		{"error", quote(err.Error())},
		{"serve_overrides", objectJSON(serve.Params)},
	})
	if werr := os.WriteFile(path, b, 0o644); werr != nil {
		r.warn(werr.Error())
	}
	fmt.Fprintf(r.cfg.Stderr, "server failed: %v (details: %s)\n", err, path)
}

func errorType(err error) string {
	var ee *exitError
	if errors.As(err, &ee) {
		return "ExitStatus"
	}
	return "Error"
}

func quote(s string) json.RawMessage {
	b, _ := json.Marshal(s)
	return b
}

func objectJSON(o Object) json.RawMessage {
	if o == nil {
		o = Object{}
	}
	b, _ := o.MarshalJSON()
	return b
}

// benchKind is what a benchmark command is to the sweep.
type benchKind int

const (
	otherBench   benchKind = iota // runs as given, and writes vLLM's result where it is told
	goodputBench                  // vllm bench serve or goodput bench: runs as goodput bench
	goodputSweep                  // goodput sweep: a load sweep per run, its findings the result
)

// kindOfBench reads what a benchmark command is. Without the command that
// runs goodput itself, every command runs as given.
func (r *runner) kindOfBench() benchKind {
	cmd := r.cfg.BenchCmd
	if len(cmd) < 2 || len(r.cfg.Goodput) == 0 {
		return otherBench
	}
	base := filepath.Base(cmd[0])
	switch {
	case base == "vllm" && len(cmd) >= 3 && cmd[1] == "bench" && cmd[2] == "serve":
		return goodputBench
	case strings.HasPrefix(base, "goodput") && cmd[1] == "bench":
		return goodputBench
	case strings.HasPrefix(base, "goodput") && cmd[1] == "sweep" && (len(cmd) < 3 || cmd[2] != "serve"):
		return goodputSweep
	}
	return otherBench
}

// benchArgv is the command of one run: the benchmark command with the
// item applied, and told where to write its result. vllm bench serve and
// goodput bench run as goodput bench, and goodput sweep as itself, pointed
// at the server when the command names none; goodput bench leaves its
// records beside the result, goodput sweep its points in a folder named
// for the run (run=N/).
func (r *runner) benchArgv(bench Item, srv *server, out string) []string {
	cmd, bools := r.cfg.BenchCmd, Negated
	kind := r.kindOfBench()
	switch kind {
	case goodputBench:
		rest := cmd[2:]
		if filepath.Base(cmd[0]) == "vllm" {
			rest = cmd[3:]
		}
		cmd = append(append(append([]string(nil), r.cfg.Goodput...), "bench"), rest...)
		bools = Valued
	case goodputSweep:
		cmd = append(append(append([]string(nil), r.cfg.Goodput...), "sweep"), cmd[2:]...)
		bools = Valued
	}
	argv := bench.Apply(cmd, bools)
	if kind != otherBench && !namesServer(argv) {
		addr := Address(r.cfg.ServeCmd)
		if srv != nil {
			addr = srv.addr
		}
		argv = append(argv, "--base-url", addr)
	}
	stem := strings.TrimSuffix(out, ".json")
	switch kind {
	case goodputSweep:
		argv = append(argv, "--result-dir", stem)
		if exists(stem) {
			argv = append(argv, "--resume") // measure only the loads an earlier try left
		}
		return argv
	case goodputBench:
		argv = append(argv, "--run-name", filepath.Base(stem), "--overwrite")
	}
	return append(argv, "--percentile-metrics", "ttft,tpot,itl,e2el", "--save-result",
		"--result-dir", filepath.Dir(out), "--result-filename", filepath.Base(out))
}

// namesServer reports whether a goodput bench command says where the
// server is; without that it would start its own simulator.
func namesServer(argv []string) bool {
	for _, a := range argv {
		name, _, _ := strings.Cut(a, "=")
		switch name {
		case "--base-url", "--base-url-file", "--host", "--port":
			return true
		}
	}
	return false
}

// comboName is a combination's folder under the experiment, as vLLM names
// it: SERVE-…-BENCH-…, or "" (the experiment folder itself) when neither
// item sets anything.
func comboName(serve, bench Item) string {
	var parts []string
	if !serve.Empty() {
		parts = append(parts, "SERVE-", serve.Label())
	}
	if !bench.Empty() {
		parts = append(parts, "BENCH-", bench.Label())
	}
	return sanitize(strings.Join(parts, "-"))
}

// sanitize keeps a name inside its folder, as vLLM does.
func sanitize(name string) string {
	return strings.ReplaceAll(strings.ReplaceAll(name, "/", "_"), "..", "__")
}

func comboLabel(c *Combination) string {
	switch {
	case c.Serve.Empty() && c.Bench.Empty():
		return "the benchmark"
	case c.Serve.Empty():
		return "bench " + c.Bench.Label()
	case c.Bench.Empty():
		return "serve " + c.Serve.Label()
	}
	return "serve " + c.Serve.Label() + ", bench " + c.Bench.Label()
}

func labelOr(it Item, none string) string {
	if it.Empty() {
		return none
	}
	return it.Label()
}

func runPath(dir string, n int) string { return filepath.Join(dir, "run="+strconv.Itoa(n)+".json") }

// setAside renames the result of a run that did not finish, if there is
// one, to RUN.incomplete.json.
func setAside(out string) {
	if exists(out) {
		_ = os.Rename(out, strings.TrimSuffix(out, ".json")+".incomplete.json")
	}
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
