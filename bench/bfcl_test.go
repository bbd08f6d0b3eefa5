package bench

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/goodput-dev/goodput/workload"
)

// toolCallStream is a chat answer that calls a tool, streamed as vLLM
// streams one: a role chunk, the call in three deltas, the finish, then
// usage.
const toolCallStream = `data: {"choices":[{"index":0,"delta":{"role":"assistant","content":null}}]}

data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c1","type":"function","function":{"name":"weather","arguments":""}}]}}]}

data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"city\":"}}]}}]}

data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"\"Oslo\"}"}}]}}]}

data: {"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}

data: {"choices":[],"usage":{"prompt_tokens":50,"completion_tokens":7,"total_tokens":57}}

data: [DONE]

`

// The BFCL dataset goes to a chat endpoint with each row's conversation
// and its functions as tools, tool_choice "auto"; an answer that calls a
// tool is timed by its deltas and counted by the server's usage, as vLLM
// counts it; another backend is refused before anything is sent.
func TestBFCLSendsTools(t *testing.T) {
	var mu sync.Mutex
	var bodies []string
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions" {
			http.NotFound(w, r)
			return
		}
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		bodies = append(bodies, string(b))
		mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, toolCallStream)
	}))
	defer ts.Close()
	dir := t.TempDir()
	row := `{"id": "simple_0", "question": [[{"role": "user", "content": "What is the weather in Oslo?"}]], "function": [{"name": "weather", "description": "Weather of a city.", "parameters": {"type": "dict", "properties": {"city": {"type": "string"}}, "required": ["city"]}}]}`
	for _, cat := range []string{"simple", "live_simple", "multiple"} {
		if err := os.WriteFile(filepath.Join(dir, "BFCL_v3_"+cat+".json"), []byte(row+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cfg := templateConfig(t, ts.URL, "openai-chat", workload.DatasetHF, dir)
	cfg.Workload.HF.Name, cfg.Model = "gorilla-llm/Berkeley-Function-Calling-Leaderboard", "m"
	cfg.Workload.HF.BlazeditMaxDistance = 1

	wrong := cfg
	wrong.Backend, wrong.Endpoint = "openai", ""
	if err := wrong.Validate(); err == nil || !strings.Contains(err.Error(), "--backend openai: the BFCL dataset sends each row's functions as tools") {
		t.Fatalf("backend openai: %v, want a refusal", err)
	}

	out, err := Run(t.Context(), cfg, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	recs, _, _ := readRecords(t, out.RecordsPath)
	if len(recs) != 4 {
		t.Fatalf("%d records", len(recs))
	}
	for _, r := range recs {
		if !r.OK() || len(r.Chunks) != 3 || r.OutputTokens != 7 || r.InputTokens != 50 {
			t.Errorf("record %d: ok %v, %d chunks, %d in, %d out; want the three tool-call deltas, 50 in and 7 out from usage",
				r.Seq, r.OK(), len(r.Chunks), r.InputTokens, r.OutputTokens)
		}
	}
	var body struct {
		Messages   []struct{ Role, Content string } `json:"messages"`
		Tools      []map[string]any                 `json:"tools"`
		ToolChoice string                           `json:"tool_choice"`
	}
	if err := json.Unmarshal([]byte(bodies[0]), &body); err != nil {
		t.Fatal(err)
	}
	fn, _ := body.Tools[0]["function"].(map[string]any)
	params, _ := fn["parameters"].(map[string]any)
	if len(body.Messages) != 1 || body.Messages[0].Content != "What is the weather in Oslo?" || body.ToolChoice != "auto" || params["type"] != "object" {
		t.Errorf("body %s", bodies[0])
	}
}
