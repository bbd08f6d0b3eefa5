package sim

import (
	"fmt"
	"sort"
	"strings"
	"time"
)

// GPU describes one accelerator for the cost model: the vendor's datasheet
// figures, and how much of them a serving engine achieves on it.
type GPU struct {
	Name          string  `yaml:"name" json:"name"`
	MemoryGiB     float64 `yaml:"memory_gib" json:"memory_gib"`         // device memory, GiB
	BandwidthTBps float64 `yaml:"bandwidth_tbps" json:"bandwidth_tbps"` // HBM/GDDR bandwidth, 1e12 bytes/s
	TFLOPS        float64 `yaml:"tflops" json:"tflops"`                 // dense BF16 tensor peak, 1e12 FLOP/s
	// FP8TFLOPS is the dense FP8 tensor peak; 0 on GPUs without FP8 tensor
	// cores, where FP8 weights are widened to BF16 for the matrix multiply.
	FP8TFLOPS float64 `yaml:"fp8_tflops,omitempty" json:"fp8_tflops,omitempty"`
	// LinkGBps is the per-direction GPU-to-GPU bandwidth an all-reduce runs
	// at under tensor parallelism (NVLink, Infinity Fabric or PCIe), 1e9 bytes/s.
	LinkGBps float64 `yaml:"link_gbps" json:"link_gbps"`
	// AllReduceLatencyUS is the fixed cost of one small all-reduce, µs.
	AllReduceLatencyUS float64 `yaml:"allreduce_latency_us" json:"allreduce_latency_us"`
	// MBU and MFU are the fractions of peak bandwidth and of peak FLOP/s
	// that the engine's kernels achieve on this GPU (its family's, unless a
	// profile says otherwise; 0.8 and 0.4 when neither says).
	// Calibration.MBU and MFU, when set, override them.
	MBU float64 `yaml:"mbu,omitempty" json:"mbu,omitempty"`
	MFU float64 `yaml:"mfu,omitempty" json:"mfu,omitempty"`
	// Source says where the figures come from.
	Source string `yaml:"source,omitempty" json:"source,omitempty"`
}

// Model describes a decoder-only transformer's shape: enough to size its
// weights, its KV cache and its FLOPs per token. Zero optional fields
// describe a dense model with full attention and BF16 weights.
type Model struct {
	Name        string  `yaml:"name" json:"name"`
	Layers      int     `yaml:"layers" json:"layers"`
	Hidden      int     `yaml:"hidden_size" json:"hidden_size"`
	Heads       int     `yaml:"num_heads" json:"num_heads"`
	KVHeads     int     `yaml:"num_kv_heads" json:"num_kv_heads"`
	HeadDim     int     `yaml:"head_dim" json:"head_dim"`
	ParamsB     float64 `yaml:"params_b" json:"params_b"`       // all parameters, billions
	DTypeBytes  int     `yaml:"dtype_bytes" json:"dtype_bytes"` // bytes per weight (and KV element) when WeightDType is not given; bf16: 2
	MaxModelLen int     `yaml:"max_model_len" json:"max_model_len"`

	// VocabSize sizes the embedding table, which a step looks rows up in
	// (it reads almost none of it), and the LM head, which only the
	// sequences that sample a token in the step multiply by. Zero: neither
	// is set apart from the other weights.
	VocabSize  int  `yaml:"vocab_size,omitempty" json:"vocab_size,omitempty"`
	TiedEmbeds bool `yaml:"tie_word_embeddings,omitempty" json:"tie_word_embeddings,omitempty"`
	// IntermediateSize is the MLP's width (an expert's, for MoE models),
	// which sizes the activations vLLM reserves memory for.
	IntermediateSize int `yaml:"intermediate_size,omitempty" json:"intermediate_size,omitempty"`

	// WeightDType is the weights' format: bf16, fp16, fp8, int8, int4 (AWQ,
	// GPTQ) or mxfp4. Empty: DTypeBytes bytes each.
	WeightDType string `yaml:"weight_dtype,omitempty" json:"weight_dtype,omitempty"`

	// Mixture of experts: Experts routed experts per MoE layer, of which
	// each token uses ExpertsPerToken; ExpertParamsB of the parameters are
	// in the routed experts, in ExpertDType (default WeightDType).
	// ActiveParamsB is what one token computes with.
	ActiveParamsB   float64 `yaml:"active_params_b,omitempty" json:"active_params_b,omitempty"`
	Experts         int     `yaml:"num_experts,omitempty" json:"num_experts,omitempty"`
	ExpertsPerToken int     `yaml:"experts_per_token,omitempty" json:"experts_per_token,omitempty"`
	ExpertParamsB   float64 `yaml:"expert_params_b,omitempty" json:"expert_params_b,omitempty"`
	ExpertDType     string  `yaml:"expert_dtype,omitempty" json:"expert_dtype,omitempty"`

	// SlidingWindow, when positive, is the attention window of the layers
	// that are not among the FullAttentionLayers (all layers slide when
	// FullAttentionLayers is 0).
	SlidingWindow       int `yaml:"sliding_window,omitempty" json:"sliding_window,omitempty"`
	FullAttentionLayers int `yaml:"full_attention_layers,omitempty" json:"full_attention_layers,omitempty"`

	// Multi-head latent attention (DeepSeek): with KVLoRARank positive, a
	// token's KV is one latent of KVLoRARank + QKRopeHeadDim elements per
	// layer, shared by all heads and kept whole on every GPU of a
	// tensor-parallel group. HeadDim is then the query-key head size and
	// VHeadDim the value head size.
	KVLoRARank    int `yaml:"kv_lora_rank,omitempty" json:"kv_lora_rank,omitempty"`
	QKRopeHeadDim int `yaml:"qk_rope_head_dim,omitempty" json:"qk_rope_head_dim,omitempty"`
	VHeadDim      int `yaml:"v_head_dim,omitempty" json:"v_head_dim,omitempty"`

	Source string `yaml:"source,omitempty" json:"source,omitempty"`

	// Reasoning makes the model think before it answers (see Reasoning);
	// the built-in models do not.
	Reasoning Reasoning `yaml:"reasoning,omitempty" json:"reasoning,omitzero"`
}

