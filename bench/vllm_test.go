package bench

import (
	"bytes"
	"encoding/json"
	"io"
	"maps"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/arrival"
	"github.com/goodput-dev/goodput/backend"
	"github.com/goodput-dev/goodput/metrics"
	"github.com/goodput-dev/goodput/sim"
	"github.com/goodput-dev/goodput/vllmresult"
	"github.com/goodput-dev/goodput/workload"
)

// seen is one request the recording server got.
type seen struct {
	path, requestID string
	body            map[string]any
}

// recordingServer serves the simulator and keeps every request it gets.
// A request for a model named lora-* is answered by the simulator's
// model, as a server with those adapters loaded would.
type recordingServer struct {
	mu   sync.Mutex // guards reqs
	reqs []seen
	url  string
}

func newRecordingServer(t *testing.T) *recordingServer {
	t.Helper()
	srv, err := sim.New(sim.Options{Seed: 4})
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	rs := &recordingServer{}
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		var body map[string]any
		_ = json.Unmarshal(b, &body)
		rs.mu.Lock()
		rs.reqs = append(rs.reqs, seen{path: r.URL.Path, requestID: r.Header.Get("X-Request-Id"), body: body})
		rs.mu.Unlock()
		if m, _ := body["model"].(string); strings.HasPrefix(m, "lora-") {
			served := maps.Clone(body)
			served["model"] = "Llama-3.1-8B"
			b, _ = json.Marshal(served)
		}
		if r.URL.Path == "/start_profile" || r.URL.Path == "/stop_profile" {
			w.WriteHeader(http.StatusOK)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(b))
		srv.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	rs.url = ts.URL
	return rs
}

// generations returns the completion requests, in arrival order.
func (rs *recordingServer) generations() []seen {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	var out []seen
	for _, r := range rs.reqs {
		if r.path == "/v1/completions" || r.path == "/v1/chat/completions" {
			out = append(out, r)
		}
	}
	return out
}

func (rs *recordingServer) paths() []string {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	var out []string
	for _, r := range rs.reqs {
		out = append(out, r.path)
	}
	return out
}

func ptrTo[T any](v T) *T { return &v }

