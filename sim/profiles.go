package sim

import (
	"fmt"
	"sort"
	"strings"
	"time"
)

// GPU describes one accelerator for the cost model. Figures are the vendor's
// dense bf16 numbers; the calibration decides how much of them a serving
// engine achieves.
type GPU struct {
	Name          string  `yaml:"name" json:"name"`
	MemoryGiB     float64 `yaml:"memory_gib" json:"memory_gib"`         // device memory, GiB
	BandwidthTBps float64 `yaml:"bandwidth_tbps" json:"bandwidth_tbps"` // HBM/GDDR bandwidth, 1e12 bytes/s
	TFLOPS        float64 `yaml:"tflops" json:"tflops"`                 // dense bf16 peak, 1e12 FLOP/s
	// LinkGBps is the per-direction GPU-to-GPU bandwidth an all-reduce runs
	// at under tensor parallelism (NVLink, Infinity Fabric or PCIe), 1e9 bytes/s.
	LinkGBps float64 `yaml:"link_gbps" json:"link_gbps"`
	// AllReduceLatencyUS is the fixed cost of one small all-reduce, µs.
	AllReduceLatencyUS float64 `yaml:"allreduce_latency_us" json:"allreduce_latency_us"`
}

// Model describes a decoder-only transformer's shape: enough to size its
// weights, its KV cache and its FLOPs per token.
type Model struct {
	Name        string  `yaml:"name" json:"name"`
	Layers      int     `yaml:"layers" json:"layers"`
	Hidden      int     `yaml:"hidden_size" json:"hidden_size"`
	Heads       int     `yaml:"num_heads" json:"num_heads"`
	KVHeads     int     `yaml:"num_kv_heads" json:"num_kv_heads"`
	HeadDim     int     `yaml:"head_dim" json:"head_dim"`
	ParamsB     float64 `yaml:"params_b" json:"params_b"`       // parameters, billions
	DTypeBytes  int     `yaml:"dtype_bytes" json:"dtype_bytes"` // bytes per weight and KV element (bf16: 2)
	MaxModelLen int     `yaml:"max_model_len" json:"max_model_len"`
	// Reasoning makes the model think before it answers (see Reasoning);
	// the built-in models do not.
	Reasoning Reasoning `yaml:"reasoning,omitempty" json:"reasoning,omitzero"`
}

// KVBytesPerToken is the KV cache footprint of one token across all GPUs:
// 2 (K and V) × layers × KV heads × head dim × dtype bytes.
func (m Model) KVBytesPerToken() int64 {
	return 2 * int64(m.Layers) * int64(m.KVHeads) * int64(m.HeadDim) * int64(m.DTypeBytes)
}

// WeightBytes is the size of all weights.
func (m Model) WeightBytes() float64 { return m.ParamsB * 1e9 * float64(m.DTypeBytes) }

// Calibration holds the efficiencies and fixed costs that turn a roofline
// into the step times a real engine shows. DefaultCalibration fits the
// public reference points in DESIGN.md; a profile file may override any of
// them for another engine or host.
type Calibration struct {
	MFU float64 // fraction of peak FLOP/s that GEMMs and attention achieve
	MBU float64 // fraction of peak memory bandwidth that weight and KV reads achieve
	// StepOverhead is the fixed cost of one engine step: scheduling, kernel
	// launches, the host round trip.
	StepOverhead time.Duration
	// SeqOverhead is the cost per sequence in a step: sampling,
	// detokenization, stop checks and output processing, which grow with the
	// batch. It is what makes TPOT climb with concurrency well before the
	// roofline's memory term does.
	SeqOverhead time.Duration
	// RequestOverhead is the time between a request's arrival and the moment
	// the engine can schedule it: HTTP parsing, tokenization and hand-off to
	// the engine loop. It adds to TTFT once per request.
	RequestOverhead time.Duration
}

// DefaultCalibration is fitted once to the reference points for
// Llama-3.1-8B bf16 on one H100 (concurrency 1: TPOT ≈ 6.5 ms, TTFT ≈ 14 ms;
// concurrency 16: ≈ 1,380 output tok/s, TPOT ≈ 11 ms) and used unchanged for
// every other GPU and model.
//
// The fit: a batch-1 decode step reads the 16 GB of weights at 80 % of
// 3.35 TB/s in 6.0 ms; the two overheads (0.25 ms each) bring it to 6.5 ms. At
// 16 sequences the per-sequence overhead adds 3.75 ms more, which is the gap
// between the roofline and the measured 11 ms. A ~250-token prompt then
// prefills at 50 % MFU in about 8 ms, and the 5 ms request overhead brings
// TTFT to about 14 ms. Because the per-sequence term is linear, the model is
// pessimistic for batches far above those the reference points cover.
var DefaultCalibration = Calibration{
	MFU:             0.5,
	MBU:             0.8,
	StepOverhead:    250 * time.Microsecond,
	SeqOverhead:     250 * time.Microsecond,
	RequestOverhead: 5 * time.Millisecond,
}

// Profile is everything the cost model needs: the GPU, the model, how many
// GPUs the model is split over, and the calibration.
type Profile struct {
	GPU            GPU
	Model          Model
	TensorParallel int // GPUs per replica (1 = no tensor parallelism)
	Calibration    Calibration
}

// String describes the profile on one line, for logs and the CLI banner.
func (p Profile) String() string {
	tp := ""
	if p.TensorParallel > 1 {
		tp = fmt.Sprintf(" ×%d (tensor parallel)", p.TensorParallel)
	}
	return fmt.Sprintf("%s on %s%s: %.0f GiB, %.2f TB/s, %.0f TFLOP/s; MFU %.2f, MBU %.2f",
		p.Model.Name, p.GPU.Name, tp, p.GPU.MemoryGiB, p.GPU.BandwidthTBps, p.GPU.TFLOPS,
		p.Calibration.MFU, p.Calibration.MBU)
}

