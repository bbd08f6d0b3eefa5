package workload

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"

	"github.com/goodput-dev/goodput/internal/bom"
	"github.com/goodput-dev/goodput/trace"
)

// Dataset names, the values of --dataset-name.
const (
	DatasetRandom   = "random"
	DatasetShareGPT = "sharegpt"
	DatasetCustom   = "custom"
	// The datasets of `vllm bench serve` beyond the first three.
	DatasetSonnet           = "sonnet"
	DatasetBurstGPT         = "burstgpt"
	DatasetPrefixRepetition = "prefix_repetition"
	DatasetSpecBench        = "spec_bench"
	DatasetSpeedBench       = "speed_bench"
	DatasetHF               = "hf"
	// DatasetTxtSlices cuts prompts out of one text (see NewTxtSlices).
	DatasetTxtSlices = "txt-slices"
	// DatasetTrace replays a trace file's rows at their timestamps.
	DatasetTrace = "trace"
	// DatasetTimedTrace is vLLM's timed_trace: a trace of JSON Lines whose
	// field names and time unit are options (see TimedTraceConfig),
	// replayed as DatasetTrace is.
	DatasetTimedTrace = "timed_trace"
)

// datasetNames lists the --dataset-name values, for messages.
// datasetNames lists every --dataset-name, those of package session
// (sessions, agent) among them, for the error that names one unknown.
const datasetNames = "random, sharegpt, custom, sonnet, burstgpt, prefix_repetition, spec_bench, speed_bench, hf, txt-slices, trace, timed_trace, servegen, sessions or agent"

// RefusedDataset returns why goodput refuses a --dataset-name vLLM takes,
// or "" for one goodput has or does not know.
func RefusedDataset(name string) string { return refusedDatasets[name] }

// refusedDatasets are `vllm bench serve` datasets goodput does not have,
// with the reason.
var refusedDatasets = map[string]string{
	"random-mm":     "multimodal datasets are not supported",
	"custom_image":  "multimodal datasets are not supported",
	"custom_mm":     "multimodal datasets are not supported",
	"sharegpt4v":    "multimodal datasets are not supported",
	"custom_audio":  "audio datasets are not supported",
	"random-rerank": "rerank benchmarks are not supported",
}

// Limits that turn typos into errors instead of exhausted memory.
const (
	MaxPromptTokens = 1 << 20 // longest generated prompt (prefix included)
	MaxOutputTokens = 1 << 24 // largest max_tokens a source will ask for
)

// Counter counts the tokens of text with a server's own tokenizer (the
// runner backs it with the server's /tokenize endpoint). It must return a
// positive count for non-empty text.
type Counter func(text string) (int, error)

// Config selects and shapes the workload. Each field names the flag it
// comes from. Start from DefaultConfig.
type Config struct {
	Dataset string // --dataset-name: random, sharegpt or custom
	Path    string // --dataset-path: the file of sharegpt and custom
	Seed    uint64 // --seed

	// Limit keeps at most this many items of a file dataset, sampled with
	// the seed (the runner passes --num-prompts); 0 keeps every usable one.
	Limit int
	// NoShuffle keeps a file dataset in file order (--disable-shuffle).
	NoShuffle bool
	// SkipChatTemplate sends the custom dataset's and some hf datasets'
	// prompts bare where vLLM would render them with the model's chat
	// template on the client (--skip-chat-template; see ChatTemplate).
	SkipChatTemplate bool

	Random RandomConfig
	// Scenario is the genai-bench traffic scenario that set Random
	// (--traffic-scenario, see ApplyScenario); "" when none did.
	Scenario string
	ShareGPT ShareGPTConfig
	Custom   CustomConfig
	Trace    TraceConfig
	// TimedTrace gives the fields and units of vLLM's timed_trace.
	TimedTrace TimedTraceConfig
	// SystemPrompts puts a shared system prompt before every prompt
	// (--system-prompts); Count 0 for none.
	SystemPrompts SystemPromptConfig
	Request       Request

	Sonnet           SonnetConfig
	PrefixRepetition PrefixRepetitionConfig
	SpecBench        SpecBenchConfig
	SpeedBench       SpeedBenchConfig
	HF               HFConfig

	// Counter, when set, calibrates the random dataset against a server's
	// tokenizer (see Random). Other datasets do not use it.
	Counter Counter
	// TextCounter counts text alone where Counter adds a chat template
	// (the runner backs it with the server's /tokenize of the bare text);
	// the random dataset's shared prefix is fitted with it, so that it is
	// --random-prefix-len tokens of text, as vLLM's is. Nil where Counter
	// counts text alone.
	TextCounter Counter
	// FitSeqs, with Counter, are the sequence numbers of the random
	// dataset's items fitted one by one to it (the runner passes its
	// planned requests'; at most MaxFitEach are); other items are sized by
	// the calibrated scale. NewRandom then calls Counter from several
	// goroutines at once.
	FitSeqs []int64
	// SonnetCount, when its Formatted is set, sizes the sonnet prompts
	// as vLLM does (see ReadSonnet).
	SonnetCount SonnetCount
	// Fit, when active, sizes the text that the trace, burstgpt, servegen
	// and prefix_repetition datasets and made-up session messages make for
	// a length, so that the server's tokenizer counts that length (see
	// MeasureFit); their items then carry no token ids, whose lengths
	// would be the built-in tokenizer's. The random dataset uses Counter.
	Fit Fit
}

