package sim

import (
	"errors"
	"fmt"
	"math"
	"time"
)

// Defaults for zero Options fields, as vLLM's online serving has them.
// max_num_seqs and max_num_batched_tokens follow the GPU (see
// DefaultMaxNumSeqs).
const (
	DefaultGPUMemoryUtilization = 0.9
	DefaultOutputLenMean        = 256
	DefaultMaxBodyBytes         = 8 << 20
)

// BlockSize is the default number of tokens in a KV cache block (vLLM's
// on CUDA).
const BlockSize = 16

// DefaultMaxNumSeqs and DefaultMaxNumBatchedTokens are vLLM's defaults for
// the API server on gpu (offline false) or for its offline LLM class: 1024
// sequences and 8192 tokens (16384 offline) on GPUs of 70 GiB or more other
// than the A100, 256 and 2048 (8192 offline) on the others.
func DefaultMaxNumSeqs(gpu GPU, offline bool) int {
	_, seqs := engineDefaults(gpu, offline)
	return seqs
}

// DefaultMaxNumBatchedTokens: see DefaultMaxNumSeqs.
func DefaultMaxNumBatchedTokens(gpu GPU, offline bool) int {
	batched, _ := engineDefaults(gpu, offline)
	return batched
}

// Options configure a simulated server or a virtual-time run. The zero value
// is a usable default: Llama-3.1-8B bf16 on one H100 with vLLM's defaults.
type Options struct {
	// Profile is the GPU, model, tensor parallelism, KV cache format and
	// calibration. A zero GPU or Model takes the default one; a zero
	// Calibration takes DefaultCalibration.
	Profile Profile

	MaxNumSeqs           int     // at most this many sequences run at once (0: vLLM's default for the GPU)
	MaxNumBatchedTokens  int     // tokens one step may compute (0: vLLM's default for the GPU)
	GPUMemoryUtilization float64 // fraction of GPU memory for weights, activations and KV cache (0.9)
	BlockSize            int     // tokens per KV cache block (16)
	// MaxModelLen caps prompt plus output tokens. Zero takes the model's
	// limit, lowered to what the KV cache can hold; a value the KV cache
	// cannot hold is an error, as in vLLM.
	MaxModelLen int
	// DisablePrefixCaching turns prefix caching off (vLLM v1 has it on).
	DisablePrefixCaching bool
	// DisableChunkedPrefill makes every prompt prefill in one step (vLLM
	// v1 chunks them); max_num_batched_tokens then defaults to at least
	// max_model_len, as in vLLM.
	DisableChunkedPrefill bool
	// Offline simulates vLLM's offline LLM class rather than its API
	// server: its larger scheduler defaults, and no front end between the
	// requests and the engine.
	Offline bool
	// OutputLenMean is the mean natural output length of requests without
	// ignore_eos (DefaultOutputLenMean); see the package documentation.
	OutputLenMean float64
	// Seed makes output lengths, generated text and faults reproducible.
	Seed uint64

	// ServedModelName is the model name in the API ("" = Profile.Model.Name).
	ServedModelName string
	// APIKey, when set, is required as "Authorization: Bearer <key>" on /v1.
	APIKey string
	// MaxBodyBytes bounds request bodies (DefaultMaxBodyBytes); larger ones
	// get 413.
	MaxBodyBytes int64
	// Faults are injected into HTTP responses.
	Faults Faults
	// Clock drives the wall-clock engine loop; nil is the system clock.
	Clock Clock
}

// config is Options resolved: defaults applied, derived sizes computed.
type config struct {
	engine      engineConfig
	reasoning   Reasoning
	profile     Profile
	maxModelLen int
	model       string // served model name
	apiKey      string
	maxBody     int64
	faults      Faults
	clock       Clock
	kvTokens    int // tokens the KV cache holds
	vocab       int // token ids a prompt may hold: 0 to vocab − 1 (modelVocab)
}

