package sim

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"unicode/utf8"
)

func FuzzParseFault(f *testing.F) {
	for _, s := range []string{
		"error-rate=0.05", "overload=64", "overload-status=503", "disconnect-rate=0.01",
		"stall=2s@0.01", "malformed-rate=1", "slow-first-byte=500ms", "slow-first-byte=1s@0.5",
		"", "=", "stall=@", "overload=-1", "error-rate=NaN", "stall=1h@1e-9",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, spec string) {
		var faults Faults
		err := faults.ParseFault(spec)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "fault ") {
				t.Errorf("error %q does not name the fault", err)
			}
			return
		}
		// Whatever parses must be a valid configuration.
		if err := faults.validate(); err != nil {
			t.Errorf("ParseFault(%q) accepted %+v, which validate rejects: %v", spec, faults, err)
		}
	})
}

func FuzzParseProfile(f *testing.F) {
	for _, s := range []string{
		"gpu: H100\nmodel: Llama-3.1-8B\n",
		"gpu: {name: B200, memory_gib: 180, bandwidth_tbps: 8, tflops: 2250, link_gbps: 900}\n",
		`{"model": {"name": "m", "layers": 2, "hidden_size": 8, "num_heads": 2, "num_kv_heads": 1, "head_dim": 4, "params_b": 0.001, "dtype_bytes": 2, "max_model_len": 64}}`,
		"calibration: {mfu: 0.4, step_overhead: 1ms}\ntensor_parallel_size: 2\n",
		"", "gpu: [1, 2]", "gpu: {memory: 3}", "tensor_parallel_size: -1", "calibration: {seq_overhead: x}", "&a [*a]",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := ParseProfile("fuzz.yaml", data, Profile{})
		if err != nil {
			if !strings.HasPrefix(err.Error(), "fuzz.yaml: ") {
				t.Errorf("error %q does not name the file", err)
			}
			return
		}
		// A parsed profile either resolves or is refused with an error; it
		// must never make Resolve panic.
		_, _ = Resolve(Options{Profile: p})
	})
}

func FuzzPromptIDs(f *testing.F) {
	for _, s := range []string{`"hello"`, `[1,2,3]`, `["a"]`, `[[4,5]]`, `[]`, `""`, `null`, `[1.5]`, `[["a"]]`, `[[[1]]]`, `{"a":1}`, `[-1]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		ids, err := promptIDs(raw)
		if err != nil {
			return
		}
		if len(ids) == 0 {
			t.Errorf("promptIDs(%q) accepted an empty prompt", raw)
		}
		if err := checkTokenIDs(ids); err != nil {
			t.Errorf("promptIDs(%q) returned invalid ids: %v", raw, err)
		}
	})
}

// FuzzRequestBodies posts arbitrary bodies to every endpoint of a server
// whose engine is not started: validation must answer every body with a
// well-formed JSON error or success, and 503 only for valid generation
// requests that would have reached the engine.
func FuzzRequestBodies(f *testing.F) {
	for _, s := range []string{
		`{"prompt":"hi","max_tokens":3}`,
		`{"prompt":[1,2],"stream":true,"stream_options":{"include_usage":true}}`,
		`{"messages":[{"role":"user","content":"hi"}]}`,
		`{"messages":[{"role":"user","content":[{"type":"text","text":"x"}]}],"max_completion_tokens":2}`,
		`{"model":"other","prompt":"x"}`, `{"tokens":[1,2,3]}`, `{"prompt":"x","max_tokens":-1}`,
		`{`, ``, `[]`, `null`, `{"prompt":"x","n":2}`, `{"messages":[{"role":"x"}]}`,
	} {
		f.Add(s)
	}
	s, err := New(Options{Profile: fastProfile(f), MaxBodyBytes: 1 << 12})
	if err != nil {
		f.Fatal(err)
	}
	paths := []string{"/v1/completions", "/v1/chat/completions", "/tokenize", "/detokenize"}
	f.Fuzz(func(t *testing.T, body string) {
		for _, path := range paths {
			w := httptest.NewRecorder()
			s.ServeHTTP(w, httptest.NewRequest(http.MethodPost, path, strings.NewReader(body)))
			switch w.Code {
			case http.StatusOK, http.StatusBadRequest, http.StatusNotFound, http.StatusRequestEntityTooLarge, http.StatusServiceUnavailable:
			default:
				t.Fatalf("POST %s %q: status %d", path, body, w.Code)
			}
			if !json.Valid(w.Body.Bytes()) || !utf8.Valid(w.Body.Bytes()) {
				t.Fatalf("POST %s %q: answer is not valid JSON: %q", path, body, w.Body.String())
			}
			if w.Code == http.StatusOK && strings.HasPrefix(path, "/v1") {
				t.Fatalf("POST %s %q: 200 from an engine that is not running", path, body)
			}
		}
	})
}
