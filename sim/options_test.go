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
	// (80 GiB × 0.9 − 16.06 GB) ÷ (16 × 128 KiB) = 29,205.99: 29,205
	// whole blocks, 467,280 tokens (vLLM reports about 466k on an H100).
	if info.KVBlocks != 29205 || info.KVTokens != 29205*16 {
		t.Errorf("KV cache %d blocks, %d tokens; want 29205, %d", info.KVBlocks, info.KVTokens, 29205*16)
	}
	want := Info{
		Profile:             profileOf(t, "H100", "Llama-3.1-8B", 1),
		Model:               "Llama-3.1-8B",
		MaxModelLen:         131072,
		KVBlocks:            29205,
		KVTokens:            29205 * 16,
		MaxNumSeqs:          256,
		MaxNumBatchedTokens: 8192,
		PrefixCaching:       true,
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
	// (24 GiB × 0.9 − 16.06 GB) ÷ 2 MiB = 3,401.2: 3,401 blocks, 54,416
	// tokens, below the model's 131,072: max model len follows the cache.
	if info.KVBlocks != 3401 || info.MaxModelLen != 3401*16 {
		t.Errorf("L4: %d blocks, max model len %d; want 3401, %d", info.KVBlocks, info.MaxModelLen, 3401*16)
	}
	small.MaxModelLen = 4096
	if info, _ := Resolve(small); info.MaxModelLen != 4096 {
		t.Errorf("explicit max model len 4096 resolved to %d", info.MaxModelLen)
	}
	small.MaxModelLen = 60000
	if _, err := Resolve(small); err == nil || !strings.Contains(err.Error(), "KV cache holds only 54416 tokens") {
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
	// (80 GiB × 0.9 − 141.1 GB ÷ 4) ÷ (16 × 320 KiB ÷ 4) = 32,069.4.
	if info.KVBlocks != 32069 {
		t.Errorf("70B on 4 H100s: %d KV blocks, want 32069", info.KVBlocks)
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
		"kv cache: 29205 blocks of 16 tokens (467280 tokens), prefix caching off",
		"max num seqs 256, max num batched tokens 8192",
		"faults: error-rate=0.5",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("Info.String() lacks %q:\n%s", want, s)
		}
	}
}
