package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A key written twice in one object of a dataset, a trace or a flag's
// JSON would have one of its values dropped without a word (encoding/json
// and Python's json keep the last). Every reader refuses it before
// anything is sent, naming the file and line, or the flag, and the key.
func TestAKeyWrittenTwiceIsRefused(t *testing.T) {
	dir := t.TempDir()
	file := func(name, lines string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(lines), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	custom := file("custom.jsonl", `{"prompt": "a first prompt"}
{"prompt": "a second prompt", "output_tokens": 8, "prompt": "a third"}
`)
	specBench := file("spec.jsonl", `{"question_id": 1, "category": "writing", "turns": ["Write a note."]}
{"question_id": 2, "category": "qa", "category": "math", "turns": ["What is 2+2?"]}
`)
	hf := file("hf.jsonl", `{"turns": ["Say hello."]}
{"turns": ["Say goodbye."], "turns": ["Say nothing."]}
`)
	sharegpt := file("sharegpt.json", `[{"id": "a", "conversations": [{"from": "human", "value": "Hello there, how are you?"}, {"from": "gpt", "value": "Fine, thank you."}]},
 {"id": "b", "conversations": [], "conversations": [{"from": "human", "value": "Hi"}, {"from": "gpt", "value": "Hello"}]}]`)
	hfArray := file("hf.json", `[{"turns": ["Say hello."]}, {"turns": ["Say goodbye."], "turns": ["Say nothing."]}]`)
	sessions := file("sessions.jsonl", `{"id": "a", "turns": [{"prompt": "Hi", "output_len": 4}]}
{"id": "b", "turns": [{"prompt": "Hi", "output_len": 4, "output_len": 9}]}
`)
	mooncake := file("mooncake.jsonl", `{"timestamp": 0, "input_length": 10, "output_length": 5, "hash_ids": [0]}
{"timestamp": 5, "input_length": 10, "output_length": 5, "output_length": 7, "hash_ids": [1]}
`)
	goodputTrace := file("trace.jsonl", `{"time": 0, "input_tokens": 10, "output_tokens": 5}
{"time": 1, "time": 2, "input_tokens": 10, "output_tokens": 5}
`)
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"custom", []string{"--dataset-name", "custom", "--dataset-path", custom}, custom + `:2: key "prompt" appears twice`},
		{"spec_bench", []string{"--dataset-name", "spec_bench", "--dataset-path", specBench}, specBench + `:2: key "category" appears twice`},
		{"hf", []string{"--dataset-name", "hf", "--dataset-path", hf}, hf + `:2: key "turns" appears twice`},
		{"hf array", []string{"--dataset-name", "hf", "--dataset-path", hfArray}, hfArray + `: entry 1 (byte `},
		// ShareGPT's entries, not the text of their turns, which vLLM's
		// reader takes the last of as this one does.
		{"sharegpt", []string{"--dataset-name", "sharegpt", "--dataset-path", sharegpt}, `: entry 1 (byte `},
		{"sessions", []string{"--dataset-name", "sessions", "--dataset-path", sessions}, sessions + `:2: key "output_len" in turns[0] appears twice`},
		{"timed_trace", []string{"--dataset-name", "timed_trace", "--dataset-path", mooncake}, mooncake + `:2: key "output_length" appears twice`},
		{"trace", []string{"--dataset-name", "trace", "--dataset-path", goodputTrace}, goodputTrace + `:2: key "time" appears twice`},
		{"extra-body", []string{"--extra-body", `{"top_k": 5, "stop": {"a": 1, "a": 2}}`}, `--extra-body: key "a" in stop appears twice`},
		{"extra-body dotted", []string{"--extra-body.stop", `{"a": 1, "a": 2}`}, `--extra-body.stop: key "a" appears twice`},
		{"chat-template-kwargs", []string{"--chat-template-kwargs", `{"enable_thinking": false, "enable_thinking": true}`}, `key "enable_thinking" appears twice`},
		{"random-range-ratio", []string{"--random-range-ratio", `{"input": 0.1, "Input": 0.2, "output": 0.1}`}, `keys "input" and "Input" name the same field`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, errOut, code := run(t, "", append([]string{"bench", "--dry-run"}, tt.args...)...)
			if code != ExitUsage || !strings.Contains(errOut, tt.want) || !strings.Contains(errOut, "which value is meant cannot be told") {
				t.Errorf("exit %d, stderr %q, stdout %q; want exit 2 and %q", code, errOut, out, tt.want)
			}
		})
	}
}
