package sweeprun

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"os"
	"time"

	"github.com/goodput-dev/goodput/bench"
	"github.com/goodput-dev/goodput/metrics"
	"github.com/goodput-dev/goodput/sim"
	"github.com/goodput-dev/goodput/sweep"
)

// Runner measures the loads of a sweep. Build it with New; its methods are
// used by one goroutine at a time (a sweep measures one load at a time).
type Runner struct {
	cfg    Config
	target string // what is measured, in words

	saved   []Saved
	resumed []sweep.Point
	notes   []string // about the result directory, for the caller to show
	// used holds, per load (its canonical form), the repeats already on
	// disk or measured, so that a new measurement never overwrites one.
	used map[string]map[int]bool

	prompts  promptCache  // virtual time: prompts per seed
	flows    flowCache    // virtual time: the sessions or tasks of the last seed
	client   *http.Client // over HTTP: the idle checks
	noGauges bool         // over HTTP: the server cannot be waited for
	measured int
	failed   *metrics.Counts // the counts of the first measurement whose every request failed
}

// New validates cfg and prepares a Runner. With cfg.Resume it scans
// cfg.Dir for finished measurements (see Scan); without it, a cfg.Dir that
// already holds measurements is refused. New sends nothing.
func New(cfg Config) (*Runner, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if cfg.IdlePoll == 0 {
		cfg.IdlePoll = defaultIdlePoll
	}
	cfg.Bench.Metrics.Percentiles = withSweepPercentiles(cfg.Bench.Metrics.Percentiles)
	r := &Runner{cfg: cfg, used: map[string]map[int]bool{}}
	switch {
	case cfg.Virtual != nil:
		info, _ := sim.Resolve(*cfg.Virtual)
		r.target = "virtual-time simulator: " + info.Profile.String()
	case cfg.Bench.Target != "":
		r.target = cfg.Bench.Target
	default:
		r.target = cfg.Bench.BaseURL
	}
	if cfg.Dir == "" {
		return r, nil
	}
	if !cfg.Resume {
		paths, _, _, err := listSummaries(cfg.Dir)
		if err != nil {
			return nil, &UnreadableError{err}
		}
		if len(paths) > 0 {
			return nil, fmt.Errorf("--result-dir %s already holds %d measurements of a sweep (such as %s): give --resume to continue it, or another --result-dir",
				cfg.Dir, len(paths), paths[0])
		}
		return r, nil
	}
	saved, notes, err := Scan(cfg.Dir, cfg.Bench.Metrics)
	if err != nil {
		return nil, &UnreadableError{fmt.Errorf("--resume: %w", err)}
	}
	if r.resumed, err = Points(saved); err != nil {
		return nil, &UnreadableError{fmt.Errorf("--resume: %w", err)}
	}
	r.saved, r.notes = saved, notes
	for _, s := range saved {
		r.markUsed(s.Measurement)
	}
	return r, nil
}

// Target describes what the runner measures, in words.
func (r *Runner) Target() string { return r.target }

// Resumed returns the points of the finished measurements found by New, one
// per load, sorted by load. A plan run by Run gets them as its Resume.
func (r *Runner) Resumed() []sweep.Point { return r.resumed }

// Notes returns what New found worth telling about the result directory:
// interrupted or unreadable measurements that will be measured again.
func (r *Runner) Notes() []string { return r.notes }

// Measured returns how many measurements the runner has made.
func (r *Runner) Measured() int { return r.measured }

// Requests returns how many requests a measurement at l sends, or 0 when
// --duration rather than a count bounds it.
func (r *Runner) Requests(l sweep.Load) int {
	return r.cfg.benchConfig(Measurement{Load: l, Repeat: 1}).Arrival.NumPrompts
}

func (r *Runner) markUsed(m Measurement) {
	k := m.Load.String()
	if r.used[k] == nil {
		r.used[k] = map[int]bool{}
	}
	r.used[k][m.Repeat] = true
}

// nextRepeat returns the lowest repeat of l not yet on disk or measured.
func (r *Runner) nextRepeat(l sweep.Load) int {
	k := 1
	for r.used[l.String()][k] {
		k++
	}
	return k
}

