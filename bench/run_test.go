package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/backend"
	"github.com/goodput-dev/goodput/internal/simtest"
	"github.com/goodput-dev/goodput/load"
	"github.com/goodput-dev/goodput/record"
	"github.com/goodput-dev/goodput/sim"
)

func startSim(t *testing.T, opts sim.Options) string {
	t.Helper()
	_, url := simtest.Serve(t, opts)
	return url
}

func smallConfig(t *testing.T, url string) Config {
	cfg := DefaultConfig()
	cfg.BaseURL = url
	cfg.Arrival.NumPrompts = 24
	cfg.Arrival.MaxConcurrency = 6
	cfg.Workload.Random.InputLen = 64
	cfg.Workload.Random.OutputLen = 16
	cfg.Workload.Request.IgnoreEOS = true
	cfg.Warmups = 4
	cfg.ResultDir = t.TempDir()
	cfg.RunName = "run"
	cfg.SaveResult = true
	cfg.VLLMResult = true
	return cfg
}

func readRecords(t *testing.T, path string) ([]record.Record, record.Header, *record.Trailer) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	d := record.NewDecoder(f, path)
	h, err := d.Header()
	if err != nil {
		t.Fatal(err)
	}
	var out []record.Record
	for {
		var r record.Record
		if err := d.Next(&r); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
	tr, ok := d.Trailer()
	if !ok {
		return out, h, nil
	}
	return out, h, &tr
}

func TestRunAgainstSimulator(t *testing.T) {
	url := startSim(t, sim.Options{Seed: 1})
	cfg := smallConfig(t, url)
	out, err := Run(t.Context(), cfg, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	res := out.Result
	// 24 sent, the first 4 are warm-up and excluded.
	if res.Counts.Completed != 20 || res.Counts.Failed != 0 || res.Counts.WarmupExcluded != 4 {
		t.Fatalf("counts = %+v", res.Counts)
	}
	// ignore_eos: exactly 16 output tokens each, counted from usage.
	if res.Tokens.Output != 20*16 || res.TokenSources["usage"] != 20 {
		t.Errorf("tokens = %+v, sources %v", res.Tokens, res.TokenSources)
	}
	if d := res.Latency.TTFT; d.Count != 20 || d.Min <= 0 || d.Max > 5 {
		t.Errorf("TTFT = %+v", d)
	}
	if res.Throughput.OutputTokensPerSecond <= 0 {
		t.Errorf("throughput = %+v", res.Throughput)
	}
	recs, h, tr := readRecords(t, out.RecordsPath)
	if len(recs) != 24 || tr == nil || tr.Records != 24 || tr.Interrupted {
		t.Fatalf("%d records, trailer %+v", len(recs), tr)
	}
	if !strings.Contains(string(h.Config), `"model":"Llama-3.1-8B"`) {
		t.Errorf("header config = %s", h.Config)
	}
	warm := 0
	for _, r := range recs {
		if r.Warmup {
			warm++
			if r.Seq >= 4 {
				t.Errorf("seq %d marked warm-up", r.Seq)
			}
		}
		if !r.OK() || len(r.Chunks) == 0 || r.Chunks[0].At < r.Sent || r.Sent < r.Scheduled {
			t.Errorf("record %d: %+v", r.Seq, r)
		}
	}
	if warm != 4 {
		t.Errorf("%d warm-up records", warm)
	}
	var sum SummaryFile
	b, err := os.ReadFile(out.SummaryPath)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &sum); err != nil {
		t.Fatal(err)
	}
	if sum.Kind != "goodput.summary" || sum.Result.Counts.Completed != 20 || sum.Records != out.RecordsPath {
		t.Errorf("summary = %+v", sum)
	}
	var v map[string]any
	b, _ = os.ReadFile(out.VLLMPath)
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	if n := len(v["ttfts"].([]any)); n != 20 || v["completed"].(float64) != 20 || v["median_ttft_ms"].(float64) <= 0 {
		t.Errorf("vllm result: %d ttfts, completed %v", n, v["completed"])
	}
}

