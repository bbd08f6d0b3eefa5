package sim

import (
	"strings"
	"testing"
)

func TestResolveDefaults(t *testing.T) {
	info, err := Resolve(Options{})
	if err != nil {
		t.Fatal(err)
	}
	// (80 GiB × 0.9 − 16.06 GB of weights − 2.12 GB of reserve) ÷ (16 ×
	// 128 KiB) = 28,193.6: 28,193 whole blocks, 451,088 tokens (vLLM reports
	// about 450k on an H100). The reserve is 0.8 GiB, the activations of
	// 8,192 tokens (8,192 × (2 × 14,336 + 4 × 4,096) × 2 bytes = 0.74 GB)
	// and the float32 logits of 1,024 sequences (0.53 GB).
	if info.KVBlocks != 28193 || info.KVTokens != 28193*16 {
		t.Errorf("KV cache %d blocks, %d tokens; want 28193, %d", info.KVBlocks, info.KVTokens, 28193*16)
	}
	want := Info{
		Profile:             profileOf(t, "H100", "Llama-3.1-8B", 1),
		Model:               "Llama-3.1-8B",
		MaxModelLen:         131072,
		KVBlocks:            28193,
		BlockSize:           16,
		KVTokens:            28193 * 16,
		MaxNumSeqs:          1024, // vLLM's default on a GPU of 70 GiB or more
		MaxNumBatchedTokens: 8192,
		PrefixCaching:       true,
		ChunkedPrefill:      true,
	}
	if info != want {
		t.Errorf("Resolve(Options{}) =\n%+v\nwant\n%+v", info, want)
	}
}

func TestResolveMaxModelLen(t *testing.T) {
	small := Options{Profile: Profile{GPU: mustGPU(t, "L4"), Model: mustModel(t, "Llama-3.1-8B")}}
	info, err := Resolve(small)
	if err != nil {
		t.Fatal(err)
	}
	// (24 GiB × 0.9 − 16.06 GB − 1.17 GB) ÷ 2 MiB = 2,840.9: 2,840 blocks,
	// 45,440 tokens, below the model's 131,072: max model len follows the
	// cache. The reserve is smaller than an H100's: vLLM's defaults for a
	// 24 GB GPU are 2,048 batched tokens and 256 sequences.
	if info.KVBlocks != 2840 || info.MaxModelLen != 2840*16 || info.MaxNumSeqs != 256 || info.MaxNumBatchedTokens != 2048 {
		t.Errorf("L4: %d blocks, max model len %d, %d seqs, %d batched tokens; want 2840, %d, 256, 2048",
			info.KVBlocks, info.MaxModelLen, info.MaxNumSeqs, info.MaxNumBatchedTokens, 2840*16)
	}
	small.MaxModelLen = 4096
	if info, _ := Resolve(small); info.MaxModelLen != 4096 {
		t.Errorf("explicit max model len 4096 resolved to %d", info.MaxModelLen)
	}
	small.MaxModelLen = 60000
	if _, err := Resolve(small); err == nil || !strings.Contains(err.Error(), "KV cache holds only 45440 tokens") {
		t.Errorf("max model len beyond the cache: %v", err)
	}
}

