package cli

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goodput-dev/goodput/bench"
	"github.com/goodput-dev/goodput/internal/simtest"
	"github.com/goodput-dev/goodput/sim"
)

// --host and --port name the server as vLLM takes them: either one alone
// means 127.0.0.1:8000 for the other, and --base-url wins over both.
func TestBenchHostAndPort(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"--port", "9100"}, "Target: http://127.0.0.1:9100 (openai)"},
		{[]string{"--host", "localhost"}, "Target: http://localhost:8000 (openai)"},
		{[]string{"--host", "::1", "--port", "9"}, "Target: http://[::1]:9 (openai)"},
		{[]string{"--host", "h", "--base-url", "http://b:1"}, "Target: http://b:1 (openai)"},
		// Without any of them: the built-in simulator, said so.
		{nil, "Target: the built-in simulator (openai)"},
	}
	for _, tt := range tests {
		out, errOut, code := run(t, "", append([]string{"bench", "--dry-run", "--num-prompts", "3"}, tt.args...)...)
		if code != 0 || !strings.Contains(out, tt.want) {
			t.Errorf("%v: exit %d, %q%s; want %q", tt.args, code, out, errOut, tt.want)
		}
	}
	// goodput's own warm-up, the run's first requests, is --warmup-first.
	if out, errOut, code := run(t, "", "bench", "--dry-run", "--num-warmups", "2", "--warmup-first", "3"); code != 0 ||
		!strings.Contains(out, "Warm-up: the first 3 requests are excluded from statistics") ||
		!strings.Contains(out, "Warm-up: 2 requests sent before the run") {
		t.Errorf("exit %d: %s%s", code, out, errOut)
	}
	if _, errOut, code := run(t, "", "bench", "--dry-run", "--host", "h", "--base-url", "http://b:1"); code != 0 ||
		!strings.Contains(errOut, "--host and --port are not used: --base-url wins") {
		t.Errorf("exit %d: %s", code, errOut)
	}
}

// vLLM-style command lines are reported with every problem at once; the
// vLLM flags' own values are checked before anything starts.
func TestBenchVLLMUsageErrors(t *testing.T) {
	tests := []struct {
		args []string
		want []string
	}{
		{[]string{"--requst-rate", "4", "--random", "8", "--self-timed"}, []string{
			"3 problems with the command line:", "--requst-rate: unknown flag (did you mean --request-rate?)",
			"--random: ambiguous", "--self-timed: refused"}},
		{[]string{"--port", "eighty"}, []string{`--port "eighty": want a port number`}},
		{[]string{"--lora-assignment", "sticky"}, []string{`--lora-assignment "sticky": want random or round-robin`}},
		{[]string{"--percentile-metrics", "ttft,latency"}, []string{`--percentile-metrics: "latency": want names among`}},
		{[]string{"--metadata", "novalue"}, []string{`--metadata "novalue": want KEY=VALUE`}},
		{[]string{"--chat-template-kwargs", "[1]"}, []string{`--chat-template-kwargs "[1]": want a JSON object`}},
		{[]string{"--plot-timeline", "--timeline-itl-thresholds", "25"}, []string{`--timeline-itl-thresholds: "25": want two values`}},
		{[]string{"--ramp-up-strategy", "linear", "--ramp-up-start-rps", "1", "--ramp-up-end-rps", "5", "--request-rate", "3", "--num-prompts", "4"},
			[]string{"--ramp-up-end-rps sets the rate: leave out --request-rate"}},
		{[]string{"--warmup-first", "-1"}, []string{"--warmup-first -1: want 0 or more"}},
		{[]string{"--num-prompts", "-1"}, []string{"--num-prompts -1 takes every entry of a dataset file; the random dataset has none"}},
	}
	for _, tt := range tests {
		_, errOut, code := run(t, "", append([]string{"bench", "--base-url", "http://127.0.0.1:9"}, tt.args...)...)
		if code != ExitUsage {
			t.Errorf("%v: exit %d, want 2: %s", tt.args, code, errOut)
		}
		for _, w := range tt.want {
			if !strings.Contains(errOut, w) {
				t.Errorf("%v: %q lacks %q", tt.args, errOut, w)
			}
		}
	}
}