func TestRunSendsVLLMsRequestOptions(t *testing.T) {
	rs := newRecordingServer(t)
	cfg := smallConfig(t, rs.url)
	cfg.Arrival.NumPrompts, cfg.Warmups, cfg.Arrival.MaxConcurrency = 6, 0, 1
	cfg.Request = RequestOptions{
		Sampling:        backend.Sampling{Temperature: ptrTo(0.0), TopK: ptrTo(5)},
		Logprobs:        ptrTo(2),
		RequestIDPrefix: "bench-0a1b2c3d-",
		LoRA:            []string{"lora-a", "lora-b"}, LoRARoundRobin: true,
	}
	out, err := Run(t.Context(), cfg, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	gens := rs.generations()
	// The token-id probe comes first; it carries no request id.
	if len(gens) != 7 || gens[0].requestID != "" {
		t.Fatalf("%d generation requests, first id %q", len(gens), gens[0].requestID)
	}
	ids := map[string]bool{}
	for i, g := range gens[1:] {
		ids[g.requestID] = true
		if g.body["temperature"] != 0.0 || g.body["top_k"] != 5.0 || g.body["logprobs"] != 2.0 {
			t.Errorf("request %d body %v", i, g.body)
		}
	}
	for seq := range 6 {
		if !ids["bench-0a1b2c3d-"+strconv.Itoa(seq)] {
			t.Errorf("no request with id bench-0a1b2c3d-%d: %v", seq, ids)
		}
	}
	// Round robin over the adapters by sequence number.
	models := map[string]int{}
	for _, g := range gens[1:] {
		models[g.body["model"].(string)]++
	}
	if models["lora-a"] != 3 || models["lora-b"] != 3 {
		t.Errorf("models %v", models)
	}
	// Each record keeps its request id.
	recs, _, _ := readRecords(t, out.RecordsPath)
	for _, r := range recs {
		if want := "bench-0a1b2c3d-" + strconv.FormatInt(r.Seq, 10); r.RequestID != want {
			t.Errorf("record %d: id %q, want %q", r.Seq, r.RequestID, want)
		}
	}
}

// A request's x-request-id is the prefix and its sequence number; with
// no prefix there is none, unless BareRequestIDs asks for the number alone
// (vLLM's --request-id-prefix "").
func TestRequestOptionsRequestID(t *testing.T) {
	for _, tt := range []struct {
		name   string
		opts   RequestOptions
		seq    int64
		wantID string
	}{
		{"prefix", RequestOptions{RequestIDPrefix: "bench-0a1b2c3d-"}, 7, "bench-0a1b2c3d-7"},
		{"no prefix sends none", RequestOptions{}, 7, ""},
		{"bare, the first", RequestOptions{BareRequestIDs: true}, 0, "0"},
		{"bare", RequestOptions{BareRequestIDs: true}, 12, "12"},
		// With a prefix, BareRequestIDs changes nothing.
		{"bare with a prefix", RequestOptions{RequestIDPrefix: "p-", BareRequestIDs: true}, 3, "p-3"},
	} {
		var req backend.Request
		tt.opts.apply(&req, tt.seq, 1)
		if req.RequestID != tt.wantID {
			t.Errorf("%s: id %q, want %q", tt.name, req.RequestID, tt.wantID)
		}
	}
}

// With BareRequestIDs and no prefix, the run's requests carry their
// numbers alone as x-request-id, and their records keep them; the token-id
// probe still carries none.
func TestRunSendsBareRequestIDs(t *testing.T) {
	rs := newRecordingServer(t)
	cfg := smallConfig(t, rs.url)
	cfg.Arrival.NumPrompts, cfg.Warmups = 3, 0
	cfg.Request.BareRequestIDs = true
	out, err := Run(t.Context(), cfg, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, g := range rs.generations() {
		ids = append(ids, g.requestID)
	}
	slices.Sort(ids)
	if want := []string{"", "0", "1", "2"}; !slices.Equal(ids, want) {
		t.Errorf("ids sent %q, want %q (the probe's none, then the run's numbers)", ids, want)
	}
	recs, _, _ := readRecords(t, out.RecordsPath)
	for _, r := range recs {
		if want := strconv.FormatInt(r.Seq, 10); r.RequestID != want {
			t.Errorf("record %d: id %q, want %q", r.Seq, r.RequestID, want)
		}
	}
	if len(recs) != 3 {
		t.Errorf("%d records, want 3", len(recs))
	}
}

func TestRunWarmsUpProfilesAndServesTheName(t *testing.T) {
	rs := newRecordingServer(t)
	cfg := smallConfig(t, rs.url)
	cfg.Arrival.NumPrompts, cfg.Warmups = 3, 0
	cfg.WarmupRequests = 4
	cfg.Profile = true
	cfg.Request.ServedModelName = "lora-served"
	cfg.Request.RequestIDPrefix = "p-"
	out, err := Run(t.Context(), cfg, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	paths := strings.Join(rs.paths(), " ")
	// Readiness, the probe, four warm-ups, the profiler, the run, the profiler.
	if i, j, k := strings.Index(paths, "/start_profile"), strings.LastIndex(paths, "/v1/completions"), strings.Index(paths, "/stop_profile"); i < 0 || k < j {
		t.Errorf("requests in this order: %s", paths)
	}
	gens := rs.generations()
	if len(gens) != 1+4+3 {
		t.Fatalf("%d generation requests, want the probe, 4 warm-ups and 3", len(gens))
	}
	for _, g := range gens[1:5] {
		// A warm-up is the run's first request, without an id.
		if g.requestID != "" || g.body["model"] != "lora-served" {
			t.Errorf("warm-up %q %v", g.requestID, g.body["model"])
		}
	}
	if out.Result.Counts.Total != 3 || out.Result.Counts.WarmupExcluded != 0 {
		t.Errorf("counts %+v: the warm-ups are not the run's", out.Result.Counts)
	}
	notes := strings.Join(out.Notes, "\n")
	for _, want := range []string{"Warm-up: 4 requests sent before the run", "Profiler: POST /start_profile: 200 OK", "Profiler: POST /stop_profile: 200 OK"} {
		if !strings.Contains(notes, want) {
			t.Errorf("notes lack %q:\n%s", want, notes)
		}
	}
}

func TestRunProfilerRefusedIsAWarning(t *testing.T) {
	url := startSim(t, sim.Options{Seed: 5})
	cfg := smallConfig(t, url)
	cfg.Arrival.NumPrompts, cfg.Warmups, cfg.Profile = 2, 0, true
	out, err := Run(t.Context(), cfg, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	w := strings.Join(out.Warnings, "\n")
	if !strings.Contains(w, "profiler refused: POST "+url+"/start_profile: 404") || out.Result.Counts.Completed != 2 {
		t.Errorf("warnings %q, counts %+v", w, out.Result.Counts)
	}
}

// vLLM's result file goes where vLLM writes it, named as vLLM names it,
// with vLLM's ramp and its rate changes.
func TestRunWritesVLLMsFileForARamp(t *testing.T) {
	url := startSim(t, sim.Options{Seed: 6})
	dir := t.TempDir()
	cfg := smallConfig(t, url)
	cfg.VLLMResult, cfg.Warmups = false, 0
	cfg.Arrival = arrival.DefaultConfig()
	cfg.Arrival.NumPrompts = 12
	cfg.Arrival.Ramp = arrival.Ramp{Kind: arrival.RampLinear, From: 10}
	cfg.Arrival.RampEnd = 40
	cfg.VLLMFile = VLLMFile{Save: true, Detailed: true, Dir: dir, Backend: "vllm", NumPrompts: 12,
		Metadata: vllmresult.Object{{Key: "gpu", Value: "sim"}}, Label: "ramp"}
	out, err := Run(t.Context(), cfg, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	name := filepath.Base(out.ResultPath)
	if filepath.Dir(out.ResultPath) != dir || !strings.HasPrefix(name, "ramp-ramp-up-linear-10qps-40qps-Llama-3.1-8B-") {
		t.Fatalf("result file %s", out.ResultPath)
	}
	b, err := os.ReadFile(out.ResultPath)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	if m["ramp_up_strategy"] != "linear" || m["ramp_up_start_rps"] != 10.0 || m["ramp_up_end_rps"] != 40.0 || m["gpu"] != "sim" || m["label"] != "ramp" {
		t.Errorf("ramp keys: %v %v %v %v %v", m["ramp_up_strategy"], m["ramp_up_start_rps"], m["ramp_up_end_rps"], m["gpu"], m["label"])
	}
	ev, _ := m["rps_change_events"].([]any)
	// From 10 to 40 req/s over 12 requests: every whole rate on the way.
	if len(ev) != 31 || ev[0].(map[string]any)["rps"] != 10.0 || ev[30].(map[string]any)["rps"] != 40.0 {
		t.Errorf("%d rps_change_events: %v", len(ev), ev)
	}
	if texts, _ := m["generated_texts"].([]any); len(texts) != 12 || texts[0] == "" {
		t.Errorf("generated_texts %v", texts)
	}
	if out.VLLM == nil || out.VLLM.PeakConcurrentRequests < 1 || out.VLLM.PeakOutputTokensPerSecond < 1 {
		t.Errorf("vLLM's figures %+v", out.VLLM)
	}
	// --append-result adds a line to the file of that name.
	cfg.VLLMFile.Name, cfg.VLLMFile.Append = name, true
	cfg.RunName = "run2"
	if _, err := Run(t.Context(), cfg, nil, false); err != nil {
		t.Fatal(err)
	}
	b, _ = os.ReadFile(out.ResultPath)
	if lines := bytes.Count(b, []byte("\n")); lines != 1 {
		t.Errorf("appended file has %d newlines, want 1 between two results", lines)
	}
}

// --num-prompts -1 sends one request per entry, --no-oversample at most
// that many; prefix_repetition sends what it makes.
func TestRunFitsTheRunToTheDataset(t *testing.T) {
	url := startSim(t, sim.Options{Seed: 7})
	for _, tt := range []struct {
		name string
		edit func(*Config)
		want int64
	}{
		{"every entry", func(c *Config) { c.AllEntries, c.Arrival.NumPrompts = true, 0 }, 4},
		{"no oversampling", func(c *Config) { c.NoOversample, c.Arrival.NumPrompts = true, 9 }, 4},
		{"oversampling", func(c *Config) { c.Arrival.NumPrompts = 6 }, 6},
		{"prefix repetition", func(c *Config) {
			c.Workload.Dataset, c.Workload.Path, c.Arrival.NumPrompts = workload.DatasetPrefixRepetition, "", 7
			c.Workload.PrefixRepetition = workload.PrefixRepetitionConfig{PrefixLen: 8, SuffixLen: 8, NumPrefixes: 3, OutputLen: 4}
		}, 6},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cfg := smallConfig(t, url)
			cfg.Warmups = 0
			cfg.Workload.Dataset, cfg.Workload.Path = workload.DatasetSpecBench, "../workload/testdata/spec_bench_small.jsonl"
			cfg.Workload.SpecBench.OutputLen = 8
			tt.edit(&cfg)
			out, err := Run(t.Context(), cfg, nil, false)
			if err != nil {
				t.Fatal(err)
			}
			if out.Result.Counts.Total != tt.want {
				t.Errorf("%d requests, want %d", out.Result.Counts.Total, tt.want)
			}
		})
	}
}

func TestRPSChanges(t *testing.T) {
	start := time.Date(2026, 11, 29, 8, 0, 0, 0, time.UTC)
	a := arrival.Config{RequestRate: math.Inf(1), Burstiness: 1, NumPrompts: 3, Ramp: arrival.Ramp{Kind: arrival.RampLinear, From: 1}, RampEnd: 3}
	got := rpsChanges(a, []time.Duration{0, time.Second, 2 * time.Second}, start)
	var rps []int
	for _, c := range got {
		rps = append(rps, c.RPS)
	}
	// 1 at the start; request 1 goes at 2 req/s, request 2 at 3.
	if !slices.Equal(rps, []int{1, 2, 3}) || !got[2].At.Equal(start.Add(2*time.Second)) {
		t.Errorf("changes %+v", got)
	}
	if rpsChanges(arrival.Config{RequestRate: 5}, nil, start) != nil {
		t.Error("changes without vLLM's ramp")
	}
}

// A non-streaming run asks for whole answers: one chunk per record, at the
// answer's end, so TTFT is the end-to-end latency, and the summary's notes
// say so. TGI, which only streams, is refused before anything is sent.
func TestRunWithoutStreaming(t *testing.T) {
	rs := newRecordingServer(t)
	cfg := smallConfig(t, rs.url)
	cfg.Arrival.NumPrompts, cfg.Warmups, cfg.NoStream = 4, 0, true
	out, err := Run(t.Context(), cfg, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	for i, g := range rs.generations() {
		if i > 0 && (g.body["stream"] != false || g.body["stream_options"] != nil) {
			t.Errorf("request %d body %v", i, g.body)
		}
	}
	recs, _, _ := readRecords(t, out.RecordsPath)
	if len(recs) != 4 {
		t.Fatalf("%d records", len(recs))
	}
	for _, r := range recs {
		if !r.OK() || len(r.Chunks) != 1 || int(r.Chunks[0].Tokens) != r.OutputTokens || r.OutputTokens == 0 {
			t.Errorf("record %d: %v %s, chunks %v", r.Seq, r.Error, r.Msg, r.Chunks)
			continue
		}
		if r.End != r.Chunks[0].At {
			t.Errorf("record %d: the answer came %d ns before its end; a whole answer arrives as its body ends", r.Seq, r.End-r.Chunks[0].At)
		}
		if !r.Whole {
			t.Errorf("record %d does not say its answer came whole", r.Seq)
		}
	}
	// TPOT and ITL are not measured: left out, not zero, and no SLO on
	// TPOT is met by a zero.
	if l := out.Result.Latency; l.TPOT.Count != 0 || l.ITL.Count != 0 || l.TTFT.Count != 4 || l.TTFT.Mean != l.E2E.Mean {
		t.Errorf("latency: TPOT %d samples, ITL %d, TTFT %d (mean %v, e2e %v); want none, none, 4 equal to e2e",
			l.TPOT.Count, l.ITL.Count, l.TTFT.Count, l.TTFT.Mean, l.E2E.Mean)
	}
	// vLLM's peak counts a whole answer's tokens, not one per answer.
	most := 0
	for _, r := range recs {
		most = max(most, r.OutputTokens)
	}
	if out.VLLM == nil || out.VLLM.PeakOutputTokensPerSecond < float64(most) {
		t.Errorf("vLLM's peak output %+v, want at least one answer's %d tokens", out.VLLM, most)
	}
	if !slices.Contains(out.Notes, NoStreamNote) {
		t.Errorf("notes lack the non-streaming note: %v", out.Notes)
	}
	// One chunk of every token is what a whole answer is, not a count
	// that disagrees with a stream.
	if out.Tokens.Mismatched != 0 || slices.ContainsFunc(out.Warnings, func(w string) bool { return strings.Contains(w, "different token count") }) {
		t.Errorf("token check %+v, warnings %q", out.Tokens, out.Warnings)
	}

	cfg.Backend = "tgi"
	if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), "--stream=false: backend tgi: non-streaming requests are not supported") {
		t.Errorf("tgi: %v", err)
	}
}

// wordTokenizer counts two tokens per word, unlike any server, so that a
// count it made is recognisable; calls counts its uses.
type wordTokenizer struct{ calls atomic.Int64 }

func (w *wordTokenizer) Count(s string) int {
	w.calls.Add(1)
	return 2 * len(strings.Fields(s))
}

// The Tokenizer seam: against a server with no /tokenize, text prompts
// are fitted with it, and without usage reports the output tokens are
// counted from the streamed text with it.
func TestRunCountsWithTheTokenizer(t *testing.T) {
	srv, err := sim.New(sim.Options{Seed: 6})
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

	tok := &wordTokenizer{}
	cfg := smallConfig(t, ts.URL)
	cfg.Arrival.NumPrompts, cfg.Warmups = 4, 0
	cfg.PromptFormat, cfg.Usage, cfg.Tokenizer = PromptText, backend.UsageNone, tok
	out, err := Run(t.Context(), cfg, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.Join(out.Notes, "\n"), "--tokenizer's (the server has no /tokenize)") {
		t.Errorf("notes: %v", out.Notes)
	}
	recs, _, _ := readRecords(t, out.RecordsPath)
	for _, r := range recs {
		// Two per word: more than the chunks, one token each, would say.
		if r.TokenSource != "tokenizer" || r.OutputTokens <= len(r.Chunks) {
			t.Errorf("record %d: %d output tokens from %s over %d chunks", r.Seq, r.OutputTokens, r.TokenSource, len(r.Chunks))
		}
	}
	if tok.calls.Load() == 0 {
		t.Error("the tokenizer was never asked")
	}
}

// Two runs started in the same second share vLLM's default result-file
// name (its date is to the second): the later run's file takes a free
// name, and the earlier one's is kept. A --result-filename given is
// replaced, as vLLM replaces it.
func TestVLLMFileOfRunsStartedTogether(t *testing.T) {
	dir := t.TempDir()
	cfg := DefaultConfig()
	cfg.Arrival.NumPrompts = 1
	cfg.VLLMFile = VLLMFile{Save: true, Dir: dir, Backend: "openai"}
	start := time.Date(2026, 11, 29, 10, 0, 0, 0, time.Local)
	write := func(cfg Config, run string) *Outcome {
		t.Helper()
		cfg.VLLMFile.Metadata = vllmresult.Object{{Key: "run", Value: run}}
		o := &Outcome{Result: &metrics.Result{}}
		if errs := o.writeVLLM(cfg, newVLLMCollector(true, false, 0), "m", start, nil, ""); len(errs) > 0 {
			t.Fatal(errs)
		}
		return o
	}
	a, b := write(cfg, "first"), write(cfg, "second")
	want := filepath.Join(dir, "openai-infqps-m-20261129-100000.json")
	if a.ResultPath != want || b.ResultPath != strings.TrimSuffix(want, ".json")+"-2.json" {
		t.Fatalf("files %s and %s, want %s and its -2", a.ResultPath, b.ResultPath, want)
	}
	if !strings.Contains(readFile(t, a.ResultPath), `"run": "first"`) || !strings.Contains(readFile(t, b.ResultPath), `"run": "second"`) {
		t.Error("the second run's file replaced the first's")
	}
	cfg.VLLMFile.Name = "fixed.json"
	c, d := write(cfg, "first"), write(cfg, "second")
	if c.ResultPath != d.ResultPath || c.ResultPath != filepath.Join(dir, "fixed.json") {
		t.Errorf("--result-filename: %s then %s, want fixed.json both times", c.ResultPath, d.ResultPath)
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// --result-filename goes in --result-dir, unless it is absolute, when it
// stands alone, as Python's os.path.join makes it in vLLM.
func TestVLLMResultPathOfAnAbsoluteName(t *testing.T) {
	cfg := DefaultConfig()
	cfg.VLLMFile.Dir = "rd"
	for name, want := range map[string]string{"x.json": filepath.Join("rd", "x.json"), "/tmp/out/x.json": "/tmp/out/x.json"} {
		cfg.VLLMFile.Name = name
		if got := VLLMResultPath(cfg, "m", time.Time{}); got != want {
			t.Errorf("--result-filename %s: %s, want %s", name, got, want)
		}
	}
}

// Without --model the requests name the first model's id and vLLM's file
// its root, the weights behind a --served-model-name: vLLM takes the pair
// so, and names its file and model_id by the root.
func TestVLLMFileNamesTheFirstModelsRoot(t *testing.T) {
	llm := &fakeLLM{name: "A"}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v1/models" {
			io.WriteString(w, `{"object":"list","data":[{"id":"served-x","root":"org/root-x"}]}`)
			return
		}
		llm.ServeHTTP(w, r)
	}))
	defer srv.Close()
	cfg := flowConfig(t, srv.URL)
	cfg.Sessions.MultiTurn = false
	cfg.Model = ""
	cfg.VLLMFile.Save = true
	cfg.VLLMFile.Dir = cfg.ResultDir
	out, err := Run(t.Context(), cfg, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	if out.Model != "served-x" || out.ModelID != "org/root-x" || !strings.Contains(filepath.Base(out.ResultPath), "-root-x-") {
		t.Fatalf("model %q, model_id %q, file %s; want served-x, org/root-x and a file named by root-x", out.Model, out.ModelID, out.ResultPath)
	}
	b, err := os.ReadFile(out.ResultPath)
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		ModelID     string `json:"model_id"`
		TokenizerID string `json:"tokenizer_id"`
	}
	if err := json.Unmarshal(b, &f); err != nil || f.ModelID != "org/root-x" || f.TokenizerID != "org/root-x" {
		t.Errorf("model_id %q, tokenizer_id %q (%v); want org/root-x for both", f.ModelID, f.TokenizerID, err)
	}
}