// RandomConfig shapes the random dataset.
type RandomConfig struct {
	InputLen   int     // --random-input-len: prompt tokens, prefix excluded
	OutputLen  int     // --random-output-len
	RangeRatio float64 // --random-range-ratio r: lengths uniform in [len·(1−r), len·(1+r)], 0 ≤ r < 1
	// OutputRangeRatio, when set, is the output lengths' own ratio
	// (vLLM's --random-range-ratio '{"input": r, "output": q}'), RangeRatio
	// then the input's; nil: RangeRatio for both.
	OutputRangeRatio *float64
	PrefixLen        int // --random-prefix-len: tokens of one prefix shared by every prompt
	// InputDist and OutputDist, when set, draw the lengths from another
	// distribution than the range ratio's (a --traffic-scenario); InputLen
	// and OutputLen then hold their means, which calibration aims at.
	InputDist, OutputDist *Dist
}

// OutputRatio is the range ratio of the output lengths.
func (r RandomConfig) OutputRatio() float64 {
	if r.OutputRangeRatio != nil {
		return *r.OutputRangeRatio
	}
	return r.RangeRatio
}

// ShareGPTConfig filters ShareGPT conversations, as `vllm bench serve` does.
type ShareGPTConfig struct {
	MinInputLen  int // --sharegpt-min-input-len: skip shorter prompts
	MinOutputLen int // --sharegpt-min-output-len: skip shorter replies (unless OutputLen is set)
	MaxInputLen  int // --sharegpt-max-input-len: skip longer prompts
	MaxTotalLen  int // --sharegpt-max-total-len: skip when prompt + output is longer
	OutputLen    int // --sharegpt-output-len: ask for this many tokens instead of the reply's length; 0 = the reply's
}

// CustomConfig shapes the custom JSONL dataset.
type CustomConfig struct {
	OutputLen int // --custom-output-len: output length of lines without "output_len"; CustomOutputFromLines: each line's
}

// DefaultConfig returns the defaults of `vllm bench serve`.
func DefaultConfig() Config {
	return Config{
		Dataset:  DatasetRandom,
		Random:   RandomConfig{InputLen: 1024, OutputLen: 128},
		ShareGPT: ShareGPTConfig{MinInputLen: 4, MinOutputLen: 4, MaxInputLen: 1024, MaxTotalLen: 2048},
		Custom:   CustomConfig{OutputLen: 256},

		TimedTrace: TimedTraceConfig{Fields: trace.DefaultTimed(), ChunkSize: trace.DefaultChunkSize},

		SystemPrompts: SystemPromptConfig{Len: 256, Zipf: 1},

		Sonnet:           SonnetConfig{InputLen: 550, OutputLen: 150, PrefixLen: 200},
		PrefixRepetition: PrefixRepetitionConfig{PrefixLen: 256, SuffixLen: 256, NumPrefixes: 10, OutputLen: 128},
		SpecBench:        SpecBenchConfig{OutputLen: 256},
		SpeedBench:       SpeedBenchConfig{Subset: "qualitative", OutputLen: 4096},
		HF:               HFConfig{BlazeditMaxDistance: 1},
	}
}

