package runfile

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/goodput-dev/goodput/record"
)

// The fixture is a run of two stages, with its stage reports beside it.
const (
	ipDir     = "testdata/inferenceperf"
	ipFixture = ipDir + "/per_request_lifecycle_metrics.json"
	ipFlat    = ipDir + "/v0.4_per_request_lifecycle_metrics.json"
)

// A report of several stages holds a run per stage: naming the file
// alone names none, as for a GuideLLM sweep.
func TestOpenInferencePerfAsksWhichStage(t *testing.T) {
	_, err := Open(ipFixture, nil)
	want := ipFixture + ": several runs (an inference-perf run of 2 stages: #1 stage 0 (2 req/s), #2 stage 1 (4 req/s)): name one, as " + ipFixture + "#1"
	if err == nil || err.Error() != want {
		t.Errorf("err = %v\nwant %s", err, want)
	}
	if _, err := Open(ipFixture+"#3", nil); err == nil || err.Error() != ipFixture+"#3: the inference-perf run holds 2 stages, not 3" {
		t.Errorf("#3: %v", err)
	}
}

// Stage 0 of the fixture, at 2 req/s, on perf_counter seconds from
// 45210.0: A sent at 0, chunks at 100, 120 and 160 ms, inference-perf's
// times per token saying the second carried 2 of its 4 tokens (the
// server's usage), ended at 165 ms, 16 of its 20 prompt tokens cached;
// B sent at 500 ms, one token at each of 580, 610, 640, 670 ms, ended at
// 672 ms; C failed with HTTP 503 from 990 to 1000 ms.
func TestOpenInferencePerfStage(t *testing.T) {
	f, recs := readAll(t, ipFixture+"#1")
	h := f.Header()
	if f.Format != "inference-perf" || h.Tool != "import: inference-perf per-request report (stage 0, #1 of 2, 2 req/s)" || len(recs) != 3 {
		t.Fatalf("format %q, tool %q, %d records", f.Format, h.Tool, len(recs))
	}
	// perf_counter has no wall-clock value.
	if !h.Start.IsZero() {
		t.Errorf("start %v, want unknown (zero)", h.Start)
	}
	var cfg map[string]any
	json.Unmarshal(h.Config, &cfg)
	want := map[string]any{"stage": 0.0, "stages": 2.0, "request_rate": 2.0, "model": "meta-llama/Llama-3.1-8B-Instruct"}
	if !reflect.DeepEqual(cfg, want) {
		t.Errorf("config %s", h.Config)
	}
	a, b, c := recs[0], recs[1], recs[2]
	wantA := record.Record{Seq: 0, Scheduled: 0, Sent: 0, End: ms(165),
		Chunks:      []record.Chunk{{At: ms(100), Tokens: 1}, {At: ms(120), Tokens: 2}, {At: ms(160), Tokens: 1}},
		InputTokens: 20, OutputTokens: 4, TokenSource: record.SourceUsage, CachedTokens: 16, CacheReported: true, Status: 200}
	if !reflect.DeepEqual(a, wantA) {
		t.Errorf("A = %+v\nwant %+v", a, wantA)
	}
	wantB := []record.Chunk{{At: ms(580), Tokens: 1}, {At: ms(610), Tokens: 1}, {At: ms(640), Tokens: 1}, {At: ms(670), Tokens: 1}}
	if b.Scheduled != ms(500) || b.Sent != ms(500) || b.End != ms(672) || !reflect.DeepEqual(b.Chunks, wantB) ||
		b.InputTokens != 30 || b.OutputTokens != 4 || b.CacheReported {
		t.Errorf("B = %+v", b)
	}
	if c.Error != record.ErrUnavailable || c.Status != 503 || c.Msg != "HTTP Error 503: The server is overloaded" ||
		c.Sent != ms(990) || c.End != ms(1000) || len(c.Chunks) != 0 || c.OutputTokens != 0 {
		t.Errorf("C = %+v", c)
	}
	notes := f.Notes()
	if len(notes) != 1 || !strings.Contains(notes[0], "inference-perf keeps no time a request was due") {
		t.Errorf("notes %q", notes)
	}
}