// resolve applies defaults and validates o. Errors name the option at fault.
func (o Options) resolve() (config, error) {
	p := o.Profile
	if p.GPU == (GPU{}) {
		p.GPU, _ = LookupGPU(DefaultGPU)
	}
	if p.Model == (Model{}) {
		p.Model, _ = LookupModel(DefaultModel)
	}
	if p.Calibration == (Calibration{}) {
		p.Calibration = DefaultCalibration
	}
	switch {
	case p.TensorParallel < 0:
		return config{}, fmt.Errorf("tensor parallel size %d: must be at least 1", p.TensorParallel)
	case p.TensorParallel == 0:
		p.TensorParallel = 1
	}
	if err := p.validate(); err != nil {
		return config{}, err
	}

	if err := p.Model.Reasoning.validate(); err != nil {
		return config{}, fmt.Errorf("model %s: %w", p.Model.Name, err)
	}
	c := config{
		reasoning: p.Model.Reasoning,
		profile:   p,
		model:     o.ServedModelName,
		apiKey:    o.APIKey,
		maxBody:   o.MaxBodyBytes,
		faults:    o.Faults,
		clock:     o.Clock,
	}
	if c.model == "" {
		c.model = p.Model.Name
	}
	if c.maxBody == 0 {
		c.maxBody = DefaultMaxBodyBytes
	}
	if c.maxBody < 0 {
		return config{}, fmt.Errorf("max body bytes %d: must not be negative", o.MaxBodyBytes)
	}
	if c.clock == nil {
		c.clock = NewWallClock()
	}
	if err := c.faults.validate(); err != nil {
		return config{}, err
	}

	// Engine settings the profile carries fill what the options leave.
	pe := p.Engine
	fill := func(dst *int, v int) {
		if *dst == 0 {
			*dst = v
		}
	}
	fill(&o.MaxNumSeqs, pe.MaxNumSeqs)
	fill(&o.MaxNumBatchedTokens, pe.MaxNumBatchedTokens)
	fill(&o.MaxModelLen, pe.MaxModelLen)
	fill(&o.BlockSize, pe.BlockSize)
	if o.GPUMemoryUtilization == 0 {
		o.GPUMemoryUtilization = pe.GPUMemoryUtilization
	}
	util := o.GPUMemoryUtilization
	if util == 0 {
		util = DefaultGPUMemoryUtilization
	}
	if !(util > 0 && util <= 1) {
		return config{}, fmt.Errorf("gpu memory utilization %v: must be in (0, 1]", util)
	}
	e := engineConfig{
		profile:    p,
		caching:    !o.DisablePrefixCaching,
		chunked:    !o.DisableChunkedPrefill,
		offline:    o.Offline,
		blockSize:  o.BlockSize,
		maxSeqs:    o.MaxNumSeqs,
		maxBatched: o.MaxNumBatchedTokens,
		outMean:    o.OutputLenMean,
		seed:       o.Seed,
	}
	defBatched, defSeqs := engineDefaults(p.GPU, o.Offline)
	if e.maxSeqs == 0 {
		e.maxSeqs = defSeqs
	}
	if e.maxBatched == 0 {
		e.maxBatched = defBatched
	}
	if e.blockSize == 0 {
		e.blockSize = BlockSize
	}
	if e.outMean == 0 {
		e.outMean = DefaultOutputLenMean
	}
	switch {
	case e.maxSeqs < 0:
		return config{}, fmt.Errorf("max num seqs %d: must be positive", e.maxSeqs)
	case e.maxBatched < 0:
		return config{}, fmt.Errorf("max num batched tokens %d: must be positive", e.maxBatched)
	case e.blockSize < 0 || e.blockSize > maxBlockSize:
		return config{}, fmt.Errorf("block size %d: must be between 1 and %d", e.blockSize, maxBlockSize)
	case !(e.outMean >= 1) || math.IsInf(e.outMean, 0):
		return config{}, fmt.Errorf("output length mean %v: must be a finite number ≥ 1", e.outMean)
	case e.maxSeqs > maxNumSeqs:
		return config{}, fmt.Errorf("max num seqs %d: more than the simulator supports (%d)", e.maxSeqs, maxNumSeqs)
	case o.MaxNumBatchedTokens > 0 && e.maxBatched < e.maxSeqs:
		// vLLM refuses it too: a step could not give every running
		// sequence its token.
		return config{}, fmt.Errorf("max num batched tokens %d is below max num seqs %d: a step must fit a token for each running sequence, as vLLM requires", e.maxBatched, e.maxSeqs)
	}
	// A default budget grows to the sequences asked for.
	e.maxBatched = max(e.maxBatched, e.maxSeqs)
	if !e.chunked && o.MaxNumBatchedTokens == 0 && o.MaxModelLen > 0 {
		// vLLM without chunked prefill: every prompt must fit in one step.
		e.maxBatched = max(e.maxBatched, o.MaxModelLen)
	}

	blocks, err := kvBlocks(p, util, e.blockSize, e.maxBatched, e.maxSeqs)
	if err != nil {
		return config{}, err
	}
	e.blocks = blocks
	c.kvTokens = blocks * e.blockSize

	c.vocab = modelVocab(p.Model)
	c.maxModelLen = o.MaxModelLen
	switch {
	case c.maxModelLen < 0:
		return config{}, fmt.Errorf("max model len %d: must be positive", c.maxModelLen)
	case c.maxModelLen == 0:
		c.maxModelLen = min(p.Model.MaxModelLen, c.kvTokens)
	case c.maxModelLen > c.kvTokens:
		return config{}, fmt.Errorf("max model len %d: the KV cache holds only %d tokens (%d blocks of %d); lower max model len or raise gpu memory utilization",
			c.maxModelLen, c.kvTokens, blocks, e.blockSize)
	}
	if !e.chunked {
		switch {
		case o.MaxNumBatchedTokens == 0:
			e.maxBatched = max(e.maxBatched, c.maxModelLen)
		case e.maxBatched < c.maxModelLen:
			return config{}, fmt.Errorf("max num batched tokens %d: below max model len %d, which without chunked prefill a prompt may need in one step; raise it or lower max model len",
				e.maxBatched, c.maxModelLen)
		}
	}
	c.engine = e
	return c, nil
}

