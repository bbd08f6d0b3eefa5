package vllmresult

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/goodput-dev/goodput/atomicfile"
)

// Metric names of --percentile-metrics, in the order vLLM writes them.
const (
	MetricTTFT       = "ttft"
	MetricTPOT       = "tpot"
	MetricITL        = "itl"
	MetricE2EL       = "e2el"
	MetricQueue      = "client_queue_time"
	MetricE2ELQueued = "e2el_including_client_queue"
)

// AllMetrics lists the metric names in vLLM's order.
var AllMetrics = []string{MetricTTFT, MetricTPOT, MetricITL, MetricE2EL, MetricQueue, MetricE2ELQueued}

// ParseMetrics parses --percentile-metrics: comma-separated names of
// AllMetrics.
func ParseMetrics(s string) ([]string, error) {
	var out []string
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		ok := false
		for _, m := range AllMetrics {
			ok = ok || f == m
		}
		if !ok {
			return nil, fmt.Errorf("%q: want names among %s", f, strings.Join(AllMetrics, ", "))
		}
		out = append(out, f)
	}
	return out, nil
}

// Ramp is a ramp-up of the request rate over the run, as vLLM takes it.
type Ramp struct {
	Strategy   string // linear or exponential
	Start, End float64
}

// RPSChange is one of vLLM's rps_change_events: when the ramp's rate
// first reached a whole number of requests per second.
type RPSChange struct {
	RPS int
	At  time.Time
}

// Run describes a run for the file's keys. Each field names the key or
// flag it fills.
type Run struct {
	Date        time.Time // date (local time)
	Backend     string    // endpoint_type and backend: --backend as given
	Label       string    // label; "" writes null
	ModelID     string    // model_id
	TokenizerID string    // tokenizer_id; "" writes null (--skip-tokenizer-init)
	NumPrompts  int       // num_prompts, as given
	Metadata    Object    // --metadata, after num_prompts, in the order given
	RequestRate float64   // request_rate; +Inf writes "inf"
	Burstiness  float64
	// MaxConcurrency is --max-concurrency; nil when not given (null).
	MaxConcurrency *int
	Ramp           *Ramp
	RPSChanges     []RPSChange
	Duration       float64 // duration, seconds
	// Metrics are the --percentile-metrics names and Percentiles the
	// --metric-percentiles.
	Metrics     []string
	Percentiles []float64
	// SLO is --goodput: milliseconds by metric (ttft, tpot, e2el); nil
	// writes request_goodput as null, as vLLM does without --goodput.
	SLO      map[string]float64
	Detailed bool // --save-detailed: keep the per-request arrays
	// Probes are the run's probe requests (--probe-request-rate); nil
	// when it sent none.
	Probes *Probes
	// SpecDecode is the server's speculative decoding over the run; nil
	// when it drafted nothing (or its metrics were not read).
	SpecDecode *SpecDecode
	// Diffusion is a diffusion language model's decoding over the run;
	// nil when its metrics were not read. Its keys are written only when
	// Diffusion.Figures has figures.
	Diffusion *Diffusion
}

// SpecDecode is what vLLM's client reads from the server's spec_decode
// counters over a run: the drafts, their tokens, the accepted ones, and the
// share of drafts accepted at each position, in position order.
type SpecDecode struct {
	Drafts, DraftTokens, Accepted int64
	PerPosition                   []float64
}

// AcceptanceRate is vLLM's acceptance rate: accepted ÷ draft tokens, in
// percent.
func (sd *SpecDecode) AcceptanceRate() float64 {
	if sd.DraftTokens <= 0 {
		return 0
	}
	return 100 * float64(sd.Accepted) / float64(sd.DraftTokens)
}

// AcceptanceLength is vLLM's acceptance length: 1 + accepted ÷ drafts, the
// tokens one target-model step yields; 0 without a draft.
func (sd *SpecDecode) AcceptanceLength() float64 {
	if sd.Drafts <= 0 {
		return 0
	}
	return 1 + float64(sd.Accepted)/float64(sd.Drafts)
}

// detailedKeys are the arrays vLLM drops without --save-detailed. It keeps
// latencies and queue_times either way.
var detailedKeys = []string{"input_lens", "output_lens", "start_times", "ttfts", "itls", "generated_texts", "errors"}