// Stage 1, at 4 req/s, from 45213.0: D's three chunks at 50, 75 and
// 100 ms carried 6 tokens by the server's count, but inference-perf's
// times per token account for 5: the 6 are spread over the chunks. E
// timed out, F could not connect, G was rate limited.
func TestOpenInferencePerfSecondStage(t *testing.T) {
	f, recs := readAll(t, ipFixture+"#2")
	if len(recs) != 4 || f.Header().Tool != "import: inference-perf per-request report (stage 1, #2 of 2, 4 req/s)" {
		t.Fatalf("%d records, tool %q", len(recs), f.Header().Tool)
	}
	d := recs[0]
	want := []record.Chunk{{At: ms(50), Tokens: 2}, {At: ms(75), Tokens: 2}, {At: ms(100), Tokens: 2}}
	if d.Sent != 0 || d.End != ms(104) || !reflect.DeepEqual(d.Chunks, want) || d.OutputTokens != 6 || d.TokenSource != record.SourceUsage || d.InputTokens != 25 {
		t.Errorf("D = %+v", d)
	}
	got := [][2]any{}
	for _, r := range recs[1:] {
		got = append(got, [2]any{r.Error, r.Status})
	}
	if w := [][2]any{{record.ErrTimeout, 0}, {record.ErrConnect, 0}, {record.ErrRateLimited, 429}}; !reflect.DeepEqual(got, w) {
		t.Errorf("failures %v, want %v", got, w)
	}
	if e := recs[1]; e.Sent != ms(250) || e.End != ms(1000) || e.Msg != "TimeoutError: Request timed out" {
		t.Errorf("E = %+v", e)
	}
	if g := recs[3]; g.Msg != "HTTP Error 429: Too many requests" {
		t.Errorf("G = %+v", g)
	}
	notes := strings.Join(f.Notes(), "\n")
	if !strings.Contains(notes, "1 request has more output tokens than inference-perf timed: the tokens are spread evenly over the chunks") {
		t.Errorf("notes %q", notes)
	}
}

// The flat layout of v0.1 to v0.4: the tokenizer's counts, one time per
// event read from the stream. P's 4 events carried its 4 tokens; Q's 3
// carried 6, spread 2 each; R failed with HTTP 500. No stage reports lie
// beside the file: it is read as one run, and the notes say so.
func TestOpenInferencePerfFlatLayout(t *testing.T) {
	f, recs := readAll(t, ipFlat)
	if f.Format != "inference-perf" || f.Header().Tool != "import: inference-perf per-request report" || len(recs) != 3 {
		t.Fatalf("format %q, tool %q, %d records", f.Format, f.Header().Tool, len(recs))
	}
	p, q, r := recs[0], recs[1], recs[2]
	wantP := []record.Chunk{{At: ms(200), Tokens: 1}, {At: ms(250), Tokens: 1}, {At: ms(300), Tokens: 1}, {At: ms(350), Tokens: 1}}
	if p.Scheduled != 0 || p.End != ms(351) || !reflect.DeepEqual(p.Chunks, wantP) || p.OutputTokens != 4 || p.TokenSource != record.SourceTokenizer || p.InputTokens != 12 {
		t.Errorf("P = %+v", p)
	}
	wantQ := []record.Chunk{{At: ms(1100), Tokens: 2}, {At: ms(1200), Tokens: 2}, {At: ms(1300), Tokens: 2}}
	if q.Sent != ms(1000) || !reflect.DeepEqual(q.Chunks, wantQ) || q.OutputTokens != 6 {
		t.Errorf("Q = %+v", q)
	}
	if r.Error != record.ErrHTTP || r.Status != 500 || r.Msg != "HTTP Error 500: Internal Server Error" {
		t.Errorf("R = %+v", r)
	}
	notes := strings.Join(f.Notes(), "\n")
	for _, w := range []string{
		"no stage reports (v0.4_stage_N_lifecycle_metrics.json) beside it: its requests are read as one run",
		"inference-perf before v0.5 timed the events it read from the stream",
		"1 request has more output tokens than inference-perf timed",
	} {
		if !strings.Contains(notes, w) {
			t.Errorf("notes lack %q:\n%s", w, notes)
		}
	}
}