// Measure measures load l once: it is a sweep.Measure. Each call is the next
// repeat of l (see Measurement). Over HTTP it first waits for the server to
// be idle. A measurement cut short by ctx is an error.
func (r *Runner) Measure(ctx context.Context, l sweep.Load) (sweep.Point, error) {
	if err := l.Validate(); err != nil {
		return sweep.Point{}, err
	}
	m := Measurement{Load: l, Repeat: r.nextRepeat(l)}
	cfg := r.cfg.benchConfig(m)
	if r.cfg.Dir != "" {
		if err := os.MkdirAll(r.cfg.Dir, 0o755); err != nil {
			return sweep.Point{}, fmt.Errorf("--result-dir: %w", err)
		}
	}
	start := time.Now()
	var res *metrics.Result
	var err error
	if r.cfg.Virtual != nil {
		res, err = r.measureVirtual(ctx, m, cfg)
	} else {
		res, err = r.measureHTTP(ctx, m, cfg)
	}
	if err != nil {
		return sweep.Point{}, err
	}
	r.markUsed(m)
	r.measured++
	s := sweep.FromResult(res)
	r.logf("sweep: %s: %s (%s)", m.Name(), describeSample(s), time.Since(start).Round(time.Millisecond))
	if c := res.Counts; c.Failed > 0 {
		// The point's table row counts them; the log says why.
		kind, n, example := c.MostCommonError()
		line := fmt.Sprintf("sweep: %s: %d of %d requests failed, %d %s", m.Name(), c.Failed, c.Total, n, kind)
		if example != "" {
			line += " (first: " + example + ")"
		}
		r.logf("%s", line)
		if c.Completed == 0 && r.failed == nil {
			r.failed = &c
		}
	}
	return sweep.NewPoint(l, s)
}

// measureHTTP runs measurement m with bench over HTTP, once the server is
// idle.
func (r *Runner) measureHTTP(ctx context.Context, m Measurement, cfg bench.Config) (*metrics.Result, error) {
	if r.cfg.IdleTimeout > 0 && !r.noGauges {
		if r.client == nil {
			r.client = &http.Client{}
		}
		url := metricsURL(cfg.BaseURL)
		busy, err := waitIdle(ctx, r.client, url, r.cfg.IdleTimeout, r.cfg.IdlePoll)
		switch {
		case errors.Is(err, errNoGauges):
			r.noGauges = true
			r.logf("sweep: not waiting for the server to be idle between points: %v", err)
		case err != nil:
			return nil, fmt.Errorf("%s: %w", m.Name(), err)
		case busy > 0:
			r.logf("sweep: waited for %g requests left on the server before %s", busy, m.Name())
		}
	}
	out, err := bench.Run(ctx, cfg, r.cfg.Progress, r.cfg.Terminal)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", m.Name(), err)
	}
	for _, w := range out.Warnings {
		r.logf("sweep: %s: warning: %s", m.Name(), w)
	}
	if out.Stopped != "" {
		return nil, fmt.Errorf("%s: %s", m.Name(), out.Stopped)
	}
	if out.Run.Interrupted {
		cause := ctx.Err()
		if cause == nil {
			cause = context.Canceled
		}
		return nil, fmt.Errorf("%s interrupted: %w", m.Name(), cause)
	}
	return out.Result, nil
}

func (r *Runner) logf(format string, args ...any) {
	if r.cfg.Log != nil {
		fmt.Fprintf(r.cfg.Log, format+"\n", args...)
	}
}

// describeSample sums up a measurement in a log line.
func describeSample(s sweep.Sample) string {
	out := fmt.Sprintf("%d requests, %.4g req/s, %.4g output tok/s, goodput %.4g tok/s, attainment %s",
		s.Requests, s.RequestThroughput, s.OutputThroughput, s.Goodput, percent(s.Attainment))
	if !math.IsNaN(s.TTFT.P99) {
		out += fmt.Sprintf(", p99 TTFT %s", seconds(s.TTFT.P99))
	}
	if !math.IsNaN(s.E2E.Mean) {
		out += fmt.Sprintf(", mean e2e %s", seconds(s.E2E.Mean))
	}
	return out
}

func percent(f float64) string {
	if math.IsNaN(f) {
		return "n/a"
	}
	return fmt.Sprintf("%.1f %%", 100*f)
}

func seconds(s float64) string {
	if s < 1 {
		return fmt.Sprintf("%.1f ms", 1e3*s)
	}
	return fmt.Sprintf("%.2f s", s)
}

// Outcome is what a sweep produced.
type Outcome struct {
	Summary sweep.Summary // every point, resumed and measured, analysed
	// Stopped says why the sweep ended early, past saturation, and Skipped
	// lists the planned loads it left out; both are empty when it measured
	// every planned load.
	Stopped  string
	Skipped  []sweep.Load
	Measured int    // measurements made by this run
	Resumed  int    // points taken from the result directory
	JSONPath string // sweep.json; empty without a result directory
	CSVPath  string
	// AllFailed is the counts of the first measurement of this run whose
	// every request failed, nil when none did: its errors say why.
	AllFailed *metrics.Counts
}

