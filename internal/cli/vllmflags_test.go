package cli

import (
	"compress/gzip"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
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
		{[]string{"--requst-rate", "4", "--random", "8", "--enable-multimodal-chat"}, []string{
			"3 problems with the command line:", "--requst-rate: unknown flag (did you mean --request-rate?)",
			"--random: ambiguous", "--enable-multimodal-chat: refused"}},
		{[]string{"--port", "eighty"}, []string{`--port "eighty": want a port number`}},
		{[]string{"--lora-assignment", "sticky"}, []string{`--lora-assignment "sticky": want random or round-robin`}},
		{[]string{"--percentile-metrics", "ttft,latency"}, []string{`--percentile-metrics: "latency": want names among`}},
		{[]string{"--metadata", "novalue"}, []string{`--metadata "novalue": want KEY=VALUE`}},
		{[]string{"--chat-template-kwargs", "[1]"}, []string{`--chat-template-kwargs "[1]": want a JSON object`}},
		{[]string{"--plot-timeline", "--timeline-itl-thresholds", "25"}, []string{`--timeline-itl-thresholds: "25": want two values`}},
		{[]string{"--plot-timeline", "--timeline-itl-thresholds", "50,25"}, []string{`--timeline-itl-thresholds: "50,25": want the lower threshold first`}},
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

// --backend vllm is vLLM's name for the completions API: a line that
// gives it is written for vLLM, and gets vLLM's ignore_eos for random
// prompts even when no other flag is vLLM's own.
func TestBenchBackendVLLMIsAVLLMLine(t *testing.T) {
	_, url := simtest.Serve(t, sim.Options{Seed: 8})
	out, errOut, code := run(t, "", "bench", "--base-url", url, "--backend", "vllm", "--random-input-len", "16",
		"--random-output-len", "6", "--num-prompts", "4", "--quiet")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, errOut, out)
	}
	if want := "vLLM command line (--backend vllm): --ignore-eos is on for the random dataset"; !strings.Contains(errOut, want) {
		t.Errorf("stderr lacks %q:\n%s", want, errOut)
	}
	if want := "Total generated tokens:                  24"; !strings.Contains(out, want) {
		t.Errorf("summary lacks %q:\n%s", want, out)
	}
}

