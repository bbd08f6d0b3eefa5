package runfile

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/goodput-dev/goodput/record"
)

// FuzzOpen feeds any bytes to Open, whatever format they look like: it
// never panics, and every record any reader yields keeps the invariants.
func FuzzOpen(f *testing.F) {
	for _, name := range []string{"seeds_example.json", "seeds_example.jsonl", "vllm_detailed.json",
		"aiperf_profile_export.jsonl", "aiperf_profile_export_2025.jsonl",
		"guidellm_benchmarks.yaml", "guidellm_benchmarks_v0.2.json",
		"genai-bench/D100_100_text-to-text_num_concurrency_2_time_3s.json",
		"genai-perf/profile_export.json", "genai-perf/profile_export_sweep.json"} {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(`{"ttfts":[0.1,NaN],"itls":[[Infinity],[]],"input_lens":[1,1],"output_lens":[1,1],"start_times":[-Infinity,1]}`))
	f.Add([]byte(`{"arrival":1,"token_times":[0.5]}` + "\n"))
	f.Add([]byte(`{"tool":"x","kind":"goodput.run"}` + "\n" + `{"te":3,"seq":0}`))
	f.Add([]byte(`{"seq":4,"s":1,"t0":2,"te":3,"in":0,"out":0,"sid":"s1","turn":2,"task":"t","call":"c","ep":"http://a"}` + "\n"))
	f.Add([]byte(`{"metadata":{"request_start_ns":5,"credit_issued_ns":9},"metrics":{"time_to_first_token":{"value":1,"unit":"s"},"inter_chunk_latency":{"value":[NaN],"unit":"ms"}}}`))
	f.Add([]byte(`{"benchmarks":[{"requests":{"successful":[{"info":{"timings":{"request_start":1.5,"first_token_iteration":1.25,"token_iterations":3}}}]}}]}`))
	f.Add([]byte("benchmarks:\n- requests:\n    successful:\n    - start_time: .inf\n"))
	f.Add([]byte(`{"aggregated_metrics":{"requests_per_minute":1e-300,"num_completed_requests":3},"individual_request_metrics":[{"ttft":1e300,"e2e_latency":Infinity,"num_output_tokens":70000},{"error_code":-1}],"_time_unit":"ms"}`))
	f.Add([]byte(`{"experiments":[{"requests":[{"timestamp":9,"request_inputs":{"input_ids":[1]},"response_timestamps":[4,9],"response_outputs":[{"response":"data: {\"choices\":[{\"delta\":{\"reasoning\":\"a\"}}],\"usage\":{\"completion_tokens\":0,\"completion_tokens_details\":{\"reasoning_tokens\":3}}}"},{"output_ids":[1,2]}]}]}],"service_kind":"openai"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		fl, err := Open("-", bytes.NewReader(data))
		if err != nil {
			return
		}
		defer fl.Close()
		var r record.Record
		for range 10_000 {
			err := fl.Next(&r)
			if err == io.EOF || errors.Is(err, ErrNoRecords) {
				return
			}
			if err != nil {
				return
			}
			if err := r.Check(); err != nil {
				t.Fatalf("a %s reader yielded an impossible record: %v\n%+v", fl.Format, err, r)
			}
		}
	})
}

// FuzzPythonNumbers: a document that is JSON already passes unchanged, and
// whatever comes out never breaks a string's contents.
func FuzzPythonNumbers(f *testing.F) {
	f.Add([]byte(`[NaN,Infinity,-Infinity]`))
	f.Add([]byte(`{"a":"NaN \"Infinity\"","b":[1,NaN]}`))
	f.Add([]byte(`["\\",NaN,"\u004eaN"]`))
	f.Fuzz(func(t *testing.T, in []byte) {
		out := pythonNumbers(in)
		if json.Valid(in) && !bytes.Equal(out, in) {
			t.Fatalf("valid JSON changed:\n in %s\nout %s", in, out)
		}
		// Every word replaced became a quoted string: at most 2 bytes each.
		if len(out) > len(in)+2*bytes.Count(in, []byte("N"))+2*bytes.Count(in, []byte("I")) {
			t.Fatalf("output grew too much: %d → %d", len(in), len(out))
		}
	})
}
