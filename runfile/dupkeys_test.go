package runfile

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goodput-dev/goodput/record"
)

// mutated writes a copy of the testdata file src, whose first occurrence
// of old is replaced by new, into a temporary directory under the same
// base name, and returns its path.
func mutated(t *testing.T, src, old, new string) string {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), old) {
		t.Fatalf("%s holds no %q", src, old)
	}
	path := filepath.Join(t.TempDir(), filepath.Base(src))
	if err := os.WriteFile(path, []byte(strings.Replace(string(b), old, new, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// openErr opens path and reads every record, and returns the first error.
func openErr(path string) error {
	f, err := Open(path, nil)
	if err != nil {
		return err
	}
	defer f.Close()
	for {
		var r record.Record
		if err := f.Next(&r); err != nil {
			if err == io.EOF {
				return nil
			}
			return err
		}
	}
}

const twice = "appears twice: which value is meant cannot be told"

// A key written twice in an imported file is refused, in every format:
// whichever value encoding/json kept, the other was the file's too. The
// error names the file, the line, where the key's object lies and the key.
func TestImportsRefuseDuplicateKeys(t *testing.T) {
	tests := []struct {
		name, src, old, new string
		want                string // with FILE for the mutated file's path
	}{
		// vLLM's result: a top-level array given twice
		{"vllm", "testdata/vllm_detailed.json", `"ttfts": [0.125, 0.175, 0.0],`, `"ttfts": [9, 9, 9], "ttfts": [0.125, 0.175, 0.0],`,
			`FILE: vLLM result: line 20: key "ttfts" ` + twice},
		// "\u0074tfts" is "ttfts" once unescaped
		{"vllm escaped", "testdata/vllm_detailed.json", `"ttfts": [0.125, 0.175, 0.0],`, `"ttfts": [0.125, 0.175, 0.0], "\u0074tfts": [9, 9, 9],`,
			`FILE: vLLM result: line 20: key "ttfts" ` + twice},
		// "TTFTS" fills the field "ttfts" too
		{"vllm case", "testdata/vllm_detailed.json", `"ttfts": [0.125, 0.175, 0.0],`, `"ttfts": [0.125, 0.175, 0.0], "TTFTS": [9, 9, 9],`,
			`FILE: vLLM result: line 20: keys "ttfts" and "TTFTS" name the same field (keys are matched regardless of case)`},
		// AIPerf's lines: a nested key of the first line
		{"aiperf", "testdata/aiperf_profile_export.jsonl", `"time_to_first_token":{"value":100.0,"unit":"ms"}`,
			`"time_to_first_token":{"value":100.0,"value":5.0,"unit":"ms"}`,
			`FILE:1: key "value" in metrics.time_to_first_token ` + twice},
		// GuideLLM's JSON report, deep in a request's timings
		{"guidellm", "testdata/guidellm_benchmarks.json", `"first_token_iteration": 1767225600.101,`,
			`"first_token_iteration": 1767225600.101, "first_token_iteration": 1767225600.2,`,
			`FILE: GuideLLM report: line 90: key "first_token_iteration" in benchmarks[0].requests.successful[0].info.timings ` + twice},
		// and its YAML report, which has no JSON lines to name
		{"guidellm yaml", "testdata/guidellm_benchmarks.yaml", "          first_token_iteration: 1767225600.101\n",
			"          first_token_iteration: 1767225600.101\n          first_token_iteration: 1767225600.2\n",
			`FILE: YAML: line 55: key "first_token_iteration" appears twice (first at line 54)`},
		// genai-bench's result: a request's TTFT
		{"genai-bench", "testdata/genai-bench/D100_100_text-to-text_num_concurrency_2_time_3s.json", `"ttft": 0.2125,`, `"ttft": 0.2125, "ttft": 0.5,`,
			`FILE: genai-bench result: line 159: key "ttft" in individual_request_metrics[0] ` + twice},
		// GenAI-Perf's profile export: a request's timestamp
		{"genai-perf", "testdata/genai-perf/profile_export.json", `"timestamp": 1767225610000000000,`,
			`"timestamp": 1767225610000000000, "timestamp": 1,`,
			`FILE: GenAI-Perf profile export: line 10: key "timestamp" in experiments[0].requests[0] ` + twice},
		// inference-perf's per-request report: the server's usage
		{"inference-perf", "testdata/inferenceperf/per_request_lifecycle_metrics.json", `"output_tokens": 4,`, `"output_tokens": 4, "output_tokens": 40,`,
			`FILE:17: request 1: key "output_tokens" in info.response_metrics ` + twice},
		// the seeds' log as an array, and as lines
		{"seeds array", "testdata/seeds_example.json", `"arrival": 0.10,`, `"arrival": 0.10, "arrival": 0.5,`,
			`FILE: seeds request log: line 3: key "arrival" in [1] ` + twice},
		{"seeds lines", "testdata/seeds_example.jsonl", `"arrival": 0.10,`, `"arrival": 0.10, "arrival": 0.5,`,
			`FILE:2: key "arrival" ` + twice},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := mutated(t, tt.src, tt.old, tt.new)
			err := openErr(path)
			want := strings.ReplaceAll(tt.want, "FILE", path)
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("err = %v,\nwant %s", err, want)
			}
		})
	}
}

// Keys that differ only in case are one key where they fill one field,
// as encoding/json reads them, and two keys elsewhere: in a map, or
// where the file's object has keys goodput does not read.
func TestImportsKeysDifferingInCase(t *testing.T) {
	path := mutated(t, "testdata/seeds_example.jsonl", `"arrival": 0.10,`, `"arrival": 0.10, "Arrival": 0.5,`)
	want := path + `:2: keys "arrival" and "Arrival" name the same field (keys are matched regardless of case)`
	if err := openErr(path); err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("err = %v, want %s…", err, want)
	}
	path = mutated(t, "testdata/seeds_example.jsonl", `"arrival": 0.10,`, `"arrival": 0.10, "Note": 1, "note": 2,`)
	if err := openErr(path); err != nil {
		t.Errorf("keys the log has no field for, differing in case: %v", err)
	}
	// GuideLLM's run arguments are a map of whatever it was given.
	path = mutated(t, "testdata/guidellm_benchmarks.json", `"args": {`, `"args": {"Extra": 1, "extra": 2, `)
	f, recs := readAll(t, path+"#1")
	if f.Format != "guidellm" || len(recs) == 0 {
		t.Errorf("read %d records as %q", len(recs), f.Format)
	}
}