func TestResolveRejects(t *testing.T) {
	h100 := mustGPU(t, "H100")
	l70 := mustModel(t, "Llama-3.1-70B")
	tests := []struct {
		name string
		o    Options
		want string // substring of the error
	}{
		{"70B on one H100", Options{Profile: Profile{GPU: h100, Model: l70}}, "raise tensor parallel size (now 1)"},
		{"negative tensor parallel", Options{Profile: Profile{TensorParallel: -2}}, "tensor parallel size -2"},
		{"tensor parallel not dividing heads", Options{Profile: Profile{TensorParallel: 3}}, "does not divide the model's 32 attention heads"},
		{"utilization above 1", Options{GPUMemoryUtilization: 1.5}, "gpu memory utilization 1.5"},
		{"negative utilization", Options{GPUMemoryUtilization: -0.1}, "gpu memory utilization -0.1"},
		{"negative max num seqs", Options{MaxNumSeqs: -1}, "max num seqs -1"},
		{"negative batched tokens", Options{MaxNumBatchedTokens: -8}, "max num batched tokens -8"},
		{"fewer batched tokens than sequences", Options{MaxNumSeqs: 8, MaxNumBatchedTokens: 4}, "max num batched tokens 4 is below max num seqs 8"},
		{"negative max model len", Options{MaxModelLen: -1}, "max model len -1"},
		{"output mean below 1", Options{OutputLenMean: 0.5}, "output length mean 0.5"},
		{"negative body limit", Options{MaxBodyBytes: -1}, "max body bytes -1"},
		{"bad fault rate", Options{Faults: Faults{ErrorRate: 2}}, "fault error-rate 2"},
		{"weights alone overflow the memory", Options{GPUMemoryUtilization: 0.18}, "raise tensor parallel size"},
		{"bad calibration", Options{Profile: Profile{Calibration: Calibration{MFU: 2, MBU: 0.8}}}, "calibration mfu 2"},
		{"zero layers", Options{Profile: Profile{Model: Model{Name: "x", Hidden: 1, Heads: 1, KVHeads: 1, HeadDim: 1, ParamsB: 1, DTypeBytes: 2, MaxModelLen: 10}}}, "model layers 0"},
		{"more KV heads than heads", Options{Profile: Profile{Model: Model{Name: "x", Layers: 1, Hidden: 1, Heads: 1, KVHeads: 2, HeadDim: 1, ParamsB: 1, DTypeBytes: 2, MaxModelLen: 10}}}, "num_kv_heads 2: more than num_heads 1"},
		{"absurd memory", Options{Profile: Profile{GPU: GPU{Name: "x", MemoryGiB: 1e9, BandwidthTBps: 1, TFLOPS: 1}}}, "more than the simulator supports (8388608)"},
		{"zero bandwidth", Options{Profile: Profile{GPU: GPU{Name: "x", MemoryGiB: 80, TFLOPS: 1}}}, "gpu bandwidth_tbps 0"},
	}
	for _, tt := range tests {
		_, err := Resolve(tt.o)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want one containing %q", tt.name, err, tt.want)
		}
	}
}

func TestTensorParallelFitsTheLargeModel(t *testing.T) {
	info, err := Resolve(Options{Profile: Profile{GPU: mustGPU(t, "H100"), Model: mustModel(t, "Llama-3.1-70B"), TensorParallel: 4}})
	if err != nil {
		t.Fatal(err)
	}
	// (80 GiB × 0.9 − 141.1 GB ÷ 4 − 1.76 GB) ÷ (16 × 320 KiB ÷ 4) =
	// 30,725.4; the reserve's activations and logits split over the four.
	if info.KVBlocks != 30725 {
		t.Errorf("70B on 4 H100s: %d KV blocks, want 30725", info.KVBlocks)
	}
}

func TestInfoString(t *testing.T) {
	info, err := Resolve(Options{DisablePrefixCaching: true, Faults: Faults{ErrorRate: 0.5}})
	if err != nil {
		t.Fatal(err)
	}
	s := info.String()
	for _, want := range []string{
		"profile: Llama-3.1-8B on H100-SXM",
		"kv cache: 28193 blocks of 16 tokens (451088 tokens, 16-bit), prefix caching off",
		"max num seqs 1024, max num batched tokens 8192, chunked prefill on",
		"faults: error-rate=0.5",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("Info.String() lacks %q:\n%s", want, s)
		}
	}
}

