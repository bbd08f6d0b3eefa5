package vllmcheck

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
)

func load(t *testing.T, name string) map[string]any {
	t.Helper()
	b, err := os.ReadFile("../../vllmresult/testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// The definitions reproduce every figure vLLM's own client wrote: that is
// what makes them vLLM's definitions.
func TestDefinitionsReproduceVLLMsOwnFile(t *testing.T) {
	res := Check(load(t, "vllm_v0.5.4_detailed.json"))
	if len(res.Bad) > 0 {
		t.Errorf("vLLM's own figures disagree with the definitions:\n%s", strings.Join(res.Bad, "\n"))
	}
	// That release measured latency to the stream's end without saving it,
	// so TPOT and latency cannot be recomputed from its arrays.
	for _, u := range res.Unchecked {
		if !strings.HasSuffix(u, ": needs latencies") || !strings.Contains(u, "tpot") && !strings.Contains(u, "latency") {
			t.Errorf("unchecked: %s", u)
		}
	}
	if len(res.Unchecked) != 8 {
		t.Errorf("unchecked %d keys: %v", len(res.Unchecked), res.Unchecked)
	}
	// Everything else, mean_ttft_ms as the mean of ttfts ×1000 first.
	if len(res.Checked) != 29 {
		t.Errorf("checked %d keys: %v", len(res.Checked), res.Checked)
	}
}

func TestFileWithoutArraysChecksItsHeaderOnly(t *testing.T) {
	res := Check(load(t, "vllm_v0.25.1_sweep_run.json"))
	if len(res.Bad) > 0 {
		t.Errorf("bad: %v", res.Bad)
	}
	got := strings.Join(res.Unchecked, "\n")
	for _, want := range []string{"mean_ttft_ms: the file has no per-request arrays", "run_number: the file has no per-request arrays"} {
		if !strings.Contains(got, want) {
			t.Errorf("unchecked lacks %q:\n%s", want, got)
		}
	}
}

func TestCheckCatchesAWrongFigure(t *testing.T) {
	for _, tt := range []struct {
		key  string
		val  any
		want string
	}{
		// A TTFT counted from another instant than the send.
		{"mean_ttft_ms", 76.97, "mean_ttft_ms: file has 76.97"},
		// ITL as per-token gaps instead of raw chunk gaps.
		{"p99_itl_ms", 5.0, "p99_itl_ms: file has 5"},
		{"completed", 9.0, "completed: file has 9"},
		// A string where vLLM writes a number.
		{"burstiness", "1.0", "burstiness: file has 1.0, vLLM's definition gives a number"},
	} {
		m := load(t, "vllm_v0.5.4_detailed.json")
		m[tt.key] = tt.val
		res := Check(m)
		if len(res.Bad) != 1 || !strings.HasPrefix(res.Bad[0], tt.want) {
			t.Errorf("%s = %v: bad = %v", tt.key, tt.val, res.Bad)
		}
	}
}

func TestCheckRejectsRaggedArrays(t *testing.T) {
	m := load(t, "vllm_v0.5.4_detailed.json")
	m["itls"] = m["itls"].([]any)[:3]
	if res := Check(m); len(res.Bad) != 1 || !strings.Contains(res.Bad[0], "itls has 3 entries, ttfts 10") {
		t.Errorf("bad = %v", res.Bad)
	}
}
