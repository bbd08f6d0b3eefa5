package cli

import (
	"fmt"
	"math"
	"net"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/goodput-dev/goodput/arrival"
	"github.com/goodput-dev/goodput/bench"
	"github.com/goodput-dev/goodput/vllmargs"
	"github.com/goodput-dev/goodput/vllmresult"
	"github.com/goodput-dev/goodput/workload"
)

// vllmFlags are the flags bench takes for `vllm bench serve` command lines
// (see package vllmargs and docs/vllm.md), with the values that need work
// before they fit bench.Config.
type vllmFlags struct {
	line  vllmargs.Result // what translating the command line found
	notes []string        // what apply found to say before the run

	host, port      string
	recordLabels    []string
	metadata        []string
	percentileNames string
	inputLen        int
	outputLen       int
	timelineITL     string
	plotTimeline    bool
	plotDataset     bool
	warmupFirst     int

	req requestFlags
}

// registerVLLMFlags registers the flags of `vllm bench serve` that goodput
// bench has for vLLM's sake.
func registerVLLMFlags(fl *pflag.FlagSet, cfg *bench.Config, f *vllmFlags) {
	wl := &cfg.Workload
	fl.StringVar(&f.host, "host", "", "server host, with --port, instead of --base-url (default 127.0.0.1 when --port is given)")
	fl.StringVar(&f.port, "port", "", "server port, with --host, instead of --base-url (default 8000 when --host is given)")
	fl.IntVar(&f.warmupFirst, "warmup-first", 0, "treat the first N requests of the run as warm-up: sent, excluded from statistics (goodput's --num-warmups before it took vLLM's meaning)")
	fl.StringArrayVar(&f.recordLabels, "record-label", nil, "label every record, as key=value (repeatable)")
	fl.BoolVar(&cfg.VLLMFile.Detailed, "save-detailed", false, "keep the per-request arrays in vLLM's result file")
	fl.BoolVar(&cfg.VLLMFile.Append, "append-result", false, "add the result to vLLM's result file as one more line")
	fl.StringVar(&cfg.VLLMFile.Name, "result-filename", "", "name of vLLM's result file (default <label>-<rate>qps[-concurrency<n>]-<model>-<date>.json)")
	fl.StringArrayVar(&f.metadata, "metadata", nil, "key=value stored in vLLM's result file (several after one flag)")
	fl.StringVar(&f.percentileNames, "percentile-metrics", "", "latency blocks to print and save: ttft,tpot,itl,e2el,client_queue_time,e2el_including_client_queue (default ttft,tpot,itl,e2el)")
	registerRequestFlags(fl, cfg, &f.req, "bench")
	fl.Float64Var(&cfg.Arrival.RampEnd, "ramp-up-end-rps", 0, "vLLM's ramp: the rate climbs from --ramp-up-start-rps to this over the run's requests")
	fl.Float64Var(&cfg.ProbeRate, "probe-request-rate", 0, `send one-token probe requests (prompt "Hi") at this rate per second beside the run, outside --max-concurrency and its figures, and report their latency apart (0: none)`)
	fl.BoolVar(&cfg.Profile, "profile", false, "POST /start_profile before the run and /stop_profile after it")
	fl.BoolVar(&f.plotTimeline, "plot-timeline", false, "write the run's HTML report beside vLLM's result file (<result>.timeline.html)")
	fl.StringVar(&f.timelineITL, "timeline-itl-thresholds", "25,50", "two ITL thresholds in ms for the timeline's colours")
	fl.BoolVar(&f.plotDataset, "plot-dataset-stats", false, "draw the prompt, output and total tokens of the completed requests as histograms, a PNG beside vLLM's result file (<result>.dataset_stats.png)")
	fl.IntVar(&f.inputLen, "input-len", 0, "input length of the random dataset (vLLM's --input-len)")
	fl.IntVar(&f.outputLen, "output-len", 0, "output length of every dataset that has one (vLLM's --output-len)")
	fl.BoolVar(&cfg.VLLMFile.NoTokenizer, "skip-tokenizer-init", false, "load no tokenizer (tokenizer_id null in vLLM's file)")
	registerPrefixRepetitionFlags(fl, wl)
}

