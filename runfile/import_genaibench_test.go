package runfile

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/goodput-dev/goodput/record"
)

const genaiBenchFixture = "testdata/genai-bench/D100_100_text-to-text_num_concurrency_2_time_3s.json"

// evenlyEvery returns n one-token chunks from first, step apart (ms).
func evenlyEvery(first, step float64, n int) []record.Chunk {
	cs := make([]record.Chunk, n)
	for i := range cs {
		cs[i] = record.Chunk{At: ms(first + step*float64(i)), Tokens: 1}
	}
	return cs
}

// The fixture is a run of scenario D(100,100) at concurrency 2 that lasted
// 3.25 s, its six requests in the order they finished:
//
//	r1 ttft 0.2125 s, e2e 1.2125 s, 11 tokens out, 100 in: tpot 0.1 s
//	r2 ttft 0.3375 s, e2e 0.5875 s,  6 tokens out, 120 in: tpot 0.05 s
//	r3 HTTP 429
//	r4 ttft 0.25 s,   e2e 1.45 s,    9 tokens out,  80 in: tpot 0.15 s
//	r5 503 that genai-bench gave a failed connection;  r6 HTTP 500
//
// The file holds no send time: every request starts at 0, its first
// token at its ttft, its other tokens spread evenly up to its e2e, so
// that TPOT is genai-bench's (e2e − ttft) / (tokens − 1).
func TestOpenGenAIBenchResult(t *testing.T) {
	f, recs := readAll(t, genaiBenchFixture)
	h := f.Header()
	if f.Format != "genai-bench" || h.Tool != "import: genai-bench result (D(100,100), concurrency 2)" || len(recs) != 6 {
		t.Fatalf("format %q, tool %q, %d records", f.Format, h.Tool, len(recs))
	}
	if h.Window != ms(3250) || !h.Start.IsZero() {
		t.Errorf("window %d ns, start %v: want genai-bench's run_duration, 3.25 s, and no wall clock", h.Window, h.Start)
	}
	var cfg map[string]any
	json.Unmarshal(h.Config, &cfg)
	if !reflect.DeepEqual(cfg, map[string]any{"scenario": "D(100,100)", "max_concurrency": 2.0}) {
		t.Errorf("config %s", h.Config)
	}
	ok := []struct {
		i               int
		ttft, e2e, tpot float64 // ms
		out, in         int
		wantChunks      []record.Chunk
	}{
		{0, 212.5, 1212.5, 100, 11, 100, evenlyEvery(212.5, 100, 11)},
		{1, 337.5, 587.5, 50, 6, 120, evenlyEvery(337.5, 50, 6)},
		{3, 250, 1450, 150, 9, 80, evenlyEvery(250, 150, 9)},
	}
	for _, w := range ok {
		r := recs[w.i]
		first, last := r.Chunks[0].At, r.Chunks[len(r.Chunks)-1].At
		tpot := (last - first) / int64(r.OutputTokens-1)
		if r.Seq != int64(w.i) || r.Scheduled != 0 || r.Sent != 0 || first != ms(w.ttft) || last != ms(w.e2e) || r.End != ms(w.e2e) || tpot != ms(w.tpot) {
			t.Errorf("request %d: seq %d, s %d, t0 %d, first token %d, last %d, end %d, tpot %d; want ttft %v ms, e2e %v ms, tpot %v ms",
				w.i, r.Seq, r.Scheduled, r.Sent, first, last, r.End, tpot, w.ttft, w.e2e, w.tpot)
		}
		if !reflect.DeepEqual(r.Chunks, w.wantChunks) || r.OutputTokens != w.out || r.InputTokens != w.in ||
			r.TokenSource != record.SourceUsage || r.Status != 200 || !r.OK() {
			t.Errorf("request %d = %+v", w.i, r)
		}
	}
	failed := []struct {
		i      int
		kind   record.ErrorKind
		status int
		msg    string
	}{
		{2, record.ErrRateLimited, 429, `{"object":"error","message":"the server is busy, try again later"`},
		// genai-bench's 503 for a connection that never answered is no
		// server's 503.
		{4, record.ErrConnect, 0, "Connection error: ('Connection aborted.'"},
		{5, record.ErrHTTP, 500, "Internal Server Error"},
	}
	for _, w := range failed {
		r := recs[w.i]
		if r.Error != w.kind || r.Status != w.status || !strings.HasPrefix(r.Msg, w.msg) || len(r.Chunks) != 0 || r.End != 0 || r.OutputTokens != 0 {
			t.Errorf("request %d = %+v, want %s, status %d", w.i, r, w.kind, w.status)
		}
	}
	notes := f.Notes()
	if len(notes) != 2 || !strings.Contains(notes[0], "every request is placed at the run's start") ||
		!strings.Contains(notes[0], "the window is genai-bench's run duration, 3.25 s") ||
		!strings.Contains(notes[1], "the tokens between are spread evenly") {
		t.Errorf("notes %q", notes)
	}
}