// Validate reports every problem of the config, each naming its flag.
func (c Config) Validate() error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	switch c.Dataset {
	case DatasetRandom:
		if c.Path != "" {
			bad("--dataset-path is not used by --dataset-name random")
		}
		errs = append(errs, c.Random.validate()...)
	case DatasetTxtSlices:
		errs = append(errs, c.validateTxtSlices()...)
	case DatasetTrace:
		if c.Path == "" {
			bad("--dataset-name trace needs --dataset-path, the trace file")
		}
		errs = append(errs, c.Trace.validate(c.Trace.BlockSize)...)
	case DatasetTimedTrace:
		errs = append(errs, c.validateTimedTrace()...)
	case DatasetServeGen:
		errs = append(errs, c.validateServeGen()...)
	case DatasetShareGPT, DatasetCustom:
		if c.Path == "" {
			bad("--dataset-name %s needs --dataset-path", c.Dataset)
		}
		if c.Dataset == DatasetShareGPT {
			errs = append(errs, c.ShareGPT.validate()...)
		} else if (c.Custom.OutputLen < 1 || c.Custom.OutputLen > MaxOutputTokens) && c.Custom.OutputLen != CustomOutputFromLines {
			bad("--custom-output-len must be in [1, %d], or -1 for each line's own, got %d", MaxOutputTokens, c.Custom.OutputLen)
		}
	case DatasetSonnet, DatasetBurstGPT, DatasetSpecBench, DatasetSpeedBench, DatasetHF:
		if c.Path == "" {
			bad("--dataset-name %s needs --dataset-path", c.Dataset)
		}
		errs = append(errs, c.validateVLLMDataset()...)
	case DatasetPrefixRepetition:
		if c.Path != "" {
			bad("--dataset-path is not used by --dataset-name prefix_repetition")
		}
		errs = append(errs, c.validateVLLMDataset()...)
	default:
		if why, ok := refusedDatasets[c.Dataset]; ok {
			bad("--dataset-name %s: %s", c.Dataset, why)
		} else {
			bad("--dataset-name %q is unknown: want %s", c.Dataset, datasetNames)
		}
	}
	if c.Limit < 0 {
		bad("--num-prompts must be ≥ 0, got %d", c.Limit)
	}
	if c.Trace.NoSelfTimed && !c.replay() {
		bad("--no-self-timed ignores a trace's timestamps: --dataset-name %s has none (it applies to timed_trace and trace)", c.Dataset)
	}
	errs = append(errs, c.SystemPrompts.validate(c.Dataset)...)
	if err := c.Request.Validate(); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

func (r RandomConfig) validate() []error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	if math.IsNaN(r.RangeRatio) || r.RangeRatio < 0 || r.RangeRatio >= 1 {
		bad("--random-range-ratio must be in [0, 1), got %v", r.RangeRatio)
	}
	if o := r.OutputRatio(); math.IsNaN(o) || o < 0 || o >= 1 {
		bad("--random-range-ratio's output ratio must be in [0, 1), got %v", o)
	}
	if r.InputLen < 0 || r.InputLen > MaxPromptTokens {
		bad("--random-input-len must be in [0, %d], got %d", MaxPromptTokens, r.InputLen)
	}
	if r.PrefixLen < 0 || r.PrefixLen > MaxPromptTokens {
		bad("--random-prefix-len must be in [0, %d], got %d", MaxPromptTokens, r.PrefixLen)
	}
	if d := r.InputDist; d != nil {
		least := 1
		if r.PrefixLen > 0 {
			least = 0
		}
		if why := d.check("prompt", least, MaxPromptTokens-r.PrefixLen); why != "" {
			bad("%s", why)
		}
	}
	if d := r.OutputDist; d != nil {
		if why := d.check("answer", 1, MaxOutputTokens); why != "" {
			bad("%s", why)
		}
	}
	if len(errs) == 0 {
		if r.InputLen+r.PrefixLen == 0 {
			bad("--random-input-len and --random-prefix-len are both 0: prompts would be empty")
		} else if hi := r.PrefixLen + int(math.Ceil(float64(r.InputLen)*(1+r.RangeRatio))); hi > MaxPromptTokens {
			bad("--random-prefix-len %d plus --random-input-len %d (up to %d with --random-range-ratio) exceeds the limit of %d tokens",
				r.PrefixLen, r.InputLen, hi-r.PrefixLen, MaxPromptTokens)
		}
	}
	if r.OutputLen < 1 || r.OutputLen > MaxOutputTokens {
		bad("--random-output-len must be in [1, %d], got %d", MaxOutputTokens, r.OutputLen)
	}
	return errs
}

func (s ShareGPTConfig) validate() []error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	if s.MinInputLen < 1 {
		bad("--sharegpt-min-input-len must be ≥ 1, got %d", s.MinInputLen)
	}
	if s.MinOutputLen < 0 {
		bad("--sharegpt-min-output-len must be ≥ 0, got %d", s.MinOutputLen)
	}
	if s.MaxInputLen < s.MinInputLen {
		bad("--sharegpt-max-input-len %d is below --sharegpt-min-input-len %d", s.MaxInputLen, s.MinInputLen)
	}
	if s.MaxTotalLen < s.MinInputLen+max(s.MinOutputLen, 1) {
		bad("--sharegpt-max-total-len %d leaves no room for a prompt of %d and an output of %d tokens",
			s.MaxTotalLen, s.MinInputLen, max(s.MinOutputLen, 1))
	}
	if s.OutputLen < 0 || s.OutputLen > MaxOutputTokens {
		bad("--sharegpt-output-len must be in [0, %d], got %d", MaxOutputTokens, s.OutputLen)
	}
	return errs
}

