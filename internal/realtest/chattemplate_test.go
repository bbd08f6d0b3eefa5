package realtest

import (
	"bytes"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// postJSON posts body to url and decodes the answer into out.
func postJSON(t *testing.T, url string, body, out any) {
	t.Helper()
	b, err := json.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.Post(url, "application/json", bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("POST %s: %s", url, resp.Status)
	}
	if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
		t.Fatalf("POST %s: %v", url, err)
	}
}

// promptTokens is the server's own count of prompt, sent as a completion:
// its usage, with the prompt cache left out of it.
func promptTokens(t *testing.T, url, prompt string) int {
	t.Helper()
	var out struct {
		Usage struct {
			PromptTokens int `json:"prompt_tokens"`
		}
		Timings struct {
			PromptN int `json:"prompt_n"`
		}
	}
	postJSON(t, url+"/v1/completions", map[string]any{"prompt": prompt, "max_tokens": 1, "cache_prompt": false}, &out)
	if out.Usage.PromptTokens != out.Timings.PromptN {
		t.Fatalf("the server's usage counts %d prompt tokens, its timings %d", out.Usage.PromptTokens, out.Timings.PromptN)
	}
	return out.Usage.PromptTokens
}

// A custom prompt on a completions backend goes out rendered with the
// server's own chat template (llama-server's /apply-template, ChatML), as
// vLLM's client renders it, and goodput's count of it is the server's.
func TestCustomPromptInTheServersTemplate(t *testing.T) {
	s := sharedServer(t, 4)
	const prompt = "Write one line about the sea."
	path := filepath.Join(t.TempDir(), "custom.jsonl")
	if err := os.WriteFile(path, []byte(`{"prompt": "`+prompt+`"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// --usage none: no usage is asked for, so the records' input lengths
	// are goodput's own count wherever the server does not volunteer one.
	out, recs := bench(t, s.URL, 0, "--backend", "openai", "--dataset-name", "custom", "--dataset-path", path,
		"--num-prompts", "2", "--max-concurrency", "1", "--custom-output-len", "4", "--usage", "none")
	if out.Result.Counts.Failed != 0 || len(recs) != 2 {
		t.Fatalf("%+v, %d records", out.Result.Counts, len(recs))
	}
	var rendered struct{ Prompt string }
	postJSON(t, s.URL+"/apply-template", map[string]any{"messages": []map[string]string{{"role": "user", "content": prompt}}}, &rendered)
	if !strings.Contains(rendered.Prompt, "<|im_start|>user\n"+prompt) {
		t.Fatalf("/apply-template rendered %q", rendered.Prompt)
	}
	want, bare := promptTokens(t, s.URL, rendered.Prompt), promptTokens(t, s.URL, prompt)
	if want <= bare {
		t.Fatalf("the rendered prompt counts %d tokens, the bare one %d", want, bare)
	}
	for i := range recs {
		if r := &recs[i]; r.InputTokens != want {
			t.Errorf("recorded %d input tokens, the server counts %d for the rendered prompt (%d bare): %s", r.InputTokens, want, bare, describe(r))
		}
	}
	notes := strings.Join(out.Notes, "\n")
	t.Logf("rendered %d tokens, bare %d; notes:\n%s", want, bare, notes)
	if !strings.Contains(notes, "rendered with the server's own template (POST /apply-template)") || !strings.Contains(notes, "/tokenize, llama.cpp dialect") {
		t.Errorf("notes:\n%s", notes)
	}
}

// A sonnet prompt on a completions backend is sized by its rendering in
// llama-server's own template, as vLLM sizes it: goodput's count of each
// (--usage none) is what the server's usage counts for the same prompt
// (the same seed draws the same prompts), and it fits --sonnet-input-len.
func TestSonnetSizedInTheServersTemplate(t *testing.T) {
	s := sharedServer(t, 4)
	const inputLen = 200
	args := []string{"--backend", "openai", "--dataset-name", "sonnet",
		"--dataset-path", filepath.Join("..", "..", "workload", "testdata", "sonnet_small.txt"),
		"--sonnet-input-len", "200", "--sonnet-prefix-len", "60", "--sonnet-output-len", "2",
		"--num-prompts", "3", "--max-concurrency", "1", "--seed", "7", "--request-id-prefix", "s-"}
	mine, own := bench(t, s.URL, 0, append(args, "--usage", "none")...)
	_, served := bench(t, s.URL, 0, args...)
	if len(own) != 3 || len(served) != 3 || mine.Result.Counts.Failed != 0 {
		t.Fatalf("%d and %d records, %+v", len(own), len(served), mine.Result.Counts)
	}
	server := map[string]int{}
	for _, r := range served {
		server[r.RequestID] = r.InputTokens
	}
	for i := range own {
		r := &own[i]
		if n, ok := server[r.RequestID]; !ok || r.InputTokens != n || n > inputLen || n == 0 {
			t.Errorf("goodput counts %d input tokens, the server %d (most %d): %s", r.InputTokens, n, inputLen, describe(r))
		}
	}
	notes := strings.Join(mine.Notes, "\n")
	t.Logf("notes:\n%s", notes)
	if !strings.Contains(notes, "Sonnet sizing: by the prompts' length formatted with the server's chat template (POST /apply-template), exactly as vLLM does") {
		t.Errorf("notes:\n%s", notes)
	}
}
