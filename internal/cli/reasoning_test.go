package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goodput-dev/goodput/record"
	"github.com/goodput-dev/goodput/runfile"
)

// The built-in simulator's reasoning mode, through the real load generator
// and HTTP: every reply thinks for its first 24 tokens, so TTFT times the
// first thought and TTFA the first answer token, 24 decode steps later; the
// server's usage counts the reasoning, and the records say which chunks
// it was. The chat and Responses endpoints stream it alike.
func TestBenchSimulatedReasoningModel(t *testing.T) {
	for _, backend := range []string{"openai-chat", "openai-responses"} {
		t.Run(backend, func(t *testing.T) { simulatedReasoning(t, backend) })
	}
}

func simulatedReasoning(t *testing.T, backend string) {
	dir := t.TempDir()
	out, errOut, code := run(t, "", "bench", "--backend", backend, "--sim-reasoning", "24", "--sim-seed", "2",
		"--num-prompts", "8", "--max-concurrency", "4", "--random-input-len", "64", "--random-output-len", "40", "--ignore-eos",
		"--slo", "ttfa<=30s", "--gate", "p50(ttfa)<=30s", "--result-dir", dir, "--run-name", "r", "--save-result", "--quiet")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, errOut, out)
	}
	for _, want := range []string{
		"reasoning: the first 24 tokens of each reply, streamed as reasoning on /v1/chat/completions and /v1/responses",
		"Requests that reasoned:                  8 of 8",
		"Reasoning tokens:                        192",
		"Answer tokens:                           128",
		"Reasoning token counts from:             usage 8",
		"Time to First Answer Token",
		"SLO attainment:                          100.00% (8 of 8 requests)",
		"Gate: p50(ttfa)<=30s: measured",
	} {
		if !strings.Contains(out+errOut, want) {
			t.Errorf("output lacks %q:\n%s\n%s", want, errOut, out)
		}
	}

	f, err := runfile.Open(filepath.Join(dir, "r.jsonl"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	n := 0
	for {
		var r record.Record
		if err := f.Next(&r); err != nil {
			break
		}
		n++
		first, _ := r.FirstToken()
		answer, ok := r.FirstAnswer()
		if !ok || r.ReasoningTokens != 24 || r.ReasoningSource != record.SourceUsage || len(r.Chunks) != 40 {
			t.Fatalf("request %d: answer %v, reasoning %d (%s), %d chunks", r.Seq, ok, r.ReasoningTokens, r.ReasoningSource, len(r.Chunks))
		}
		for i, c := range r.Chunks {
			if c.Reasoning != (i < 24) {
				t.Fatalf("request %d: chunk %d reasoning %v", r.Seq, i, c.Reasoning)
			}
		}
		// The answer comes 24 tokens after the first thought: each a
		// decode step, and no step of the simulated engine is shorter
		// than its fixed overheads (0.5 ms).
		if answer != r.Chunks[24].At || answer-first < 24*500_000 {
			t.Errorf("request %d: first token %d, first answer %d ns", r.Seq, first, answer)
		}
	}
	if n != 8 {
		t.Errorf("%d records", n)
	}

	b, err := os.ReadFile(filepath.Join(dir, "r.summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		Result struct {
			Latency struct {
				TTFT struct{ Median float64 } `json:"ttft"`
				TTFA *struct {
					Count  int64
					Median float64
				} `json:"ttfa"`
			}
			Reasoning *struct {
				Requests        int64 `json:"requests"`
				ReasoningTokens int64 `json:"reasoning_tokens"`
			}
		}
	}
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	l, rs := s.Result.Latency, s.Result.Reasoning
	if l.TTFA == nil || l.TTFA.Count != 8 || l.TTFA.Median < l.TTFT.Median+24*0.0005 || rs == nil || rs.Requests != 8 || rs.ReasoningTokens != 192 {
		t.Errorf("summary: TTFT median %v, TTFA %+v, reasoning %+v", l.TTFT.Median, l.TTFA, rs)
	}

	// The same records judged again: a TTFA gate below what was measured fails.
	_, errOut, code = run(t, "", "analyze", filepath.Join(dir, "r.jsonl"), "--gate", "p50(ttfa)<=1ms")
	if code != ExitGateFail || !strings.Contains(errOut, "1 of 1 gates failed") {
		t.Errorf("a failing TTFA gate: exit %d, %q", code, errOut)
	}
	out, _, code = run(t, "", "analyze", filepath.Join(dir, "r.jsonl"), "--slo", "ttfa<=1ms")
	if code != 0 || !strings.Contains(out, "SLO attainment:                          0.00% (0 of 8 requests)") {
		t.Errorf("a TTFA SLO no request met: exit %d\n%s", code, out)
	}
}

func TestSimReasoningUsageErrors(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		// the completions endpoint carries no reasoning field
		{[]string{"bench", "--sim-reasoning", "64", "--num-prompts", "1"}, "add --backend openai-chat or openai-responses"},
		{[]string{"bench", "--backend", "openai-chat", "--sim-reasoning", "9-3"}, "--sim-reasoning: reasoning 9-3: the range runs backwards"},
		{[]string{"bench", "--backend", "openai-chat", "--sim-reasoning", "lots"}, "--sim-reasoning: reasoning \"lots\""},
		// a real server is not the simulator
		{[]string{"bench", "--base-url", "http://127.0.0.1:9", "--sim-reasoning", "64"}, "--sim-reasoning configures the built-in simulator"},
		{[]string{"sweep", "--concurrency", "1,2", "--sim-reasoning", "64", "--num-prompts", "1"}, "add --backend openai-chat or openai-responses"},
		{[]string{"sim", "--reasoning", "101%"}, "--reasoning: reasoning \"101%\""},
	}
	for _, tc := range tests {
		_, errOut, code := run(t, "", tc.args...)
		if code != ExitUsage || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, %q; want 2 and %q", tc.args, code, errOut, tc.want)
		}
	}
}

// A virtual-time sweep of a reasoning model needs no endpoint: its records
// mark the reasoning as a chat client would read it.
func TestSweepVirtualReasoning(t *testing.T) {
	dir := t.TempDir()
	out, errOut, code := run(t, "", "sweep", "--virtual", "--sim-reasoning", "50%", "--concurrency", "1,4",
		"--num-prompts", "8", "--random-input-len", "64", "--random-output-len", "40", "--ignore-eos", "--result-dir", dir, "--quiet")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, errOut, out)
	}
	b, err := os.ReadFile(filepath.Join(dir, "c4.summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		Result struct {
			Counts    struct{ Completed int64 }
			Reasoning *struct {
				Requests        int64 `json:"requests"`
				ReasoningTokens int64 `json:"reasoning_tokens"`
				AnswerTokens    int64 `json:"answer_tokens"`
			}
		}
	}
	if err := json.Unmarshal(b, &s); err != nil || s.Result.Reasoning == nil {
		t.Fatalf("c4 summary: %v %+v", err, s.Result.Reasoning)
	}
	// Half of each 40-token reply is thinking.
	n := s.Result.Counts.Completed
	if rs := s.Result.Reasoning; n < 8 || rs.Requests != n || rs.ReasoningTokens != 20*n || rs.AnswerTokens != 20*n {
		t.Errorf("c4: %d completed, reasoning %+v; want 20 reasoning and 20 answer tokens each", n, rs)
	}
}
