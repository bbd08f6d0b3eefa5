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
	// VLLMLine reports whether goodput bench takes these arguments for a
	// vLLM command line (which turns on ignore_eos for random prompts).
	// The sweep appends flags that only vLLM's lines have; for a goodput
	// bench command that is not one, it then keeps ignore_eos as the
	// command meant it. Nil: every goodput bench command is taken as it
	// stands, appended flags and all.
	VLLMLine func(args []string) bool

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

// Failures counts the runs and SLA searches that failed, with
// ContinueOnError, and the server settings that did.
func (r *Result) Failures() (runs, servers int) {
	for _, c := range r.Combinations {
		runs += c.Failed
	}
	return runs, r.FailedServers
}

// Result is what a sweep did.
type Result struct {
	Dir           string // the experiment folder
	Combinations  []*Combination
	Skipped       int      // combinations whose linked parameters disagree
	FailedServers int      // server settings that would not start or failed (with ContinueOnError)
	Warnings      []string // things the reader should know, said once each
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
	case isDetached(c.ServeCmd):
		return fmt.Errorf("--serve-cmd %q runs a detached container (-d): the sweep stops the server by stopping its command, so leave -d out", c.ServeCmd[0]+" run")
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
