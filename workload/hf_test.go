package workload

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goodput-dev/goodput/tokenizer"
)

// vLLM checks MLPerf's length bounds on every row, with --hf-output-len
// too, that length standing for the answer's: 1,000 more tokens than a
// short prompt can have within 2,048 leaves out every row, and a few
// fewer keeps them.
func TestHFMLPerfBoundsWithAnOutputLength(t *testing.T) {
	path := filepath.Join(t.TempDir(), "mlperf.jsonl")
	row := `{"system_prompt": "You are terse.", "question": "What is the capital of France? Answer in one word, please.", "output": "Paris."}`
	if err := os.WriteFile(path, []byte(row+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	in := tokenizer.Count("You are terse.\n\nWhat is the capital of France? Answer in one word, please.")
	for _, tt := range []struct {
		name      string
		outputLen int
		keep      bool
	}{
		{"within", 2048 - in, true},
		{"one past", 2048 - in + 1, false},
		{"below 4", 3, false},
	} {
		c := vllmConfig(DatasetHF, path, 0)
		c.HF = HFConfig{Name: "mgoin/mlperf-inference-llama2-data", OutputLen: tt.outputLen}
		src, err := New(c)
		if tt.keep && (err != nil || src.Item(0).OutputTokens != tt.outputLen) {
			t.Errorf("%s: %v, want the row asking for %d", tt.name, err, tt.outputLen)
		}
		if !tt.keep && (err == nil || !strings.Contains(err.Error(), "outside vLLM's length bounds")) {
			t.Errorf("%s: err = %v, want the row left out", tt.name, err)
		}
	}
	// Other datasets with answers keep their rows under --hf-output-len,
	// as vLLM checks their bounds only on the answer's length.
	c := vllmConfig(DatasetHF, "testdata/hf_aimo_small.jsonl", 0)
	c.HF = HFConfig{Name: "AI-MO/aimo-validation-aime", OutputLen: 40000}
	if src, err := New(c); err != nil || src.Len() != 3 {
		t.Errorf("aimo with an output length past its bounds: %v", err)
	}
}

// MLPerf's system prompt is a message of its own, as vLLM renders it; a
// completions prompt holds it before the question, a blank line between.
func TestHFMLPerfSystemMessage(t *testing.T) {
	path := filepath.Join(t.TempDir(), "mlperf.jsonl")
	row := `{"system_prompt": "You are a careful assistant.", "question": "What is the capital of France? Answer in one word, please.", "output": "Paris is the capital of France, of course."}`
	if err := os.WriteFile(path, []byte(row+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c := vllmConfig(DatasetHF, path, 0)
	c.HF.Name = "mgoin/mlperf-inference-llama3.1-data"
	src, err := New(c)
	if err != nil {
		t.Fatal(err)
	}
	it := src.Item(0)
	if want := "You are a careful assistant.\n\nWhat is the capital of France? Answer in one word, please."; it.Prompt != want || it.InputTokens != tokenizer.Count(want) {
		t.Fatalf("prompt %q (%d tokens)", it.Prompt, it.InputTokens)
	}
	want := []Message{{"system", "You are a careful assistant."}, {"user", "What is the capital of France? Answer in one word, please."}}
	if got := it.Messages(); len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Fatalf("messages %+v, want %+v", got, want)
	}

	// An empty system prompt is still a message, empty, as vLLM renders
	// it; the completions prompt is the question alone.
	row = `{"system_prompt": "", "question": "Name three primary colours, in a list please.", "output": "Red, yellow and blue are the three."}`
	if err := os.WriteFile(path, []byte(row+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if src, err = New(c); err != nil {
		t.Fatal(err)
	}
	it = src.Item(0)
	want = []Message{{"system", ""}, {"user", "Name three primary colours, in a list please."}}
	if got := it.Messages(); it.Prompt != want[1].Content || len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Fatalf("prompt %q, messages %+v, want %+v", it.Prompt, got, want)
	}
}