// weightBytesPer is the bytes of one weight in the model's format.
func (m Model) weightBytesPer() float64 {
	if m.WeightDType != "" {
		if b, ok := dtypeBytes(m.WeightDType); ok {
			return b
		}
	}
	return float64(m.DTypeBytes)
}

// expertBytesPer is the bytes of one routed-expert weight.
func (m Model) expertBytesPer() float64 {
	if m.ExpertDType != "" {
		if b, ok := dtypeBytes(m.ExpertDType); ok {
			return b
		}
	}
	return m.weightBytesPer()
}

// kvElemBytes is the bytes of one KV cache element with the model's own
// format: what vLLM's kv_cache_dtype "auto" gives, the activations' width.
// Quantized weights keep 16-bit activations.
func (m Model) kvElemBytes() float64 {
	if m.WeightDType == "" && m.DTypeBytes > 0 {
		return float64(m.DTypeBytes)
	}
	return 2
}

// embedParams is the parameters of the embedding table, which are those
// of the LM head too.
func (m Model) embedParams() float64 { return float64(m.VocabSize) * float64(m.Hidden) }

// storedEmbedParams is the embedding and LM head parameters stored: a tied
// head is the table itself.
func (m Model) storedEmbedParams() float64 {
	if m.TiedEmbeds {
		return m.embedParams()
	}
	return 2 * m.embedParams()
}

// fullLayers is the number of layers that attend to the whole context.
func (m Model) fullLayers() int {
	if m.SlidingWindow <= 0 || m.FullAttentionLayers >= m.Layers {
		return m.Layers
	}
	return m.FullAttentionLayers
}

// kvElemsPerTokenLayer is the KV elements one token keeps in one layer,
// across all GPUs: K and V per KV head, or one MLA latent.
func (m Model) kvElemsPerTokenLayer() float64 {
	if m.KVLoRARank > 0 {
		return float64(m.KVLoRARank + m.QKRopeHeadDim)
	}
	return 2 * float64(m.KVHeads) * float64(m.HeadDim)
}

