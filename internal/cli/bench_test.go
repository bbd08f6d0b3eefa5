package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/goodput-dev/goodput/internal/simtest"
	"github.com/goodput-dev/goodput/runfile"
	"github.com/goodput-dev/goodput/sim"
)

func TestBenchAgainstAServer(t *testing.T) {
	_, url := simtest.Serve(t, sim.Options{Seed: 3})
	dir := t.TempDir()
	out, errOut, code := run(t, "", "bench", "--base-url", url, "--backend", "openai-chat", "--num-prompts", "12",
		"--request-rate", "40", "--random-input-len", "48", "--random-output-len", "8", "--ignore-eos",
		"--goodput", "ttft:2000", "tpot:500", "--gate", "attainment>=0.5", "--result-dir", dir, "--run-name", "r",
		"--save-result", "--format", "vllm", "--quiet", "--seed", "7")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, errOut, out)
	}
	for _, want := range []string{
		"Server: " + url + " (openai-chat), model Llama-3.1-8B",
		"Workload: random: input 48 tokens, output 8 tokens, seed 7", // --seed reaches the prompts too
		"Successful requests:                     12",
		"Total generated tokens:                  96",
		"SLO:                                     ttft<=2s,tpot<=500ms",
		"Gate: attainment>=0.5",
		"Wrote " + filepath.Join(dir, "r.jsonl"),
		"Wrote " + filepath.Join(dir, "r.vllm.json"),
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	b, err := os.ReadFile(filepath.Join(dir, "r.summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		Result struct {
			Counts struct{ Completed int }
		}
	}
	if err := json.Unmarshal(b, &s); err != nil || s.Result.Counts.Completed != 12 {
		t.Errorf("summary: %v %+v", err, s)
	}
}

// A genai-bench traffic scenario gives the run its lengths and, unless
// told otherwise, --ignore-eos, so that answers run to them; the run's
// files record it.
func TestBenchTrafficScenario(t *testing.T) {
	_, url := simtest.Serve(t, sim.Options{Seed: 3})
	dir := t.TempDir()
	out, errOut, code := run(t, "", "bench", "--base-url", url, "--backend", "openai-chat", "--num-prompts", "12",
		"--traffic-scenario", "U(40,60)/(8,12)", "--result-dir", dir, "--run-name", "r", "--quiet", "--seed", "7")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, errOut, out)
	}
	const note = "goodput: --traffic-scenario U(40,60)/(8,12): --ignore-eos is on, so that answers run to the scenario's lengths"
	if !strings.Contains(errOut, note) || !strings.Contains(out, "Workload: random (traffic scenario U(40,60)/(8,12)): input 40–60 tokens, output 8–12 tokens, seed 7") {
		t.Errorf("stderr %q\nstdout %s", errOut, out)
	}
	path := filepath.Join(dir, "r.jsonl")
	recs := readRecords(t, path)
	f, err := runfile.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	h := f.Header()
	f.Close()
	var cfg struct {
		Scenario  string `json:"traffic_scenario"`
		IgnoreEOS bool   `json:"ignore_eos"`
	}
	if err := json.Unmarshal(h.Config, &cfg); err != nil || cfg.Scenario != "U(40,60)/(8,12)" || !cfg.IgnoreEOS {
		t.Errorf("header config %s: %v", h.Config, err)
	}
	if len(recs) != 12 {
		t.Fatalf("%d records, want 12", len(recs))
	}
	for _, r := range recs {
		if !r.OK() || r.OutputTokens < 8 || r.OutputTokens > 12 || r.Finish != "length" {
			t.Errorf("record %d: %s, %d output tokens, finish %q; want 8 to 12, to its length", r.Seq, r.Error, r.OutputTokens, r.Finish)
		}
	}
	// --ignore-eos=false is kept, and says nothing.
	_, errOut, code = run(t, "", "bench", "--base-url", url, "--num-prompts", "2", "--traffic-scenario", "D(16,4)", "--ignore-eos=false", "--quiet")
	if code != 0 || strings.Contains(errOut, "--ignore-eos is on") {
		t.Errorf("--ignore-eos=false: exit %d, %q", code, errOut)
	}
}

