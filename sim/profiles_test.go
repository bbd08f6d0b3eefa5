package sim

import (
	"math"
	"strings"
	"testing"
)

func TestKVBytesPerToken(t *testing.T) {
	tests := []struct {
		model string
		want  int64
	}{
		{"Llama-3.1-8B", 128 << 10},          // 2 × 32 layers × 8 KV heads × 128 × 2 bytes, DESIGN's figure
		{"Qwen2.5-7B", 56 << 10},             // 2 × 28 × 4 × 128 × 2, DESIGN's figure
		{"Llama-3.1-70B", 320 << 10},         // 2 × 80 × 8 × 128 × 2
		{"Qwen2.5-0.5B", 12 << 10},           // 2 × 24 × 2 × 64 × 2
		{"Mistral-7B", 128 << 10},            // same attention shape as Llama-3.1-8B
		{"DeepSeek-V3", 61 * 576 * 2},        // MLA: one latent of 512 + 64 per layer
		{"gpt-oss-20b", 12 * 2 * 8 * 64 * 2}, // only the 12 full-attention layers keep every token
	}
	for _, tt := range tests {
		m, err := LookupModel(tt.model)
		if err != nil {
			t.Fatal(err)
		}
		if got := m.KVBytesPerToken(); got != tt.want {
			t.Errorf("%s: KV bytes per token = %d, want %d", tt.model, got, tt.want)
		}
	}
}

func TestWeightBytes(t *testing.T) {
	tests := []struct {
		model string
		want  float64
	}{
		{"Llama-3.1-8B", 16.06e9},                                // 8.03 B × 2 bytes
		{"Llama-3.1-8B-FP8", 8.03e9},                             // 1 byte each
		{"Llama-3.1-8B-AWQ", 8.03e9 * (0.5 + 1.0/64)},            // 4 bits and a 16-bit scale per 128
		{"gpt-oss-20b", (20.9-19.1)*1e9*2 + 19.1e9*(0.5+1.0/32)}, // BF16 attention, MXFP4 experts
	}
	for _, tt := range tests {
		m, err := LookupModel(tt.model)
		if err != nil {
			t.Fatal(err)
		}
		if got := m.WeightBytes(); math.Abs(got-tt.want) > 1e3 {
			t.Errorf("%s weights = %v bytes, want %v", tt.model, got, tt.want)
		}
	}
}

func TestLookupGPU(t *testing.T) {
	tests := []struct {
		in, want string // want "" means an error
	}{
		{"H100-SXM", "H100-SXM"},   // exact
		{"h100", "H100-SXM"},       // short alias, any case
		{"H100 SXM", "H100-SXM"},   // separators ignored
		{"a100", "A100-80GB"},      // memory suffix optional
		{"A100_80GB", "A100-80GB"}, // underscore as separator
		{"rtx 4090", "RTX-4090"},   // spaced
		{"4090", "RTX-4090"},       // bare number
		{"  L40S  ", "L40S"},       // surrounding blanks
		{"mi300x", "MI300X"},       // AMD
		{"h200", "H200"},           // not confused with H100
		{"", ""},                   // empty
		{"h1000", ""},              // near miss
		{"B200", "B200"},           // Blackwell
		{"gaudi 3", "Gaudi3"},      // spaced
		{"h100 pcie", "H100-PCIe"}, // form factor
		{"a100-40gb", "A100-40GB"}, // the smaller A100
		{"B300", ""},               // not built in: use a profile file
	}
	for _, tt := range tests {
		g, err := LookupGPU(tt.in)
		if tt.want == "" {
			if err == nil || !strings.Contains(err.Error(), "unknown gpu") {
				t.Errorf("LookupGPU(%q) = %v, %v; want an unknown gpu error", tt.in, g.Name, err)
			}
			continue
		}
		if err != nil || g.Name != tt.want {
			t.Errorf("LookupGPU(%q) = %q, %v; want %q", tt.in, g.Name, err, tt.want)
		}
	}
}