func TestRunInterruptedKeepsWhatItMeasured(t *testing.T) {
	url := startSim(t, sim.Options{Seed: 2})
	cfg := smallConfig(t, url)
	cfg.Arrival.NumPrompts = 100000
	cfg.Arrival.MaxConcurrency = 4
	cfg.Grace = 200 * time.Millisecond
	ctx, cancel := context.WithTimeout(t.Context(), 700*time.Millisecond)
	defer cancel()
	out, err := Run(ctx, cfg, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	if !out.Run.Interrupted {
		t.Fatal("not interrupted")
	}
	recs, _, tr := readRecords(t, out.RecordsPath)
	if tr == nil || !tr.Interrupted || tr.Records != int64(len(recs)) || len(recs) == 0 {
		t.Fatalf("%d records, trailer %+v", len(recs), tr)
	}
	if int64(len(recs)) != out.Run.Sent {
		t.Errorf("%d records for %d sent", len(recs), out.Run.Sent)
	}
	if got := out.Result.Counts.Total + out.Result.Counts.WarmupExcluded; got != int64(len(recs)) {
		t.Errorf("summary counts %d, file has %d", got, len(recs))
	}
}

func TestRunRejectsBadConfig(t *testing.T) {
	cfg := DefaultConfig()
	cfg.BaseURL = "localhost:8000"
	cfg.Backend = "nope"
	cfg.Warmups, cfg.WarmupRequests = -1, -2
	_, err := Run(t.Context(), cfg, nil, false)
	for _, want := range []string{"--base-url \"localhost:8000\"", "--backend", "--warmup-first must be ≥ 0, got -1", "--num-warmups must be ≥ 0, got -2"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("err = %v, want it to mention %s", err, want)
		}
	}
}

func TestRunServerDown(t *testing.T) {
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	url := "http://" + ln.Addr().String()
	ln.Close()
	cfg := smallConfig(t, url)
	_, err := Run(t.Context(), cfg, nil, false)
	if err == nil || !strings.Contains(err.Error(), "is not ready") || !strings.Contains(err.Error(), url) {
		t.Errorf("err = %v", err)
	}
}

// A gateway that forwards only the generation endpoint answers /health and
// /v1/models with 404: it is up, and the run goes ahead with a note. A
// server that answers them with an error status is not ready.
func TestRunWithoutReadinessRoutes(t *testing.T) {
	srv, err := sim.New(sim.Options{Seed: 8})
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	var status atomic.Int64
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/completions" {
			http.Error(w, "no route", int(status.Load()))
			return
		}
		srv.ServeHTTP(w, r)
	}))
	defer ts.Close()

	status.Store(http.StatusNotFound)
	cfg := smallConfig(t, ts.URL)
	cfg.Model = "Llama-3.1-8B" // the simulator's; /v1/models cannot tell it
	cfg.Arrival.NumPrompts, cfg.Warmups = 4, 0
	out, err := Run(t.Context(), cfg, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	if out.Result.Counts.Completed != 4 || !slices.Contains(out.Notes, "server has neither /health nor /v1/models: its readiness was not checked") {
		t.Errorf("counts %+v, want 4 completed; notes %q", out.Result.Counts, out.Notes)
	}

	status.Store(http.StatusServiceUnavailable)
	cfg.ResultDir = t.TempDir()
	_, err = Run(t.Context(), cfg, nil, false)
	if err == nil || !strings.Contains(err.Error(), "is not ready") || !strings.Contains(err.Error(), "503") {
		t.Errorf("503 on both routes: err = %v, want not ready", err)
	}
}

// A model the server does not have fails the first request, before the
// run: every request of it would fail the same way.
func TestRunRefusedModelFailsBeforeTheRun(t *testing.T) {
	url := startSim(t, sim.Options{Seed: 9})
	cfg := smallConfig(t, url)
	cfg.Model = "no-such-model"
	out, err := Run(t.Context(), cfg, nil, false)
	if err == nil || !strings.Contains(err.Error(), "does not exist") || !strings.Contains(err.Error(), "check --model") ||
		!strings.Contains(err.Error(), url+"/v1/completions") {
		t.Fatalf("err = %v, want the refusal, its URL and what to check", err)
	}
	if out != nil {
		t.Errorf("an outcome for a run that never started: %+v", out.Run)
	}
}

