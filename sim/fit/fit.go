package fit

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/goodput-dev/goodput/record"
	"github.com/goodput-dev/goodput/sim"
)

// Parameter names, as the profile file's calibration keys spell them.
const (
	ParamMBU             = "mbu"
	ParamMFU             = "mfu"
	ParamStepOverhead    = "step_overhead"
	ParamSeqOverhead     = "seq_overhead"
	ParamRequestOverhead = "request_overhead"
	ParamFrontEndService = "front_end_service"
)

// Params lists the parameters Fit can fit, in the order it fits them.
var Params = []string{ParamMBU, ParamMFU, ParamStepOverhead, ParamSeqOverhead, ParamRequestOverhead, ParamFrontEndService}

// bounds are each parameter's search range: fractions of the GPU's peaks,
// and durations in seconds.
var bounds = map[string][2]float64{
	ParamMBU:             {0.005, 1},
	ParamMFU:             {0.005, 1},
	ParamStepOverhead:    {1e-6, 1},
	ParamSeqOverhead:     {1e-7, 0.1},
	ParamRequestOverhead: {1e-6, 1},
	ParamFrontEndService: {1e-6, 1},
}

// Options configure a fit.
type Options struct {
	// Base is the simulator to fit: the GPU and model (a profile describes
	// hardware and models not built in), the engine's limits, and the
	// calibration to start from.
	Base sim.Options
	// Params are the parameters to fit (default: all of Params); the
	// others keep Base's values.
	Params []string
	// MaxEvals bounds how many times the fit runs the loads (default 400).
	MaxEvals int
}

// Result is a fit: the fitted profile and how well it reproduces each load,
// the fitted ones and the held-out ones.
type Result struct {
	Profile sim.Profile
	Fitted  []Compared
	HeldOut []Compared
}

// Compared is one load's measured and simulated metrics.
type Compared struct {
	Load      string
	Files     int
	Measured  Metrics
	Simulated Metrics
}

// Errors returns the relative errors (simulated − measured) ÷ measured of
// throughput, TTFT and TPOT; 0 where nothing was measured.
func (c Compared) Errors() [3]float64 {
	rel := func(s, m float64) float64 {
		if m == 0 {
			return 0
		}
		return (s - m) / m
	}
	return [3]float64{
		rel(c.Simulated.OutputTokS, c.Measured.OutputTokS),
		rel(c.Simulated.TTFT, c.Measured.TTFT),
		rel(c.Simulated.TPOT, c.Measured.TPOT),
	}
}

// Fit finds the calibration parameters that make the simulator reproduce
// the fitted loads (their throughput, TTFT and TPOT, each as a squared
// logarithmic error, so that every metric and load weighs alike), then
// predicts the held-out loads with them. Each evaluation replays every
// fitted load's requests in virtual time.
func Fit(ctx context.Context, fitted, heldOut []Load, o Options) (Result, error) {
	if len(fitted) == 0 {
		return Result{}, errors.New("no loads to fit")
	}
	params := o.Params
	if len(params) == 0 {
		params = Params
	}
	for _, p := range params {
		if _, ok := bounds[p]; !ok {
			return Result{}, fmt.Errorf("parameter %q: want one of %v", p, Params)
		}
	}
	maxEvals := o.MaxEvals
	if maxEvals == 0 {
		maxEvals = 400
	}
	base := o.Base
	info, err := sim.Resolve(base)
	if err != nil {
		return Result{}, err
	}
	base.Profile = info.Profile // defaults applied: the starting point
	mbu, mfu := base.Profile.Efficiency()
	base.Profile.Calibration.MBU, base.Profile.Calibration.MFU = mbu, mfu

	space := make([]Param, len(params))
	x0 := make([]float64, len(params))
	for i, p := range params {
		b := bounds[p]
		space[i] = Param{Name: p, Lo: b[0], Hi: b[1]}
		x0[i] = math.Max(get(base.Profile.Calibration, p), b[0])
	}
	var evalErr error
	objective := func(x []float64) float64 {
		if ctx.Err() != nil {
			return math.Inf(1)
		}
		opts := with(base, params, x)
		total := 0.0
		for _, l := range fitted {
			got, err := simulate(ctx, opts, l)
			if err != nil {
				evalErr = err
				return math.Inf(1)
			}
			for i, e := range (Compared{Measured: l.Measured, Simulated: got}).Errors() {
				if (i == 0 && l.Measured.OutputTokS == 0) || (i == 1 && l.Measured.TTFT == 0) || (i == 2 && l.Measured.TPOT == 0) {
					continue
				}
				if !(1+e > 0) {
					return math.Inf(1)
				}
				total += math.Log(1+e) * math.Log(1+e)
			}
		}
		return total
	}
	x, best := Minimize(objective, space, x0, maxEvals)
	if err := ctx.Err(); err != nil {
		return Result{}, err
	}
	if math.IsInf(best, 1) {
		if evalErr != nil {
			return Result{}, evalErr
		}
		return Result{}, errors.New("the simulator could not run the loads with any parameters tried")
	}
	opts := with(base, params, x)
	res := Result{Profile: opts.Profile}
	// The profile carries the engine settings it was fitted with, so that
	// a sweep with it simulates the same server.
	res.Profile.Engine = sim.EngineSettings{
		MaxNumSeqs: info.MaxNumSeqs, MaxNumBatchedTokens: info.MaxNumBatchedTokens, MaxModelLen: info.MaxModelLen,
		BlockSize: info.BlockSize, GPUMemoryUtilization: base.GPUMemoryUtilization,
	}
	for _, set := range []struct {
		loads []Load
		out   *[]Compared
	}{{fitted, &res.Fitted}, {heldOut, &res.HeldOut}} {
		for _, l := range set.loads {
			got, err := simulate(ctx, opts, l)
			if err != nil {
				return Result{}, err
			}
			*set.out = append(*set.out, Compared{Load: l.Name, Files: len(l.Replays), Measured: l.Measured, Simulated: got})
		}
	}
	return res, nil
}