// ipWrite writes body as a per-request report in a directory of its own,
// with stage reports of the given counts beside it, and returns its path.
func ipWrite(t *testing.T, body string, counts ...int) string {
	t.Helper()
	dir := t.TempDir()
	for i, n := range counts {
		rep := `{"load_summary": {"count": ` + strconv.Itoa(n) + `, "requested_rate": 1.0}, "successes": {}, "failures": {}}`
		if err := os.WriteFile(filepath.Join(dir, "stage_"+strconv.Itoa(i)+"_lifecycle_metrics.json"), []byte(rep), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(dir, ipPerRequest)
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// ipOK is a successful streamed request of the v0.5 layout, sent at
// start, with one token at each of times, ended at end.
func ipOK(start, end string, times ...string) string {
	ts := strings.Join(times, ", ")
	return `{"start_time": ` + start + `, "end_time": ` + end + `, "info": {"request_metrics": {"text": {"input_tokens": 3}},` +
		` "response_metrics": {"output_tokens": ` + strconv.Itoa(len(times)) + `, "server_usage": null, "chunk_times": [` + ts + `], "output_token_times": [` + ts + `]}}, "error": null}`
}

// An answer not streamed has no token times: it arrives whole at the
// end, as goodput records its own non-streaming requests; an empty one
// has no token at all.
func TestOpenInferencePerfNotStreamed(t *testing.T) {
	whole := `{"start_time": 10.0, "end_time": 10.4, "info": {"request_metrics": {"text": {"input_tokens": 7}},` +
		` "response_metrics": {"output_tokens": 9, "server_usage": {"prompt_tokens": 7, "completion_tokens": 8}}}, "error": null}`
	empty := `{"start_time": 11.0, "end_time": 11.1, "info": {"request_metrics": {"text": {"input_tokens": 7}}, "response_metrics": null}, "error": null}`
	f, recs := readAll(t, ipWrite(t, "["+whole+",\n"+empty+"]"))
	w := recs[0]
	if !reflect.DeepEqual(w.Chunks, []record.Chunk{{At: ms(400), Tokens: 8}}) || w.End != ms(400) || w.OutputTokens != 8 || w.TokenSource != record.SourceUsage {
		t.Errorf("whole = %+v", w)
	}
	if e := recs[1]; len(e.Chunks) != 0 || e.OutputTokens != 0 || e.Error != record.ErrNone {
		t.Errorf("empty = %+v", e)
	}
	if n := strings.Join(f.Notes(), "\n"); !strings.Contains(n, "1 request has no token times (not streamed): the answer counts as arriving whole at the end, so TTFT is the end-to-end latency; TPOT and ITL are not measured") {
		t.Errorf("notes %q", n)
	}
}

// Failures are told by their HTTP status, else by the exception
// inference-perf caught.
func TestInferencePerfErrorKinds(t *testing.T) {
	tests := []struct {
		typ, msg string
		kind     record.ErrorKind
		status   int
		text     string
	}{
		{"HTTP Error 429", `{"error":{"message":"slow down"}}`, record.ErrRateLimited, 429, "HTTP Error 429: slow down"},                               // OpenAI's error body
		{"HTTP Error 503", `{"object":"error","message":"overloaded"}`, record.ErrUnavailable, 503, "HTTP Error 503: overloaded"},                      // vLLM's
		{"HTTP Error 400", "bad prompt", record.ErrHTTP, 400, "HTTP Error 400: bad prompt"},                                                            // a plain body
		{"502 Bad Gateway", "<html>", record.ErrHTTP, 502, "502 Bad Gateway: <html>"},                                                                  // the status line of some versions
		{"TimeoutError", "Request timed out", record.ErrTimeout, 0, "TimeoutError: Request timed out"},                                                 // asyncio's timeout
		{"ServerTimeoutError", "Timeout on reading data from socket", record.ErrTimeout, 0, "ServerTimeoutError: Timeout on reading data from socket"}, // aiohttp's read timeout
		{"ClientConnectorError", "Cannot connect", record.ErrConnect, 0, "ClientConnectorError: Cannot connect"},                                       // refused
		{"ServerDisconnectedError", "Server disconnected", record.ErrReset, 0, "ServerDisconnectedError: Server disconnected"},                         // closed mid-stream
		{"ClientPayloadError", "Response payload is not completed", record.ErrReset, 0, "ClientPayloadError: Response payload is not completed"},
		{"JSONDecodeError", "Expecting value", record.ErrMalformed, 0, "JSONDecodeError: Expecting value"},
		{"CancelledError", "", record.ErrCanceled, 0, "CancelledError"},
		{"KeyError", "'choices'", record.ErrOther, 0, "KeyError: 'choices'"}, // anything else
		{"", "", record.ErrOther, 0, "failed (inference-perf gave no error type)"},
		{"HTTP Error 5030", "", record.ErrOther, 0, "HTTP Error 5030"}, // not a status
	}
	for _, tt := range tests {
		kind, status, text := (&ipError{Type: tt.typ, Msg: tt.msg}).kind()
		if kind != tt.kind || status != tt.status || text != tt.text {
			t.Errorf("%q %q: %q %d %q, want %q %d %q", tt.typ, tt.msg, kind, status, text, tt.kind, tt.status, tt.text)
		}
	}
}

// A damaged report is an error that names the file, the line the request
// begins on, and what is wrong; never a panic, never a record that could
// not be.
func TestInferencePerfDamaged(t *testing.T) {
	b, err := os.ReadFile(ipFixture)
	if err != nil {
		t.Fatal(err)
	}
	fixture := string(b)
	tests := []struct {
		name, body, want string
	}{
		{"cut short", fixture[:3000], ":93: request 3: the file is cut short (unexpected end of JSON input)"},
		{"not closed", "[" + ipOK("1", "2", "1.5"), ": inference-perf per-request report: the file is cut short"},
		{"a string for a time", strings.Replace(fixture, `"start_time": 45210.5,`, `"start_time": "soon",`, 1), `:48: request 2: "start_time": want a number, got a JSON string`},
		{"Python's NaN", strings.Replace(fixture, `"start_time": 45210.5,`, `"start_time": NaN,`, 1), `:48: request 2: "start_time" is NaN`},
		{"no end", strings.Replace(fixture, `"end_time": 45210.672,`, ``, 1), `:48: request 2: no "end_time"`},
		{"ends before it starts", strings.Replace(fixture, `"end_time": 45210.672,`, `"end_time": 45210.4,`, 1), `:48: request 2: "end_time" 45210.4 s is before "start_time" 45210.5 s: time goes backwards`},
		{"a chunk before the send", strings.Replace(fixture, "45210.58,", "45200.58,", 1), `:48: request 2: "chunk_times"[0] = 45200.58 s is before "start_time" 45210.5 s: time goes backwards`},
		{"a chunk after the end", "[" + ipOK("1", "2", "1.5", "2.5") + "]", `:1: request 1: "chunk_times"[1] = 2.5 s is after "end_time" 2 s`},
		{"chunks out of order", "[" + ipOK("1", "2", "1.6", "1.5") + "]", `:1: request 1: "chunk_times"[1] = 1.5 s is before "chunk_times"[0] 1.6 s`},
		{"a negative count", strings.Replace(fixture, `"input_tokens": 30`, `"input_tokens": -3`, 1), `:48: request 2: "request_metrics.text.input_tokens" = -3 is not a count`},
		{"no info", `[{"start_time": 1, "end_time": 2, "error": null}]`, `:1: request 1: a successful request without "info": the report was written with report.request_lifecycle.per_request_fields.info off`},
		{"no start", `[{"end_time": 2, "info": {}, "error": null}]`, `:1: request 1: no "start_time"`},
		{"not an object", `[{"start_time": 1, "end_time": 2, "info": {}, "error": null}, 7]`, `:1: request 2: want a JSON object, got a JSON number`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := ipWrite(t, tt.body)
			f, err := Open(path, nil)
			if err == nil {
				f.Close()
			}
			if err == nil || !strings.HasPrefix(err.Error(), path) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v\nwant %s…%s", err, path, tt.want)
			}
		})
	}
}

// The stages are cut by the counts of the stage reports, and the cut is
// checked: reports that do not fit the file are not used.
func TestInferencePerfStageReports(t *testing.T) {
	two := "[" + ipOK("1", "1.35", "1.1") + ",\n" + ipOK("1.3", "1.5", "1.4") + ",\n" + ipOK("5", "5.2", "5.1") + "]"
	// Stage 0 holds the first two requests, stage 1 the last.
	_, recs := readAll(t, ipWrite(t, two, 2, 1)+"#2")
	if len(recs) != 1 || recs[0].Chunks[0].At != ms(100) {
		t.Errorf("stage 1 = %+v", recs)
	}
	// A run of one stage needs no #; a concurrent stage says its
	// concurrency.
	path := ipWrite(t, two, 3)
	os.WriteFile(filepath.Join(filepath.Dir(path), "stage_0_lifecycle_metrics.json"),
		[]byte(`{"load_summary": {"count": 3, "requested_rate": 8.0, "concurrency": 8}}`), 0o644)
	f, recs := readAll(t, path)
	if len(recs) != 3 || f.Header().Tool != "import: inference-perf per-request report (stage 0, concurrency 8)" ||
		string(f.Header().Config) != `{"max_concurrency":8,"stage":0,"stages":1}` || len(f.Notes()) != 1 {
		t.Errorf("one stage: %d records, tool %q, config %s, notes %q", len(recs), f.Header().Tool, f.Header().Config, f.Notes())
	}
	tests := []struct {
		name   string
		counts []int
		want   string
	}{
		{"counts that do not add up", []int{2, 2}, "the stage reports beside it (stage_0_lifecycle_metrics.json, stage_1_lifecycle_metrics.json) count 4 requests, but the file holds 3"},
		{"stages that overlap", []int{1, 2}, "stage 0's requests go on after stage 1's first is sent"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := ipWrite(t, two, tt.counts...)
			// Named alone, the file is read as one run, and the note
			// says why.
			f, recs := readAll(t, path)
			if n := strings.Join(f.Notes(), "\n"); len(recs) != 3 || !strings.Contains(n, tt.want) || !strings.Contains(n, "its 3 requests are read as one run") {
				t.Errorf("%d records, notes %q", len(recs), n)
			}
			// A stage cannot be named.
			if _, err := Open(path+"#1", nil); err == nil || !strings.Contains(err.Error(), "#1 names a stage, but the stages cannot be told apart: ") || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("#1: %v", err)
			}
		})
	}
	// A stage report that cannot be read is named.
	path = ipWrite(t, two, 3)
	os.WriteFile(filepath.Join(filepath.Dir(path), "stage_0_lifecycle_metrics.json"), []byte(`{"load_summary": {}}`), 0o644)
	if _, err := Open(path+"#1", nil); err == nil || !strings.Contains(err.Error(), `stage_0_lifecycle_metrics.json has no "load_summary.count"`) {
		t.Errorf("damaged stage report: %v", err)
	}
	// No stage reports: a stage cannot be named either.
	if _, err := Open(ipWrite(t, two)+"#1", nil); err == nil || !strings.Contains(err.Error(), "no stage reports (stage_N_lifecycle_metrics.json) lie beside the file") {
		t.Errorf("no reports: %v", err)
	}
}