// Two shards of one schedule, started together at an agreed instant, send
// exactly the unsharded schedule between them, and their records share a
// clock: merged, they are the whole run.
func TestShardsMergeOntoTheAgreedClock(t *testing.T) {
	url := startSim(t, sim.Options{Seed: 4})
	base := smallConfig(t, url)
	base.Warmups = 0
	base.Arrival.MaxConcurrency = 0
	base.Arrival.RequestRate = 40
	base.Arrival.NumPrompts = 16
	base.StartAt = time.Now().Add(700 * time.Millisecond).Round(0).UTC()
	whole, err := base.Arrival.Plan()
	if err != nil {
		t.Fatal(err)
	}
	type result struct {
		out *Outcome
		err error
	}
	results := make(chan result, 2)
	for k := range 2 {
		cfg := base
		cfg.Arrival.Shard, cfg.Arrival.Shards = k, 2
		cfg.RunName = "" // the default names must not collide: same second, same directory
		go func() {
			out, err := Run(t.Context(), cfg, nil, false)
			results <- result{out, err}
		}()
	}
	sched := map[int64]int64{}
	names := map[string]bool{}
	for range 2 {
		r := <-results
		if r.err != nil {
			t.Fatal(r.err)
		}
		names[filepath.Base(r.out.RecordsPath)] = true
		recs, h, _ := readRecords(t, r.out.RecordsPath)
		if !h.Start.Equal(base.StartAt) {
			t.Errorf("header start %v, want the agreed %v", h.Start, base.StartAt)
		}
		// The header says which shard this is, of how big a run, where it
		// ran and how its clock compared with the server's.
		if sh := h.Shard; sh == nil || sh.Count != 2 || sh.Planned != 8 || sh.Total != 16 || sh.Attempt != 0 ||
			!sh.StartAt.Equal(base.StartAt) || !sh.Ready.Before(base.StartAt) || sh.Skipped != 0 {
			t.Errorf("shard header %+v", h.Shard)
		}
		if h.Host == "" || !h.Clock.Measured() || h.Clock.Samples < 1 || h.Clock.Reference != url+"/health" {
			t.Errorf("host %q, clock %+v", h.Host, h.Clock)
		} else if off := time.Duration(h.Clock.Offset); off.Abs() > time.Second+time.Duration(h.Clock.Uncertainty) {
			// The server runs on this machine's clock: offset 0, within the
			// estimate's uncertainty (one sample: about half a second).
			t.Errorf("clock offset %v ± %v from a server on the same clock", off, time.Duration(h.Clock.Uncertainty))
		}
		for _, rec := range recs {
			if _, dup := sched[rec.Seq]; dup {
				t.Errorf("seq %d sent by both shards", rec.Seq)
			}
			sched[rec.Seq] = rec.Scheduled
			if !rec.OK() || rec.Sent < rec.Scheduled {
				t.Errorf("seq %d: %+v", rec.Seq, rec)
			}
		}
	}
	if len(sched) != 16 {
		t.Fatalf("%d distinct requests, want 16", len(sched))
	}
	stem := "goodput-" + base.StartAt.Format("20060102-150405")
	if !names[stem+"-shard0-of-2.jsonl"] || !names[stem+"-shard1-of-2.jsonl"] {
		t.Errorf("records in %v, want %s-shard{0,1}-of-2.jsonl", names, stem)
	}
	for i, off := range whole.Open.Offsets {
		if sched[int64(i)] != int64(off) {
			t.Errorf("seq %d scheduled at %d, the unsharded schedule says %d", i, sched[int64(i)], off)
		}
	}
}

// With --prompt-format auto, random prompts go out as token ids when the
// server takes them, and as text fitted with /tokenize when it does not.
func TestPromptFormatAuto(t *testing.T) {
	srv, err := sim.New(sim.Options{Seed: 6})
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	var sawIDs, sawText atomic.Int64
	var rejectIDs atomic.Bool
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v1/completions" {
			body, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(body))
			if bytes.Contains(body, []byte(`"prompt":[`)) {
				sawIDs.Add(1)
				if rejectIDs.Load() {
					http.Error(w, `{"error":{"message":"prompt must be a string"}}`, http.StatusBadRequest)
					return
				}
			} else {
				sawText.Add(1)
			}
		}
		srv.ServeHTTP(w, r)
	})
	ts := httptest.NewServer(h)
	defer ts.Close()
	for _, reject := range []bool{false, true} {
		rejectIDs.Store(reject)
		sawIDs.Store(0)
		sawText.Store(0)
		cfg := smallConfig(t, ts.URL)
		cfg.Arrival.NumPrompts = 6
		out, err := Run(t.Context(), cfg, nil, false)
		if err != nil {
			t.Fatal(err)
		}
		notes := strings.Join(out.Notes, "\n")
		if out.Result.Counts.Failed != 0 {
			t.Errorf("reject=%v: %d failed", reject, out.Result.Counts.Failed)
		}
		// Ids are said once, in the workload line.
		if !reject && (sawIDs.Load() != 7 || sawText.Load() != 0 || !strings.Contains(notes, "input lengths: exact (token ids)") ||
			strings.Count(notes, "token ids") != 1) {
			t.Errorf("server takes ids: %d id prompts (probe + 6), %d text; notes %q", sawIDs.Load(), sawText.Load(), notes)
		}
		if reject && (sawIDs.Load() != 1 || sawText.Load() != 6 || !strings.Contains(notes, "prompt must be a string") ||
			!strings.Contains(notes, "input lengths: the server's (/tokenize, vLLM dialect)")) {
			t.Errorf("server rejects ids: %d id prompts (the probe only), %d text; notes %q", sawIDs.Load(), sawText.Load(), notes)
		}
	}
}