// Build returns the result file's object for run and its requests, in
// vLLM's key order, with goodput's additions after vLLM's keys.
func Build(run Run, reqs []Request) Object {
	var o Object
	o.set("date", run.Date.Format("20060102-150405"))
	o.set("endpoint_type", run.Backend)
	o.set("backend", run.Backend)
	o.set("label", orNull(run.Label))
	o.set("model_id", run.ModelID)
	o.set("tokenizer_id", orNull(run.TokenizerID))
	o.set("num_prompts", run.NumPrompts)
	for _, m := range run.Metadata {
		o.set(m.Key, m.Value)
	}
	if math.IsInf(run.RequestRate, 1) {
		o.set("request_rate", "inf")
	} else {
		o.set("request_rate", run.RequestRate)
	}
	o.set("burstiness", run.Burstiness)
	if run.MaxConcurrency != nil {
		o.set("max_concurrency", *run.MaxConcurrency)
	} else {
		o.set("max_concurrency", nil)
	}
	if r := run.Ramp; r != nil {
		o.set("ramp_up_strategy", r.Strategy)
		o.set("ramp_up_start_rps", number(r.Start))
		o.set("ramp_up_end_rps", number(r.End))
	}

	var (
		completed, failed, totalIn, totalOut, good int
		ttfts, tpots, itls, e2els, fromSched       []float64
	)
	n := len(reqs)
	inputLens, outputLens := make([]int, n), make([]int, n)
	allTTFT, latencies, starts, queueTimes, sched := make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)
	allITL := make([][]float64, n)
	texts, errs, ids := make([]string, n), make([]string, n), make([]string, n)
	haveIDs := false
	for i, q := range reqs {
		inputLens[i], outputLens[i] = q.InputLen, q.OutputLen
		allTTFT[i], latencies[i], starts[i], queueTimes[i], sched[i] = q.TTFT, q.Latency, q.Start, q.Queue, q.ScheduledAt
		allITL[i] = q.ITL
		if allITL[i] == nil {
			allITL[i] = []float64{}
		}
		texts[i], errs[i], ids[i] = q.Text, q.Error, q.RequestID
		haveIDs = haveIDs || q.RequestID != ""
		if !q.Success {
			failed++
			continue
		}
		completed++
		totalIn += q.InputLen
		totalOut += q.OutputLen
		tpot, hasTPOT := q.TPOT()
		if hasTPOT {
			tpots = append(tpots, tpot)
		}
		ttfts = append(ttfts, q.TTFT)
		itls = append(itls, q.ITL...)
		e2els = append(e2els, q.Latency)
		fromSched = append(fromSched, q.FromScheduled())
		if run.SLO != nil && meets(run.SLO, q.TTFT, tpot, q.Latency) {
			good++
		}
	}
	per := func(v float64) float64 {
		if run.Duration <= 0 {
			return 0
		}
		return v / run.Duration
	}
	o.set("duration", run.Duration)
	o.set("completed", completed)
	o.set("failed", failed)
	o.set("total_input_tokens", totalIn)
	o.set("total_output_tokens", totalOut)
	o.set("request_throughput", per(float64(completed)))
	if run.SLO != nil {
		o.set("request_goodput", per(float64(good)))
	} else {
		o.set("request_goodput", nil)
	}
	o.set("output_throughput", per(float64(totalOut)))
	o.set("total_token_throughput", per(float64(totalIn+totalOut)))
	o.set("input_lens", inputLens)
	o.set("output_lens", outputLens)
	o.set("ttfts", allTTFT)
	o.set("itls", allITL)
	o.set("latencies", latencies)
	o.set("start_times", starts)
	o.set("queue_times", queueTimes)
	o.set("generated_texts", texts)
	o.set("errors", errs)
	peakTokens, peakConc := Peaks(reqs)
	o.set("max_output_tokens_per_s", peakTokens)
	o.set("max_concurrent_requests", peakConc)
	o.set("rtfx", 0.0)
	if run.Probes != nil {
		if p, ok := run.Probes.Stats(); ok {
			o.set("probe_completed", p.Completed)
			o.set("probe_failed", p.Failed)
			o.set("probe_median_e2el_ms", p.Median)
			o.set("probe_p99_e2el_ms", p.P99)
			o.set("probe_max_e2el_ms", p.Max)
		}
	}
	if len(run.RPSChanges) > 0 {
		events := make([]Object, len(run.RPSChanges))
		for i, c := range run.RPSChanges {
			events[i] = Object{{"rps", c.RPS}, {"timestamp", isoformat(c.At)}}
		}
		o.set("rps_change_events", events)
	}
	if sd := run.SpecDecode; sd != nil && sd.DraftTokens > 0 {
		o.set("spec_decode_acceptance_rate", sd.AcceptanceRate())
		o.set("spec_decode_acceptance_length", sd.AcceptanceLength())
		o.set("spec_decode_num_drafts", sd.Drafts)
		o.set("spec_decode_draft_tokens", sd.DraftTokens)
		o.set("spec_decode_accepted_tokens", sd.Accepted)
		per := sd.PerPosition
		if per == nil {
			per = []float64{}
		}
		o.set("spec_decode_per_position_acceptance_rates", per)
	}
	if f, ok := run.Diffusion.Figures(run.Duration); ok {
		o.set("diffusion_committed_throughput", f.CommittedThroughput)
		o.set("diffusion_steps_per_canvas", f.StepsPerCanvas)
		o.set("diffusion_committed_per_step", f.CommittedPerStep)
		o.set("diffusion_committed_tokens", f.Committed)
		o.set("diffusion_denoising_steps", f.DenoisingSteps)
		o.set("diffusion_canvas_positions", f.Positions)
	}
	selected := map[string]bool{}
	for _, m := range run.Metrics {
		selected[m] = true
	}
	values := map[string][]float64{MetricTTFT: ttfts, MetricTPOT: tpots, MetricITL: itls, MetricE2EL: e2els}
	for _, m := range AllMetrics {
		if v, ok := values[m]; ok && selected[m] {
			setStat(&o, m, stat(v, run.Percentiles))
		}
	}
	for _, q := range QueueStats(run, reqs) {
		setStat(&o, q.Name, q.Stat)
	}
	// goodput's additions: its own TTFT, and how the percentiles were read.
	setStat(&o, "ttft_from_scheduled", stat(fromSched, run.Percentiles))
	o.set("percentile_method", "linear")
	o.set("scheduled_times", sched)
	if haveIDs {
		o.set("request_ids", ids)
	}
	if !run.Detailed {
		for _, k := range detailedKeys {
			o.del(k)
		}
		o.del("scheduled_times")
		o.del("request_ids")
	}
	return o
}