func TestEngineDefaultsFollowTheGPU(t *testing.T) {
	tests := []struct {
		gpu, model    string
		offline       bool
		seqs, batched int
	}{
		{"H100", "Llama-3.1-8B", false, 1024, 8192},    // 80 GiB, not an A100: the large defaults
		{"H100", "Llama-3.1-8B", true, 1024, 16384},    // the offline LLM class batches more
		{"H200", "Llama-3.1-8B", false, 1024, 8192},    // 141 GiB
		{"MI300X", "Llama-3.1-8B", false, 1024, 8192},  // 192 GiB
		{"A100", "Llama-3.1-8B", false, 256, 2048},     // 80 GiB but an A100: vLLM keeps it on the small ones
		{"A100", "Llama-3.1-8B", true, 256, 8192},      // offline
		{"L40S", "Llama-3.1-8B", false, 256, 2048},     // 48 GiB
		{"RTX-4090", "Llama-3.1-8B", false, 256, 2048}, // 24 GiB
	}
	for _, tt := range tests {
		info, err := Resolve(Options{Profile: Profile{GPU: mustGPU(t, tt.gpu), Model: mustModel(t, tt.model)}, Offline: tt.offline})
		if err != nil {
			t.Fatalf("%s: %v", tt.gpu, err)
		}
		if info.MaxNumSeqs != tt.seqs || info.MaxNumBatchedTokens != tt.batched || info.Offline != tt.offline {
			t.Errorf("%s offline=%v: max num seqs %d, batched tokens %d; want %d, %d", tt.gpu, tt.offline, info.MaxNumSeqs, info.MaxNumBatchedTokens, tt.seqs, tt.batched)
		}
	}
}

func TestEngineOptions(t *testing.T) {
	base, err := Resolve(Options{})
	if err != nil {
		t.Fatal(err)
	}
	// An FP8 KV cache holds twice the tokens in the same memory.
	fp8, err := Resolve(Options{Profile: Profile{KVCacheDType: "fp8"}})
	if err != nil || fp8.KVBlocks != 2*base.KVBlocks && fp8.KVBlocks != 2*base.KVBlocks+1 {
		t.Errorf("fp8 KV cache: %d blocks (%v), want twice the %d of 16 bits", fp8.KVBlocks, err, base.KVBlocks)
	}
	// Blocks of 32 tokens: half as many blocks, the same tokens.
	big, err := Resolve(Options{BlockSize: 32})
	if err != nil || big.BlockSize != 32 || big.KVBlocks != base.KVBlocks/2 {
		t.Errorf("block size 32: %+v (%v), want %d blocks of 32", big, err, base.KVBlocks/2)
	}
	// Without chunked prefill a whole prompt must fit in a step: the
	// budget rises to max model len, as vLLM raises it.
	whole, err := Resolve(Options{DisableChunkedPrefill: true, MaxModelLen: 32768})
	if err != nil || whole.ChunkedPrefill || whole.MaxNumBatchedTokens != 32768 {
		t.Errorf("no chunked prefill: %+v (%v), want 32768 batched tokens", whole, err)
	}
	if _, err := Resolve(Options{DisableChunkedPrefill: true, MaxModelLen: 32768, MaxNumBatchedTokens: 8192}); err == nil ||
		!strings.Contains(err.Error(), "max num batched tokens 8192: below max model len 32768") {
		t.Errorf("a budget below max model len without chunked prefill: %v", err)
	}
	for _, tt := range []struct {
		name string
		o    Options
		want string
	}{
		{"negative block size", Options{BlockSize: -1}, "block size -1"},
		{"huge block size", Options{BlockSize: 1 << 20}, "block size 1048576: must be between 1 and 1024"},
		{"unknown kv dtype", Options{Profile: Profile{KVCacheDType: "int3"}}, `kv cache dtype "int3"`},
		{"absurd max num seqs", Options{MaxNumSeqs: 1 << 30}, "max num seqs 1073741824: more than the simulator supports"},
	} {
		if _, err := Resolve(tt.o); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v, want an error containing %q", tt.name, err, tt.want)
		}
	}
}