// A server that answers with more tokens than max_tokens asked for (here
// 20 for 4, by its usage) is reported: its counts are kept, as its own,
// but no server that holds to the limit sends them. A chat request that
// carried the limit only as max_completion_tokens, which some servers do
// not read, is told so, with the flag that sends max_tokens too.
func TestAnswersBeyondMaxTokensAreReported(t *testing.T) {
	const (
		generic = "4 responses carried more output tokens than their max_tokens (the first 20 for 4): the server did not hold to the limit"
		named   = "4 responses carried more output tokens than their max_completion_tokens (the first 20 for 4): the limit was sent as max_completion_tokens, which some servers ignore (Ollama's /v1, older TGI); --max-tokens-field both sends max_tokens too"
	)
	tests := []struct {
		name    string
		backend string
		field   backend.MaxTokensField
		extra   string
		sent    map[string]any // the limit fields of the requests' bodies
		warning string
	}{
		{"completions", "openai", backend.LimitMaxCompletionTokens, "", map[string]any{"max_tokens": 4.0}, generic},
		// the default: the field is named
		{"chat", "openai-chat", backend.LimitMaxCompletionTokens, "", map[string]any{"max_completion_tokens": 4.0}, named},
		// max_tokens was sent: the server did not hold to it
		{"chat, both", "openai-chat", backend.LimitBoth, "", map[string]any{"max_completion_tokens": 4.0, "max_tokens": 4.0}, generic},
		{"chat, max_tokens", "openai-chat", backend.LimitMaxTokens, "", map[string]any{"max_tokens": 4.0}, generic},
		// max_tokens sent by --extra-body counts as sent
		{"chat, max_tokens in --extra-body", "openai-chat", backend.LimitMaxCompletionTokens, `{"max_tokens": 4}`, map[string]any{"max_completion_tokens": 4.0, "max_tokens": 4.0}, generic},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var mu sync.Mutex // guards bodies
			var bodies []map[string]any
			ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				switch r.URL.Path {
				case "/v1/models":
					io.WriteString(w, `{"data":[{"id":"m"}]}`)
				case "/v1/completions", "/v1/chat/completions":
					var body map[string]any
					json.NewDecoder(r.Body).Decode(&body)
					mu.Lock()
					bodies = append(bodies, body)
					mu.Unlock()
					w.Header().Set("Content-Type", "text/event-stream")
					chunk := `data: {"choices":[{"index":0,"text":"a","finish_reason":null}]}`
					if r.URL.Path == "/v1/chat/completions" {
						chunk = `data: {"choices":[{"index":0,"delta":{"content":"a"},"finish_reason":null}]}`
					}
					for range 4 {
						io.WriteString(w, chunk+"\n\n")
					}
					io.WriteString(w, `data: {"choices":[{"index":0,"text":"","finish_reason":"length"}],"usage":{"prompt_tokens":8,"completion_tokens":20}}`+"\n\ndata: [DONE]\n\n")
				default:
					http.NotFound(w, r)
				}
			}))
			defer ts.Close()
			cfg := smallConfig(t, ts.URL)
			cfg.Backend, cfg.MaxTokensField = tt.backend, tt.field
			if tt.extra != "" {
				var err error
				if cfg.Extra, err = backend.ParseExtra(tt.extra); err != nil {
					t.Fatal(err)
				}
			}
			cfg.Arrival.NumPrompts, cfg.Warmups = 4, 0
			cfg.Workload.Random.OutputLen = 4
			cfg.NoServerMetrics = true
			out, err := Run(t.Context(), cfg, nil, false)
			if err != nil {
				t.Fatal(err)
			}
			if out.Tokens.OverLimit != 4 || !slices.ContainsFunc(out.Warnings, func(w string) bool { return strings.HasPrefix(w, tt.warning) }) {
				t.Errorf("token check %+v, warnings %q; want one starting %q", out.Tokens, out.Warnings, tt.warning)
			}
			mu.Lock()
			defer mu.Unlock()
			measured := 0
			for _, b := range bodies {
				got := map[string]any{}
				for _, k := range []string{"max_tokens", "max_completion_tokens"} {
					if v, ok := b[k]; ok {
						got[k] = v
					}
				}
				if got["max_tokens"] == 1.0 || got["max_completion_tokens"] == 1.0 {
					continue // the one-token probe before the run
				}
				measured++
				if !reflect.DeepEqual(got, tt.sent) {
					t.Errorf("limit fields sent %v, want %v", got, tt.sent)
				}
			}
			if measured != 4 {
				t.Errorf("%d measured requests of %d, want 4", measured, len(bodies))
			}
		})
	}
}

