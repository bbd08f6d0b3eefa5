package cli

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"os"
	"strings"

	"github.com/spf13/pflag"

	"github.com/goodput-dev/goodput/bench"
	"github.com/goodput-dev/goodput/internal/jsonerr"
	"github.com/goodput-dev/goodput/tokenizer/pretrained"
)

// requestFlags shape every request and the lengths of vLLM's datasets, in
// `vllm bench serve`'s spelling: bench and sweep take them alike, so that
// a sweep sends the requests a run of bench would.
type requestFlags struct {
	cmd             string // "bench" or "sweep": the default id prefix
	requestIDPrefix string
	chatKwargs      string
	bfclCategories  string
	loraAssignment  string
	stream          bool

	temperature, topP, minP, freqPenalty, presPenalty, repPenalty float64
	topK, logprobs                                                int

	tokenizerMode   string
	trustRemoteCode bool
}

// registerRequestFlags registers the request flags of the command named
// cmd ("bench" or "sweep", the default x-request-id prefix).
func registerRequestFlags(fl *pflag.FlagSet, cfg *bench.Config, f *requestFlags, cmd string) {
	f.cmd = cmd
	wl := &cfg.Workload
	fl.StringVar(&cfg.Request.ServedModelName, "served-model-name", "", "model name sent in requests, when it differs from --model")
	idHelp := "x-request-id of each request is this prefix and its number, stored in its record (default bench-<8 hex digits>-; \"\" sends the number alone, as vLLM)"
	if cmd == "sweep" {
		idHelp = "x-request-id of each request is this prefix, its point's name and its number, stored in its record (default sweep-<8 hex digits>-; \"\" sends none)"
	}
	fl.StringVar(&f.requestIDPrefix, "request-id-prefix", "", idHelp)
	fl.Float64Var(&f.temperature, "temperature", 0, "temperature of every request (unset: the server's default)")
	fl.Float64Var(&f.topP, "top-p", 0, "top_p of every request")
	fl.IntVar(&f.topK, "top-k", 0, "top_k of every request")
	fl.Float64Var(&f.minP, "min-p", 0, "min_p of every request")
	fl.Float64Var(&f.freqPenalty, "frequency-penalty", 0, "frequency_penalty of every request")
	fl.Float64Var(&f.presPenalty, "presence-penalty", 0, "presence_penalty of every request")
	fl.Float64Var(&f.repPenalty, "repetition-penalty", 0, "repetition_penalty of every request")
	fl.IntVar(&f.logprobs, "logprobs", 0, "logprobs of every completions request")
	fl.StringVar(&f.chatKwargs, "chat-template-kwargs", "", "JSON object of chat template kwargs: the custom dataset's client-side rendering, and openai-chat requests")
	fl.StringArrayVar(&cfg.Request.LoRA, "lora-modules", nil, "LoRA adapter names; each request asks for one as its model")
	fl.StringVar(&f.loraAssignment, "lora-assignment", "random", "how requests pick a LoRA adapter: random or round-robin")
	fl.BoolVar(&f.stream, "stream", true, "stream the answers; --stream=false sends non-streaming requests (TTFT is then the end-to-end latency)")
	fl.StringVar(&cfg.VLLMFile.TokenizerID, "tokenizer", "", "tokenizer.json, a directory or GGUF file, or a cached Hugging Face id: fits text prompts without /tokenize, counts output without usage")
	fl.StringVar(&f.tokenizerMode, "tokenizer-mode", "auto", "accepted for vLLM's command lines: goodput reads tokenizer files itself")
	fl.BoolVar(&f.trustRemoteCode, "trust-remote-code", false, "accepted for vLLM's command lines: goodput runs no code from a model repository")
	fl.BoolVar(&cfg.NoOversample, "no-oversample", false, "at most one request per dataset entry")
	fl.IntVar(&wl.ShareGPT.OutputLen, "sharegpt-output-len", 0, "output tokens of every ShareGPT request, instead of its reply's length")
	fl.IntVar(&wl.Sonnet.InputLen, "sonnet-input-len", wl.Sonnet.InputLen, "most prompt tokens of the sonnet dataset")
	fl.IntVar(&wl.Sonnet.OutputLen, "sonnet-output-len", wl.Sonnet.OutputLen, "output tokens of the sonnet dataset")
	fl.IntVar(&wl.Sonnet.PrefixLen, "sonnet-prefix-len", wl.Sonnet.PrefixLen, "tokens of the lines every sonnet prompt starts with")
	fl.IntVar(&wl.SpecBench.OutputLen, "spec-bench-output-len", wl.SpecBench.OutputLen, "output tokens of the spec_bench dataset")
	fl.StringVar(&wl.SpecBench.Category, "spec-bench-category", "", "only this category of the spec_bench dataset")
	fl.StringVar(&wl.SpeedBench.Subset, "speed-bench-dataset-subset", wl.SpeedBench.Subset, "subset of the speed_bench dataset: the file <subset>.jsonl in --dataset-path (qualitative, throughput_1k, 2k, 8k, 16k or 32k)")
	fl.StringVar(&wl.SpeedBench.Category, "speed-bench-category", "", "only this category of the speed_bench dataset")
	fl.IntVar(&wl.SpeedBench.OutputLen, "speed-bench-output-len", wl.SpeedBench.OutputLen, "output tokens of the speed_bench dataset")
	fl.StringVar(&wl.HF.Name, "hf-name", "", "Hugging Face id of the dataset in --dataset-path (picks its prompt column)")
	fl.IntVar(&wl.HF.OutputLen, "hf-output-len", 0, "output tokens of every hf request, instead of the dataset's")
	fl.StringVar(&wl.HF.Split, "hf-split", "", "split of the hf dataset (recorded: a local file is one split)")
	fl.StringVar(&f.bfclCategories, "bfcl-categories", "", "categories of the BFCL dataset (hf gorilla-llm/Berkeley-Function-Calling-Leaderboard), comma-separated (default simple,live_simple,multiple)")
	fl.Float64Var(&wl.HF.BlazeditMinDistance, "blazedit-min-distance", wl.HF.BlazeditMinDistance, "least normalised edit distance of the Blazedit rows sent (hf vdaita/edit_5k_char, edit_10k_char)")
	fl.Float64Var(&wl.HF.BlazeditMaxDistance, "blazedit-max-distance", wl.HF.BlazeditMaxDistance, "most normalised edit distance of the Blazedit rows sent")
	fl.StringVar(&wl.HF.Subset, "hf-subset", "", "subset of the hf dataset (recorded)")
	fl.BoolVar(&wl.SkipChatTemplate, "skip-chat-template", false, "send custom, speed_bench, InstructCoder, MT-Bench, HumanEval, GSM8K and Blazedit prompts bare where vLLM renders them with the model's chat template on the client")
}