// New validates the config and builds its Source: it reads and filters the
// dataset file, or prepares the random generator (calibrating it when a
// Counter is set), and puts the system prompts before it when asked. After
// New returns, only a trace reads its file again (see Trace).
func New(c Config) (Source, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	src, err := newSource(c)
	if err != nil {
		return nil, err
	}
	if c.SystemPrompts.Count > 0 {
		return NewSystemPrompts(src, c)
	}
	return src, nil
}

// newSource builds the dataset's own source; c is valid.
func newSource(c Config) (Source, error) {
	switch c.Dataset {
	case DatasetRandom:
		return NewRandom(c)
	case DatasetShareGPT:
		return openDataset(c, ReadShareGPT)
	case DatasetSonnet:
		return openDataset(c, ReadSonnet)
	case DatasetBurstGPT:
		return openDataset(c, ReadBurstGPT)
	case DatasetSpecBench:
		return openDataset(c, ReadSpecBench)
	case DatasetSpeedBench:
		return openSpeedBench(c)
	case DatasetHF:
		return OpenHF(c)
	case DatasetPrefixRepetition:
		return NewPrefixRepetition(c)
	case DatasetTxtSlices:
		return NewTxtSlices(c)
	case DatasetTrace, DatasetTimedTrace:
		return NewTrace(c)
	case DatasetServeGen:
		return NewServeGen(c)
	default:
		return openDataset(c, ReadCustom)
	}
}

// HasEntries reports whether the dataset is a file of entries that a run
// can take each of once: not one that makes its prompts (random,
// prefix_repetition, txt-slices) nor a trace, whose rows are replayed.
func (c Config) HasEntries() bool {
	switch c.Dataset {
	case DatasetShareGPT, DatasetCustom, DatasetSonnet, DatasetBurstGPT, DatasetSpecBench, DatasetSpeedBench, DatasetHF:
		return true
	}
	return false
}

// CheckPath reports, naming the flag, a dataset path that cannot be a
// readable file, without reading it: for callers that want to say so
// before slower work such as waiting for a server.
func (c Config) CheckPath() error {
	if c.Dataset == DatasetRandom || c.Path == "" || c.Dataset == DatasetTxtSlices && IsURL(c.Path) {
		return nil
	}
	if c.Dataset == DatasetHF && refusedHF(c.hfName()) != "" {
		return nil // Validate says why
	}
	fi, err := os.Stat(c.Path)
	if err != nil && c.isBFCL() && hubID(c.Path) {
		return fmt.Errorf("--dataset-path %s: no such directory, and no copy in the local Hugging Face cache; it reads as a Hugging Face dataset id, and goodput reads only a local copy: "+
			"download its files (huggingface-cli download --repo-type dataset %s --include 'BFCL_v3_*.json') and run this command again, or add --local-dir DIR and give DIR as --dataset-path with --hf-name %s",
			c.Path, c.Path, c.Path)
	}
	if err != nil && c.Dataset == DatasetHF && hubID(c.Path) {
		return fmt.Errorf("--dataset-path %s: no such file, and no copy in the local Hugging Face cache; it reads as a Hugging Face dataset id, and goodput reads only a local copy: "+
			"download it (huggingface-cli download --repo-type dataset %s) and run this command again, or add --local-dir DIR and give one of its .jsonl or .parquet files as --dataset-path with --hf-name %s",
			c.Path, c.Path, c.Path)
	}
	if err != nil {
		return fmt.Errorf("--dataset-path: %w", err)
	}
	if c.isBFCL() && !fi.IsDir() {
		return fmt.Errorf("--dataset-path %s: want the directory of %s's BFCL_v3_<category>.json files, not one file", c.Path, bfclID)
	}
	if fi.IsDir() && c.isBFCL() {
		return nil // its categories' files are named when read
	}
	if fi.IsDir() && c.Dataset == DatasetSpeedBench {
		_, err := c.speedBenchFile() // the directory of its subsets
		return err
	}
	if fi.IsDir() && c.Dataset != DatasetServeGen {
		return fmt.Errorf("--dataset-path %s: is a directory, want a file", c.Path)
	}
	return nil
}

// openDataset reads c.Path with read.
func openDataset(c Config, read func(r io.Reader, name string, c Config) (*Dataset, error)) (Source, error) {
	f, err := os.Open(c.Path)
	if err != nil {
		return nil, fmt.Errorf("--dataset-path: %w", err)
	}
	defer f.Close()
	return read(bom.Skip(f), c.Path, c)
}