// Any command line gets vLLM's ignore_eos for random prompts on the
// OpenAI-compatible backends, as vllm bench serve sets it whatever else is
// given, so that the same line asks the same of the server; --ignore-eos=false
// and datasets of real prompts keep the server's own ends.
func TestBenchRandomPromptsIgnoreEOSAsVLLM(t *testing.T) {
	_, url := simtest.Serve(t, sim.Options{Seed: 8})
	const note = "goodput: --ignore-eos is on for the random dataset, as vllm bench serve sets it"
	for _, tt := range []struct {
		name  string
		args  []string
		noted bool
	}{
		{"a plain line", nil, true},
		{"chat", []string{"--backend", "openai-chat"}, true},
		{"--ignore-eos=false", []string{"--ignore-eos=false"}, false},
		{"sharegpt", []string{"--dataset-name", "sharegpt", "--dataset-path", "../../workload/testdata/sharegpt_small.json"}, false},
	} {
		args := append([]string{"bench", "--base-url", url, "--random-input-len", "16", "--random-output-len", "6", "--num-prompts", "4", "--quiet"}, tt.args...)
		out, errOut, code := run(t, "", args...)
		if code != 0 {
			t.Fatalf("%s: exit %d\n%s\n%s", tt.name, code, errOut, out)
		}
		if strings.Contains(errOut, note) != tt.noted {
			t.Errorf("%s: note %v, want %v:\n%s", tt.name, !tt.noted, tt.noted, errOut)
		}
		if tt.noted && !strings.Contains(out, "Total generated tokens:                  24") {
			t.Errorf("%s: answers did not run to their length:\n%s", tt.name, out)
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
	var json string
	var timeline bool
	for _, f := range files {
		if strings.HasSuffix(f, ".json") && !strings.HasSuffix(f, ".summary.json") {
			json = f
		}
		timeline = timeline || strings.HasSuffix(f, ".timeline.html")
	}
	if json == "" || !timeline {
		entries, _ := os.ReadDir(dir)
		t.Fatalf("vLLM's file %q and its timeline %v in %v", json, timeline, entries)
	}
	// The file keeps --burstiness as given (Python's json writes inf as
	// Infinity), though the run's arrivals are constant ones.
	if b, _ := os.ReadFile(json); !strings.Contains(string(b), `"burstiness": Infinity,`) {
		t.Errorf("vLLM's file does not say burstiness inf: %.600s", b)
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

// --tokenizer loads what it names; a local file that does not load stops
// the run, naming it; a model id that cannot be loaded (not in the local
// cache) is recorded only, with a note.
func TestLoadTokenizer(t *testing.T) {
	dir := t.TempDir()
	good, bad := filepath.Join(dir, "tokenizer.json"), filepath.Join(dir, "bad.json")
	for _, f := range []string{good, bad} {
		if err := os.WriteFile(f, []byte("{}"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	saved := openTokenizer
	t.Cleanup(func() { openTokenizer = saved })
	openTokenizer = func(path string) (bench.Tokenizer, error) {
		if path == good {
			return fakeTokenizer{}, nil
		}
		return nil, errors.New("cannot load " + path)
	}
	tests := []struct {
		id       string
		loaded   bool
		note     string
		errorMsg string
	}{
		{good, true, "", ""},
		{bad, false, "", "cannot load " + bad},
		{"meta-llama/Llama-3.1-8B", false, "--tokenizer meta-llama/Llama-3.1-8B is recorded, not loaded (cannot load meta-llama/Llama-3.1-8B)", ""},
	}
	for _, tt := range tests {
		tok, note, err := loadTokenizer(tt.id)
		if (tok != nil) != tt.loaded || !strings.Contains(note, tt.note) || (tt.note == "") != (note == "") {
			t.Errorf("%s: tokenizer %v, note %q", tt.id, tok, note)
		}
		if tt.errorMsg == "" && err != nil || tt.errorMsg != "" && (err == nil || err.Error() != tt.errorMsg) {
			t.Errorf("%s: error %v, want %q", tt.id, err, tt.errorMsg)
		}
	}
	_, errOut, code := run(t, "", "bench", "--dry-run", "--tokenizer", bad)
	if code != 1 || !strings.Contains(errOut, "--tokenizer: cannot load "+bad) {
		t.Errorf("a refused file: exit %d: %s", code, errOut)
	}
}

// With a real tokenizer.json (GPT-2's, from the tokenizer tests) and a
// server that has neither /tokenize nor usage reports, text prompts are
// fitted with it and output tokens counted with it, as vLLM's client
// does with its own tokenizer.
func TestBenchWithARealTokenizer(t *testing.T) {
	zr, err := os.Open(filepath.Join("..", "..", "tokenizer", "pretrained", "testdata", "gpt2", "tokenizer.json.gz"))
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	gz, err := gzip.NewReader(zr)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "tokenizer.json")
	b, err := io.ReadAll(gz)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, b, 0o644); err != nil {
		t.Fatal(err)
	}
	srv, err := sim.New(sim.Options{Seed: 11})
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/tokenize" {
			http.NotFound(w, r)
			return
		}
		srv.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	dir := t.TempDir()
	out, errOut, code := run(t, "", "bench", "--base-url", ts.URL, "--num-prompts", "3", "--random-input-len", "40",
		"--random-output-len", "5", "--prompt-format", "text", "--usage", "none", "--tokenizer", file,
		"--result-dir", dir, "--quiet")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, errOut, out)
	}
	if !strings.Contains(out, "--tokenizer's (the server has no /tokenize)") || !strings.Contains(out, "tokenizer 3") {
		t.Errorf("summary does not say the tokenizer counted:\n%s", out)
	}
}

// A --goodput that names a metric vLLM's rule lacks (itl) is goodput's
// SLO alone: vLLM's request goodput, which would count every request good,
// is left out of vLLM's lines and file, and a note says why.
func TestVLLMGoodputWithGoodputsOwnMetric(t *testing.T) {
	_, url := simtest.Serve(t, sim.Options{Seed: 11})
	dir := t.TempDir()
	out, errOut, code := run(t, "", "bench", "--base-url", url, "--num-prompts", "4", "--random-input-len", "16",
		"--random-output-len", "4", "--goodput", "itl:0.001", "--save-result", "--result-filename", "g.json",
		"--result-dir", dir, "--quiet")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, errOut, out)
	}
	if !strings.Contains(errOut, "--goodput itl:0.001: vLLM's request goodput judges ttft, tpot and e2el only") {
		t.Errorf("no note:\n%s", errOut)
	}
	if n := strings.Count(out, "Request goodput (req/s):"); n != 1 || !strings.Contains(out, "SLO attainment:                          0.00%") {
		t.Errorf("%d request goodput lines (want goodput's alone, 0 good):\n%s", n, out)
	}
	if f := decodeJSONFile(t, filepath.Join(dir, "g.json")); f["request_goodput"] != nil {
		t.Errorf("vLLM's file request_goodput = %v, want null", f["request_goodput"])
	}
}

// AIPerf's and GenAI-Perf's --goodput names (time_to_first_token,
// inter_token_latency, request_latency) are vLLM's ttft, tpot and e2el:
// goodput's SLO reads them so, and vLLM's request goodput is kept.
func TestGoodputTakesAIPerfsNames(t *testing.T) {
	_, url := simtest.Serve(t, sim.Options{Seed: 11})
	dir := t.TempDir()
	out, errOut, code := run(t, "", "bench", "--base-url", url, "--num-prompts", "4", "--random-input-len", "16",
		"--random-output-len", "4", "--goodput", "time_to_first_token:60000", "inter_token_latency:3.40", "request_latency:90000",
		"--save-result", "--result-filename", "g.json", "--result-dir", dir, "--quiet")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, errOut, out)
	}
	if !strings.Contains(out, "SLO:                                     ttft<=1m,tpot<=3.4ms,e2e<=90s") || strings.Contains(errOut, "judges ttft, tpot and e2el only") {
		t.Errorf("SLO not read as ttft, tpot and e2e:\n%s\n%s", out, errOut)
	}
	f := decodeJSONFile(t, filepath.Join(dir, "g.json"))
	if _, ok := f["request_goodput"].(float64); !ok {
		t.Errorf("vLLM's file request_goodput = %v, want a rate", f["request_goodput"])
	}
}