// vLLM's --probe-request-rate prints vLLM's Probe Requests block after the
// throughputs, and the probes stay out of the run's counts.
func TestBenchProbeRequests(t *testing.T) {
	_, url := simtest.Serve(t, sim.Options{Seed: 3})
	out, errOut, code := run(t, "", "bench", "--base-url", url, "--num-prompts", "16", "--max-concurrency", "2",
		"--random-input-len", "32", "--random-output-len", "32", "--probe-request-rate", "20", "--quiet")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, errOut, out)
	}
	block := regexp.MustCompile(`Total token throughput \(tok/s\): +[0-9.]+\n-+Probe Requests-+\n` +
		`Probe requests completed: +([1-9][0-9]*)\nProbe requests failed: +0\n` +
		`Median probe E2EL \(ms\): +[0-9.]+\nP99 probe E2EL \(ms\): +[0-9.]+\nMax probe E2EL \(ms\): +[0-9.]+\n`)
	if !block.MatchString(out) || !strings.Contains(out, "Successful requests:                     16\n") {
		t.Errorf("no Probe Requests block after the throughputs, or probes counted in the run:\n%s", out)
	}
	if !strings.Contains(out, `Probes: `) {
		t.Errorf("the notes do not say what the probes were:\n%s", out)
	}
	// --format json carries them too, on a standard output that holds
	// the result alone: the gate's verdict is on standard error.
	out, errOut, code = run(t, "", "bench", "--base-url", url, "--num-prompts", "8", "--max-concurrency", "2",
		"--random-input-len", "32", "--random-output-len", "32", "--probe-request-rate", "20", "--quiet", "--format", "json",
		"--gate", "error_rate<=0.5")
	if !strings.Contains(errOut, "Gate: error_rate<=0.5: measured 0") {
		t.Errorf("--format json: the gate is not on standard error:\n%s", errOut)
	}
	var got struct {
		Probes *struct {
			Rate      float64   `json:"rate"`
			Latencies []float64 `json:"e2el_seconds"`
		} `json:"probes"`
		// vLLM's peaks, under vLLM's names: 8 requests of 32 tokens, at
		// most 2 at once, within a few seconds.
		VLLM *struct {
			Tokens     float64 `json:"max_output_tokens_per_s"`
			Concurrent int     `json:"max_concurrent_requests"`
		} `json:"vllm"`
	}
	if err := json.Unmarshal([]byte(out), &got); code != 0 || err != nil || got.Probes == nil || got.Probes.Rate != 20 || len(got.Probes.Latencies) == 0 {
		t.Errorf("--format json: exit %d, %v, probes %+v\n%s\n%s", code, err, got.Probes, errOut, out)
	}
	if v := got.VLLM; v == nil || v.Tokens < 32 || v.Tokens > 256 || v.Concurrent < 2 || v.Concurrent > 8 {
		t.Errorf("--format json: vLLM's peaks %+v, want 32–256 tokens/s and 2–8 requests", v)
	}
}

// A server that decodes speculatively gets vLLM's Speculative Decoding
// block after the latency blocks, from its spec_decode counters over the
// run: each completion here drafts 10 times (30 tokens) and 20 are
// accepted, 8, 7 and 5 at positions 0, 1 and 2.
func TestBenchSpeculativeDecodingBlock(t *testing.T) {
	var mu sync.Mutex
	var completions int
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/v1/models":
			io.WriteString(w, `{"data":[{"id":"m"}]}`)
		case "/metrics":
			mu.Lock()
			n := completions
			mu.Unlock()
			fmt.Fprintf(w, "# TYPE vllm:num_requests_running gauge\nvllm:num_requests_running{model_name=\"m\"} 0\n"+
				"# TYPE vllm:spec_decode_num_drafts_total counter\nvllm:spec_decode_num_drafts_total{model_name=\"m\"} %d\n"+
				"# TYPE vllm:spec_decode_num_draft_tokens_total counter\nvllm:spec_decode_num_draft_tokens_total{model_name=\"m\"} %d\n"+
				"# TYPE vllm:spec_decode_num_accepted_tokens_total counter\nvllm:spec_decode_num_accepted_tokens_total{model_name=\"m\"} %d\n"+
				"# TYPE vllm:spec_decode_num_accepted_tokens_per_pos_total counter\n"+
				"vllm:spec_decode_num_accepted_tokens_per_pos_total{model_name=\"m\",position=\"0\"} %d\n"+
				"vllm:spec_decode_num_accepted_tokens_per_pos_total{model_name=\"m\",position=\"1\"} %d\n"+
				"vllm:spec_decode_num_accepted_tokens_per_pos_total{model_name=\"m\",position=\"2\"} %d\n",
				10*n, 30*n, 20*n, 8*n, 7*n, 5*n)
		case "/v1/completions":
			var body struct {
				MaxTokens int `json:"max_tokens"`
			}
			json.NewDecoder(r.Body).Decode(&body)
			if body.MaxTokens > 1 { // not the one-token check before the run
				mu.Lock()
				completions++
				mu.Unlock()
			}
			w.Header().Set("Content-Type", "text/event-stream")
			for range body.MaxTokens {
				io.WriteString(w, `data: {"choices":[{"index":0,"text":"a","finish_reason":null}]}`+"\n\n")
			}
			io.WriteString(w, "data: [DONE]\n\n")
		default:
			http.NotFound(w, r)
		}
	}))
	defer ts.Close()
	dir := t.TempDir()
	out, errOut, code := run(t, "", "bench", "--base-url", ts.URL, "--num-prompts", "6", "--max-concurrency", "2",
		"--random-input-len", "8", "--random-output-len", "4", "--save-result", "--result-dir", dir, "--result-filename", "v.json", "--quiet")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, errOut, out)
	}
	// 6 completions: 60 drafts, 180 draft tokens, 120 accepted.
	block := "---------------Speculative Decoding---------------\n" +
		"Acceptance rate (%):                     66.67\n" +
		"Acceptance length:                       3.00\n" +
		"Drafts:                                  60\n" +
		"Draft tokens:                            180\n" +
		"Accepted tokens:                         120\n" +
		"Per-position acceptance (%):\n" +
		"  Position 0:                            80.00\n" +
		"  Position 1:                            70.00\n" +
		"  Position 2:                            50.00\n"
	if !strings.Contains(out, block) {
		t.Errorf("output lacks\n%s\n%s", block, out)
	}
	if i, j := strings.Index(out, "End-to-end Latency"), strings.Index(out, "Speculative Decoding"); i < 0 || j < i {
		t.Errorf("the block is not after the latency blocks:\n%s", out)
	}
	var vf map[string]any
	b, err := os.ReadFile(filepath.Join(dir, "v.json"))
	if err == nil {
		err = json.Unmarshal(b, &vf)
	}
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"spec_decode_num_drafts": 60.0, "spec_decode_draft_tokens": 180.0, "spec_decode_accepted_tokens": 120.0,
		"spec_decode_acceptance_length": 3.0, "spec_decode_per_position_acceptance_rates": []any{0.8, 0.7, 0.5}}
	for k, v := range want {
		if !reflect.DeepEqual(vf[k], v) {
			t.Errorf("vLLM file %s = %v, want %v", k, vf[k], v)
		}
	}
	if r, _ := vf["spec_decode_acceptance_rate"].(float64); math.Abs(r-200.0/3) > 1e-9 {
		t.Errorf("spec_decode_acceptance_rate = %v, want 66.67", vf["spec_decode_acceptance_rate"])
	}
}