// Answers that a server ends before their max_tokens are counted: a
// warning when ignore_eos was sent, a note when the server was left to end
// them. Here every other request of 16 tokens stops after 2 with finish
// reason "stop".
func TestAnswersThatStopEarlyAreReported(t *testing.T) {
	var n atomic.Int64
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/completions" {
			http.NotFound(w, r)
			return
		}
		var body struct {
			MaxTokens int `json:"max_tokens"`
		}
		json.NewDecoder(r.Body).Decode(&body)
		tokens, finish := body.MaxTokens, "length"
		if body.MaxTokens > 1 && n.Add(1)%2 == 0 {
			tokens, finish = 2, "stop"
		}
		w.Header().Set("Content-Type", "text/event-stream")
		for range tokens {
			io.WriteString(w, `data: {"choices":[{"index":0,"text":"a","finish_reason":null}]}`+"\n\n")
		}
		fmt.Fprintf(w, `data: {"choices":[{"index":0,"text":"","finish_reason":%q}],"usage":{"prompt_tokens":8,"completion_tokens":%d}}`+"\n\ndata: [DONE]\n\n", finish, tokens)
	}))
	defer ts.Close()
	for _, ignoreEOS := range []bool{false, true} {
		cfg := smallConfig(t, ts.URL)
		cfg.Backend, cfg.Model, cfg.NoServerMetrics = "openai", "m", true
		cfg.Arrival.NumPrompts, cfg.Arrival.MaxConcurrency, cfg.Warmups = 8, 1, 0
		cfg.Workload.Request.IgnoreEOS = ignoreEOS
		out, err := Run(t.Context(), cfg, nil, false)
		if err != nil {
			t.Fatal(err)
		}
		want := load.TokenCheck{Limited: 8, LimitedOutput: 4*16 + 4*2, LimitedAsked: 8 * 16, EndedEarly: 4}
		got := out.Tokens
		if got.Limited != want.Limited || got.LimitedOutput != want.LimitedOutput || got.LimitedAsked != want.LimitedAsked || got.EndedEarly != want.EndedEarly {
			t.Errorf("ignore_eos %v: token check %+v, want %+v", ignoreEOS, got, want)
		}
		const head = `4 of 8 answers ended before their max_tokens (finish reason "stop"; 72 of the 128 output tokens asked for came): `
		warned := slices.ContainsFunc(out.Warnings, func(w string) bool { return strings.HasPrefix(w, head+"ignore_eos was sent") })
		noted := slices.ContainsFunc(out.Findings, func(n string) bool { return strings.HasPrefix(n, "Output lengths: "+head) })
		if warned != ignoreEOS || noted == ignoreEOS {
			t.Errorf("ignore_eos %v: warnings %q, findings %q; want a warning with ignore_eos, a finding without", ignoreEOS, out.Warnings, out.Findings)
		}
	}
}

// A password in --base-url stays out of what the run prints and saves.
func TestBaseURLPasswordIsMasked(t *testing.T) {
	url := startSim(t, sim.Options{Seed: 12})
	cfg := smallConfig(t, strings.Replace(url, "http://", "http://user:s3cret@", 1))
	cfg.Arrival.NumPrompts, cfg.Warmups = 3, 0
	out, err := Run(t.Context(), cfg, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Join(out.Notes, "\n"); strings.Contains(n, "s3cret") || !strings.Contains(n, "user:xxxxx@") {
		t.Errorf("notes: %s", n)
	}
	files, _ := filepath.Glob(filepath.Join(cfg.ResultDir, "*"))
	if len(files) < 3 {
		t.Fatalf("files %v", files)
	}
	for _, f := range files {
		if b, _ := os.ReadFile(f); strings.Contains(string(b), "s3cret") {
			t.Errorf("%s holds the password", f)
		}
	}
}