// NamedStat is the Stat of one of vLLM's metrics, by its name, over Count
// requests.
type NamedStat struct {
	Name  string
	Count int
	Stat
}

// QueueStats returns vLLM's client-side queueing metrics of the run that
// --percentile-metrics selects, in vLLM's order, where vLLM has them:
// client_queue_time (the wait for a --max-concurrency slot) when the run
// was capped, e2el_including_client_queue (that wait and the latency) when
// it was capped at a finite rate; over the successful requests.
func QueueStats(run Run, reqs []Request) []NamedStat {
	if run.MaxConcurrency == nil {
		return nil
	}
	var queues, queued []float64
	for _, q := range reqs {
		if q.Success {
			queues = append(queues, q.Queue)
			queued = append(queued, q.Latency+q.Queue)
		}
	}
	var out []NamedStat
	if slices.Contains(run.Metrics, MetricQueue) {
		out = append(out, NamedStat{MetricQueue, len(queues), stat(queues, run.Percentiles)})
	}
	if slices.Contains(run.Metrics, MetricE2ELQueued) && !math.IsInf(run.RequestRate, 1) {
		out = append(out, NamedStat{MetricE2ELQueued, len(queued), stat(queued, run.Percentiles)})
	}
	return out
}

// meets applies vLLM's goodput rule: every given SLO (milliseconds) at or
// above the request's metric, TPOT counting as 0 for one-token answers.
func meets(slo map[string]float64, ttft, tpot, e2el float64) bool {
	for m, limit := range slo {
		v := map[string]float64{"ttft": ttft, "tpot": tpot, "e2el": e2el}[m]
		if limit/1e3 < v {
			return false
		}
	}
	return true
}

// setStat adds one metric's mean, median, std and percentile keys.
func setStat(o *Object, name string, s Stat) {
	o.set("mean_"+name+"_ms", s.Mean)
	o.set("median_"+name+"_ms", s.Median)
	o.set("std_"+name+"_ms", s.Std)
	for _, p := range s.Percentiles {
		o.set("p"+percentWord(p.P)+"_"+name+"_ms", p.Value)
	}
}