// recordingSim serves the simulator on 127.0.0.1 and keeps the headers of
// every completions request it answers, in the order they arrived; sent
// returns them.
func recordingSim(t *testing.T, opts sim.Options) (url string, sent func() []http.Header) {
	t.Helper()
	srv, err := sim.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	var mu sync.Mutex
	var posts []http.Header // guarded by mu
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/completions") {
			mu.Lock()
			posts = append(posts, r.Header.Clone())
			mu.Unlock()
		}
		srv.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	return ts.URL, func() []http.Header {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(posts)
	}
}

// A list flag given again keeps its last list, as vLLM's argparse does:
// only the later --goodput judges, and a note says what was dropped.
// Headers add up (one dropped could be the API key), with a note that
// vLLM would send the last list alone.
func TestBenchRepeatedListFlagKeepsTheLast(t *testing.T) {
	url, sent := recordingSim(t, sim.Options{Seed: 11})
	out, errOut, code := run(t, "", "bench", "--base-url", url, "--num-prompts", "3", "--random-input-len", "16",
		"--random-output-len", "4", "--header", "X-Early=1", "--goodput", "ttft:1", "tpot:1",
		"--header", "X-Late=2", "--goodput", "e2el:90000", "--quiet")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, errOut, out)
	}
	// The run's 3 requests, after the one that asks whether the server
	// takes token ids.
	posts := sent()
	if len(posts) != 4 {
		t.Fatalf("%d requests sent, want 4", len(posts))
	}
	for i, h := range posts {
		if h.Get("X-Late") != "2" || h.Get("X-Early") != "1" {
			t.Errorf("request %d: X-Late %q, X-Early %q; want 2 and 1", i, h.Get("X-Late"), h.Get("X-Early"))
		}
	}
	if !strings.Contains(out, "SLO:                                     e2e<=90s\n") {
		t.Errorf("SLO is not the later --goodput's alone:\n%s", out)
	}
	for _, note := range []string{
		"goodput: --header given again: the headers of every occurrence are sent (1 header before this one), where vLLM sends the last occurrence's alone",
		"goodput: --goodput ttft:1 tpot:1: replaced by a later --goodput, as vLLM keeps the last occurrence only",
	} {
		if !strings.Contains(errOut, note) {
			t.Errorf("stderr lacks %q:\n%s", note, errOut)
		}
	}
}

// vLLM's client numbers every request after --request-id-prefix, so an
// explicit "" sends the numbers alone; without the flag the prefix is
// bench- and 8 hex digits, as vLLM's default.
func TestBenchRequestIDPrefix(t *testing.T) {
	for _, tt := range []struct {
		name string
		args []string
		want *regexp.Regexp
	}{
		{"empty", []string{"--request-id-prefix", ""}, regexp.MustCompile(`^[0-2]$`)},
		{"empty with =", []string{"--request-id-prefix="}, regexp.MustCompile(`^[0-2]$`)},
		{"given", []string{"--request-id-prefix", "run7-"}, regexp.MustCompile(`^run7-[0-2]$`)},
		{"default", nil, regexp.MustCompile(`^bench-[0-9a-f]{8}-[0-2]$`)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			url, sent := recordingSim(t, sim.Options{Seed: 11})
			dir := t.TempDir()
			args := append([]string{"bench", "--base-url", url, "--num-prompts", "3", "--random-input-len", "16",
				"--random-output-len", "4", "--result-dir", dir, "--run-name", "r", "--quiet"}, tt.args...)
			out, errOut, code := run(t, "", args...)
			if code != 0 {
				t.Fatalf("exit %d\n%s\n%s", code, errOut, out)
			}
			// The request asking whether the server takes token ids has
			// no id; the run's 3 have theirs, each once.
			posts := sent()
			if len(posts) != 4 {
				t.Fatalf("%d requests sent, want 4", len(posts))
			}
			ids := map[string]bool{}
			for _, h := range posts[1:] {
				id := h.Get("X-Request-Id")
				if !tt.want.MatchString(id) || ids[id] {
					t.Errorf("x-request-id %q, want one of %s, each once", id, tt.want)
				}
				ids[id] = true
			}
			if len(ids) != 3 {
				t.Errorf("%d ids sent, want 3: %v", len(ids), ids)
			}
			for _, r := range readRecords(t, filepath.Join(dir, "r.jsonl")) {
				if !ids[r.RequestID] || !strings.HasSuffix(r.RequestID, strconv.FormatInt(r.Seq, 10)) {
					t.Errorf("record %d keeps id %q, not the one sent with its number", r.Seq, r.RequestID)
				}
			}
		})
	}
}