// KVBytesPerToken is the KV cache footprint of one token across all GPUs,
// with the model's own KV format, in the layers that keep every token (a
// sliding-window layer keeps only its window):
// 2 (K and V) × layers × KV heads × head dim × bytes, or for MLA one latent
// per layer.
func (m Model) KVBytesPerToken() int64 {
	layers := m.fullLayers()
	if layers == 0 {
		layers = m.Layers // every layer slides: the cache grows with the context all the same
	}
	return int64(float64(layers) * m.kvElemsPerTokenLayer() * m.kvElemBytes())
}

// WeightBytes is the size of all weights in their formats.
func (m Model) WeightBytes() float64 {
	experts := m.ExpertParamsB * 1e9
	return (m.ParamsB*1e9-experts)*m.weightBytesPer() + experts*m.expertBytesPer()
}

// activeParams is the parameters one token computes with.
func (m Model) activeParams() float64 {
	if m.ActiveParamsB > 0 {
		return m.ActiveParamsB * 1e9
	}
	return m.ParamsB * 1e9
}

// Calibration holds the efficiencies and fixed costs that turn a roofline
// into the step times a real engine shows. DefaultCalibration fits the
// published measurements in the repository's calibration report; a profile
// file (or goodput sim fit) may override any of them for another engine or
// host.
type Calibration struct {
	// MFU and MBU, when positive, override every GPU's own fraction of
	// peak FLOP/s and of peak bandwidth.
	MFU float64
	MBU float64
	// AttentionEfficiency, when positive, is how many times the matrix
	// multiplies' MFU the attention kernels (flash attention) achieve on
	// the attention FLOPs (0: the same).
	AttentionEfficiency float64
	// StepOverhead is the fixed cost of one engine step: scheduling, input
	// preparation, kernel launches, the host round trip.
	StepOverhead time.Duration
	// SeqOverhead is the cost per sequence in a step: its share of
	// sampling, of preparing the batch's metadata and of output
	// processing.
	SeqOverhead time.Duration
	// RequestOverhead is the part of a request's way into the engine that
	// requests do not queue for: the HTTP round trip and the hand-off
	// between the API server and the engine. It adds to TTFT once per
	// request.
	RequestOverhead time.Duration
	// FrontEndService is the API server's own work per request (parsing,
	// validation, tokenization set-up), done one request at a time: when
	// many requests arrive at once they queue for it. FrontEndPerToken adds
	// to it per prompt token (tokenizing), and ChatTemplate per chat
	// request (rendering the chat template).
	FrontEndService  time.Duration
	FrontEndPerToken time.Duration
	ChatTemplate     time.Duration
}

// DefaultCalibration is fitted to published vLLM measurements (the
// calibration report, package calibration, compares every one of them with
// the simulator) and used for every GPU and model; the per-GPU
// efficiencies are on the GPUs. The fit: a step costs 1.4 ms of scheduling
// and launches plus 30 µs per sequence, which with the weights read at 85 %
// of an H100's bandwidth gives Llama-3.1-8B's 6.5 ms per token at
// concurrency 1 and its ~10 ms at 100 sequences; attention runs at 1.5
// times the matrix multiplies' efficiency (flash attention); the API
// server spends about 1 ms on each request in turn (plus 2 µs per prompt
// token) and 40 ms rendering a chat template, which is what a chat
// request's TTFT shows at low load and what a thousand requests sent at
// once queue for.
var DefaultCalibration = Calibration{
	AttentionEfficiency: 1.5,
	StepOverhead:        1400 * time.Microsecond,
	SeqOverhead:         30 * time.Microsecond,
	RequestOverhead:     500 * time.Microsecond,
	FrontEndService:     1 * time.Millisecond,
	FrontEndPerToken:    2 * time.Microsecond,
	ChatTemplate:        40 * time.Millisecond,
}

// Profile is everything the cost model needs: the GPU, the model, how many
// GPUs the model is split over, the KV cache's format and the calibration.
type Profile struct {
	GPU            GPU
	Model          Model
	TensorParallel int // GPUs per replica (1 = no tensor parallelism)
	// KVCacheDType is vLLM's --kv-cache-dtype: "auto" or "" (the model's
	// activation width), "fp8" (and its e4m3/e5m2 variants), "bfloat16",
	// "float16".
	KVCacheDType string
	Calibration  Calibration
	// Engine holds engine settings that come with the profile (goodput sim
	// fit writes the server's): Options' own, when set, take precedence.
	Engine EngineSettings
}

