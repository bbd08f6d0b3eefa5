package bench

import (
	"cmp"
	"math"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/goodput-dev/goodput/arrival"
	"github.com/goodput-dev/goodput/metrics"
	"github.com/goodput-dev/goodput/record"
	"github.com/goodput-dev/goodput/vllmresult"
)

// vllmCollector gathers the requests of a run as vLLM's client reports
// them, for the vLLM result files (--save-result, --format vllm), when on;
// it counts vLLM's peaks of every run, which costs little.
type vllmCollector struct {
	on         bool
	closedLoop bool
	reqs       []vllmresult.Request
	seqs       []int64 // each request's place in the schedule
	peaks      *vllmresult.PeakCounter
}

// newVLLMCollector returns a collector for a run in which no request is
// sent before floor (ns from the epoch: its first due time).
func newVLLMCollector(on, closedLoop bool, floor int64) *vllmCollector {
	return &vllmCollector{on: on, closedLoop: closedLoop, peaks: vllmresult.NewPeakCounter(floor)}
}

func (v *vllmCollector) add(r *record.Record) {
	v.peaks.AddRecord(r)
	if v.on && !r.Warmup {
		v.reqs = append(v.reqs, vllmresult.FromRecord(r, v.closedLoop))
		v.seqs = append(v.seqs, r.Seq)
	}
}

// inOrder puts the requests, gathered as they ended, in the order they
// were scheduled: vLLM's arrays are in the order of its requests, so that
// input_lens[i] and generated_texts[i] are the same request's.
func (v *vllmCollector) inOrder() {
	idx := make([]int, len(v.reqs))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(v.seqs[a], v.seqs[b]) })
	reqs, seqs := make([]vllmresult.Request, len(idx)), make([]int64, len(idx))
	for i, j := range idx {
		reqs[i], seqs[i] = v.reqs[j], v.seqs[j]
	}
	v.reqs, v.seqs = reqs, seqs
}

// vllmRun describes the run for vllmresult. model is the model id,
// start the run's epoch.
func vllmRun(cfg Config, model string, start time.Time, res *metrics.Result) vllmresult.Run {
	f := cfg.VLLMFile
	run := vllmresult.Run{
		Date: start, Backend: cfg.Backend, Label: f.Label, ModelID: model, TokenizerID: f.TokenizerID,
		NumPrompts: f.NumPrompts, Metadata: f.Metadata, RequestRate: cfg.Arrival.RequestRate,
		Burstiness: cfg.Arrival.Burstiness, Duration: res.Window.Seconds, Metrics: f.Metrics,
		Percentiles: cfg.Metrics.Percentiles, SLO: f.SLO, Detailed: f.Detailed,
	}
	if f.Backend != "" {
		run.Backend = f.Backend
	}
	if f.Burstiness != 0 {
		run.Burstiness = f.Burstiness
	}
	if run.TokenizerID == "" {
		run.TokenizerID = model
	}
	if f.NoTokenizer {
		run.TokenizerID = ""
	}
	if f.NumPrompts == 0 {
		// The run's size: its --num-prompts after the simulator's and the
		// dataset's, else (a trace, a duration) the requests it sent.
		run.NumPrompts = cfg.Arrival.NumPrompts
		if run.NumPrompts == 0 {
			run.NumPrompts = int(res.Counts.Total)
		}
	}
	if run.Metrics == nil {
		run.Metrics = []string{vllmresult.MetricTTFT, vllmresult.MetricTPOT, vllmresult.MetricITL, vllmresult.MetricE2EL}
	}
	if f.MaxConcurrencyGiven || cfg.Arrival.MaxConcurrency > 0 {
		c := cfg.Arrival.MaxConcurrency
		run.MaxConcurrency = &c
	}
	if a := cfg.Arrival; a.RampEnd != 0 {
		run.Ramp = &vllmresult.Ramp{Strategy: string(a.Ramp.Kind), Start: a.Ramp.From, End: a.RampEnd}
	}
	return run
}

// rpsChanges returns vLLM's rps_change_events of a ramp over the requests:
// the start rate at the start, then each whole rate the first time a
// request is sent at it or above, at that request's scheduled time.
func rpsChanges(a arrival.Config, offsets []time.Duration, start time.Time) []vllmresult.RPSChange {
	if a.RampEnd == 0 {
		return nil
	}
	last := int(a.Ramp.From)
	out := []vllmresult.RPSChange{{RPS: last, At: start}}
	for i, off := range offsets {
		r := int(math.Floor(a.RateAt(i)))
		for v := last + 1; v <= r; v++ {
			out = append(out, vllmresult.RPSChange{RPS: v, At: start.Add(off)})
		}
		last = max(last, r)
	}
	return out
}