// maxBlockSize bounds --block-size (vLLM's largest is 256).
const maxBlockSize = 1024

// maxNumSeqs bounds max num seqs: far more than any engine runs, low enough
// that the per-step bookkeeping stays small.
const maxNumSeqs = 1 << 20

// maxKVBlocks bounds the simulated KV cache (134 million tokens, about
// 200 MB of bookkeeping): far beyond any real GPU, low enough that a typo
// in a profile file cannot exhaust the machine's memory.
const maxKVBlocks = 1 << 23

// Memory vLLM keeps out of the KV cache besides the weights. The fixed part
// covers the CUDA context, the cuBLAS and NCCL workspaces and the CUDA
// graphs' pool, and the gap between a datasheet's memory and what the
// driver reports (an H100's "80 GB" are 79.2 GiB to CUDA): 0.8 GiB, or 5 %
// of a device smaller than 16 GiB. The rest is the peak of vLLM's
// profiling run: the activations of max_num_batched_tokens tokens (the
// MLP's gate and up projections, a few hidden-size buffers) and the float32
// logits of max_num_seqs sequences.
const (
	reserveFixedGiB      = 0.8
	reserveFixedShare    = 0.05
	activationHiddenMult = 4 // hidden-size buffers per token in the profiling run's peak
)

// reserveBytes is the memory per GPU that the profiling run finds in use
// beside the weights.
func reserveBytes(p Profile, maxBatched, maxSeqs int) float64 {
	m := p.Model
	tp := float64(max(p.TensorParallel, 1))
	perToken := (2*float64(m.IntermediateSize)/tp + activationHiddenMult*float64(m.Hidden)) * 2
	logits := float64(min(maxSeqs, maxBatched)) * float64(m.VocabSize) / tp * 4
	fixed := math.Min(reserveFixedGiB*(1<<30), reserveFixedShare*p.GPU.MemoryGiB*(1<<30))
	return fixed + float64(maxBatched)*perToken + logits
}