// genaiBenchDoc is a genai-bench result of the given aggregated metrics,
// requests and top-level extras.
func genaiBenchDoc(agg, reqs, extra string) string {
	return `{"aggregated_metrics": {` + agg + `}, "individual_request_metrics": [` + reqs + `]` + extra + `}`
}

// openDoc writes doc to a file and opens it.
func openDoc(t *testing.T, doc string) (*File, []record.Record, error) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "run.json")
	if err := os.WriteFile(path, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := Open(path, nil)
	if err != nil {
		return nil, nil, err
	}
	_, recs := readAll(t, path)
	f.Close()
	return f, recs, nil
}

// The layouts and cases genai-bench writes beside the fixture's.
func TestOpenGenAIBenchVariants(t *testing.T) {
	tests := []struct {
		name   string
		doc    string
		window int64 // ns
		tool   string
		want   record.Record // its Seq is 0
	}{
		{
			// --metrics-time-unit ms writes the latencies in ms; the
			// run's duration stays in seconds.
			"milliseconds",
			genaiBenchDoc(`"scenario": "D(10,3)", "num_concurrency": 1, "run_duration": 2`,
				`{"ttft": 212.5, "tpot": 500.0, "e2e_latency": 1212.5, "num_input_tokens": 10, "num_output_tokens": 3, "error_code": null, "error_message": null}`,
				`, "_time_unit": "ms"`),
			ms(2000), "import: genai-bench result (D(10,3), concurrency 1)",
			record.Record{End: ms(1212.5), Chunks: evenlyEvery(212.5, 500, 3), InputTokens: 10, OutputTokens: 3, TokenSource: record.SourceUsage, Status: 200},
		},
		{
			// The earliest layout: seconds, no "_time_unit", and no
			// run_duration but 2 completions at 40 a minute: 3 s.
			"earliest layout",
			genaiBenchDoc(`"scenario": "D(100,100)", "num_concurrency": 1, "requests_per_minute": 40, "num_completed_requests": 2`,
				`{"ttft": 0.1, "e2e_latency": 0.4, "num_input_tokens": 5, "num_output_tokens": 4}`, ""),
			ms(3000), "import: genai-bench result (D(100,100), concurrency 1)",
			record.Record{End: ms(400), Chunks: evenlyEvery(100, 100, 4), InputTokens: 5, OutputTokens: 4, TokenSource: record.SourceUsage, Status: 200},
		},
		{
			// One token: genai-bench's tpot is null; the token is at
			// ttft and the stream's end stays the end.
			"one token",
			genaiBenchDoc(`"run_duration": 1`, `{"ttft": 0.1, "tpot": null, "e2e_latency": 0.3, "num_input_tokens": 5, "num_output_tokens": 1}`, ""),
			ms(1000), "import: genai-bench result (unnamed scenario)",
			record.Record{End: ms(300), Chunks: []record.Chunk{{At: ms(100), Tokens: 1}}, InputTokens: 5, OutputTokens: 1, TokenSource: record.SourceUsage, Status: 200},
		},
		{
			// genai-bench's filter nulls the tpot of an output under
			// 10 ms: the record's TPOT is still the request's own.
			"filtered tpot",
			genaiBenchDoc(`"run_duration": 1`, `{"ttft": 0.1, "tpot": null, "output_inference_speed": null, "e2e_latency": 0.105, "num_input_tokens": 5, "num_output_tokens": 6}`, ""),
			ms(1000), "import: genai-bench result (unnamed scenario)",
			record.Record{End: ms(105), Chunks: evenlyEvery(100, 1, 6), InputTokens: 5, OutputTokens: 6, TokenSource: record.SourceUsage, Status: 200},
		},
		{
			// An embeddings run has no output: a success without a token.
			"embeddings",
			genaiBenchDoc(`"run_duration": 1, "batch_size": 8, "iteration_type": "batch_size"`,
				`{"ttft": 0.2, "tpot": 0, "e2e_latency": 0.2, "num_input_tokens": 800, "num_output_tokens": 0}`, ""),
			ms(1000), "import: genai-bench result (unnamed scenario, batch size 8)",
			record.Record{End: ms(200), InputTokens: 800, TokenSource: record.SourceUsage, Status: 200},
		},
		{
			// An open-loop run's num_concurrency is its request rate.
			"open loop",
			genaiBenchDoc(`"scenario": "D(1,1)", "num_concurrency": 2.5, "run_duration": 4, "total_arrivals": 10, "arrival_requests_per_second": 2.5`,
				`{"ttft": 0.1, "e2e_latency": 0.1, "num_input_tokens": 1, "num_output_tokens": 1}`, ""),
			ms(4000), "import: genai-bench result (D(1,1), 2.5 req/s)",
			record.Record{End: ms(100), Chunks: []record.Chunk{{At: ms(100), Tokens: 1}}, InputTokens: 1, OutputTokens: 1, TokenSource: record.SourceUsage, Status: 200},
		},
		{
			// An error the server sent in a 200 stream without a code.
			"stream error",
			genaiBenchDoc(`"run_duration": 1`, `{"ttft": null, "error_code": -1, "error_message": "out of memory"}`, ""),
			ms(1000), "import: genai-bench result (unnamed scenario)",
			record.Record{Error: record.ErrStream, Status: 200, Msg: "out of memory"},
		},
		{
			// genai-bench's 408 for its own timeout.
			"timeout",
			genaiBenchDoc(`"run_duration": 1`, `{"error_code": 408, "error_message": "Request timed out: read timeout=600"}`, ""),
			ms(1000), "import: genai-bench result (unnamed scenario)",
			record.Record{Error: record.ErrTimeout, Msg: "Request timed out: read timeout=600"},
		},
		{
			// A code of 0 is no failure to genai-bench.
			"error code 0",
			genaiBenchDoc(`"run_duration": 1`, `{"ttft": 0.5, "e2e_latency": 0.5, "num_output_tokens": 1, "error_code": 0, "error_message": ""}`, ""),
			ms(1000), "import: genai-bench result (unnamed scenario)",
			record.Record{End: ms(500), Chunks: []record.Chunk{{At: ms(500), Tokens: 1}}, OutputTokens: 1, TokenSource: record.SourceUsage, Status: 200},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, recs, err := openDoc(t, tt.doc)
			if err != nil {
				t.Fatal(err)
			}
			if h := f.Header(); h.Window != tt.window || h.Tool != tt.tool {
				t.Errorf("window %d, tool %q; want %d, %q", h.Window, h.Tool, tt.window, tt.tool)
			}
			if len(recs) != 1 || !reflect.DeepEqual(recs[0], tt.want) {
				t.Errorf("records %+v\nwant %+v", recs, tt.want)
			}
		})
	}
}

