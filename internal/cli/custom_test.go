package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/goodput-dev/goodput/internal/simtest"
	"github.com/goodput-dev/goodput/sim"
)

// A vLLM command line for a custom dataset that takes every line once
// (--num-prompts 0) and each line's own output length (--custom-output-len
// -1) runs as under vLLM: three lines give three requests that ask for 12,
// 7 and 5 tokens, and vLLM's result file says how many prompts there were.
func TestCustomDatasetEveryLineWithItsOwnLength(t *testing.T) {
	_, url := simtest.Serve(t, sim.Options{Seed: 1})
	dir := t.TempDir()
	data := filepath.Join(dir, "prompts.jsonl")
	lines := `{"prompt": "Tell me a story about a cat.", "output_tokens": 12}
{"prompt": "What is two and two?", "output_tokens": 7}
{"prompt": "Name a prime.", "output_tokens": 5}
`
	if err := os.WriteFile(data, []byte(lines), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := run(t, "", "bench", "--base-url", url, "--dataset-name", "custom", "--dataset-path", data,
		"--num-prompts", "0", "--custom-output-len", "-1", "--ignore-eos", "--disable-shuffle",
		"--save-result", "--result-dir", dir, "--result-filename", "vllm.json", "--quiet", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, errOut, out)
	}
	var res struct {
		Result struct {
			Counts struct{ Total, Completed int }
			Tokens struct{ Output int64 }
		}
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if c, tok := res.Result.Counts, res.Result.Tokens; c.Total != 3 || c.Completed != 3 || tok.Output != 12+7+5 {
		t.Errorf("requests %d, completed %d, output tokens %d; want 3, 3, 24", c.Total, c.Completed, tok.Output)
	}
	b, err := os.ReadFile(filepath.Join(dir, "vllm.json"))
	if err != nil {
		t.Fatal(err)
	}
	var file struct {
		NumPrompts     *int `json:"num_prompts"`
		Completed      int  `json:"completed"`
		TotalOutTokens int  `json:"total_output_tokens"`
	}
	if err := json.Unmarshal(b, &file); err != nil {
		t.Fatal(err)
	}
	if file.NumPrompts == nil || *file.NumPrompts != 3 || file.Completed != 3 || file.TotalOutTokens != 24 {
		t.Errorf("vLLM's file: num_prompts %s, completed %d, output tokens %d; want 3, 3, 24", b[:min(len(b), 200)], file.Completed, file.TotalOutTokens)
	}
}