// kvBlocks sizes the KV cache: (GPU memory × utilization − weights per GPU
// − the activation and runtime reserve) ÷ (block size × KV bytes per token
// per GPU). The layers with a sliding window keep only their window, for
// as many sequences as may run.
func kvBlocks(p Profile, util float64, blockSize, maxBatched, maxSeqs int) (int, error) {
	mem := p.GPU.MemoryGiB * (1 << 30) * util
	weights := p.Model.WeightBytes() / float64(p.TensorParallel)
	if weights >= mem {
		return 0, fmt.Errorf("%s needs %.1f GB of weights per GPU but one %s offers %.1f GB at gpu memory utilization %v: raise tensor parallel size (now %d) or use a larger GPU",
			p.Model.Name, weights/1e9, p.GPU.Name, mem/1e9, util, p.TensorParallel)
	}
	free := mem - weights - reserveBytes(p, maxBatched, maxSeqs)
	if m := p.Model; m.fullLayers() > 0 && m.fullLayers() < m.Layers {
		slide := float64(m.Layers-m.fullLayers()) * kvElemsPerTokenLayerPerGPU(m, p.TensorParallel) * p.kvElemBytes()
		free -= float64(maxSeqs) * float64(m.SlidingWindow) * slide
	}
	perBlock := float64(blockSize) * kvBytesPerTokenPerGPU(p)
	blocks := math.Floor(free / perBlock)
	if blocks < 1 {
		return 0, fmt.Errorf("%s on %s: no room for a single KV cache block after the weights (%.1f GB) and the activations (%.1f GB): raise gpu memory utilization or tensor parallel size, or lower max num batched tokens",
			p.Model.Name, p.GPU.Name, weights/1e9, reserveBytes(p, maxBatched, maxSeqs)/1e9)
	}
	if blocks > maxKVBlocks {
		return 0, fmt.Errorf("%s on %s: %.0f KV cache blocks is more than the simulator supports (%d); lower gpu memory utilization",
			p.Model.Name, p.GPU.Name, blocks, maxKVBlocks)
	}
	return int(blocks), nil
}

// validate checks that every figure of the profile is usable.
func (p Profile) validate() error {
	var errs []error
	pos := func(name string, v float64) {
		if !(v > 0) || math.IsInf(v, 0) {
			errs = append(errs, fmt.Errorf("%s %v: must be a positive number", name, v))
		}
	}
	g, m, c := p.GPU, p.Model, p.Calibration
	pos("gpu memory_gib", g.MemoryGiB)
	pos("gpu bandwidth_tbps", g.BandwidthTBps)
	pos("gpu tflops", g.TFLOPS)
	if p.TensorParallel > 1 {
		pos("gpu link_gbps", g.LinkGBps)
		if !(g.AllReduceLatencyUS >= 0) {
			errs = append(errs, fmt.Errorf("gpu allreduce_latency_us %v: must not be negative", g.AllReduceLatencyUS))
		}
	}
	for _, f := range []struct {
		name string
		v    int
	}{
		{"model layers", m.Layers}, {"model hidden_size", m.Hidden}, {"model num_heads", m.Heads},
		{"model num_kv_heads", m.KVHeads}, {"model head_dim", m.HeadDim}, {"model max_model_len", m.MaxModelLen},
	} {
		if f.v <= 0 {
			errs = append(errs, fmt.Errorf("%s %d: must be positive", f.name, f.v))
		}
	}
	if m.WeightDType == "" && m.DTypeBytes <= 0 {
		errs = append(errs, fmt.Errorf("model dtype_bytes %d: must be positive (or give weight_dtype)", m.DTypeBytes))
	}
	pos("model params_b", m.ParamsB)
	if m.ParamsB > maxParamsB {
		errs = append(errs, fmt.Errorf("model params_b %v: more than %v", m.ParamsB, maxParamsB))
	}
	if m.KVHeads > m.Heads {
		errs = append(errs, fmt.Errorf("model num_kv_heads %d: more than num_heads %d", m.KVHeads, m.Heads))
	}
	frac := func(name string, v float64, optional bool) {
		if optional && v == 0 {
			return
		}
		if !(v > 0 && v <= 1) {
			errs = append(errs, fmt.Errorf("%s %v: must be in (0, 1]", name, v))
		}
	}
	frac("calibration mfu", c.MFU, true)
	frac("calibration mbu", c.MBU, true)
	frac("gpu mfu", g.MFU, true)
	frac("gpu mbu", g.MBU, true)
	if g.FP8TFLOPS < 0 || math.IsNaN(g.FP8TFLOPS) || math.IsInf(g.FP8TFLOPS, 0) {
		errs = append(errs, fmt.Errorf("gpu fp8_tflops %v: must be a positive number, or 0 for none", g.FP8TFLOPS))
	}
	for _, d := range []time.Duration{c.StepOverhead, c.SeqOverhead, c.RequestOverhead, c.FrontEndService, c.FrontEndPerToken, c.ChatTemplate} {
		if d < 0 {
			errs = append(errs, errors.New("calibration overheads must not be negative"))
			break
		}
		if d > maxOverhead {
			errs = append(errs, fmt.Errorf("calibration overhead %v: more than %v", d, maxOverhead))
			break
		}
	}
	errs = append(errs, m.validateShape()...)
	if _, ok := kvDTypeBytes(p.KVCacheDType); !ok {
		errs = append(errs, fmt.Errorf("kv cache dtype %q: want one of %s", p.KVCacheDType, KVCacheDTypes))
	}
	if p.TensorParallel > 1 && m.Heads%p.TensorParallel != 0 {
		errs = append(errs, fmt.Errorf("tensor parallel size %d: does not divide the model's %d attention heads", p.TensorParallel, m.Heads))
	}
	return errors.Join(errs...)
}