// Run executes plan and returns the analysed sweep. The points New found
// in the result directory are the plan's Resume (any Resume the caller set
// is replaced). The sweep files are rewritten after every point, so an
// interrupted sweep leaves them current; on an error Run returns the
// outcome so far with it.
func (r *Runner) Run(ctx context.Context, plan sweep.Plan) (*Outcome, error) {
	if err := r.Check(plan.Mode, plan.Auto != nil); err != nil {
		return nil, err
	}
	plan.Resume = r.resumed
	if err := plan.Validate(); err != nil {
		return nil, err
	}
	if err := r.prepareDir(plan.Mode); err != nil {
		return nil, err
	}
	before := r.measured
	known := append([]sweep.Point(nil), r.resumed...)
	var saveErr error
	onPoint := func(p sweep.Point) {
		known = replacePoint(known, p)
		if saveErr == nil {
			_, saveErr = r.save(known, plan.Options)
		}
	}
	points, runErr := sweep.Run(ctx, plan, r.Measure, onPoint)
	out := &Outcome{Measured: r.measured - before, Resumed: len(r.resumed), AllFailed: r.failed}
	if len(points) == 0 {
		return out, errors.Join(runErr, saveErr)
	}
	s, err := sweep.Analyze(points, plan.Options)
	if err != nil {
		return out, errors.Join(runErr, err)
	}
	out.Summary = s
	if runErr == nil {
		out.Stopped, out.Skipped = stoppedEarly(plan, points)
	}
	if r.cfg.Dir != "" && saveErr == nil {
		out.JSONPath, out.CSVPath, saveErr = writeSweep(r.cfg.Dir, s)
	}
	return out, errors.Join(runErr, saveErr)
}

// Check reports whether a sweep in mode (auto: an automatic plan) can be
// measured with this configuration, and, when resuming, whether the result
// directory was measured with the same settings. It sends and writes
// nothing.
func (r *Runner) Check(mode sweep.Mode, auto bool) error {
	if err := r.cfg.checkPlan(mode, auto); err != nil {
		return err
	}
	if r.cfg.Resume {
		return r.checkManifest(mode)
	}
	return nil
}

// prepareDir creates the result directory and writes its manifest.
func (r *Runner) prepareDir(mode sweep.Mode) error {
	if r.cfg.Dir == "" {
		return nil
	}
	if err := os.MkdirAll(r.cfg.Dir, 0o755); err != nil {
		return fmt.Errorf("--result-dir: %w", err)
	}
	return r.writeManifest(mode)
}

// save analyses the points known so far and rewrites the sweep files.
func (r *Runner) save(points []sweep.Point, o sweep.Options) (sweep.Summary, error) {
	s, err := sweep.Analyze(points, o)
	if err != nil || r.cfg.Dir == "" {
		return s, err
	}
	_, _, err = writeSweep(r.cfg.Dir, s)
	return s, err
}

// replacePoint returns points with p in place of the point of the same
// load, or added.
func replacePoint(points []sweep.Point, p sweep.Point) []sweep.Point {
	for i := range points {
		if points[i].Load == p.Load {
			points[i] = p
			return points
		}
	}
	return append(points, p)
}

// stoppedEarly returns why the run of plan that measured points left
// planned loads out, and which, or nothing when it left none out. The
// runner judges saturation at each load from the loads at or below it, so
// the reason is read from the points below the first load left out.
func stoppedEarly(plan sweep.Plan, points []sweep.Point) (string, []sweep.Load) {
	plan.Resume = points
	steps, err := plan.Steps()
	if err != nil {
		return "", nil
	}
	var skipped []sweep.Load
	for _, st := range steps {
		// Only the increasing part of a sweep stops early. Refinement loads
		// depend on the points known when they were chosen, so laying them
		// out again from every point would name loads never planned.
		if st.Phase != sweep.PhaseList && st.Phase != sweep.PhaseGrid {
			continue
		}
		for _, l := range st.Loads {
			if !hasLoad(points, l) {
				skipped = append(skipped, l)
			}
		}
	}
	if len(skipped) == 0 {
		return "", nil
	}
	first := skipped[0]
	for _, l := range skipped[1:] {
		if l.Mode == first.Mode && l.Value < first.Value {
			first = l
		}
	}
	var below []sweep.Point
	for _, p := range points {
		if p.Load.Mode != first.Mode || p.Load.Value < first.Value {
			below = append(below, p)
		}
	}
	_, why := sweep.Saturated(below, plan.Stop, plan.Options)
	if why == "" {
		why = "the stop rule judged the sweep saturated"
	}
	return why, skipped
}

func hasLoad(points []sweep.Point, l sweep.Load) bool {
	for _, p := range points {
		if p.Load == l {
			return true
		}
	}
	return false
}