// A damaged file is an error that names the file and what is wrong.
func TestOpenGenAIBenchDamaged(t *testing.T) {
	b, err := os.ReadFile(genaiBenchFixture)
	if err != nil {
		t.Fatal(err)
	}
	fixture := string(b)
	ok := `{"ttft": 0.2, "e2e_latency": 0.5, "num_input_tokens": 1, "num_output_tokens": 2}`
	tests := []struct {
		name, doc, want string
	}{
		{"cut short", fixture[:len(fixture)/2], "genai-bench result: the file is cut short (unexpected end of JSON input)"},
		// Line 7 of the fixture is "run_duration": 3.25,
		{"syntax error", strings.Replace(fixture, `"run_duration": 3.25`, `"run_duration": 3..25`, 1), "genai-bench result: line 7, column 27: invalid character '.' after decimal point in numeric literal"},
		{"no requests", `{"aggregated_metrics": {"run_duration": 1}}`, `a genai-bench result without "individual_request_metrics"`},
		{"no aggregated metrics", `{"individual_request_metrics": [` + ok + `]}`, `without "aggregated_metrics": the run's length is unknown`},
		{"no run duration", genaiBenchDoc(`"run_duration": 0`, ok, ""), `aggregated_metrics: no "run_duration" (or it is 0`},
		{"unknown time unit", genaiBenchDoc(`"run_duration": 1`, ok, `, "_time_unit": "us"`), `"_time_unit" "us": want "s" or "ms"`},
		{"ttft a string", genaiBenchDoc(`"run_duration": 1`, `{"ttft": "0.2"}`, ""), `"individual_request_metrics.ttft": want a number, got a JSON string`},
		{"no ttft", genaiBenchDoc(`"run_duration": 1`, ok+`, {"e2e_latency": 0.5, "num_output_tokens": 2}`, ""), `individual_request_metrics[1]: "ttft" is missing`},
		{"NaN ttft", genaiBenchDoc(`"run_duration": 1`, `{"ttft": NaN, "e2e_latency": 0.5, "num_output_tokens": 2}`, ""), `individual_request_metrics[0]: "ttft" is NaN`},
		{"negative ttft", genaiBenchDoc(`"run_duration": 1`, `{"ttft": -0.1, "e2e_latency": 0.5, "num_output_tokens": 2}`, ""), `"ttft" -0.1 is negative`},
		{"ends before its first token", genaiBenchDoc(`"run_duration": 1`, `{"ttft": 0.2, "e2e_latency": 0.1, "num_output_tokens": 2}`, ""), `individual_request_metrics[0]: "e2e_latency" 0.1 is less than "ttft" 0.2`},
		{"no output count", genaiBenchDoc(`"run_duration": 1`, `{"ttft": 0.2, "e2e_latency": 0.5}`, ""), `a successful request without "num_output_tokens"`},
		{"fractional tokens", genaiBenchDoc(`"run_duration": 1`, `{"ttft": 0.2, "e2e_latency": 0.5, "num_output_tokens": 2.5}`, ""), `"num_output_tokens" = 2.5 is not a count`},
		{"fractional code", genaiBenchDoc(`"run_duration": 1`, `{"error_code": 4.5}`, ""), `"error_code" 4.5 is not a status code`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "run.json")
			os.WriteFile(path, []byte(tt.doc), 0o644)
			f, err := Open(path, nil)
			if err == nil {
				f.Close()
				t.Fatalf("no error, want %q", tt.want)
			}
			if !strings.HasPrefix(err.Error(), path+": ") || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v\nwant %s: …%s", err, path, tt.want)
			}
		})
	}
	// A file of one load is one run: naming a run in it is an error.
	if _, err := Open(genaiBenchFixture+"#1", nil); err == nil || !strings.Contains(err.Error(), "this genai-bench file holds one run") {
		t.Errorf("#1: %v", err)
	}
}

