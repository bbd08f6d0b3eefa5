package cli

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/internal/simtest"
	"github.com/goodput-dev/goodput/sim"
)

// The published custom-dataset lines of vLLM's docs and README, with
// --skip-chat-template and its older spelling --custom-skip-chat-template,
// send the file's prompts bare; the same line without the flag sends them
// rendered with the server's chat template, as vLLM's client renders them.
func TestVLLMSkipChatTemplateLines(t *testing.T) {
	custom, err := filepath.Abs(filepath.Join("..", "..", "workload", "testdata", "custom.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	const line = `--port 9001 --save-result --save-detailed --backend vllm --model meta-llama/Llama-3.1-8B-Instruct --endpoint /v1/completions --dataset-name custom --dataset-path <path> %FLAG% --num-prompts 4 --max-concurrency 1 --temperature=0.3 --top-p=0.75 --result-dir "./log/"`
	for _, c := range []struct {
		flag     string
		rendered bool
	}{
		{"--skip-chat-template", false},
		{"--custom-skip-chat-template", false},
		{"", true},
	} {
		name := strings.TrimPrefix(c.flag, "--")
		if name == "" {
			name = "no flag"
		}
		t.Run(name, func(t *testing.T) {
			t.Chdir(t.TempDir())
			args := splitLine(strings.ReplaceAll(strings.ReplaceAll(line, "<path>", custom), "%FLAG%", c.flag))
			s, _ := simtest.Serve(t, sim.Options{Seed: 1, ServedModelName: servedModel(args), Clock: &fastClock{start: time.Now(), k: 100}})
			var mu sync.Mutex // guards prompts
			var prompts []string
			ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path == "/v1/completions" {
					data, _ := io.ReadAll(r.Body)
					r.Body = io.NopCloser(bytes.NewReader(data))
					var req struct{ Prompt string }
					_ = json.Unmarshal(data, &req)
					mu.Lock()
					prompts = append(prompts, req.Prompt)
					mu.Unlock()
				}
				s.ServeHTTP(w, r)
			}))
			t.Cleanup(ts.Close)
			out, errOut, code := run(t, "", append([]string{"bench", "--quiet"}, pointAt(args, ts.URL)...)...)
			if code != ExitOK {
				t.Fatalf("exit %d\n%s\n%s", code, errOut, out)
			}
			if m := successes.FindStringSubmatch(out); m == nil || m[1] != "4" || m[2] != "0" {
				t.Fatalf("want 4 successes:\n%s", out)
			}
			if len(prompts) != 4 {
				t.Fatalf("%d prompts sent", len(prompts))
			}
			for _, p := range prompts {
				templated := strings.HasPrefix(p, "<|user|>\n") && strings.HasSuffix(p, "\n<|assistant|>\n")
				if templated != c.rendered || p == "" {
					t.Errorf("%s: the server got %q, want rendered %v", c.flag, p, c.rendered)
				}
			}
			if strings.Contains(errOut+out, "skip-chat-template: ignored") {
				t.Errorf("the flag is said to be ignored:\n%s\n%s", errOut, out)
			}
		})
	}
}