// A server of a diffusion language model gets vLLM's Diffusion Decoding
// block after the latency blocks, from its diffusion counters over the
// run: each completion here runs 20 steps over 640 canvas positions
// (canvases of 32) and commits 64 tokens, 2 canvases in 18 denoising
// steps. The server drafts too: vLLM then prints no Speculative Decoding
// block, but writes its keys.
func TestBenchDiffusionDecodingBlock(t *testing.T) {
	var mu sync.Mutex
	var completions int
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/v1/models":
			io.WriteString(w, `{"data":[{"id":"m"}]}`)
		case "/metrics":
			mu.Lock()
			n := completions
			mu.Unlock()
			fmt.Fprintf(w, "# TYPE vllm:num_requests_running gauge\nvllm:num_requests_running{model_name=\"m\"} 0\n"+
				"# TYPE vllm:diffusion_num_denoising_steps_total counter\nvllm:diffusion_num_denoising_steps_total{model_name=\"m\"} %d\n"+
				"# TYPE vllm:diffusion_num_canvas_positions_total counter\nvllm:diffusion_num_canvas_positions_total{model_name=\"m\"} %d\n"+
				"# TYPE vllm:diffusion_num_committed_tokens_total counter\nvllm:diffusion_num_committed_tokens_total{model_name=\"m\"} %d\n"+
				"# TYPE vllm:spec_decode_num_drafts_total counter\nvllm:spec_decode_num_drafts_total{model_name=\"m\"} %d\n"+
				"# TYPE vllm:spec_decode_num_draft_tokens_total counter\nvllm:spec_decode_num_draft_tokens_total{model_name=\"m\"} %d\n"+
				"# TYPE vllm:spec_decode_num_accepted_tokens_total counter\nvllm:spec_decode_num_accepted_tokens_total{model_name=\"m\"} %d\n",
				20*n, 640*n, 64*n, 10*n, 30*n, 20*n)
		case "/v1/completions":
			var body struct {
				MaxTokens int `json:"max_tokens"`
			}
			json.NewDecoder(r.Body).Decode(&body)
			if body.MaxTokens > 1 { // not the one-token check before the run
				mu.Lock()
				completions++
				mu.Unlock()
			}
			w.Header().Set("Content-Type", "text/event-stream")
			for range body.MaxTokens {
				io.WriteString(w, `data: {"choices":[{"index":0,"text":"a","finish_reason":null}]}`+"\n\n")
			}
			io.WriteString(w, "data: [DONE]\n\n")
		default:
			http.NotFound(w, r)
		}
	}))
	defer ts.Close()
	dir := t.TempDir()
	out, errOut, code := run(t, "", "bench", "--base-url", ts.URL, "--num-prompts", "6", "--max-concurrency", "2",
		"--random-input-len", "8", "--random-output-len", "4", "--save-result", "--result-dir", dir, "--result-filename", "v.json", "--quiet")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, errOut, out)
	}
	// 6 completions: 120 steps, 3840 positions, 384 committed tokens in
	// 12 canvases and 108 denoising steps, 9 a canvas, 3.56 tokens each.
	block := regexp.MustCompile(`-+End-to-end Latency-+\n(?:.+\n)+?` +
		`----------------Diffusion Decoding----------------\n` +
		`Committed throughput \(tok/s\): +([0-9]+\.[0-9]{2})\n` +
		`Denoising steps per canvas:              9\.00\n` +
		`Committed per denoising step:            3\.56\n` +
		`Committed tokens:                        384\n` +
		`Denoising steps:                         108\n` +
		`Canvas positions evaluated:              3840\n`)
	m := block.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no Diffusion Decoding block after the latency blocks:\n%s", out)
	}
	if strings.Contains(out, "Speculative Decoding") {
		t.Errorf("the Speculative Decoding block is printed beside the Diffusion Decoding one:\n%s", out)
	}
	var vf map[string]any
	b, err := os.ReadFile(filepath.Join(dir, "v.json"))
	if err == nil {
		err = json.Unmarshal(b, &vf)
	}
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"diffusion_steps_per_canvas": 9.0, "diffusion_committed_tokens": 384.0,
		"diffusion_denoising_steps": 108.0, "diffusion_canvas_positions": 3840.0, "spec_decode_draft_tokens": 180.0}
	for k, v := range want {
		if !reflect.DeepEqual(vf[k], v) {
			t.Errorf("vLLM file %s = %v, want %v", k, vf[k], v)
		}
	}
	if r, _ := vf["diffusion_committed_per_step"].(float64); math.Abs(r-384.0/108) > 1e-9 {
		t.Errorf("diffusion_committed_per_step = %v, want 3.56", vf["diffusion_committed_per_step"])
	}
	// The throughput is over the run's duration, as the file gives it.
	d, _ := vf["duration"].(float64)
	if r, _ := vf["diffusion_committed_throughput"].(float64); d <= 0 || math.Abs(r-384/d) > 1e-9*r {
		t.Errorf("diffusion_committed_throughput = %v over %v s, want %v", vf["diffusion_committed_throughput"], d, 384/d)
	}
	if want := fmt.Sprintf("%.2f", 384/d); m[1] != want {
		t.Errorf("summary's committed throughput %s, the file's %s", m[1], want)
	}
}