// A vLLM command line against a server: vLLM's defaults where they differ
// (ignore_eos for random prompts, said so), vLLM's --label and goodput's
// record labels apart, vLLM's summary lines, vLLM's file and the timeline
// beside it.
func TestBenchVLLMCommandLine(t *testing.T) {
	_, url := simtest.Serve(t, sim.Options{Seed: 8})
	dir := t.TempDir()
	host, port, _ := strings.Cut(strings.TrimPrefix(url, "http://"), ":")
	out, errOut, code := run(t, "", "bench", "--host", host, "--port", port, "--backend", "vllm",
		"--random-input-len", "16", "--random-output-len", "6", "--num-prompts", "8", "--max-concurrency", "0",
		"--label", "exp1", "--label", "team=infra", "--percentile-metrics", "ttft,e2el", "--burstiness", "inf",
		"--request-rate", "200", "--save-result", "--result-dir", dir, "--plot-timeline", "--quiet", "--seed", "1")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, errOut, out)
	}
	for _, want := range []string{
		"vLLM command line (--host): --ignore-eos is on for the random dataset",
		"--label team=infra labels the records, as goodput's --record-label",
	} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut)
		}
	}
	for _, want := range []string{
		"Maximum request concurrency:             0", // vLLM's old no-cap 0, kept as given
		"Request rate configured (RPS):           200.00",
		"Total generated tokens:                  48", // 8 × 6: ignore_eos
		"Peak concurrent requests:", "Time to First Token", "End-to-end Latency",
		"Load: open loop: constant arrivals at 200 req/s", // --burstiness inf is evenly spaced
	} {
		if !strings.Contains(out, want) {
			t.Errorf("summary lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "Inter-token Latency") {
		t.Errorf("--percentile-metrics ttft,e2el printed the ITL block:\n%s", out)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "exp1-200.0qps-concurrency0-Llama-3.1-8B-*"))
	var json, timeline bool
	for _, f := range files {
		json = json || strings.HasSuffix(f, ".json") && !strings.HasSuffix(f, ".summary.json")
		timeline = timeline || strings.HasSuffix(f, ".timeline.html")
	}
	if !json || !timeline {
		entries, _ := os.ReadDir(dir)
		t.Errorf("vLLM's file %v and its timeline %v in %v", json, timeline, entries)
	}
	recs, _ := filepath.Glob(filepath.Join(dir, "goodput-*.jsonl"))
	if len(recs) != 1 {
		t.Fatalf("records beside vLLM's file: %v", recs)
	}
	b, _ := os.ReadFile(recs[0])
	if !strings.Contains(string(b), `"labels":{"team":"infra"}`) || !strings.Contains(string(b), `"rid":"bench-`) {
		t.Errorf("records lack the label or the request id: %.400s", b)
	}
}

// Without --result-dir, --save-result writes vLLM's file in the current
// directory, goodput's records and summary beside it.
func TestBenchSaveResultInTheCurrentDirectory(t *testing.T) {
	_, url := simtest.Serve(t, sim.Options{Seed: 9})
	t.Chdir(t.TempDir())
	out, errOut, code := run(t, "", "bench", "--base-url", url, "--num-prompts", "3", "--random-input-len", "8",
		"--random-output-len", "3", "--save-result", "--result-filename", "r.json", "--quiet")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, errOut, out)
	}
	for _, pattern := range []string{"r.json", "goodput-*.jsonl", "goodput-*.summary.json"} {
		if m, _ := filepath.Glob(pattern); len(m) != 1 {
			t.Errorf("%s: %v", pattern, m)
		}
	}
	if !strings.Contains(out, "Wrote r.json\n") {
		t.Errorf("output lacks the file: %s", out)
	}
}

// --stream=false sends non-streaming requests and prints TTFT and E2EL
// only, saying why; vLLM's --no-stream (a dataset-loading switch) is
// ignored with a note that points to it.
func TestBenchWithoutStreaming(t *testing.T) {
	_, url := simtest.Serve(t, sim.Options{Seed: 10})
	out, errOut, code := run(t, "", "bench", "--base-url", url, "--num-prompts", "3", "--random-input-len", "8",
		"--random-output-len", "4", "--stream=false", "--quiet")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, errOut, out)
	}
	if !strings.Contains(out, "non-streaming requests (--stream=false): TTFT is the end-to-end latency") ||
		!strings.Contains(out, "Mean E2EL (ms):") || strings.Contains(out, "Mean TPOT (ms):") || strings.Contains(out, "Mean ITL (ms):") {
		t.Errorf("summary:\n%s", out)
	}
	_, errOut, code = run(t, "", "bench", "--dry-run", "--base-url", url, "--no-stream")
	if code != 0 || !strings.Contains(errOut, "--stream=false sends non-streaming requests") {
		t.Errorf("--no-stream: exit %d: %s", code, errOut)
	}
	_, errOut, code = run(t, "", "bench", "--base-url", url, "--backend", "tgi", "--stream=false")
	if code != ExitUsage || !strings.Contains(errOut, "non-streaming requests are not supported") {
		t.Errorf("tgi: exit %d: %s", code, errOut)
	}
}

type fakeTokenizer struct{}

func (fakeTokenizer) Count(s string) int { return len(s) }

// --tokenizer loads a local file through openTokenizer when a loader
// exists; a Hugging Face id, or any name without a loader, is recorded
// only; a file the loader refuses stops the run, naming it.
func TestLoadTokenizer(t *testing.T) {
	file := filepath.Join(t.TempDir(), "tokenizer.json")
	if err := os.WriteFile(file, []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	if tok, err := loadTokenizer(file); tok != nil || err != nil {
		t.Errorf("without a loader: %v, %v", tok, err)
	}
	saved := openTokenizer
	t.Cleanup(func() { openTokenizer = saved })
	openTokenizer = func(path string) (bench.Tokenizer, error) {
		if strings.HasSuffix(path, "bad.json") {
			return nil, errors.New("not a tokenizer file")
		}
		return fakeTokenizer{}, nil
	}
	if tok, err := loadTokenizer(file); tok == nil || err != nil {
		t.Errorf("a local file: %v, %v", tok, err)
	}
	if tok, err := loadTokenizer("meta-llama/Llama-3.1-8B"); tok != nil || err != nil {
		t.Errorf("a hub id: %v, %v", tok, err)
	}
	bad := filepath.Join(t.TempDir(), "bad.json")
	if err := os.WriteFile(bad, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, errOut, code := run(t, "", "bench", "--dry-run", "--tokenizer", bad)
	if code != 1 || !strings.Contains(errOut, "--tokenizer "+bad+": not a tokenizer file") {
		t.Errorf("a refused file: exit %d: %s", code, errOut)
	}
}