// EngineSettings are a server's engine limits, with vLLM's names in a
// profile file; zero fields are not set.
type EngineSettings struct {
	MaxNumSeqs           int     `yaml:"max_num_seqs,omitempty"`
	MaxNumBatchedTokens  int     `yaml:"max_num_batched_tokens,omitempty"`
	MaxModelLen          int     `yaml:"max_model_len,omitempty"`
	BlockSize            int     `yaml:"block_size,omitempty"`
	GPUMemoryUtilization float64 `yaml:"gpu_memory_utilization,omitempty"`
}

// kvElemBytes is the bytes of one KV cache element.
func (p Profile) kvElemBytes() float64 {
	if b, ok := kvDTypeBytes(p.KVCacheDType); ok && b > 0 {
		return b
	}
	return p.Model.kvElemBytes()
}

// Efficiencies of a GPU described without its own (a profile file's),
// between the measured families'.
const (
	defaultMBU = 0.8
	defaultMFU = 0.4
)

// mbu is the fraction of peak bandwidth achieved.
func (p Profile) mbu() float64 {
	switch {
	case p.Calibration.MBU > 0:
		return p.Calibration.MBU
	case p.GPU.MBU > 0:
		return p.GPU.MBU
	}
	return defaultMBU
}

// mfu is the fraction of peak FLOP/s achieved.
func (p Profile) mfu() float64 {
	switch {
	case p.Calibration.MFU > 0:
		return p.Calibration.MFU
	case p.GPU.MFU > 0:
		return p.GPU.MFU
	}
	return defaultMFU
}

// Efficiency returns the fractions of peak bandwidth and of peak FLOP/s the
// profile's GPU achieves: the calibration's when it sets them, else the
// GPU's own.
func (p Profile) Efficiency() (mbu, mfu float64) { return p.mbu(), p.mfu() }

// String describes the profile on one line, for logs and the CLI banner.
func (p Profile) String() string {
	tp := ""
	if p.TensorParallel > 1 {
		tp = fmt.Sprintf(" ×%d (tensor parallel)", p.TensorParallel)
	}
	return fmt.Sprintf("%s on %s%s: %.0f GiB, %.3g TB/s, %.0f TFLOP/s; MFU %.2f, MBU %.2f",
		p.Model.Name, p.GPU.Name, tp, p.GPU.MemoryGiB, p.GPU.BandwidthTBps, p.GPU.TFLOPS, p.mfu(), p.mbu())
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
// "Qwen/Qwen2.5-7B-Instruct" resolve to their base shapes, and
// "Meta-Llama-3-8B" to Llama-3.1-8B's, which it shares.
//
// A name that says its weights are quantized ("Qwen3-8B-FP8",
// "Llama-3.1-8B-Instruct-AWQ") gives the base shape with those weights.
func LookupModel(name string) (Model, error) {
	key := modelKey(name)
	if alias, ok := modelAliases[key]; ok {
		key = alias
	}
	for _, m := range builtinModels {
		if key == modelKey(m.Name) {
			if q := quantizedWeights(name); q != "" {
				m.Name += "-" + strings.ToUpper(q)
				m.WeightDType = q
				if m.ExpertDType != "" && q != "fp8" {
					m.ExpertDType = q
				}
			}
			return m, nil
		}
	}
	return Model{}, fmt.Errorf("unknown model %q (built in: %s)", name, names(Models(), func(m Model) string { return m.Name }))
}

// quantizedWeights is the weight format a model name announces ("fp8",
// "int4"), or "".
func quantizedWeights(name string) string {
	lower := strings.ToLower(name)
	switch {
	case strings.Contains(lower, "-fp8"):
		return "fp8"
	case strings.Contains(lower, "-awq"), strings.Contains(lower, "-gptq"), strings.Contains(lower, "-int4"):
		return "int4"
	}
	return ""
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
	for _, suffix := range []string{"-instruct", "-fp8", "-awq", "-gptq", "-int4"} {
		if i := strings.Index(s, suffix); i >= 0 {
			s = s[:i]
		}
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
