package promscrape

import "testing"

func TestDetectEngine(t *testing.T) {
	tests := []struct {
		name  string
		names []string
		want  Engine
	}{
		// Each engine's own prefix.
		{"vllm", []string{"vllm:num_requests_running", "process_cpu_seconds_total"}, VLLM},
		{"sglang", []string{"sglang:token_usage"}, SGLang},
		{"tgi", []string{"tgi_queue_size", "tgi_request_duration"}, TGI},
		{"llama.cpp", []string{"llamacpp:requests_processing"}, LlamaCpp},
		// A gateway in front of vLLM that exports one SGLang-looking metric:
		// the majority decides.
		{"majority wins", []string{"vllm:a", "vllm:b", "sglang:c"}, VLLM},
		// Equal counts: vLLM comes first in the tie-break order.
		{"tie goes to the earlier engine", []string{"tgi_x", "vllm:y"}, VLLM},
		// Only runtime metrics: nothing to map.
		{"no engine", []string{"go_goroutines", "process_resident_memory_bytes"}, Unknown},
		// Nothing at all.
		{"empty", nil, Unknown},
		// A prefix must match exactly: "tgi" without the underscore, or
		// "vllm_" with one, is not an engine's.
		{"near misses", []string{"tgiqueue", "vllm_requests", "llamacpp_x"}, Unknown},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := DetectEngine(tt.names); got != tt.want {
				t.Errorf("DetectEngine(%q) = %q, want %q", tt.names, got, tt.want)
			}
		})
	}
}

func TestEnginePrefix(t *testing.T) {
	tests := []struct {
		e    Engine
		want string
	}{
		{VLLM, "vllm:"},
		{SGLang, "sglang:"},
		{TGI, "tgi_"},
		{LlamaCpp, "llamacpp:"},
		{Unknown, ""},          // no prefix for no engine
		{Engine("ollama"), ""}, // nor for one this package does not know
	}
	for _, tt := range tests {
		if got := tt.e.Prefix(); got != tt.want {
			t.Errorf("%q.Prefix() = %q, want %q", tt.e, got, tt.want)
		}
	}
}

// TestMappingUsesEnginePrefix guards the mapping table against a typo that
// would make a quantity silently absent: every name must carry its engine's
// prefix.
func TestMappingUsesEnginePrefix(t *testing.T) {
	for e, m := range mapping {
		var names []string
		for _, ns := range m.gauges {
			names = append(names, ns...)
		}
		for _, ns := range m.counters {
			names = append(names, ns...)
		}
		for _, ns := range m.hists {
			names = append(names, ns...)
		}
		if len(names) == 0 {
			t.Errorf("engine %q maps nothing", e)
		}
		for _, n := range names {
			if DetectEngine([]string{n}) != e {
				t.Errorf("engine %q maps %q, which does not carry its prefix %q", e, n, e.Prefix())
			}
		}
	}
}