// apply puts the flags into cfg once they are parsed (cfg.Backend set) and
// returns the notes to print before the run.
func (f *requestFlags) apply(fl *pflag.FlagSet, cfg *bench.Config) ([]string, error) {
	var notes []string
	if !fl.Changed("request-id-prefix") {
		f.requestIDPrefix = defaultRequestIDPrefix(f.cmd)
	}
	cfg.Request.RequestIDPrefix = f.requestIDPrefix
	// vLLM's client numbers every request, so that an empty prefix sends
	// the numbers alone. A sweep's empty prefix sends none: its points
	// each number their requests from 0, and the bare numbers would clash.
	cfg.Request.BareRequestIDs = f.cmd == "bench" && f.requestIDPrefix == ""
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
			if math.IsNaN(v) || math.IsInf(v, 0) {
				// JSON has no such number: every request would fail.
				return nil, usageErr("--%s %v: want a finite number", p.flag, v)
			}
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
	if f.bfclCategories != "" {
		cfg.Workload.HF.BFCLCategories = nil
		for c := range strings.SplitSeq(f.bfclCategories, ",") {
			if c = strings.TrimSpace(c); c != "" {
				cfg.Workload.HF.BFCLCategories = append(cfg.Workload.HF.BFCLCategories, c)
			}
		}
	}
	if f.chatKwargs != "" {
		var kw map[string]any
		var dup *jsonerr.DuplicateKeyError
		if err := jsonerr.Unmarshal([]byte(f.chatKwargs), &kw); errors.As(err, &dup) {
			return nil, usageErr("--chat-template-kwargs %q: %v", f.chatKwargs, err)
		} else if err != nil || kw == nil {
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
	cfg.NoStream = !f.stream
	return notes, nil
}

// tokenizer loads what --tokenizer names into cfg, unless
// --skip-tokenizer-init; the note says what was recorded but not loaded.
func (f *requestFlags) tokenizer(cfg *bench.Config) (note string, err error) {
	id := cfg.VLLMFile.TokenizerID
	if id == "" || cfg.VLLMFile.NoTokenizer {
		return "", nil
	}
	tok, note, err := loadTokenizer(id)
	if err != nil {
		return "", fmt.Errorf("--tokenizer: %w", err)
	}
	cfg.Tokenizer = tok
	return note, nil
}

// defaultRequestIDPrefix is vLLM's for bench (bench- and 8 random hex
// digits) and the same with sweep- for a sweep.
func defaultRequestIDPrefix(cmd string) string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return cmd + "-" + hex.EncodeToString(b[:]) + "-"
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