// simulate replays every file of l and pools the simulated metrics as the
// measured ones were.
func simulate(ctx context.Context, opts sim.Options, l Load) (Metrics, error) {
	var t tally
	for _, rp := range l.Replays {
		var recs []record.Record
		err := sim.StreamVirtual(ctx, opts, sim.VirtualPlan{Requests: rp.Requests, Concurrency: rp.Concurrency}, func(r *record.Record) error {
			if !r.OK() {
				return fmt.Errorf("%s: request %d: the simulator refused it: %s", rp.Path, r.Seq, r.Msg)
			}
			kept := *r
			kept.Chunks = []record.Chunk{r.Chunks[0], r.Chunks[len(r.Chunks)-1]} // first and last are all the metrics need
			recs = append(recs, kept)
			return nil
		})
		if err != nil {
			return Metrics{}, err
		}
		var one tally
		one.addRun(recs)
		t.add(one)
	}
	return t.metrics(), nil
}

// with returns base with the parameters set to x.
func with(base sim.Options, params []string, x []float64) sim.Options {
	o := base
	c := &o.Profile.Calibration
	for i, p := range params {
		v := x[i]
		switch p {
		case ParamMBU:
			c.MBU = v
		case ParamMFU:
			c.MFU = v
		case ParamStepOverhead:
			c.StepOverhead = seconds(v)
		case ParamSeqOverhead:
			c.SeqOverhead = seconds(v)
		case ParamRequestOverhead:
			c.RequestOverhead = seconds(v)
		case ParamFrontEndService:
			c.FrontEndService = seconds(v)
		}
	}
	return o
}

func get(c sim.Calibration, p string) float64 {
	switch p {
	case ParamMBU:
		return c.MBU
	case ParamMFU:
		return c.MFU
	case ParamStepOverhead:
		return c.StepOverhead.Seconds()
	case ParamSeqOverhead:
		return c.SeqOverhead.Seconds()
	case ParamRequestOverhead:
		return c.RequestOverhead.Seconds()
	case ParamFrontEndService:
		return c.FrontEndService.Seconds()
	}
	return 0
}

// seconds rounds s to a duration of at least a nanosecond.
func seconds(s float64) time.Duration { return max(time.Duration(math.Round(s*1e9)), 1) }

// medianAbs is the median of the absolute values of xs.
func medianAbs(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	a := make([]float64, len(xs))
	for i, x := range xs {
		a[i] = math.Abs(x)
	}
	slices.Sort(a)
	if n := len(a); n%2 == 0 {
		return (a[n/2-1] + a[n/2]) / 2
	}
	return a[len(a)/2]
}
