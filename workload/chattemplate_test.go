package workload

import (
	"strings"
	"testing"
)

// The decision table of vLLM's get_samples (vllm/benchmarks/datasets) and
// its samplers: which datasets, backends and flags render the prompts with
// the model's chat template on the client.
func TestChatTemplateDecision(t *testing.T) {
	cases := []struct {
		name    string
		dataset string
		hf      string
		backend string
		skip    bool
		apply   bool
		why     string // a part of Why; "" for none
	}{
		// sonnet: formatted unless the backend is openai-chat.
		{"sonnet completions", DatasetSonnet, "", "openai", false, true, "for backend openai"},
		{"sonnet chat", DatasetSonnet, "", "openai-chat", false, false, "go bare to openai-chat"},
		// vLLM compares the backend's name with openai-chat alone.
		{"sonnet responses", DatasetSonnet, "", "openai-responses", false, true, "for backend openai-responses"},
		{"sonnet llama.cpp native", DatasetSonnet, "", "llamacpp", false, true, ""},
		{"sonnet tgi", DatasetSonnet, "", "tgi", false, true, ""},
		// Ollama's /api/generate applies the template itself.
		{"sonnet ollama", DatasetSonnet, "", "ollama", false, false, ""},
		// The sonnet sampler takes no skip flag.
		{"sonnet skip ignored", DatasetSonnet, "", "openai", true, true, "notwithstanding"},
		// custom: formatted unless skipped, on every backend.
		{"custom completions", DatasetCustom, "", "openai", false, true, ""},
		{"custom chat", DatasetCustom, "", "openai-chat", false, true, "for backend openai-chat"},
		{"custom skipped", DatasetCustom, "", "openai", true, false, "--skip-chat-template"},
		{"custom chat skipped", DatasetCustom, "", "openai-chat", true, false, ""},
		// spec_bench: vLLM's call passes no skip flag.
		{"spec_bench", DatasetSpecBench, "", "openai", true, true, "notwithstanding"},
		{"spec_bench chat", DatasetSpecBench, "", "openai-chat", false, true, ""},
		// speed_bench: the custom dataset's sampler, so custom's rule.
		{"speed_bench", DatasetSpeedBench, "", "openai", false, true, "speed_bench prompts"},
		{"speed_bench chat", DatasetSpeedBench, "", "openai-chat", false, true, "for backend openai-chat"},
		{"speed_bench skipped", DatasetSpeedBench, "", "openai", true, false, "--skip-chat-template"},
		// hf: by dataset.
		{"instructcoder", DatasetHF, "likaixin/InstructCoder", "openai", false, true, "hf likaixin/InstructCoder"},
		{"instructcoder skipped", DatasetHF, "likaixin/InstructCoder", "openai", true, false, ""},
		{"mt-bench chat", DatasetHF, "philschmid/mt-bench", "openai-chat", false, true, ""},
		{"mt-bench skipped", DatasetHF, "philschmid/mt-bench", "openai-chat", true, false, ""},
		{"mlperf always", DatasetHF, "mgoin/mlperf-inference-llama3.1-data", "openai", true, true, ""},
		{"humaneval", DatasetHF, "openai/openai_humaneval", "openai", false, true, "hf openai/openai_humaneval"},
		{"humaneval skipped", DatasetHF, "openai/openai_humaneval", "openai", true, false, ""},
		{"gsm8k chat", DatasetHF, "openai/gsm8k", "openai-chat", false, true, ""},
		{"gsm8k skipped", DatasetHF, "openai/gsm8k", "openai", true, false, ""},
		{"aimo never", DatasetHF, "AI-MO/aimo-validation-aime", "openai", false, false, ""},
		{"sharegpt conversations never", DatasetHF, "Aeala/ShareGPT_Vicuna_unfiltered", "openai", false, false, ""},
		{"unknown hf never", DatasetHF, "someone/else", "openai", false, false, ""},
		// The other datasets never.
		{"random", DatasetRandom, "", "openai", false, false, ""},
		{"sharegpt", DatasetShareGPT, "", "openai", false, false, ""},
		{"burstgpt", DatasetBurstGPT, "", "openai", false, false, ""},
		{"prefix_repetition", DatasetPrefixRepetition, "", "openai", false, false, ""},
		{"txt-slices", DatasetTxtSlices, "", "openai", false, false, ""},
	}
	for _, c := range cases {
		cfg := DefaultConfig()
		cfg.Dataset, cfg.Path, cfg.HF.Name, cfg.SkipChatTemplate = c.dataset, "data.jsonl", c.hf, c.skip
		got := cfg.ChatTemplate(c.backend)
		if got.Apply != c.apply {
			t.Errorf("%s: Apply %v, want %v (%q)", c.name, got.Apply, c.apply, got.Why)
		}
		if !strings.Contains(got.Why, c.why) {
			t.Errorf("%s: Why %q, want it to say %q", c.name, got.Why, c.why)
		}
		if got.Apply && got.Why == "" {
			t.Errorf("%s: applied without saying why", c.name)
		}
		// vLLM passes --chat-template-kwargs to the custom dataset's
		// rendering alone (vllm-project/vllm#44244), which speed_bench's
		// sampler is.
		if want := c.apply && (c.dataset == DatasetCustom || c.dataset == DatasetSpeedBench); got.Kwargs != want {
			t.Errorf("%s: Kwargs %v, want %v", c.name, got.Kwargs, want)
		}
	}
}

// WithItems maps every item in order and keeps the name and statistics.
func TestDatasetWithItems(t *testing.T) {
	d := &Dataset{name: "custom x", items: []Item{{Prompt: "a", InputTokens: 1}, {Prompt: "b", InputTokens: 1}}, stats: DatasetStats{Entries: 3, Kept: 2}}
	got := d.WithItems(func(it Item) Item { it.Prompt = "<" + it.Prompt + ">"; it.InputTokens = 3; return it })
	if got.Len() != 2 || got.Item(0).Prompt != "<a>" || got.Item(1).Prompt != "<b>" || got.Item(1).InputTokens != 3 {
		t.Fatalf("items %+v", got.items)
	}
	if got.Stats().Entries != 3 || d.Item(0).Prompt != "a" {
		t.Fatalf("stats %+v, original %+v", got.Stats(), d.items)
	}
}
