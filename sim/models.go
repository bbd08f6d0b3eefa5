package sim

import "strings"

// Built-in models, with the shapes from their published configs
// (config.json on Hugging Face, under the repository named in Source).
// Parameter counts are the published totals; routed-expert parameters are
// layers × experts × 3 × hidden × expert intermediate size.
var builtinModels = []Model{
	{Name: "Llama-3.1-8B", Layers: 32, Hidden: 4096, Heads: 32, KVHeads: 8, HeadDim: 128, ParamsB: 8.03, DTypeBytes: 2, MaxModelLen: 131072,
		VocabSize: 128256, IntermediateSize: 14336, Source: "meta-llama/Llama-3.1-8B-Instruct"},
	{Name: "Llama-3-8B", Layers: 32, Hidden: 4096, Heads: 32, KVHeads: 8, HeadDim: 128, ParamsB: 8.03, DTypeBytes: 2, MaxModelLen: 8192,
		VocabSize: 128256, IntermediateSize: 14336, Source: "meta-llama/Meta-Llama-3-8B-Instruct"},
	{Name: "Llama-3.1-70B", Layers: 80, Hidden: 8192, Heads: 64, KVHeads: 8, HeadDim: 128, ParamsB: 70.55, DTypeBytes: 2, MaxModelLen: 131072,
		VocabSize: 128256, IntermediateSize: 28672, Source: "meta-llama/Llama-3.1-70B-Instruct (Llama-3.3-70B has the same shape)"},
	{Name: "Llama-3.1-405B", Layers: 126, Hidden: 16384, Heads: 128, KVHeads: 8, HeadDim: 128, ParamsB: 405.8, DTypeBytes: 2, MaxModelLen: 131072,
		VocabSize: 128256, IntermediateSize: 53248, Source: "meta-llama/Llama-3.1-405B-Instruct"},
	{Name: "Llama-3.2-3B", Layers: 28, Hidden: 3072, Heads: 24, KVHeads: 8, HeadDim: 128, ParamsB: 3.21, DTypeBytes: 2, MaxModelLen: 131072,
		VocabSize: 128256, TiedEmbeds: true, IntermediateSize: 8192, Source: "meta-llama/Llama-3.2-3B-Instruct"},
	{Name: "Llama-3.2-1B", Layers: 16, Hidden: 2048, Heads: 32, KVHeads: 8, HeadDim: 64, ParamsB: 1.24, DTypeBytes: 2, MaxModelLen: 131072,
		VocabSize: 128256, TiedEmbeds: true, IntermediateSize: 8192, Source: "meta-llama/Llama-3.2-1B-Instruct"},
	{Name: "Qwen2.5-7B", Layers: 28, Hidden: 3584, Heads: 28, KVHeads: 4, HeadDim: 128, ParamsB: 7.62, DTypeBytes: 2, MaxModelLen: 32768,
		VocabSize: 152064, IntermediateSize: 18944, Source: "Qwen/Qwen2.5-7B-Instruct"},
	{Name: "Qwen2.5-0.5B", Layers: 24, Hidden: 896, Heads: 14, KVHeads: 2, HeadDim: 64, ParamsB: 0.494, DTypeBytes: 2, MaxModelLen: 32768,
		VocabSize: 151936, TiedEmbeds: true, IntermediateSize: 4864, Source: "Qwen/Qwen2.5-0.5B-Instruct"},
	{Name: "Qwen3-8B", Layers: 36, Hidden: 4096, Heads: 32, KVHeads: 8, HeadDim: 128, ParamsB: 8.19, DTypeBytes: 2, MaxModelLen: 40960,
		VocabSize: 151936, IntermediateSize: 12288, Source: "Qwen/Qwen3-8B"},
	{Name: "Qwen3-14B", Layers: 40, Hidden: 5120, Heads: 40, KVHeads: 8, HeadDim: 128, ParamsB: 14.77, DTypeBytes: 2, MaxModelLen: 40960,
		VocabSize: 151936, IntermediateSize: 17408, Source: "Qwen/Qwen3-14B"},
	{Name: "Qwen3-32B", Layers: 64, Hidden: 5120, Heads: 64, KVHeads: 8, HeadDim: 128, ParamsB: 32.76, DTypeBytes: 2, MaxModelLen: 40960,
		VocabSize: 151936, IntermediateSize: 25600, Source: "Qwen/Qwen3-32B"},
	{Name: "Qwen3-30B-A3B", Layers: 48, Hidden: 2048, Heads: 32, KVHeads: 4, HeadDim: 128, ParamsB: 30.53, DTypeBytes: 2, MaxModelLen: 40960,
		VocabSize: 151936, IntermediateSize: 768, ActiveParamsB: 3.35, Experts: 128, ExpertsPerToken: 8, ExpertParamsB: 28.99,
		Source: "Qwen/Qwen3-30B-A3B (MoE: 128 experts, 8 per token)"},
	{Name: "Qwen3-235B-A22B", Layers: 94, Hidden: 4096, Heads: 64, KVHeads: 4, HeadDim: 128, ParamsB: 235.1, DTypeBytes: 2, MaxModelLen: 40960,
		VocabSize: 151936, IntermediateSize: 1536, ActiveParamsB: 22.2, Experts: 128, ExpertsPerToken: 8, ExpertParamsB: 227.1,
		Source: "Qwen/Qwen3-235B-A22B (MoE: 128 experts, 8 per token)"},
	{Name: "Mixtral-8x7B", Layers: 32, Hidden: 4096, Heads: 32, KVHeads: 8, HeadDim: 128, ParamsB: 46.7, DTypeBytes: 2, MaxModelLen: 32768,
		VocabSize: 32000, IntermediateSize: 14336, ActiveParamsB: 12.9, Experts: 8, ExpertsPerToken: 2, ExpertParamsB: 45.1,
		Source: "mistralai/Mixtral-8x7B-Instruct-v0.1 (MoE: 8 experts, 2 per token)"},
	{Name: "gpt-oss-20b", Layers: 24, Hidden: 2880, Heads: 64, KVHeads: 8, HeadDim: 64, ParamsB: 20.9, DTypeBytes: 2, MaxModelLen: 131072,
		VocabSize: 201088, IntermediateSize: 2880, ActiveParamsB: 3.61, Experts: 32, ExpertsPerToken: 4, ExpertParamsB: 19.1, ExpertDType: "mxfp4",
		SlidingWindow: 128, FullAttentionLayers: 12,
		Source: "openai/gpt-oss-20b (MoE: 32 experts, 4 per token, MXFP4 experts; every other layer a 128-token sliding window)"},
	{Name: "gpt-oss-120b", Layers: 36, Hidden: 2880, Heads: 64, KVHeads: 8, HeadDim: 64, ParamsB: 116.8, DTypeBytes: 2, MaxModelLen: 131072,
		VocabSize: 201088, IntermediateSize: 2880, ActiveParamsB: 5.13, Experts: 128, ExpertsPerToken: 4, ExpertParamsB: 114.7, ExpertDType: "mxfp4",
		SlidingWindow: 128, FullAttentionLayers: 18,
		Source: "openai/gpt-oss-120b (MoE: 128 experts, 4 per token, MXFP4 experts; every other layer a 128-token sliding window)"},
	{Name: "DeepSeek-V3", Layers: 61, Hidden: 7168, Heads: 128, KVHeads: 128, HeadDim: 192, ParamsB: 671, DTypeBytes: 2, MaxModelLen: 163840,
		VocabSize: 129280, IntermediateSize: 2048, ActiveParamsB: 37, Experts: 256, ExpertsPerToken: 8, ExpertParamsB: 654, WeightDType: "fp8",
		KVLoRARank: 512, QKRopeHeadDim: 64, VHeadDim: 128,
		Source: "deepseek-ai/DeepSeek-V3 (MoE: 256 routed experts, 8 per token, in 58 of 61 layers; MLA; FP8 weights as published)"},
	{Name: "Mistral-7B", Layers: 32, Hidden: 4096, Heads: 32, KVHeads: 8, HeadDim: 128, ParamsB: 7.25, DTypeBytes: 2, MaxModelLen: 32768,
		VocabSize: 32768, IntermediateSize: 14336, Source: "mistralai/Mistral-7B-Instruct-v0.3"},
}

// modelAliases maps other names of a built-in shape (as modelKey spells
// them) to it.
var modelAliases = map[string]string{
	"llama-3.3-70b": "llama-3.1-70b",
	"llama-3-70b":   "llama-3.1-70b",
	"deepseek-r1":   "deepseek-v3",
}

func containsFold(s, sub string) bool {
	return strings.Contains(strings.ToLower(s), strings.ToLower(sub))
}