// applyVLLM puts the vLLM flags into cfg and returns the notes to print
// before the run. It runs after the flags are parsed and before the
// shared flags are applied.
func (f *vllmFlags) apply(cmd *cobra.Command, cfg *bench.Config, tf *targetFlags, m *metricsFlags) ([]string, error) {
	fl := cmd.Flags()
	notes := append([]string(nil), f.line.Notes...)

	// The target: --host and --port as vLLM takes them.
	if fl.Changed("host") || fl.Changed("port") {
		if fl.Changed("port") {
			if n, err := strconv.Atoi(f.port); err != nil || n < 1 || n > 65535 {
				return nil, usageErr("--port %q: want a port number", f.port)
			}
		}
		if cfg.BaseURL != "" {
			notes = append(notes, "--host and --port are not used: --base-url wins, as in vLLM")
		} else {
			host, port := f.host, f.port
			if host == "" {
				host = "127.0.0.1"
			}
			if port == "" {
				port = "8000"
			}
			cfg.BaseURL = "http://" + net.JoinHostPort(host, port)
		}
	}

	// --label: vLLM's file-name prefix; key=value is goodput's record label.
	var labels []string
	for _, l := range tf.labels {
		if strings.Contains(l, "=") {
			labels = append(labels, l)
			notes = append(notes, fmt.Sprintf("--label %s labels the records, as goodput's --record-label", l))
		} else {
			cfg.VLLMFile.Label = l
		}
	}
	tf.labels = append(labels, f.recordLabels...)

	// Results: --save-result writes vLLM's file where vLLM does, goodput's
	// records and summary beside it.
	cfg.VLLMFile.Save = cfg.SaveResult || cfg.VLLMFile.Append
	cfg.VLLMFile.Dir = cfg.ResultDir
	if (cfg.VLLMFile.Save || f.plotTimeline || f.plotDataset) && cfg.ResultDir == "" {
		cfg.ResultDir = "."
	}
	cfg.SaveResult = cfg.VLLMFile.Save
	cfg.VLLMFile.Backend = cfg.Backend
	cfg.VLLMFile.MaxConcurrencyGiven = fl.Changed("max-concurrency")
	for _, kv := range f.metadata {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || strings.TrimSpace(k) == "" {
			return nil, usageErr("--metadata %q: want KEY=VALUE", kv)
		}
		cfg.VLLMFile.Metadata = append(cfg.VLLMFile.Metadata, vllmresult.Member{Key: strings.TrimSpace(k), Value: strings.TrimSpace(v)})
	}
	if f.percentileNames != "" {
		ms, err := vllmresult.ParseMetrics(f.percentileNames)
		if err != nil {
			return nil, usageErr("--percentile-metrics: %v", err)
		}
		cfg.VLLMFile.Metrics = ms
	}
	if f.plotTimeline {
		if _, err := timelineThresholds(f.timelineITL); err != nil {
			return nil, usageErr("--timeline-itl-thresholds: %v", err)
		}
	}

	// Requests.
	reqNotes, err := f.req.apply(fl, cfg)
	if err != nil {
		return nil, err
	}
	notes = append(notes, reqNotes...)
	for name, v := range map[string]int{"input-len": f.inputLen, "output-len": f.outputLen} {
		if fl.Changed(name) && v < 1 {
			return nil, usageErr("--%s %d: must be at least 1", name, v)
		}
	}
	if fl.Changed("hf-output-len") && cfg.Workload.HF.OutputLen == 0 {
		// goodput's 0 is "unset"; vLLM's is a length, which its samplers
		// refuse or send.
		return nil, usageErr("--hf-output-len 0: vLLM takes 0 as a length of no tokens, which its samplers fail on or send; give 1 or more, or leave the flag out for each dataset's own length")
	}
	if fl.Changed("input-len") {
		cfg.Workload.Random.InputLen = f.inputLen
	}
	if fl.Changed("output-len") {
		wl := &cfg.Workload
		wl.Random.OutputLen, wl.ShareGPT.OutputLen, wl.Custom.OutputLen = f.outputLen, f.outputLen, f.outputLen
		wl.HF.OutputLen, wl.SpecBench.OutputLen, wl.PrefixRepetition.OutputLen = f.outputLen, f.outputLen, f.outputLen
		// vLLM's --output-len leaves sonnet and speed_bench their own.
	}

	// Load.
	// vLLM's custom, spec_bench and speed_bench datasets take every entry for a
	// --num-prompts of 0 or less; goodput does so for -1, and for 0 where
	// it would bound nothing else (no --duration), with every dataset that
	// has entries.
	given := cfg.Arrival.NumPrompts
	if fl.Changed("num-prompts") && (given == -1 || given == 0 && !fl.Changed("duration") && cfg.Workload.HasEntries()) {
		cfg.AllEntries, cfg.Arrival.NumPrompts = true, 0
	}
	if fl.Changed("num-prompts") {
		// vLLM's file holds the flag's value; without the flag, the
		// number the run was sized to (see bench's vllmRun).
		cfg.VLLMFile.NumPrompts = cfg.Arrival.NumPrompts
	}
	if cfg.AllEntries && !(fl.Changed("num-prompts") && given == 0) {
		cfg.VLLMFile.NumPrompts = -1 // vLLM's every entry; for 0, the file says how many there were
	}
	if math.IsInf(cfg.Arrival.Burstiness, 1) && !fl.Changed("arrival") {
		// vLLM's infinite burstiness is evenly spaced arrivals; its file
		// still says inf.
		cfg.VLLMFile.Burstiness = cfg.Arrival.Burstiness
		cfg.Arrival.Burstiness, cfg.Arrival.Arrival = 1, arrival.KindConstant
	}
	// vLLM's --num-warmups are extra requests before the run; goodput's
	// warm-up requests of the run itself are --warmup-first.
	if f.warmupFirst < 0 {
		return nil, usageErr("--warmup-first %d: want 0 or more", f.warmupFirst)
	}
	cfg.WarmupRequests, cfg.Warmups = cfg.Warmups, f.warmupFirst

	if note := randomIgnoreEOS(fl, cfg); note != "" {
		if f.line.VLLMStyle {
			note = fmt.Sprintf("vLLM command line (%s): %s", f.line.Because, note)
		}
		notes = append(notes, note)
	}
	if len(m.goodput) > 0 {
		slo, others, err := vllmSLO(m.goodput)
		if err != nil {
			return nil, err
		}
		cfg.VLLMFile.SLO = slo
		if len(others) > 0 {
			// vLLM refuses such a --goodput: its request goodput would
			// count requests that goodput's own judges bad.
			cfg.VLLMFile.SLO = nil
			notes = append(notes, fmt.Sprintf("--goodput %s: vLLM's request goodput judges ttft, tpot and e2el only (vllm bench serve refuses the others), so vLLM's request_goodput is left out (null in its file); goodput's Goodput block judges every condition",
				strings.Join(others, " ")))
		}
	}
	note, err := f.req.tokenizer(cfg)
	if err != nil {
		return nil, err
	}
	if note != "" {
		notes = append(notes, note)
	}
	return notes, nil
}