func TestBenchDryRunSendsNothing(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan struct{}, 1)
	go func() {
		if c, err := ln.Accept(); err == nil {
			accepted <- struct{}{}
			c.Close()
		}
	}()
	out, errOut, code := run(t, "", "bench", "--dry-run", "--base-url", "http://"+ln.Addr().String(),
		"--request-rate", "5", "--num-prompts", "100", "--num-warmups", "5", "--probe-request-rate", "2")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"Load: open loop: poisson arrivals at 5 req/s", "schedule: 100 requests",
		"Workload: random: input 1024 tokens, output 128 tokens", "Warm-up: 5 requests sent before the run, left out of it",
		`Probes: one-token requests ("Hi") at 2/s beside the run`, "Dry run: nothing was sent."} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	select {
	case <-accepted:
		t.Error("a dry run connected to the server")
	default:
	}
}

func TestBenchUsageErrors(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"bench", "--request-rate", "-1"}, "--request-rate"},
		{[]string{"bench", "--format", "xml"}, `--format "xml"`},
		{[]string{"bench", "--format", "vllm"}, "give --result-dir"},
		// The flag is named once, not twice ("--header: --header 1 …").
		{[]string{"bench", "--header", "no-separator"}, `goodput: --header 1 "no-separator": want Name=value`},
		{[]string{"bench", "--extra-body", "[1]"}, "goodput: --extra-body: want a JSON object, got an array"},
		// The body says how answers come, which the reader must know.
		{[]string{"bench", "--extra-body", `{"stream": false}`}, `--extra-body "stream": false: goodput sets it, true unless --stream=false (which reads answers whole); give --stream=false instead`},
		{[]string{"bench", "--stream=false", "--extra-body", `{"stream": true}`}, `--extra-body "stream": true: goodput sets it`},
		{[]string{"bench", "--extra-body", `{"stream": "yes"}`}, `--extra-body "stream": yes: goodput sets it`},
		{[]string{"bench", "--base-url", "127.0.0.1:9", "--num-prompts", "1"}, "--base-url"},
		{[]string{"bench", "--sim-gpu", "abacus"}, "--sim-gpu"},
		{[]string{"bench", "--sim-max-num-seqs", "-3"}, "--sim-max-num-seqs -3: must be positive"},
		{[]string{"bench", "--sim-gpu-memory-utilization", "0"}, "--sim-gpu-memory-utilization 0: must be in (0, 1]"},
		{[]string{"bench", "--sim-kv-cache-dtype", "int2"}, `--sim-kv-cache-dtype "int2": want one of`},
		{[]string{"bench", "stray"}, `unexpected argument "stray"`},
		// vLLM's general lengths are named as given, not as the random
		// dataset's they stand for.
		{[]string{"bench", "--output-len", "0"}, "--output-len 0: must be at least 1"},
		{[]string{"bench", "--input-len", "-5"}, "--input-len -5: must be at least 1"},
		{[]string{"bench", "--dataset-name", "hf", "--dataset-path", "../../workload/testdata/hf_aimo_small.jsonl", "--hf-output-len", "0"}, "--hf-output-len 0: vLLM takes 0 as a length of no tokens"},
		{[]string{"bench", "--record-label", "x"}, `--record-label: "x": want key=value`},
		// A sweep's list points at goodput sweep.
		{[]string{"bench", "--max-concurrency", "1,4,16"}, "bench runs one load; to measure several, run goodput sweep --concurrency 1,4,16"},
		{[]string{"bench", "--max-concurrency", "four"}, "want a whole number of requests"},
		{[]string{"bench", "--request-rate", "1,2"}, "bench runs one load; to measure several, run goodput sweep --request-rate 1,2"},
		// In a sweep the cap is one for every rate point: the loads are
		// --concurrency.
		{[]string{"sweep", "--max-concurrency", "1,2,4"}, "one cap for every rate point; to sweep concurrencies, give --concurrency 1,2,4"},
		// An option the protocol cannot send fails before the run, not
		// on every request.
		{[]string{"bench", "--base-url", "http://127.0.0.1:9", "--backend", "llamacpp", "--min-tokens", "4"}, "min tokens (--min-tokens) is not supported by llamacpp"},
		// Found before the simulator starts or a server is waited for.
		{[]string{"bench", "--dataset-name", "sharegpt", "--dataset-path", "no-such.json"}, "--dataset-path: stat no-such.json: no such file"},
		{[]string{"bench", "--base-url", "http://127.0.0.1:9", "--dataset-name", "custom", "--dataset-path", t.TempDir()}, "is a directory"},
		// A transport that cannot carry the requests.
		{[]string{"bench", "--base-url", "http://127.0.0.1:9", "--transport", "epoll"}, `--transport "epoll": want auto, eventloop or net/http`},
		{[]string{"bench", "--base-url", "https://127.0.0.1:9", "--transport", "eventloop"}, "--transport eventloop: "}, // TLS, or not Linux
		// A traffic scenario sets the lengths itself.
		{[]string{"bench", "--traffic-scenario", "D(100,100)", "--random-input-len", "5"}, "--traffic-scenario D(100,100) sets the random dataset's lengths: drop --random-input-len"},
		{[]string{"bench", "--traffic-scenario", "D(100,100)", "--dataset-name", "sharegpt"}, "drop --dataset-name"},
		{[]string{"bench", "--traffic-scenario", "E(1024)"}, `--traffic-scenario "E(1024)": embedding and rerank scenarios are not supported`},
		{[]string{"bench", "--traffic-scenario", "N(0,5)/(10,5)"}, "--traffic-scenario: prompt lengths want a mean of 1 or more"},
		{[]string{"bench", "--traffic-scenario", ""}, "--traffic-scenario is empty"},
		{[]string{"bench", "--traffic-scenario", "D(1,1)", "--traffic-scenario", "D(2,2)"}, "a second scenario (D(2,2) after D(1,1)): a run measures one"},
	}
	for _, tc := range tests {
		_, errOut, code := run(t, "", tc.args...)
		if code != ExitUsage || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, %q; want 2 and %q", tc.args, code, errOut, tc.want)
		}
		if strings.Contains(errOut, "simulator") {
			t.Errorf("%v: the simulator started before the error: %q", tc.args, errOut)
		}
	}
}