// writeVLLM writes the vLLM result files the run asks for: vLLM's own
// (--save-result) where vLLM writes it, setting o.ResultPath, and
// goodput's --format vllm copy at formatPath beside the records, setting
// o.VLLMPath. It returns a *SaveError for each file it could not write.
func (o *Outcome) writeVLLM(cfg Config, v *vllmCollector, model string, start time.Time, changes []vllmresult.RPSChange, formatPath string) []error {
	tok, conc, known := v.peaks.Figures()
	if !v.on {
		if known {
			o.VLLM = &VLLMFigures{PeakOutputTokensPerSecond: tok, PeakConcurrentRequests: conc}
		}
		return nil
	}
	v.inOrder()
	run := vllmRun(cfg, model, start, o.Result)
	run.RPSChanges = changes
	if p := o.Probes; p != nil {
		run.Probes = &vllmresult.Probes{Latencies: p.Latencies, Failed: p.Failed}
	}
	run.SpecDecode = o.VLLMSpecDecode()
	run.Diffusion = o.VLLMDiffusion()
	fig := &VLLMFigures{}
	// The counter's figures are the file's (vllmresult's tests hold the
	// two to each other); a counter that lost count yields to the file's.
	if !known {
		tok, conc = vllmresult.Peaks(v.reqs)
	}
	fig.PeakOutputTokensPerSecond, fig.PeakConcurrentRequests = tok, conc
	fig.Queue = vllmresult.QueueStats(run, v.reqs)
	if run.SLO != nil {
		if g, ok := vllmresult.Build(run, v.reqs).Get("request_goodput"); ok {
			if f, ok := g.(float64); ok {
				fig.RequestGoodput = &f
			}
		}
	}
	o.VLLM = fig
	var errs []error
	if formatPath != "" {
		full := run
		full.Detailed = true
		if err := vllmresult.WriteFile(formatPath, vllmresult.Build(full, v.reqs), false); err != nil {
			errs = append(errs, &SaveError{Path: formatPath, Err: err})
		} else {
			o.VLLMPath = formatPath
		}
	}
	if !cfg.VLLMFile.Save {
		return errs
	}
	// vLLM replaces the --result-filename it is given, or appends to it:
	// that file is not protected, as it is not in vLLM. The default name
	// carries only the date to the second, so that runs started together
	// would share it: the later one takes a free name rather than replace
	// the other's result.
	path := VLLMResultPath(cfg, model, start)
	if dir := filepath.Dir(path); dir != "." {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return append(errs, &SaveError{Path: path, Err: err})
		}
	}
	obj := vllmresult.Build(run, v.reqs)
	if cfg.VLLMFile.Name == "" && !cfg.VLLMFile.Append {
		written, err := vllmresult.WriteNew(path, obj)
		if err != nil {
			return append(errs, &SaveError{Path: path, Err: err})
		}
		o.ResultPath = written
		return errs
	}
	if err := vllmresult.WriteFile(path, obj, cfg.VLLMFile.Append); err != nil {
		return append(errs, &SaveError{Path: path, Err: err})
	}
	o.ResultPath = path
	return errs
}

// VLLMResultPath is where --save-result writes vLLM's file for a run of
// model started at start: --result-filename, or vLLM's name of it, in
// --result-dir or the current directory; an absolute --result-filename
// stands alone, as in vLLM (Python's os.path.join drops what comes before
// an absolute path).
func VLLMResultPath(cfg Config, model string, start time.Time) string {
	name := cfg.VLLMFile.Name
	if name == "" {
		name = vllmresult.FileName(vllmRun(cfg, model, start, &metrics.Result{}))
	}
	if filepath.IsAbs(name) {
		return name
	}
	return filepath.Join(cfg.VLLMFile.Dir, name)
}

// VLLMSpecDecode returns the server's speculative decoding over the run as
// vLLM's client reports it, or nil when the server drafted nothing in the
// run (or its metrics were not read).
func (o *Outcome) VLLMSpecDecode() *vllmresult.SpecDecode {
	if o.Server == nil || o.Server.SpecDecode == nil || o.Server.SpecDecode.FromGauges {
		return nil // vLLM's client reads counts, which gauges do not give
	}
	sd := o.Server.SpecDecode
	v := &vllmresult.SpecDecode{Drafts: int64(sd.Drafts), DraftTokens: int64(sd.DraftTokens), Accepted: int64(sd.AcceptedTokens)}
	for _, p := range sd.ByPosition {
		v.PerPosition = append(v.PerPosition, p.Rate)
	}
	return v
}

// VLLMDiffusion returns the server's diffusion decoding over the run as
// vLLM's client reads it, or nil when the server ran no step or committed
// no token in the run (or its metrics were not read).
func (o *Outcome) VLLMDiffusion() *vllmresult.Diffusion {
	if o.Server == nil || o.Server.Diffusion == nil {
		return nil
	}
	d := o.Server.Diffusion
	return &vllmresult.Diffusion{Steps: d.Steps, Positions: d.CanvasPositions, Committed: d.CommittedTokens}
}