// percentWord spells a percentile as vLLM's keys do: 99, 99.9.
func percentWord(p float64) string {
	if p == math.Trunc(p) {
		return strconv.FormatInt(int64(p), 10)
	}
	return pyFloat(p)
}

// isoformat writes t as Python's datetime.isoformat does for a naive local
// time: microseconds only when there are some.
func isoformat(t time.Time) string {
	if t.Nanosecond()/1000 == 0 {
		return t.Format("2006-01-02T15:04:05")
	}
	return t.Format("2006-01-02T15:04:05.000000")
}

func orNull(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// number writes a whole number as an int, as vLLM's int-typed flags are.
func number(v float64) any {
	if v == math.Trunc(v) && math.Abs(v) < 1<<53 {
		return int64(v)
	}
	return v
}

// FileName returns vLLM's default name of the result file:
// <label>-<rate>qps[-concurrency<n>]-<model>-<date>.json, or
// <label>-ramp-up-<strategy>-<start>qps-<end>qps[-concurrency<n>]-<model>-<date>.json
// for a ramp, the label defaulting to the backend and the model to the last
// part of its id.
func FileName(run Run) string {
	label := run.Label
	if label == "" {
		label = run.Backend
	}
	conc := ""
	if run.MaxConcurrency != nil {
		conc = fmt.Sprintf("-concurrency%d", *run.MaxConcurrency)
	}
	model := path.Base("/" + run.ModelID)
	if model == "/" {
		model = "unknown-model" // a server that named none: never a directory
	}
	date := run.Date.Format("20060102-150405")
	if r := run.Ramp; r != nil {
		return fmt.Sprintf("%s-ramp-up-%s-%sqps-%sqps%s-%s-%s.json", label, r.Strategy, rpsWord(r.Start), rpsWord(r.End), conc, model, date)
	}
	rate := "inf"
	if !math.IsInf(run.RequestRate, 1) {
		rate = pyFloat(run.RequestRate)
	}
	return fmt.Sprintf("%s-%sqps%s-%s-%s.json", label, rate, conc, model, date)
}

func rpsWord(v float64) string {
	if v == math.Trunc(v) {
		return strconv.FormatInt(int64(v), 10)
	}
	return pyFloat(v)
}

// Encode returns o as Python's json.dump writes it.
func Encode(o Object) []byte { return appendPython(nil, o) }

// WriteNew writes o to a file that did not exist: name, or, when another
// run's file has it, the first free one of name-2.json, name-3.json, …
// It returns the path written. A default file name carries only the
// date to the second, which runs started together share.
func WriteNew(name string, o Object) (string, error) {
	stem := strings.TrimSuffix(name, ".json")
	for n := 1; ; n++ {
		path := name
		if n > 1 {
			path = fmt.Sprintf("%s-%d.json", stem, n)
		}
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if errors.Is(err, fs.ErrExist) && n < 1000 {
			continue
		}
		if err != nil {
			return "", err
		}
		_, werr := f.Write(Encode(o))
		if err := errors.Join(werr, f.Close()); err != nil {
			os.Remove(path) // a file of no result (a full disk) would pass for one
			return "", fmt.Errorf("%s: %w", path, err)
		}
		return path, nil
	}
}

// WriteFile writes o to name, replacing the file (a reader sees the old
// file or the new one); with appendTo, it adds o as one more line instead,
// after a newline when the file is not empty, as vLLM's --append-result
// does, and a write that fails takes its part back out.
func WriteFile(name string, o Object, appendTo bool) (err error) {
	b := Encode(o)
	if !appendTo {
		return atomicfile.Write(name, func(w io.Writer) error {
			_, err := w.Write(b)
			return err
		})
	}
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := f.Close(); err == nil && cerr != nil {
			err = fmt.Errorf("%s: %w", name, cerr)
		}
	}()
	fi, err := f.Stat()
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	if fi.Size() > 0 {
		b = append([]byte{'\n'}, b...)
	}
	if _, err := f.Write(b); err != nil {
		f.Truncate(fi.Size()) // the results before it stay whole
		return fmt.Errorf("%s: %w", name, err)
	}
	return nil
}