// In a Kubernetes Indexed Job every pod gets the same arguments and its own
// $JOB_COMPLETION_INDEX, which picks its shard unless --shard is given.
func TestBenchShardFromJobIndex(t *testing.T) {
	tests := []struct {
		index string
		args  []string
		code  int
		want  string
	}{
		{"2", []string{"--shards", "3"}, ExitOK, "shard 2 of 3"},
		{"2", []string{"--shards", "3", "--shard", "0"}, ExitOK, "shard 0 of 3"},
		{"2", nil, ExitOK, "every request at once\n"}, // not sharded: the index is not ours
		{"3", []string{"--shards", "3"}, ExitUsage, `$JOB_COMPLETION_INDEX="3": want a shard index in [0, 3) for --shards 3`},
		{"x", []string{"--shards", "3"}, ExitUsage, `$JOB_COMPLETION_INDEX="x"`},
	}
	for _, tt := range tests {
		var out, errb bytes.Buffer
		env := &Env{Stdout: &out, Stderr: &errb, Stdin: strings.NewReader(""), Getenv: func(k string) string {
			if k == "JOB_COMPLETION_INDEX" {
				return tt.index
			}
			return ""
		}}
		root := NewRoot(env)
		root.SetArgs(append([]string{"bench", "--dry-run", "--num-prompts", "9"}, tt.args...))
		err := root.ExecuteContext(t.Context())
		got := out.String()
		if err != nil {
			got = err.Error()
		}
		if Code(err) != tt.code || !strings.Contains(got, tt.want) {
			t.Errorf("index %s, %v: exit %d, %q; want %d and %q", tt.index, tt.args, Code(err), got, tt.code, tt.want)
		}
	}
}

// --duration alone bounds a run by time: the --num-prompts default does not
// cut it short. Both together: whichever comes first.
func TestBenchDurationLiftsPromptDefault(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"--request-rate", "200", "--duration", "10m"}, "stops after 10m0s\n"},
		{[]string{"--request-rate", "200", "--duration", "10m", "--num-prompts", "500"}, "stops after 500 requests or 10m0s, whichever comes first"},
		{[]string{"--base-url", "http://127.0.0.1:9", "--max-concurrency", "4", "--duration", "3s"}, "stops after 3s\n"},
		{[]string{"--base-url", "http://127.0.0.1:9", "--request-rate", "5"}, "stops after 1000 requests\n"},
	}
	for _, tt := range tests {
		out, errOut, code := run(t, "", append([]string{"bench", "--dry-run"}, tt.args...)...)
		if code != ExitOK || !strings.Contains(out, tt.want) {
			t.Errorf("%v: exit %d, %q%s; want %q", tt.args, code, out, errOut, tt.want)
		}
	}
}

