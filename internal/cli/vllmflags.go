package cli

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"net"
	"os"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/goodput-dev/goodput/arrival"
	"github.com/goodput-dev/goodput/bench"
	"github.com/goodput-dev/goodput/tokenizer/pretrained"
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
	requestIDPrefix string
	chatKwargs      string
	loraAssignment  string
	inputLen        int
	outputLen       int
	timelineITL     string
	plotTimeline    bool
	warmupFirst     int
	stream          bool

	temperature, topP, minP, freqPenalty, presPenalty, repPenalty float64
	topK, logprobs                                                int

	tokenizerMode   string
	trustRemoteCode bool
}

// registerVLLMFlags registers the flags of `vllm bench serve` that goodput
// bench has for vLLM's sake.
func registerVLLMFlags(fl *pflag.FlagSet, cfg *bench.Config, f *vllmFlags) {
	wl := &cfg.Workload
	fl.StringVar(&f.host, "host", "", "server host, with --port, instead of --base-url (default 127.0.0.1 when --port is given)")
	fl.StringVar(&f.port, "port", "", "server port, with --host, instead of --base-url (default 8000 when --host is given)")
	fl.StringVar(&cfg.Request.ServedModelName, "served-model-name", "", "model name sent in requests, when it differs from --model")
	fl.IntVar(&f.warmupFirst, "warmup-first", 0, "treat the first N requests of the run as warm-up: sent, excluded from statistics (goodput's --num-warmups before it took vLLM's meaning)")
	fl.StringArrayVar(&f.recordLabels, "record-label", nil, "label every record, as key=value (repeatable)")
	fl.BoolVar(&cfg.VLLMFile.Detailed, "save-detailed", false, "keep the per-request arrays in vLLM's result file")
	fl.BoolVar(&cfg.VLLMFile.Append, "append-result", false, "add the result to vLLM's result file as one more line")
	fl.StringVar(&cfg.VLLMFile.Name, "result-filename", "", "name of vLLM's result file (default <label>-<rate>qps[-concurrency<n>]-<model>-<date>.json)")
	fl.StringArrayVar(&f.metadata, "metadata", nil, "key=value stored in vLLM's result file (several after one flag)")
	fl.StringVar(&f.percentileNames, "percentile-metrics", "", "latency blocks to print and save: ttft,tpot,itl,e2el,client_queue_time,e2el_including_client_queue (default ttft,tpot,itl,e2el)")
	fl.StringVar(&f.requestIDPrefix, "request-id-prefix", "", "x-request-id of each request is this prefix and its number, stored in its record (default bench-<8 hex digits>-; \"\" sends none)")
	fl.Float64Var(&f.temperature, "temperature", 0, "temperature of every request (unset: the server's default)")
	fl.Float64Var(&f.topP, "top-p", 0, "top_p of every request")
	fl.IntVar(&f.topK, "top-k", 0, "top_k of every request")
	fl.Float64Var(&f.minP, "min-p", 0, "min_p of every request")
	fl.Float64Var(&f.freqPenalty, "frequency-penalty", 0, "frequency_penalty of every request")
	fl.Float64Var(&f.presPenalty, "presence-penalty", 0, "presence_penalty of every request")
	fl.Float64Var(&f.repPenalty, "repetition-penalty", 0, "repetition_penalty of every request")
	fl.IntVar(&f.logprobs, "logprobs", 0, "logprobs of every completions request")
	fl.StringVar(&f.chatKwargs, "chat-template-kwargs", "", "JSON object sent as chat_template_kwargs (openai-chat)")
	fl.StringArrayVar(&cfg.Request.LoRA, "lora-modules", nil, "LoRA adapter names; each request asks for one as its model")
	fl.StringVar(&f.loraAssignment, "lora-assignment", "random", "how requests pick a LoRA adapter: random or round-robin")
	fl.Float64Var(&cfg.Arrival.RampEnd, "ramp-up-end-rps", 0, "vLLM's ramp: the rate climbs from --ramp-up-start-rps to this over the run's requests")
	fl.BoolVar(&f.stream, "stream", true, "stream the answers; --stream=false sends non-streaming requests (TTFT is then the end-to-end latency)")
	fl.BoolVar(&cfg.Profile, "profile", false, "POST /start_profile before the run and /stop_profile after it")
	fl.BoolVar(&f.plotTimeline, "plot-timeline", false, "write the run's HTML report beside vLLM's result file (<result>.timeline.html)")
	fl.StringVar(&f.timelineITL, "timeline-itl-thresholds", "25,50", "two ITL thresholds in ms for the timeline's colours")
	fl.IntVar(&f.inputLen, "input-len", 0, "input length of the random dataset (vLLM's --input-len)")
	fl.IntVar(&f.outputLen, "output-len", 0, "output length of every dataset that has one (vLLM's --output-len)")
	fl.StringVar(&cfg.VLLMFile.TokenizerID, "tokenizer", "", "tokenizer.json, a directory or GGUF file, or a cached Hugging Face id: fits text prompts without /tokenize, counts output without usage")
	fl.StringVar(&f.tokenizerMode, "tokenizer-mode", "auto", "accepted for vLLM's command lines: goodput reads tokenizer files itself")
	fl.BoolVar(&f.trustRemoteCode, "trust-remote-code", false, "accepted for vLLM's command lines: goodput runs no code from a model repository")
	fl.BoolVar(&cfg.VLLMFile.NoTokenizer, "skip-tokenizer-init", false, "load no tokenizer (tokenizer_id null in vLLM's file)")
	fl.BoolVar(&cfg.NoOversample, "no-oversample", false, "at most one request per dataset entry")
	fl.IntVar(&wl.ShareGPT.OutputLen, "sharegpt-output-len", 0, "output tokens of every ShareGPT request, instead of its reply's length")
	fl.IntVar(&wl.Sonnet.InputLen, "sonnet-input-len", wl.Sonnet.InputLen, "most prompt tokens of the sonnet dataset")
	fl.IntVar(&wl.Sonnet.OutputLen, "sonnet-output-len", wl.Sonnet.OutputLen, "output tokens of the sonnet dataset")
	fl.IntVar(&wl.Sonnet.PrefixLen, "sonnet-prefix-len", wl.Sonnet.PrefixLen, "tokens of the lines every sonnet prompt starts with")
	registerPrefixRepetitionFlags(fl, wl)
	fl.IntVar(&wl.SpecBench.OutputLen, "spec-bench-output-len", wl.SpecBench.OutputLen, "output tokens of the spec_bench dataset")
	fl.StringVar(&wl.SpecBench.Category, "spec-bench-category", "", "only this category of the spec_bench dataset")
	fl.StringVar(&wl.HF.Name, "hf-name", "", "Hugging Face id of the dataset in --dataset-path (picks its prompt column)")
	fl.IntVar(&wl.HF.OutputLen, "hf-output-len", 0, "output tokens of every hf request, instead of the dataset's")
	fl.StringVar(&wl.HF.Split, "hf-split", "", "split of the hf dataset (recorded: a local file is one split)")
	fl.StringVar(&wl.HF.Subset, "hf-subset", "", "subset of the hf dataset (recorded)")
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
	if (cfg.VLLMFile.Save || f.plotTimeline) && cfg.ResultDir == "" {
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
	if !fl.Changed("request-id-prefix") {
		f.requestIDPrefix = defaultRequestIDPrefix()
	}
	cfg.Request.RequestIDPrefix = f.requestIDPrefix
	s := &cfg.Request.Sampling
	for _, p := range []struct {
		flag string
		v    float64
		dst  **float64
	}{{"temperature", f.temperature, &s.Temperature}, {"top-p", f.topP, &s.TopP}, {"min-p", f.minP, &s.MinP},
		{"frequency-penalty", f.freqPenalty, &s.FrequencyPenalty}, {"presence-penalty", f.presPenalty, &s.PresencePenalty},
		{"repetition-penalty", f.repPenalty, &s.RepetitionPenalty}} {
		if fl.Changed(p.flag) {
			v := p.v
			*p.dst = &v
		}
	}
	if fl.Changed("top-k") {
		k := f.topK
		s.TopK = &k
	}
	if fl.Changed("logprobs") {
		if cfg.Backend == "openai-chat" {
			notes = append(notes, "--logprobs is not sent with openai-chat, as vLLM sends it with completions only")
		} else {
			n := f.logprobs
			cfg.Request.Logprobs = &n
		}
	}
	if f.chatKwargs != "" {
		var kw map[string]any
		if err := json.Unmarshal([]byte(f.chatKwargs), &kw); err != nil || kw == nil {
			return nil, usageErr("--chat-template-kwargs %q: want a JSON object", f.chatKwargs)
		}
		cfg.Request.ChatTemplateKwargs = kw
	}
	switch f.loraAssignment {
	case "random":
	case "round-robin":
		cfg.Request.LoRARoundRobin = true
	default:
		return nil, usageErr("--lora-assignment %q: want random or round-robin", f.loraAssignment)
	}
	if fl.Changed("input-len") {
		cfg.Workload.Random.InputLen = f.inputLen
	}
	if fl.Changed("output-len") {
		wl := &cfg.Workload
		wl.Random.OutputLen, wl.ShareGPT.OutputLen, wl.Custom.OutputLen = f.outputLen, f.outputLen, f.outputLen
		wl.HF.OutputLen, wl.SpecBench.OutputLen, wl.PrefixRepetition.OutputLen = f.outputLen, f.outputLen, f.outputLen
	}

	// Load.
	if fl.Changed("num-prompts") && cfg.Arrival.NumPrompts == -1 {
		cfg.AllEntries, cfg.Arrival.NumPrompts = true, 0
	}
	cfg.VLLMFile.NumPrompts = cfg.Arrival.NumPrompts
	if cfg.AllEntries {
		cfg.VLLMFile.NumPrompts = -1
	}
	if math.IsInf(cfg.Arrival.Burstiness, 1) && !fl.Changed("arrival") {
		// vLLM's infinite burstiness is evenly spaced arrivals.
		cfg.Arrival.Burstiness, cfg.Arrival.Arrival = 1, arrival.KindConstant
	}
	cfg.NoStream = !f.stream
	// vLLM's --num-warmups are extra requests before the run; goodput's
	// warm-up requests of the run itself are --warmup-first.
	if f.warmupFirst < 0 {
		return nil, usageErr("--warmup-first %d: want 0 or more", f.warmupFirst)
	}
	cfg.WarmupRequests, cfg.Warmups = cfg.Warmups, f.warmupFirst

	// vLLM forces ignore_eos for the random dataset on OpenAI backends.
	if f.line.VLLMStyle && !fl.Changed("ignore-eos") && vllmargs.ForcesIgnoreEOS(cfg.Workload.Dataset, cfg.Backend) {
		cfg.Workload.Request.IgnoreEOS = true
		notes = append(notes, fmt.Sprintf("vLLM command line (%s): --ignore-eos is on for the random dataset, as vllm bench serve sets it; --ignore-eos=false turns it off", f.line.Because))
	}
	if len(m.goodput) > 0 {
		slo, err := vllmSLO(m.goodput)
		if err != nil {
			return nil, err
		}
		cfg.VLLMFile.SLO = slo
	}
	if id := cfg.VLLMFile.TokenizerID; id != "" && !cfg.VLLMFile.NoTokenizer {
		tok, note, err := loadTokenizer(id)
		if err != nil {
			return nil, fmt.Errorf("--tokenizer: %w", err)
		}
		cfg.Tokenizer = tok
		if note != "" {
			notes = append(notes, note)
		}
	}
	return notes, nil
}

// openTokenizer loads a tokenizer: a tokenizer.json, a directory holding
// one, a GGUF model file, or a model id in the local Hugging Face cache.
// Tests replace it.
var openTokenizer = func(path string) (bench.Tokenizer, error) {
	tok, err := pretrained.Open(path)
	if err != nil {
		return nil, err
	}
	return tok, nil
}

// loadTokenizer loads what --tokenizer names. A local file or directory
// that does not load stops the run; a model id that is not in the local
// Hugging Face cache is recorded only (vLLM would download it; goodput
// downloads nothing), with a note that says what to fetch, since token
// counts then come from the server or the built-in tokenizer.
func loadTokenizer(id string) (bench.Tokenizer, string, error) {
	_, statErr := os.Stat(id)
	tok, err := openTokenizer(id)
	switch {
	case err == nil:
		return tok, "", nil
	case statErr == nil:
		return nil, "", err
	}
	return nil, fmt.Sprintf("--tokenizer %s is recorded, not loaded (%v); token counts come from the server (usage, /tokenize) or goodput's built-in tokenizer", id, err), nil
}

// vllmSLO reads --goodput's pairs as vLLM does, for the request_goodput of
// vLLM's file: milliseconds by ttft, tpot and e2el.
func vllmSLO(pairs []string) (map[string]float64, error) {
	slo := map[string]float64{}
	for _, p := range strings.Fields(strings.Join(pairs, " ")) {
		k, v, ok := strings.Cut(p, ":")
		ms, err := strconv.ParseFloat(v, 64)
		if !ok || err != nil || ms < 0 {
			return nil, usageErr("--goodput %q: want KEY:VALUE, the value in milliseconds ≥ 0", p)
		}
		switch k {
		case "ttft", "tpot", "e2el":
			slo[k] = ms
		}
	}
	return slo, nil
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
	return out, nil
}

// defaultRequestIDPrefix is vLLM's: bench- and 8 random hex digits.
func defaultRequestIDPrefix() string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return "bench-" + hex.EncodeToString(b[:]) + "-"
}

// registerPrefixRepetitionFlags registers the shape of vLLM's
// prefix_repetition dataset, which a sweep takes as bench does.
func registerPrefixRepetitionFlags(fl *pflag.FlagSet, wl *workload.Config) {
	fl.IntVar(&wl.PrefixRepetition.PrefixLen, "prefix-repetition-prefix-len", wl.PrefixRepetition.PrefixLen, "prefix tokens of the prefix_repetition dataset")
	fl.IntVar(&wl.PrefixRepetition.SuffixLen, "prefix-repetition-suffix-len", wl.PrefixRepetition.SuffixLen, "suffix tokens of the prefix_repetition dataset")
	fl.IntVar(&wl.PrefixRepetition.NumPrefixes, "prefix-repetition-num-prefixes", wl.PrefixRepetition.NumPrefixes, "distinct prefixes of the prefix_repetition dataset")
	fl.IntVar(&wl.PrefixRepetition.OutputLen, "prefix-repetition-output-len", wl.PrefixRepetition.OutputLen, "output tokens of the prefix_repetition dataset")
}
