package runfile

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/record"
)

const guidellmFixture = "testdata/guidellm_benchmarks.json"

// A report of a sweep holds a run per benchmark: naming the file alone is
// naming none, as a directory of several runs is.
func TestOpenGuideLLMAsksWhichBenchmark(t *testing.T) {
	_, err := Open(guidellmFixture, nil)
	want := "testdata/guidellm_benchmarks.json: several runs (a GuideLLM report of 2 benchmarks: #1 synchronous, #2 constant@4.0): name one, as testdata/guidellm_benchmarks.json#1"
	if err == nil || err.Error() != want {
		t.Errorf("err = %v\nwant %s", err, want)
	}
	if _, err := Open(guidellmFixture+"#3", nil); err == nil || !strings.Contains(err.Error(), "the GuideLLM report holds 2 benchmarks, not 3") {
		t.Errorf("#3: %v", err)
	}
	// A run named in a file of one run is an error, not ignored.
	if _, err := Open("testdata/vllm_detailed.json#1", nil); err == nil || !strings.Contains(err.Error(), "this vllm file holds one run") {
		t.Errorf("vllm#1: %v", err)
	}
}

// Benchmark 2 of the fixture, at a constant 4 req/s from 10 s past the
// hour: r1 due at 10.000 s and sent at 10.002 s, first token at 10.302 s,
// last at 10.602 s over 4 iterations, 7 tokens (the server's usage); r2
// due and sent at 10.25 s, tokens at 10.45 … 10.75 s, 7 iterations of one
// token, 30 of its 50 prompt tokens cached; e1 failed with HTTP 500 at
// 10.52 s; i1 was in flight when the benchmark ended at 11.0 s.
func TestOpenGuideLLMBenchmark(t *testing.T) {
	f, recs := readAll(t, guidellmFixture+"#2")
	h := f.Header()
	if f.Format != "guidellm" || h.Tool != "import: GuideLLM benchmarks report (benchmark 2 of 2, constant@4.0)" || len(recs) != 4 {
		t.Fatalf("format %q, tool %q, %d records", f.Format, h.Tool, len(recs))
	}
	if want := time.Date(2026, 1, 1, 0, 0, 10, 0, time.UTC); !h.Start.Equal(want) {
		t.Errorf("start %v, want %v", h.Start, want)
	}
	var cfg map[string]any
	json.Unmarshal(h.Config, &cfg)
	if cfg["request_rate"] != 4.0 || cfg["model"] != "Qwen/Qwen2.5-7B-Instruct" || cfg["benchmark"] != 2.0 {
		t.Errorf("config %s", h.Config)
	}
	r1, r2, e1, i1 := recs[0], recs[1], recs[2], recs[3]
	// The first iteration is one token; the 6 others share 3 iterations
	// spread evenly up to the last token.
	want1 := []record.Chunk{{At: ms(302), Tokens: 1}, {At: ms(402), Tokens: 2}, {At: ms(502), Tokens: 2}, {At: ms(602), Tokens: 2}}
	if r1.Scheduled != 0 || r1.Sent != ms(2) || r1.End != ms(605) || !reflect.DeepEqual(r1.Chunks, want1) ||
		r1.OutputTokens != 7 || r1.InputTokens != 50 || r1.TokenSource != record.SourceUsage || r1.Status != 200 || r1.CacheReported {
		t.Errorf("r1 = %+v", r1)
	}
	if r2.Scheduled != ms(250) || len(r2.Chunks) != 7 || r2.Chunks[1].At != ms(500) || r2.End != ms(750) ||
		!r2.CacheReported || r2.CachedTokens != 30 {
		t.Errorf("r2 = %+v", r2)
	}
	if e1.Error != record.ErrHTTP || e1.Status != 500 || !strings.HasPrefix(e1.Msg, "HTTPStatusError: Server error '500") || e1.End != ms(520) || len(e1.Chunks) != 0 {
		t.Errorf("e1 = %+v", e1)
	}
	// An incomplete request was canceled when the benchmark ended; it
	// keeps what it received, counted one per iteration (no usage).
	if i1.Error != record.ErrCanceled || i1.End != ms(1000) || len(i1.Chunks) != 3 || i1.OutputTokens != 3 || i1.TokenSource != record.SourceChunks {
		t.Errorf("i1 = %+v", i1)
	}
	notes := f.Notes()
	if len(notes) != 1 || !strings.Contains(notes[0], "the tokens between are spread evenly") {
		t.Errorf("notes %q", notes)
	}
}