// Bounds that keep a typo in a profile from overflowing the arithmetic.
const (
	maxOverhead = time.Hour
	maxParamsB  = 1e5 // 100 trillion parameters
	maxDim      = 1 << 24
)

// validateShape checks the optional parts of a model's shape: formats,
// experts, sliding window, MLA.
func (m Model) validateShape() []error {
	var errs []error
	for _, d := range []struct{ name, v string }{{"weight_dtype", m.WeightDType}, {"expert_dtype", m.ExpertDType}} {
		if _, ok := dtypeBytes(d.v); d.v != "" && !ok {
			errs = append(errs, fmt.Errorf("model %s %q: want bf16, fp16, fp8, int8, int4 or mxfp4", d.name, d.v))
		}
	}
	for _, f := range []struct {
		name string
		v    int
	}{
		{"layers", m.Layers}, {"hidden_size", m.Hidden}, {"num_heads", m.Heads}, {"num_kv_heads", m.KVHeads},
		{"head_dim", m.HeadDim}, {"vocab_size", m.VocabSize}, {"intermediate_size", m.IntermediateSize},
		{"num_experts", m.Experts}, {"experts_per_token", m.ExpertsPerToken}, {"sliding_window", m.SlidingWindow},
		{"full_attention_layers", m.FullAttentionLayers}, {"kv_lora_rank", m.KVLoRARank},
		{"qk_rope_head_dim", m.QKRopeHeadDim}, {"v_head_dim", m.VHeadDim}, {"dtype_bytes", m.DTypeBytes},
	} {
		if f.v < 0 || f.v > maxDim {
			errs = append(errs, fmt.Errorf("model %s %d: must be between 0 and %d", f.name, f.v, maxDim))
		}
	}
	if m.MaxModelLen > 1<<30 {
		errs = append(errs, fmt.Errorf("model max_model_len %d: more than %d", m.MaxModelLen, 1<<30))
	}
	if m.ActiveParamsB < 0 || m.ActiveParamsB > m.ParamsB {
		errs = append(errs, fmt.Errorf("model active_params_b %v: must be between 0 and params_b %v", m.ActiveParamsB, m.ParamsB))
	}
	if m.ExpertParamsB < 0 || m.ExpertParamsB > m.ParamsB {
		errs = append(errs, fmt.Errorf("model expert_params_b %v: must be between 0 and params_b %v", m.ExpertParamsB, m.ParamsB))
	}
	if m.ExpertsPerToken > m.Experts {
		errs = append(errs, fmt.Errorf("model experts_per_token %d: more than num_experts %d", m.ExpertsPerToken, m.Experts))
	}
	if m.FullAttentionLayers > m.Layers {
		errs = append(errs, fmt.Errorf("model full_attention_layers %d: more than layers %d", m.FullAttentionLayers, m.Layers))
	}
	if m.embedParams() >= m.activeParams() {
		errs = append(errs, fmt.Errorf("model vocab_size %d × hidden_size %d: the embeddings alone hold more than the %v billion parameters one token computes with",
			m.VocabSize, m.Hidden, m.activeParams()/1e9))
	}
	return errs
}