// A run in which every request failed exits 1, and says why.
func TestBenchEveryRequestFailed(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/health" {
			return
		}
		http.Error(w, `{"error":{"message":"engine crashed"}}`, http.StatusInternalServerError)
	}))
	defer srv.Close()
	out, errOut, code := run(t, "", "bench", "--base-url", srv.URL, "--model", "m", "--num-prompts", "3", "--max-concurrency", "1",
		"--prompt-format", "text", "--no-calibrate", "--no-server-metrics", "--quiet")
	if code != ExitTool || !strings.Contains(errOut, "every one of the 3 measured requests failed: 3 http (http 500 Internal Server Error: engine crashed)") {
		t.Errorf("exit %d, %q; want 1 and why", code, errOut)
	}
	if !strings.Contains(out, "Failed requests:                         3") {
		t.Errorf("the summary is not printed first:\n%s", out)
	}
}

// A run whose every request was answered 404 names the URL they went to
// and the flags that choose it: a server's "File Not Found" says neither.
func TestBenchEveryRequestNotFound(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/health" {
			return
		}
		http.Error(w, `{"error":{"message":"File Not Found","type":"not_found_error","code":404}}`, http.StatusNotFound)
	}))
	defer srv.Close()
	_, errOut, code := run(t, "", "bench", "--base-url", srv.URL, "--model", "m", "--backend", "tgi", "--num-prompts", "2",
		"--no-calibrate", "--no-server-metrics", "--quiet")
	want := "; the server has no POST " + srv.URL + "/generate_stream: --backend tgi sends its requests there, and --endpoint changes the path"
	if code != ExitTool || !strings.Contains(errOut, "every one of the 2 measured requests failed: 2 http (http 404 Not Found") || !strings.Contains(errOut, want) {
		t.Errorf("exit %d, %q; want 1, saying %q", code, errOut, want)
	}
}

// A run whose answers all carried no token (a server streaming only
// [DONE], or events goodput cannot read as text) measured no latency:
// it exits 1 after its summary, as a run of failures does, instead of 0.
func TestBenchNoAnswerCarriedAToken(t *testing.T) {
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/health" {
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		if n.Add(1)%2 == 0 {
			http.Error(w, `{"error":{"message":"busy"}}`, http.StatusInternalServerError)
			return
		}
		io.WriteString(w, "data: [DONE]\n\n")
	}))
	defer srv.Close()
	out, errOut, code := run(t, "", "bench", "--base-url", srv.URL, "--model", "m", "--num-prompts", "4", "--max-concurrency", "1",
		"--prompt-format", "text", "--no-calibrate", "--no-server-metrics", "--quiet")
	if code != ExitTool || !strings.Contains(errOut, "none of the 4 measured requests carried an output token (2 failed, 2 answered without one)") {
		t.Errorf("exit %d, %q; want 1 and why", code, errOut)
	}
	if !strings.Contains(out, "of which empty (no token):             2") {
		t.Errorf("the summary is not printed first:\n%s", out)
	}
}

// The ShareGPT filters the skips are named after are flags: a longer
// --sharegpt-max-input-len keeps prompts vLLM's 1024 would, a shorter one
// skips them, by that name.
func TestShareGPTFilterFlags(t *testing.T) {
	data := filepath.Join("..", "..", "workload", "testdata", "sharegpt_small.json")
	base := []string{"bench", "--dry-run", "--dataset-name", "sharegpt", "--dataset-path", data, "--num-prompts", "2"}
	out, errOut, code := run(t, "", append(base, "--sharegpt-min-input-len", "1", "--sharegpt-min-output-len", "1")...)
	if code != ExitOK || !strings.Contains(out, "2 items sampled from 8 usable of 10 entries (skipped: 2 with fewer than two turns") {
		t.Errorf("lower minimums: exit %d\n%s%s", code, out, errOut)
	}
	_, errOut, code = run(t, "", append(base, "--sharegpt-max-input-len", "8")...)
	if code == ExitOK || !strings.Contains(errOut, "6 with a prompt above --sharegpt-max-input-len") {
		t.Errorf("a lower maximum: exit %d\n%s", code, errOut)
	}
}

// A server that refuses vLLM's continuous_usage_stats (as hosted
// OpenAI-style APIs do) fails every request; the error says which --usage
// to give, and with it the run measures.
func TestRefusedContinuousUsageNamesTheFlag(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			io.WriteString(w, `{"data":[{"id":"m"}]}`)
			return
		}
		b, _ := io.ReadAll(r.Body)
		if strings.Contains(string(b), "continuous_usage_stats") {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			io.WriteString(w, `{"error":{"message":"Unrecognized request argument supplied: stream_options.continuous_usage_stats","type":"invalid_request_error"}}`)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, `data: {"choices":[{"index":0,"text":"a","finish_reason":"length"}],"usage":{"prompt_tokens":3,"completion_tokens":1}}`+"\n\ndata: [DONE]\n\n")
	}))
	defer srv.Close()
	args := []string{"bench", "--base-url", srv.URL, "--model", "m", "--num-prompts", "2", "--random-output-len", "1",
		"--prompt-format", "text", "--no-calibrate", "--no-server-metrics", "--quiet"}
	_, errOut, code := run(t, "", args...)
	if code != ExitTool || !strings.Contains(errOut, "continuous_usage_stats); --usage final asks for the usage at the end only") {
		t.Errorf("exit %d: %s", code, errOut)
	}
	if _, errOut, code := run(t, "", append(args, "--usage", "final")...); code != ExitOK {
		t.Errorf("--usage final: exit %d: %s", code, errOut)
	}
}