// aiperfSLONames are the names AIPerf's and GenAI-Perf's --goodput give
// vLLM's three metrics (their inter_token_latency is a request's TPOT).
var aiperfSLONames = map[string]string{"time_to_first_token": "ttft", "inter_token_latency": "tpot", "request_latency": "e2el"}

// vllmSLO reads --goodput's pairs as vLLM does, for the request_goodput of
// vLLM's file: milliseconds by ttft, tpot and e2el (also by AIPerf's
// names). others are the pairs that name goodput's other metrics (itl,
// client_queue, …), which vLLM does not take.
func vllmSLO(pairs []string) (slo map[string]float64, others []string, err error) {
	slo = map[string]float64{}
	for _, p := range strings.Fields(strings.Join(pairs, " ")) {
		k, v, ok := strings.Cut(p, ":")
		ms, err := strconv.ParseFloat(v, 64)
		if !ok || err != nil || ms < 0 {
			return nil, nil, usageErr("--goodput %q: want KEY:VALUE, the value in milliseconds ≥ 0", p)
		}
		switch k {
		case "ttft", "tpot", "e2el":
			slo[k] = ms
		default:
			if name, ok := aiperfSLONames[k]; ok {
				slo[name] = ms
				continue
			}
			others = append(others, p)
		}
	}
	return slo, others, nil
}

// timelineThresholds parses --timeline-itl-thresholds: two numbers of
// milliseconds.
func timelineThresholds(s string) ([2]float64, error) {
	parts := strings.Split(s, ",")
	if len(parts) != 2 {
		return [2]float64{}, fmt.Errorf("%q: want two values in milliseconds, as 25,50", s)
	}
	var out [2]float64
	for i, p := range parts {
		v, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
		if err != nil || v < 0 || math.IsNaN(v) || math.IsInf(v, 0) {
			return out, fmt.Errorf("%q: want two values in milliseconds, as 25,50", s)
		}
		out[i] = v
	}
	if out[0] > out[1] {
		return out, fmt.Errorf("%q: want the lower threshold first, as 25,50", s)
	}
	return out, nil
}

// registerPrefixRepetitionFlags registers the shape of vLLM's
// prefix_repetition dataset, which a sweep takes as bench does.
func registerPrefixRepetitionFlags(fl *pflag.FlagSet, wl *workload.Config) {
	fl.IntVar(&wl.PrefixRepetition.PrefixLen, "prefix-repetition-prefix-len", wl.PrefixRepetition.PrefixLen, "prefix tokens of the prefix_repetition dataset")
	fl.IntVar(&wl.PrefixRepetition.SuffixLen, "prefix-repetition-suffix-len", wl.PrefixRepetition.SuffixLen, "suffix tokens of the prefix_repetition dataset")
	fl.IntVar(&wl.PrefixRepetition.NumPrefixes, "prefix-repetition-num-prefixes", wl.PrefixRepetition.NumPrefixes, "distinct prefixes of the prefix_repetition dataset")
	fl.IntVar(&wl.PrefixRepetition.OutputLen, "prefix-repetition-output-len", wl.PrefixRepetition.OutputLen, "output tokens of the prefix_repetition dataset")
}