// GuideLLM writes its report on one line, or as YAML; both read as the
// indented JSON does.
func TestOpenGuideLLMOneLineAndYAML(t *testing.T) {
	_, want := readAll(t, guidellmFixture+"#1")
	b, err := os.ReadFile(guidellmFixture)
	if err != nil {
		t.Fatal(err)
	}
	var one bytes.Buffer
	if err := json.Compact(&one, b); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "benchmarks.json")
	os.WriteFile(path, one.Bytes(), 0o644)
	if _, got := readAll(t, path+"#1"); !reflect.DeepEqual(got, want) {
		t.Errorf("one line: %+v\nwant %+v", got, want)
	}
	// The YAML holds benchmark 1 alone: no need to name it.
	f, got := readAll(t, "testdata/guidellm_benchmarks.yaml")
	if f.Format != "guidellm" || !reflect.DeepEqual(got, want) {
		t.Errorf("YAML: %+v\nwant %+v", got, want)
	}
	if f.Header().Tool != "import: GuideLLM benchmarks report (synchronous)" {
		t.Errorf("tool %q", f.Header().Tool)
	}
}

// GuideLLM 0.2 kept the times in the request itself and saved a sample of
// the requests: the note says throughput is not the run's.
func TestOpenGuideLLMVersion02(t *testing.T) {
	f, recs := readAll(t, "testdata/guidellm_benchmarks_v0.2.json")
	if len(recs) != 3 {
		t.Fatalf("%d records", len(recs))
	}
	// q1: first token at 250 ms, last at 450 ms, 5 tokens: one every 50 ms.
	q1 := recs[0]
	want := []record.Chunk{{At: ms(250), Tokens: 1}, {At: ms(300), Tokens: 1}, {At: ms(350), Tokens: 1}, {At: ms(400), Tokens: 1}, {At: ms(450), Tokens: 1}}
	if !reflect.DeepEqual(q1.Chunks, want) || q1.End != ms(460) || q1.OutputTokens != 5 || q1.InputTokens != 20 {
		t.Errorf("q1 = %+v", q1)
	}
	if x := recs[2]; x.Error != record.ErrOther || x.Msg != "TimeoutError: the request timed out" || x.Scheduled != ms(800) {
		t.Errorf("x1 = %+v", x)
	}
	var cfg map[string]any
	json.Unmarshal(f.Header().Config, &cfg)
	if cfg["max_concurrency"] != 2.0 || cfg["strategy"] != "concurrent@2" {
		t.Errorf("config %s", f.Header().Config)
	}
	if n := strings.Join(f.Notes(), "\n"); !strings.Contains(n, "GuideLLM kept 3 of the benchmark's 5 requests") {
		t.Errorf("notes %q", n)
	}
}

// guidellmOne writes a report of one benchmark whose requests (0.4
// layout) are given as JSON, and opens it.
func guidellmOne(t *testing.T, sm, successful string) (*File, []record.Record, error) {
	t.Helper()
	body := `{"args":{},"benchmarks":[{"config":{"strategy":{"type_":"synchronous"}},` + sm +
		`"requests":{"successful":[` + successful + `],"incomplete":[],"errored":[]}}]}`
	path := filepath.Join(t.TempDir(), "benchmarks.json")
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := Open(path, nil)
	if err != nil {
		return nil, nil, err
	}
	f.Close()
	_, recs := readAll(t, path)
	return f, recs, nil
}