func TestLookupModel(t *testing.T) {
	tests := []struct {
		in, want string
	}{
		{"Llama-3.1-8B", "Llama-3.1-8B"},                            // exact
		{"meta-llama/Llama-3.1-8B-Instruct", "Llama-3.1-8B"},        // Hugging Face repository
		{"meta-llama/Meta-Llama-3.1-70B-Instruct", "Llama-3.1-70B"}, // older repository name
		{"Qwen/Qwen2.5-7B-Instruct", "Qwen2.5-7B"},                  // Qwen
		{"qwen2.5-0.5b", "Qwen2.5-0.5B"},                            // lower case
		{"mistralai/Mistral-7B-Instruct-v0.3", "Mistral-7B"},        // version suffix after -Instruct
		{"Qwen/Qwen3-30B-A3B", "Qwen3-30B-A3B"},                     // MoE
		{"Qwen/Qwen3-8B-FP8", "Qwen3-8B-FP8"},                       // quantized: the base shape with FP8 weights
		{"meta-llama/Llama-3.3-70B-Instruct", "Llama-3.1-70B"},      // same shape, another name
		{"openai/gpt-oss-120b", "gpt-oss-120b"},                     // sliding window and MXFP4 experts
		{"", ""},                                                    // empty
		{"Llama-3.1-8", ""},                                         // truncated
		{"gpt-4", ""},                                               // unknown
	}
	for _, tt := range tests {
		m, err := LookupModel(tt.in)
		if tt.want == "" {
			if err == nil {
				t.Errorf("LookupModel(%q) = %q; want an error", tt.in, m.Name)
			}
			continue
		}
		if err != nil || m.Name != tt.want {
			t.Errorf("LookupModel(%q) = %q, %v; want %q", tt.in, m.Name, err, tt.want)
		}
	}
}

func TestBuiltinsAreSortedAndValid(t *testing.T) {
	gpus, models := GPUs(), Models()
	if len(gpus) != 22 || len(models) != 18 {
		t.Fatalf("%d GPUs and %d models built in, want 22 and 18", len(gpus), len(models))
	}
	for i := 1; i < len(gpus); i++ {
		if gpus[i-1].Name >= gpus[i].Name {
			t.Errorf("GPUs not sorted: %q before %q", gpus[i-1].Name, gpus[i].Name)
		}
	}
	for _, g := range gpus {
		if g.Source == "" || g.MBU == 0 || g.MFU == 0 {
			t.Errorf("%s: source %q, MBU %v, MFU %v; want all given", g.Name, g.Source, g.MBU, g.MFU)
		}
	}
	for _, m := range models {
		if m.Source == "" || m.VocabSize == 0 || m.IntermediateSize == 0 {
			t.Errorf("%s: source %q, vocab %d, intermediate %d; want all given", m.Name, m.Source, m.VocabSize, m.IntermediateSize)
		}
	}
	for _, g := range gpus {
		for _, m := range models {
			p := Profile{GPU: g, Model: m, TensorParallel: 1, Calibration: DefaultCalibration}
			if err := p.validate(); err != nil {
				t.Errorf("%s on %s: %v", m.Name, g.Name, err)
			}
		}
	}
}

func TestProfileString(t *testing.T) {
	p := Profile{GPU: mustGPU(t, "H100"), Model: mustModel(t, "Llama-3.1-70B"), TensorParallel: 4, Calibration: DefaultCalibration}
	want := "Llama-3.1-70B on H100-SXM ×4 (tensor parallel): 80 GiB, 3.35 TB/s, 989 TFLOP/s; MFU 0.30, MBU 0.85"
	if got := p.String(); got != want {
		t.Errorf("String() = %q\nwant       %q", got, want)
	}
}

func mustGPU(t testing.TB, name string) GPU {
	t.Helper()
	g, err := LookupGPU(name)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func mustModel(t testing.TB, name string) Model {
	t.Helper()
	m, err := LookupModel(name)
	if err != nil {
		t.Fatal(err)
	}
	return m
}
