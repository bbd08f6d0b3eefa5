package workload

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/goodput-dev/goodput/tokenizer"
)

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