// guidellmReq is a successful request sent at second s past 2026 with
// its first and last token at first and last seconds.
func guidellmReq(id, s, first, last string) string {
	return `{"request_id":"` + id + `","info":{"timings":{"request_start":17672256` + s + `,"first_token_iteration":17672256` + first +
		`,"last_token_iteration":17672256` + last + `,"token_iterations":2,"request_end":17672256` + last + `}},"prompt_tokens":5,"output_tokens":2}`
}

// The requests GuideLLM left out of its measurement window (warm-up and
// cool-down) stay out of goodput's statistics too.
func TestGuideLLMWarmupAndCooldown(t *testing.T) {
	sm := `"scheduler_metrics":{"request_start_time":1767225600,"measure_start_time":1767225601,"measure_end_time":1767225603,"request_end_time":1767225604},`
	_, recs, err := guidellmOne(t, sm, strings.Join([]string{
		guidellmReq("warm", "00.5", "00.6", "00.7"),
		guidellmReq("in", "01.0", "01.1", "01.2"),
		guidellmReq("cool", "03.5", "03.6", "03.7"),
	}, ","))
	if err != nil {
		t.Fatal(err)
	}
	got := []bool{recs[0].Warmup, recs[1].Warmup, recs[2].Warmup}
	if want := []bool{true, false, true}; !reflect.DeepEqual(got, want) {
		t.Errorf("warm-up %v, want %v", got, want)
	}
}

// A request without the times goodput needs is an error naming the
// benchmark and the request.
func TestGuideLLMErrors(t *testing.T) {
	tests := []struct {
		name, req, want string
	}{
		{"no start", `{"request_id":"a","info":{"timings":{"request_end":1767225600}},"output_tokens":1}`, "benchmark 1, successful request 1 (a): no start time"},
		{"backwards", guidellmReq("b", "01.0", "00.5", "00.6"), `benchmark 1, successful request 1 (b): impossible record: "ct"[0]: chunk at`},
		{"type", `{"request_id":"c","info":{"timings":{"request_start":"soon"}}}`, `benchmark 1: "requests.successful.info.timings.request_start": want a number, got a JSON string`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := guidellmOne(t, "", tt.req)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want %q", err, tt.want)
			}
		})
	}
}

// The layout between 0.2 and 0.4 kept a request's times in
// scheduler_info: request_timings (first_iteration, last_iteration) and
// scheduler_timings (targeted_start), with the iterations beside.
func TestGuideLLMSchedulerInfoLayout(t *testing.T) {
	req := `{"request_id":"m","scheduler_info":{"scheduler_timings":{"targeted_start":1767225600.0},` +
		`"request_timings":{"request_start":1767225600.01,"first_iteration":1767225600.11,"last_iteration":1767225600.31,"request_end":1767225600.32}},` +
		`"iterations":3,"prompt_tokens":9,"output_tokens":5}`
	body := `{"benchmarks":[{"scheduler":{"strategy":{"type_":"poisson","rate":2.5}},"request_totals":{"successful":1,"incomplete":0,"errored":0,"total":1},` +
		`"requests":{"successful":[` + req + `],"incomplete":[],"errored":[]}}]}`
	path := filepath.Join(t.TempDir(), "benchmarks.json")
	os.WriteFile(path, []byte(body), 0o644)
	f, recs := readAll(t, path)
	// 3 iterations from 110 to 310 ms: the first one token, the others 2.
	want := []record.Chunk{{At: ms(110), Tokens: 1}, {At: ms(210), Tokens: 2}, {At: ms(310), Tokens: 2}}
	r := recs[0]
	if r.Scheduled != 0 || r.Sent != ms(10) || r.End != ms(320) || !reflect.DeepEqual(r.Chunks, want) || r.OutputTokens != 5 || r.InputTokens != 9 {
		t.Errorf("record %+v", r)
	}
	if f.Header().Tool != "import: GuideLLM benchmarks report (poisson@2.5)" || len(f.Notes()) != 1 {
		t.Errorf("tool %q, notes %q", f.Header().Tool, f.Notes())
	}
}