// --max-tokens-field chooses the field of a chat request's output limit;
// a value it does not know, or a choice for a protocol with one field, is
// a usage error before anything is sent.
func TestMaxTokensFieldFlag(t *testing.T) {
	var mu sync.Mutex // guards limits
	var limits []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			io.WriteString(w, `{"data":[{"id":"m"}]}`)
			return
		}
		var body map[string]any
		json.NewDecoder(r.Body).Decode(&body)
		mu.Lock()
		limits = append(limits, fmt.Sprintf("max_tokens=%v max_completion_tokens=%v", body["max_tokens"], body["max_completion_tokens"]))
		mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, `data: {"choices":[{"index":0,"delta":{"content":"a"},"finish_reason":"length"}],"usage":{"prompt_tokens":3,"completion_tokens":1}}`+"\n\ndata: [DONE]\n\n")
	}))
	defer srv.Close()
	args := []string{"bench", "--base-url", srv.URL, "--model", "m", "--num-prompts", "2", "--random-output-len", "3",
		"--prompt-format", "text", "--no-calibrate", "--no-server-metrics", "--quiet"}
	tests := []struct {
		flags []string
		want  string // each request's limit fields
	}{
		{[]string{"--backend", "openai-chat"}, "max_tokens=<nil> max_completion_tokens=3"},
		{[]string{"--backend", "openai-chat", "--max-tokens-field", "max_tokens"}, "max_tokens=3 max_completion_tokens=<nil>"},
		{[]string{"--backend", "openai-chat", "--max-tokens-field", "both"}, "max_tokens=3 max_completion_tokens=3"},
	}
	for _, tt := range tests {
		mu.Lock()
		limits = nil
		mu.Unlock()
		if _, errOut, code := run(t, "", append(args, tt.flags...)...); code != ExitOK {
			t.Fatalf("%v: exit %d: %s", tt.flags, code, errOut)
		}
		mu.Lock()
		if len(limits) != 2 || limits[0] != tt.want || limits[1] != tt.want {
			t.Errorf("%v: sent %q, want two of %q", tt.flags, limits, tt.want)
		}
		mu.Unlock()
	}
	for _, tt := range []struct {
		flags []string
		msg   string
	}{
		{[]string{"--backend", "openai-chat", "--max-tokens-field", "max-tokens"}, `--max-tokens-field "max-tokens": want max_completion_tokens, max_tokens or both`},
		{[]string{"--backend", "openai", "--max-tokens-field", "both"}, "--max-tokens-field both: only openai-chat has a choice of field for the output limit (backend openai)"},
	} {
		mu.Lock()
		limits = nil
		mu.Unlock()
		_, errOut, code := run(t, "", append(args, tt.flags...)...)
		mu.Lock()
		if code != ExitUsage || !strings.Contains(errOut, tt.msg) || len(limits) != 0 {
			t.Errorf("%v: exit %d, %d requests sent: %s; want a usage error containing %q", tt.flags, code, len(limits), errOut, tt.msg)
		}
		mu.Unlock()
	}
}

// Without a server, the simulator serves the model a vLLM command line
// names by its Hugging Face name, modelled on it where it knows the model,
// and says which performance it lends one it does not know.
func TestBenchSimulatesTheModelNamed(t *testing.T) {
	for _, tt := range []struct {
		model, profile, note string
	}{
		{"meta-llama/Llama-3.1-8B-Instruct", "profile: Llama-3.1-8B on", ""},
		{"Qwen/Qwen3-8B", "profile: Qwen3-8B on", ""},
		{"Qwen/Qwen3-0.6B", "profile: Llama-3.1-8B on", "goodput: --model Qwen/Qwen3-0.6B is not a model the simulator knows: it serves it under that name with Llama-3.1-8B's performance (--sim-model chooses another)"},
	} {
		t.Run(tt.model, func(t *testing.T) {
			out, errOut, code := run(t, "", "bench", "--model", tt.model, "--num-prompts", "3", "--random-input-len", "16", "--random-output-len", "4")
			if code != ExitOK || !strings.Contains(out, "Successful requests:                     3\n") {
				t.Fatalf("exit %d:\n%s\n%s", code, out, errOut)
			}
			if !strings.Contains(errOut, tt.profile) || !strings.Contains(errOut, "model: "+tt.model+" (") || strings.Contains(errOut, "not a model the simulator knows") != (tt.note != "") || !strings.Contains(errOut, tt.note) {
				t.Errorf("stderr %q; want %q, the model served as %s, and note %q", errOut, tt.profile, tt.model, tt.note)
			}
		})
	}
}