// genai-bench's statistics leave out the requests --warmup-ratio and
// --cooldown-ratio name, which the file does not: a note says its TTFT
// mean is not that of the requests the file holds.
func TestOpenGenAIBenchStatisticsOfFewer(t *testing.T) {
	reqs := `{"ttft": 0.1, "e2e_latency": 0.2, "num_output_tokens": 2}, {"ttft": 0.3, "e2e_latency": 0.4, "num_output_tokens": 2}`
	f, _, err := openDoc(t, genaiBenchDoc(`"run_duration": 1, "stats": {"ttft": {"mean": 0.3}}`, reqs, ""))
	if err != nil {
		t.Fatal(err)
	}
	notes := f.Notes()
	want := "genai-bench's own TTFT mean, 300.00 ms, is not that of the 2 successful requests the file holds, 200.00 ms"
	if len(notes) != 2 || !strings.Contains(notes[1], want) {
		t.Errorf("notes %q\nwant one with %q", notes, want)
	}
	// Where the means agree, nothing is said.
	f, _, err = openDoc(t, genaiBenchDoc(`"run_duration": 1, "stats": {"ttft": {"mean": 0.2}}`, reqs, ""))
	if err != nil {
		t.Fatal(err)
	}
	if notes := f.Notes(); len(notes) != 1 {
		t.Errorf("notes %q, want the placement's alone", notes)
	}
}

// An experiment folder holds a result file per load, named by genai-bench;
// the files beside them (its metadata, plots, sheets) are none.
func TestGenAIBenchRuns(t *testing.T) {
	runs, ok, err := GenAIBenchRuns("testdata/genai-bench")
	if err != nil || !ok || !reflect.DeepEqual(runs, []string{genaiBenchFixture}) {
		t.Errorf("fixture folder: %q, %v, %v", runs, ok, err)
	}
	dir := t.TempDir()
	for _, name := range []string{"experiment_metadata.json", "D100_100_text-to-text_num_concurrency_8_time_60s.json",
		"D100_100_text-to-text_num_concurrency_16_time_61s.json", "qps_text-to-text_request_rate_2.5_time_30s.json",
		"D100_100_text-to-text_summary.xlsx", "debug_for_run_D100_100_8.json"} {
		os.WriteFile(filepath.Join(dir, name), []byte("{}"), 0o644)
	}
	runs, ok, err = GenAIBenchRuns(dir)
	want := []string{filepath.Join(dir, "D100_100_text-to-text_num_concurrency_16_time_61s.json"),
		filepath.Join(dir, "D100_100_text-to-text_num_concurrency_8_time_60s.json"),
		filepath.Join(dir, "qps_text-to-text_request_rate_2.5_time_30s.json")}
	if err != nil || !ok || !reflect.DeepEqual(runs, want) {
		t.Errorf("experiment: %q, %v, %v", runs, ok, err)
	}
	// Another folder, or a file, is no experiment.
	for _, p := range []string{"testdata", genaiBenchFixture, filepath.Join(dir, "missing")} {
		if runs, ok, err := GenAIBenchRuns(p); ok || runs != nil || err != nil {
			t.Errorf("%s: %q, %v, %v", p, runs, ok, err)
		}
	}
}