// inference-perf names its reports behind the report_file_prefix its
// configuration sets: the stage reports are found behind the same one,
// and reports of other prefixes or kinds beside them are not taken.
func TestInferencePerfReportPrefix(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{ipPerRequest, "stage_0_lifecycle_metrics.json", "stage_1_lifecycle_metrics.json"} {
		b, err := os.ReadFile(filepath.Join(ipDir, name))
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(dir, "run7-"+name), b, 0o644)
	}
	// Neither another prefix's, nor a session report, nor Prometheus's.
	for _, name := range []string{"stage_2_lifecycle_metrics.json", "run7-stage_2_session_lifecycle_metrics.json", "run7-stage_2_prometheus_metrics.json"} {
		os.WriteFile(filepath.Join(dir, name), []byte(`{"load_summary": {"count": 9}}`), 0o644)
	}
	_, want := readAll(t, ipFixture+"#2")
	if _, got := readAll(t, filepath.Join(dir, "run7-"+ipPerRequest)+"#2"); !reflect.DeepEqual(got, want) {
		t.Errorf("behind a prefix: %+v\nwant %+v", got, want)
	}
}

// Saved to a bucket, the report is one line; read from standard input it
// has no stage reports beside it: every request is read, as one run.
func TestInferencePerfOneLineAndStdin(t *testing.T) {
	b, err := os.ReadFile(ipFixture)
	if err != nil {
		t.Fatal(err)
	}
	var one bytes.Buffer
	if err := json.Compact(&one, b); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, name := range []string{"stage_0_lifecycle_metrics.json", "stage_1_lifecycle_metrics.json"} {
		s, _ := os.ReadFile(filepath.Join(ipDir, name))
		os.WriteFile(filepath.Join(dir, name), s, 0o644)
	}
	path := filepath.Join(dir, ipPerRequest)
	os.WriteFile(path, one.Bytes(), 0o644)
	_, want := readAll(t, ipFixture+"#1")
	if _, got := readAll(t, path+"#1"); !reflect.DeepEqual(got, want) {
		t.Errorf("one line: %+v\nwant %+v", got, want)
	}

	f, err := Open("-", bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for r := new(record.Record); f.Next(r) == nil; n++ {
	}
	if notes := strings.Join(f.Notes(), "\n"); n != 7 || !strings.Contains(notes, "-: no stage reports (stage_N_lifecycle_metrics.json) with standard input") {
		t.Errorf("standard input: %d records, notes %q", n, notes)
	}
}

// A summary report holds no requests: it is refused with the name of the
// report that does, not read as a vLLM result that lacks "ttfts".
func TestInferencePerfSummaryRefused(t *testing.T) {
	for _, name := range []string{"stage_0_lifecycle_metrics.json", "summary_lifecycle_metrics.json"} {
		path := filepath.Join(ipDir, name)
		_, err := Open(path, nil)
		want := path + ": an inference-perf summary report (load_summary, successes, failures) holds statistics, not requests: read per_request_lifecycle_metrics.json"
		if err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// The seeds' log, the other JSON array goodput reads, is not taken for
// inference-perf's report, nor the report for it.
func TestInferencePerfTellsArraysApart(t *testing.T) {
	for path, format := range map[string]string{"testdata/seeds_example.json": "seeds", ipFlat: "inference-perf", ipFixture + "#1": "inference-perf"} {
		if f, recs := readAll(t, path); f.Format != format || len(recs) == 0 {
			t.Errorf("%s: format %q, %d records; want %q", path, f.Format, len(recs), format)
		}
	}
	// A file of one run cannot be named as a stage of several.
	if _, err := Open("testdata/seeds_example.json#1", nil); err == nil || !strings.Contains(err.Error(), "this seeds file holds one run") {
		t.Errorf("seeds#1: %v", err)
	}
}

// FuzzOpenInferencePerf feeds any report-shaped bytes to Open: it never
// panics, and every record it yields keeps the invariants.
func FuzzOpenInferencePerf(f *testing.F) {
	for _, name := range []string{ipFixture, ipFlat} {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(`[{"start_time": 1, "end_time": 1e300, "info": {"response_metrics": {"output_tokens": 2147483647, "chunk_times": [], "output_token_times": [1, 1, 1]}}, "error": null}]`))
	f.Add([]byte(`[{"start_time": 1, "end_time": 2, "info": {"output_tokens": 5, "output_token_times": [NaN, -Infinity]}, "error": {"error_type": "HTTP Error 999"}}]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		fl, err := Open("-", bytes.NewReader(data))
		if err != nil {
			return
		}
		defer fl.Close()
		var r record.Record
		for range 10_000 {
			err := fl.Next(&r)
			if err == io.EOF || errors.Is(err, ErrNoRecords) || err != nil {
				return
			}
			if err := r.Check(); err != nil {
				t.Fatalf("a %s reader yielded an impossible record: %v\n%+v", fl.Format, err, r)
			}
		}
	})
}