// Every run counts vLLM's two peaks, as vLLM prints them on every run,
// without keeping vLLM's view of each request: an open loop whose first
// request is due after the epoch counts what the records give.
func TestEveryRunCountsVLLMsPeaks(t *testing.T) {
	url := startSim(t, sim.Options{Seed: 3})
	cfg := smallConfig(t, url)
	cfg.VLLMResult, cfg.SaveResult = false, true
	cfg.Arrival.RequestRate, cfg.Arrival.MaxConcurrency, cfg.Arrival.NumPrompts = 40, 0, 30
	out, err := Run(t.Context(), cfg, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	if out.VLLMPath != "" || out.ResultPath != "" {
		t.Fatalf("a plain run wrote vLLM's files: %q %q", out.VLLMPath, out.ResultPath)
	}
	recs, _, _ := readRecords(t, out.RecordsPath)
	var reqs []vllmresult.Request
	for i := range recs {
		if !recs[i].Warmup {
			reqs = append(reqs, vllmresult.FromRecord(&recs[i], false))
		}
	}
	tok, conc := vllmresult.Peaks(reqs)
	if out.VLLM == nil || out.VLLM.PeakOutputTokensPerSecond != tok || out.VLLM.PeakConcurrentRequests != conc {
		t.Fatalf("peaks %+v, the records give %v tokens/s and %d requests", out.VLLM, tok, conc)
	}
	// 26 requests of 16 tokens at 40 req/s over well under two seconds.
	if tok < 16 || conc < 2 {
		t.Errorf("peaks %v tokens/s, %d requests: too few for the run", tok, conc)
	}
	if out.VLLM.RequestGoodput != nil || out.VLLM.Queue != nil {
		t.Errorf("a plain run computed vLLM's per-request figures: %+v", out.VLLM)
	}
}