// Built-in GPUs. Memory is the vendor's figure; the driver reports a little
// less, which gpu_memory_utilization absorbs.
var builtinGPUs = []GPU{
	{Name: "A100-80GB", MemoryGiB: 80, BandwidthTBps: 2.04, TFLOPS: 312, LinkGBps: 300, AllReduceLatencyUS: 8},
	{Name: "H100-SXM", MemoryGiB: 80, BandwidthTBps: 3.35, TFLOPS: 989, LinkGBps: 450, AllReduceLatencyUS: 6},
	{Name: "H200", MemoryGiB: 141, BandwidthTBps: 4.8, TFLOPS: 989, LinkGBps: 450, AllReduceLatencyUS: 6},
	{Name: "L4", MemoryGiB: 24, BandwidthTBps: 0.3, TFLOPS: 121, LinkGBps: 32, AllReduceLatencyUS: 15},
	{Name: "L40S", MemoryGiB: 48, BandwidthTBps: 0.864, TFLOPS: 362, LinkGBps: 32, AllReduceLatencyUS: 15},
	{Name: "RTX-4090", MemoryGiB: 24, BandwidthTBps: 1.0, TFLOPS: 165, LinkGBps: 32, AllReduceLatencyUS: 20},
	{Name: "MI300X", MemoryGiB: 192, BandwidthTBps: 5.3, TFLOPS: 1307, LinkGBps: 448, AllReduceLatencyUS: 8},
}

// Built-in models, with the shapes from their published configs.
var builtinModels = []Model{
	{Name: "Llama-3.1-8B", Layers: 32, Hidden: 4096, Heads: 32, KVHeads: 8, HeadDim: 128, ParamsB: 8.03, DTypeBytes: 2, MaxModelLen: 131072},
	{Name: "Llama-3.1-70B", Layers: 80, Hidden: 8192, Heads: 64, KVHeads: 8, HeadDim: 128, ParamsB: 70.55, DTypeBytes: 2, MaxModelLen: 131072},
	{Name: "Qwen2.5-7B", Layers: 28, Hidden: 3584, Heads: 28, KVHeads: 4, HeadDim: 128, ParamsB: 7.62, DTypeBytes: 2, MaxModelLen: 32768},
	{Name: "Qwen2.5-0.5B", Layers: 24, Hidden: 896, Heads: 14, KVHeads: 2, HeadDim: 64, ParamsB: 0.494, DTypeBytes: 2, MaxModelLen: 32768},
	{Name: "Mistral-7B", Layers: 32, Hidden: 4096, Heads: 32, KVHeads: 8, HeadDim: 128, ParamsB: 7.25, DTypeBytes: 2, MaxModelLen: 32768},
}

// Default GPU and model names, used when none is given.
const (
	DefaultGPU   = "H100-SXM"
	DefaultModel = "Llama-3.1-8B"
)

// GPUs returns the built-in GPU profiles, sorted by name.
func GPUs() []GPU {
	out := append([]GPU(nil), builtinGPUs...)
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Models returns the built-in model profiles, sorted by name.
func Models() []Model {
	out := append([]Model(nil), builtinModels...)
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// LookupGPU finds a built-in GPU by name, ignoring case and the separators
// people type differently ("h100", "H100-SXM", "rtx 4090", "A100").
func LookupGPU(name string) (GPU, error) {
	key := gpuKey(name)
	for _, g := range builtinGPUs {
		full := gpuKey(g.Name)
		if key == full || key == gpuAlias(full) {
			return g, nil
		}
	}
	return GPU{}, fmt.Errorf("unknown gpu %q (built in: %s)", name, names(GPUs(), func(g GPU) string { return g.Name }))
}

// LookupModel finds a built-in model by name. It accepts Hugging Face
// repository names too: "meta-llama/Llama-3.1-8B-Instruct" and
// "Qwen/Qwen2.5-7B-Instruct" resolve to their base shapes.
func LookupModel(name string) (Model, error) {
	key := modelKey(name)
	for _, m := range builtinModels {
		if key == modelKey(m.Name) {
			return m, nil
		}
	}
	return Model{}, fmt.Errorf("unknown model %q (built in: %s)", name, names(Models(), func(m Model) string { return m.Name }))
}

func gpuKey(s string) string {
	return strings.Map(func(r rune) rune {
		switch r {
		case ' ', '-', '_':
			return -1
		}
		return r
	}, strings.ToLower(strings.TrimSpace(s)))
}

// gpuAlias is the short name a GPU also answers to: the name without its
// memory or form-factor suffix ("a10080gb" → "a100", "h100sxm" → "h100",
// "rtx4090" → "4090").
func gpuAlias(key string) string {
	for _, suffix := range []string{"80gb", "sxm"} {
		key = strings.TrimSuffix(key, suffix)
	}
	return strings.TrimPrefix(key, "rtx")
}

func modelKey(s string) string {
	s = strings.ToLower(strings.TrimSpace(s))
	if i := strings.LastIndexByte(s, '/'); i >= 0 {
		s = s[i+1:]
	}
	s = strings.TrimPrefix(s, "meta-")
	if i := strings.Index(s, "-instruct"); i >= 0 {
		s = s[:i]
	}
	return s
}

func names[T any](xs []T, name func(T) string) string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = name(x)
	}
	return strings.Join(out, ", ")
}
