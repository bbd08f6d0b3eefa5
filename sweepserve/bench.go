package sweepserve

// One run of the benchmark command: its command line, what kind of
// benchmark it is, its result file and what a failure leaves behind.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/kballard/go-shellquote"
)

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
	if err == nil && !exists(out) {
		err = fmt.Errorf("exited with status 0 but wrote no result at %s", out)
	}
	if err == nil && !srv.running() {
		err = fmt.Errorf("ran while the server command exited (%v)%s", srv.err, srv.tail())
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
	r.res.FailedServers++
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
	_, cmd := splitEnv(r.cfg.BenchCmd)
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
	// goodput's own commands keep the variables set before them; their
	// arguments start after the program and its subcommand.
	env, words := splitEnv(cmd)
	self := func(sub string, rest []string) []string {
		c := append(append([]string(nil), env...), r.cfg.Goodput...)
		return append(append(c, sub), rest...)
	}
	switch kind {
	case goodputBench:
		rest := words[2:]
		if filepath.Base(words[0]) == "vllm" {
			rest = words[3:]
		}
		cmd, bools = self("bench", rest), Valued
	case goodputSweep:
		cmd, bools = self("sweep", words[2:]), Valued
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
		// --percentile-metrics and --result-filename make a vLLM command
		// line of a goodput one, which would turn ignore_eos on.
		if filepath.Base(words[0]) != "vllm" && r.cfg.VLLMLine != nil && !mentions(argv, "ignore-eos") &&
			!r.cfg.VLLMLine(argv[len(env)+len(r.cfg.Goodput)+1:]) {
			argv = append(argv, "--ignore-eos=false")
		}
	}
	return append(argv, "--percentile-metrics", "ttft,tpot,itl,e2el", "--save-result",
		"--result-dir", filepath.Dir(out), "--result-filename", filepath.Base(out))
}

// mentions reports whether argv sets the option name (or its negation),
// with - or _ in its name.
func mentions(argv []string, name string) bool {
	for _, a := range argv {
		key, _, _ := strings.Cut(a, "=")
		if k, ok := strings.CutPrefix(key, "--"); ok && sameKey(k, name, true) {
			return true
		}
	}
	return false
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