// A vLLM command line without --host or --port means the server at
// 127.0.0.1:8000; where one answers there, a run on the simulator says
// so and how to measure it, and where none does, nothing is said.
func TestBenchSaysAServerAnswersWhereVLLMSends(t *testing.T) {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, `{"object":"list","data":[{"id":"m"}]}`)
	}))
	defer ts.Close()
	old := vllmDefaultTarget
	t.Cleanup(func() { vllmDefaultTarget = old })
	vllmDefaultTarget = strings.TrimPrefix(ts.URL, "http://")
	args := []string{"bench", "--num-prompts", "2", "--random-input-len", "8", "--random-output-len", "2", "--quiet"}
	_, errOut, code := run(t, "", args...)
	want := "goodput: a server answers at " + ts.URL + ", where vllm bench serve sends without --host or --port; this run measures the built-in simulator: give --port 8000 (or --base-url " + ts.URL + ") to measure that server\n"
	if code != ExitOK || !strings.Contains(errOut, want) {
		t.Errorf("exit %d, stderr %q; want %q", code, errOut, want)
	}
	ts.Close()
	if _, errOut, _ := run(t, "", args...); strings.Contains(errOut, "a server answers at") {
		t.Errorf("with no server there: %q", errOut)
	}
}

// --report never writes over a file of the run it reports on: named as
// the run's summary (--save-result), the report is refused and the
// summary kept; without --save-result the name is refused too, where the
// run's summary belongs.
func TestBenchReportIsNotWrittenOverTheRun(t *testing.T) {
	dir := t.TempDir()
	summary := filepath.Join(dir, "r.summary.json")
	out, errOut, code := run(t, "", "bench", "--num-prompts", "2", "--random-input-len", "8", "--random-output-len", "2",
		"--result-dir", dir, "--run-name", "r", "--save-result", "--report", summary, "--quiet")
	want := "--report " + summary + " is " + summary + ", which this command reads: writing there would replace it; choose another file"
	if code == ExitOK || !strings.Contains(errOut, want) {
		t.Fatalf("exit %d, stderr %q; want a refusal %q", code, errOut, want)
	}
	b, err := os.ReadFile(summary)
	if err != nil || !strings.Contains(string(b), `"kind": "goodput.summary"`) && !strings.Contains(string(b), `"kind":"goodput.summary"`) {
		t.Errorf("the summary is gone or replaced (%v): %.200s\n%s", err, b, out)
	}
	other := t.TempDir()
	_, errOut, code = run(t, "", "bench", "--num-prompts", "2", "--random-input-len", "8", "--random-output-len", "2",
		"--result-dir", other, "--run-name", "r", "--report", filepath.Join(other, "r.summary.json"), "--quiet")
	if code == ExitOK || !strings.Contains(errOut, "which this command reads") {
		t.Errorf("without --save-result: exit %d, %q; want the name refused", code, errOut)
	}
}

// `goodput bench serve …` runs `vllm bench serve …` with only the
// program's name changed: the same run as `goodput bench …`, printed with
// vLLM's peak lines; `serve` elsewhere is still a stray argument. `goodput
// bench sweep …` is goodput sweep, as vllm bench sweep is.
func TestBenchServeIsVLLMsCommand(t *testing.T) {
	args := []string{"--num-prompts", "3", "--random-input-len", "8", "--random-output-len", "2", "--max-concurrency", "1", "--disable-tqdm"}
	out, errOut, code := run(t, "", append([]string{"bench", "serve"}, args...)...)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	// A run of well under a second fills no whole second: its peak reads
	// below its mean, and its peak concurrency above the cap, which the
	// notes explain.
	for _, want := range []string{"Successful requests:                     3", "Maximum request concurrency:             1", "Peak concurrent requests:", "Total generated tokens:                  6",
		"Peak output token throughput counts the tokens of whole seconds from the first send, as vLLM does: over a run of 0.",
		// One at a time, all three in the run's one second.
		"Peak concurrent requests:                3.00\n",
		"Peak concurrent requests counts, as vLLM does, every request active at some time in one second: 3 here, more than the 1 --max-concurrency lets be in flight at once"} {
		if !strings.Contains(out, want) {
			t.Errorf("summary lacks %q:\n%s", want, out)
		}
	}
	if _, errOut, code := run(t, "", append(append([]string{"bench"}, args...), "serve")...); code != ExitUsage || !strings.Contains(errOut, `unexpected argument "serve"`) {
		t.Errorf("serve after the flags: exit %d, %q", code, errOut)
	}
	// vllm bench sweep is goodput sweep, whatever follows.
	for _, tail := range [][]string{{"plot", filepath.Join(t.TempDir(), "none")}, {"nosuch"}} {
		_, wantErr, wantCode := run(t, "", append([]string{"sweep"}, tail...)...)
		_, gotErr, gotCode := run(t, "", append([]string{"bench", "sweep"}, tail...)...)
		if gotCode != wantCode || gotErr != wantErr || wantCode == ExitOK {
			t.Errorf("bench sweep %v: exit %d, %q; sweep: exit %d, %q", tail, gotCode, gotErr, wantCode, wantErr)
		}
	}
}
