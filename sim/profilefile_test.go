package sim

import (
	"strings"
	"testing"
	"time"
)

func TestParseProfile(t *testing.T) {
	base := profileOf(t, "H100", "Llama-3.1-8B", 1)
	tests := []struct {
		name  string
		yaml  string
		check func(Profile) bool
	}{
		{"built-in names", "gpu: a100\nmodel: Qwen/Qwen3-8B\n", func(p Profile) bool {
			return p.GPU.Name == "A100-80GB" && p.Model.Name == "Qwen3-8B" && p.Calibration == base.Calibration
		}},
		{"a GPU in full, efficiencies included", "gpu: {name: X, memory_gib: 96, bandwidth_tbps: 4, tflops: 900, fp8_tflops: 1800, mbu: 0.7, mfu: 0.35}\n", func(p Profile) bool {
			return p.GPU.Name == "X" && p.GPU.FP8TFLOPS == 1800 && p.GPU.MBU == 0.7 && p.GPU.MFU == 0.35
		}},
		{"a mixture of experts", "model: {name: moe, layers: 4, hidden_size: 64, num_heads: 4, num_kv_heads: 2, head_dim: 16, params_b: 1, active_params_b: 0.2, num_experts: 16, experts_per_token: 2, expert_params_b: 0.9, expert_dtype: mxfp4, dtype_bytes: 2, max_model_len: 4096}\n",
			func(p Profile) bool {
				return p.Model.Experts == 16 && p.Model.ExpertsPerToken == 2 && p.Model.ExpertDType == "mxfp4" && p.Model.ActiveParamsB == 0.2
			}},
		{"part of the calibration", "calibration: {step_overhead: 2ms, chat_template: 15ms, attention_efficiency: 1.2}\n", func(p Profile) bool {
			c := p.Calibration
			return c.StepOverhead == 2*time.Millisecond && c.ChatTemplate == 15*time.Millisecond && c.AttentionEfficiency == 1.2 &&
				c.SeqOverhead == base.Calibration.SeqOverhead
		}},
		{"the KV cache format", "kv_cache_dtype: fp8\ntensor_parallel_size: 2\n", func(p Profile) bool {
			return p.KVCacheDType == "fp8" && p.TensorParallel == 2
		}},
		{"engine settings", "engine: {max_num_seqs: 4, max_num_batched_tokens: 2048, max_model_len: 2048}\n", func(p Profile) bool {
			return p.Engine == EngineSettings{MaxNumSeqs: 4, MaxNumBatchedTokens: 2048, MaxModelLen: 2048}
		}},
	}
	for _, tt := range tests {
		p, err := ParseProfile("p.yaml", []byte(tt.yaml), base)
		if err != nil || !tt.check(p) {
			t.Errorf("%s: %+v, %v", tt.name, p, err)
		}
	}
	for _, tt := range []struct{ name, yaml, want string }{
		{"unknown key", "gpus: H100\n", "p.yaml: yaml: unmarshal errors"},
		{"unknown GPU field", "gpu: {name: X, hbm: 3}\n", `line 1: gpu: unknown field "hbm"`},
		{"unknown calibration field", "calibration: {mfu_prefill: 0.3}\n", "p.yaml: yaml: unmarshal errors"},
		{"bad kv dtype", "kv_cache_dtype: int3\n", `p.yaml: kv_cache_dtype "int3": want one of auto, fp8`},
		{"zero tensor parallel", "tensor_parallel_size: 0\n", "tensor_parallel_size 0: must be at least 1"},
		{"negative engine setting", "engine: {max_num_seqs: -4}\n", "settings must not be negative"},
		{"empty", "", "p.yaml: the profile is empty"},
	} {
		if _, err := ParseProfile("p.yaml", []byte(tt.yaml), base); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v, want an error containing %q", tt.name, err, tt.want)
		}
	}
	// Settings the profile carries apply unless the options set their own.
	withEngine, err := ParseProfile("p.yaml", []byte("engine: {max_num_seqs: 4, max_num_batched_tokens: 512}\n"), base)
	if err != nil {
		t.Fatal(err)
	}
	if info, err := Resolve(Options{Profile: withEngine, MaxNumBatchedTokens: 1024}); err != nil || info.MaxNumSeqs != 4 || info.MaxNumBatchedTokens != 1024 {
		t.Errorf("engine from the profile: %+v, %v; want 4 seqs from it and 1024 tokens from the options", info, err)
	}
	// What parses may still be refused as a whole: Resolve checks it.
	p, err := ParseProfile("p.yaml", []byte("model: {name: m, layers: 2, hidden_size: 8, num_heads: 2, num_kv_heads: 1, head_dim: 4, params_b: 1, weight_dtype: int3, max_model_len: 64}\n"), base)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Resolve(Options{Profile: p}); err == nil || !strings.Contains(err.Error(), `model weight_dtype "int3"`) {
		t.Errorf("unknown weight format: %v", err)
	}
}

func TestFormatProfileRoundTrips(t *testing.T) {
	custom := profileOf(t, "H100", "Qwen3-30B-A3B", 2)
	custom.GPU.MBU, custom.GPU.MFU = 0.77, 0.41 // fitted: no longer the built-in H100
	custom.KVCacheDType = "fp8"
	custom.Calibration.StepOverhead = 1234 * time.Microsecond
	custom.Calibration.MFU = 0.5
	custom.Engine = EngineSettings{MaxNumSeqs: 4, MaxNumBatchedTokens: 2048, GPUMemoryUtilization: 0.8}
	for _, p := range []Profile{profileOf(t, "A100", "Llama-3.1-8B", 1), custom} {
		data, err := FormatProfile(p, "fitted to run.jsonl\nheld out: c=8")
		if err != nil {
			t.Fatal(err)
		}
		got, err := ParseProfile("out.yaml", data, Profile{})
		if err != nil {
			t.Fatalf("%s\n%v", data, err)
		}
		if got != p {
			t.Errorf("round trip of\n%s\ngave %+v\nwant %+v", data, got, p)
		}
		if !strings.HasPrefix(string(data), "# fitted to run.jsonl\n# held out: c=8\n") {
			t.Errorf("comment not at the head:\n%s", data)
		}
	}
	// Built-in parts are written by name.
	data, _ := FormatProfile(profileOf(t, "A100", "Llama-3.1-8B", 1), "")
	if !strings.Contains(string(data), "gpu: A100-80GB\n") || !strings.Contains(string(data), "model: Llama-3.1-8B\n") {
		t.Errorf("built-in GPU and model not written by name:\n%s", data)
	}
}

// A path that is no profile (a model's weights, /dev/zero) is refused
// after its first MiB, not read whole; a missing one says so.
func TestLoadProfileRefusesWhatIsNoProfile(t *testing.T) {
	base := profileOf(t, "H100", "Llama-3.1-8B", 1)
	if _, err := LoadProfile("/dev/zero", base); err == nil || err.Error() != "/dev/zero: larger than 1024 KiB, which no profile is: not a profile file" {
		t.Errorf("/dev/zero: %v", err)
	}
	if _, err := LoadProfile("no-such.yaml", base); err == nil || !strings.Contains(err.Error(), "profile: open no-such.yaml: no such file") {
		t.Errorf("missing file: %v", err)
	}
}
