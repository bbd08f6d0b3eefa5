package sim

import (
	"errors"
	"fmt"
	"math"
)

// Defaults for zero Options fields, as vLLM's online serving has them.
const (
	DefaultMaxNumSeqs           = 256
	DefaultMaxNumBatchedTokens  = 8192
	DefaultGPUMemoryUtilization = 0.9
	DefaultOutputLenMean        = 256
	DefaultMaxBodyBytes         = 8 << 20
)

// Options configure a simulated server or a virtual-time run. The zero value
// is a usable default: Llama-3.1-8B bf16 on one H100 with vLLM's defaults.
type Options struct {
	// Profile is the GPU, model, tensor parallelism and calibration. A zero
	// GPU or Model takes the default one; a zero Calibration takes
	// DefaultCalibration.
	Profile Profile

	MaxNumSeqs           int     // at most this many sequences run at once (256)
	MaxNumBatchedTokens  int     // tokens one step may compute (8192)
	GPUMemoryUtilization float64 // fraction of GPU memory for weights and KV cache (0.9)
	// MaxModelLen caps prompt plus output tokens. Zero takes the model's
	// limit, lowered to what the KV cache can hold; a value the KV cache
	// cannot hold is an error, as in vLLM.
	MaxModelLen int
	// DisablePrefixCaching turns prefix caching off (vLLM v1 has it on).
	DisablePrefixCaching bool
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
		maxSeqs:    o.MaxNumSeqs,
		maxBatched: o.MaxNumBatchedTokens,
		outMean:    o.OutputLenMean,
		seed:       o.Seed,
	}
	if e.maxSeqs == 0 {
		e.maxSeqs = DefaultMaxNumSeqs
	}
	if e.maxBatched == 0 {
		e.maxBatched = DefaultMaxNumBatchedTokens
	}
	if e.outMean == 0 {
		e.outMean = DefaultOutputLenMean
	}
	switch {
	case e.maxSeqs < 0:
		return config{}, fmt.Errorf("max num seqs %d: must be positive", e.maxSeqs)
	case e.maxBatched < 0:
		return config{}, fmt.Errorf("max num batched tokens %d: must be positive", e.maxBatched)
	case !(e.outMean >= 1) || math.IsInf(e.outMean, 0):
		return config{}, fmt.Errorf("output length mean %v: must be a finite number ≥ 1", e.outMean)
	}

	blocks, err := kvBlocks(p, util)
	if err != nil {
		return config{}, err
	}
	e.blocks = blocks
	c.engine = e
	c.kvTokens = blocks * blockSize

	c.maxModelLen = o.MaxModelLen
	switch {
	case c.maxModelLen < 0:
		return config{}, fmt.Errorf("max model len %d: must be positive", c.maxModelLen)
	case c.maxModelLen == 0:
		c.maxModelLen = min(p.Model.MaxModelLen, c.kvTokens)
	case c.maxModelLen > c.kvTokens:
		return config{}, fmt.Errorf("max model len %d: the KV cache holds only %d tokens (%d blocks of %d); lower max model len or raise gpu memory utilization",
			c.maxModelLen, c.kvTokens, blocks, blockSize)
	}
	return c, nil
}

// maxKVBlocks bounds the simulated KV cache (134 million tokens, about
// 200 MB of bookkeeping): far beyond any real GPU, low enough that a typo
// in a profile file cannot exhaust the machine's memory.
const maxKVBlocks = 1 << 23

// kvBlocks sizes the KV cache: (GPU memory × utilization − weights per GPU)
// ÷ (block size × KV bytes per token per GPU).
func kvBlocks(p Profile, util float64) (int, error) {
	mem := p.GPU.MemoryGiB * (1 << 30) * util
	weights := p.Model.WeightBytes() / float64(p.TensorParallel)
	if weights >= mem {
		return 0, fmt.Errorf("%s needs %.1f GB of weights per GPU but one %s offers %.1f GB at gpu memory utilization %v: raise tensor parallel size (now %d) or use a larger GPU",
			p.Model.Name, weights/1e9, p.GPU.Name, mem/1e9, util, p.TensorParallel)
	}
	perBlock := float64(blockSize) * kvBytesPerTokenPerGPU(p.Model, p.TensorParallel)
	blocks := math.Floor((mem - weights) / perBlock)
	if blocks < 1 {
		return 0, fmt.Errorf("%s on %s: no room for a single KV cache block after the weights", p.Model.Name, p.GPU.Name)
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
		{"model num_kv_heads", m.KVHeads}, {"model head_dim", m.HeadDim}, {"model dtype_bytes", m.DTypeBytes},
		{"model max_model_len", m.MaxModelLen},
	} {
		if f.v <= 0 {
			errs = append(errs, fmt.Errorf("%s %d: must be positive", f.name, f.v))
		}
	}
	pos("model params_b", m.ParamsB)
	if m.KVHeads > m.Heads {
		errs = append(errs, fmt.Errorf("model num_kv_heads %d: more than num_heads %d", m.KVHeads, m.Heads))
	}
	if !(c.MFU > 0 && c.MFU <= 1) {
		errs = append(errs, fmt.Errorf("calibration mfu %v: must be in (0, 1]", c.MFU))
	}
	if !(c.MBU > 0 && c.MBU <= 1) {
		errs = append(errs, fmt.Errorf("calibration mbu %v: must be in (0, 1]", c.MBU))
	}
	if c.StepOverhead < 0 || c.SeqOverhead < 0 || c.RequestOverhead < 0 {
		errs = append(errs, errors.New("calibration overheads must not be negative"))
	}
	if p.TensorParallel > 1 && m.Heads%p.TensorParallel != 0 {
		errs = append(errs, fmt.Errorf("tensor parallel size %d: does not divide the model's %d attention heads", p.TensorParallel, m.Heads))
	}
	return errors.Join(errs...)
}
