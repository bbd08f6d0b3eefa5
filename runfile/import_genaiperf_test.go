package runfile

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/metrics"
	"github.com/goodput-dev/goodput/record"
)

const (
	gpFixture = "testdata/genai-perf/profile_export.json"
	gpSweep   = "testdata/genai-perf/profile_export_sweep.json"
)

// The fixture is one experiment at concurrency 2 of an OpenAI chat
// endpoint, from 10 s past midnight, 1 January 2026 (times below are from
// then):
//
//	A sent at 0; a role-only first chunk at 100 ms; "Hello" at 200 ms,
//	  " world" at 220 ms, "!" and " How" in one response at 260 ms,
//	  " are" split over the responses at 300 and 305 ms; a usage-only
//	  chunk (12 prompt, 5 completion tokens) at 310 ms; [DONE] at 311 ms.
//	B sent at 50 ms; role-only at 150 ms; "Hi" at 250 ms, " there" at
//	  300 ms; a finish-only chunk ("length") at 350 ms; [DONE] at 351 ms;
//	  no usage block.
//	C sent at 100 ms; role-only at 180 ms; an error event (code 400) at 190 ms.
func TestOpenGenAIPerfExport(t *testing.T) {
	f, recs := readAll(t, gpFixture)
	h := f.Header()
	if f.Format != "genai-perf" || h.Tool != "import: GenAI-Perf profile_export.json (concurrency 2)" || len(recs) != 3 {
		t.Fatalf("format %q, tool %q, %d records", f.Format, h.Tool, len(recs))
	}
	if want := time.Date(2026, 1, 1, 0, 0, 10, 0, time.UTC); !h.Start.Equal(want) {
		t.Errorf("start %v, want %v", h.Start, want)
	}
	if h.Window != 0 {
		t.Errorf("window %d: the records' times place them", h.Window)
	}
	var cfg map[string]any
	if err := json.Unmarshal(h.Config, &cfg); err != nil {
		t.Fatal(err)
	}
	wantCfg := map[string]any{"experiment": 1.0, "experiments": 1.0, "load": "concurrency 2", "max_concurrency": 2.0,
		"perf_analyzer_version": "2.45.0", "service_kind": "openai", "endpoint": "v1/chat/completions",
		"model": "llama-3-8b", "max_tokens": 16.0, "measurement_windows": 2.0, "measurement_ns": 1.4e9}
	if !reflect.DeepEqual(cfg, wantCfg) {
		t.Errorf("config %v\nwant   %v", cfg, wantCfg)
	}

	a, b, c := recs[0], recs[1], recs[2]
	// The role-only chunk carries no token; the two events of one
	// response are one chunk of two pieces; the split event counts when
	// its second half arrived. The usage's 5 tokens are the 5 pieces.
	wantA := []record.Chunk{{At: ms(200), Tokens: 1}, {At: ms(220), Tokens: 1}, {At: ms(260), Tokens: 2}, {At: ms(305), Tokens: 1}}
	if a.Seq != 0 || a.Scheduled != 0 || a.Sent != 0 || a.End != ms(311) || !reflect.DeepEqual(a.Chunks, wantA) ||
		a.OutputTokens != 5 || a.TokenSource != record.SourceUsage || a.InputTokens != 12 || a.Finish != "stop" || a.Status != 200 || !a.OK() {
		t.Errorf("A = %+v", a)
	}
	// Without usage, one token per piece; the input is unknown.
	wantB := []record.Chunk{{At: ms(250), Tokens: 1}, {At: ms(300), Tokens: 1}}
	if b.Scheduled != ms(50) || b.Sent != ms(50) || b.End != ms(351) || !reflect.DeepEqual(b.Chunks, wantB) ||
		b.OutputTokens != 2 || b.TokenSource != record.SourceChunks || b.InputTokens != 0 || b.Finish != "length" || !b.OK() {
		t.Errorf("B = %+v", b)
	}
	// An error in the stream, after the 200 that opened it, is a failure
	// of the kind its code names.
	if c.Error != record.ErrHTTP || c.Status != 200 || c.Msg != "invalid_request_error: prompt is too long (code 400)" ||
		c.Sent != ms(100) || c.End != ms(190) || len(c.Chunks) != 0 || c.OutputTokens != 0 {
		t.Errorf("C = %+v", c)
	}
	wantNotes := []string{
		gpFixture + ": GenAI-Perf records when a request was sent, not when it was due: the send stands for both, so TTFT counts from it and a client that fell behind its schedule does not show",
		gpFixture + ": 1 request has no usage block in its response: its output tokens are counted one per piece of text the server sent (GenAI-Perf counts them with its tokenizer, which the file does not keep), so token counts, TPOT, ITL and throughput are approximate",
		gpFixture + ": 1 request has no prompt token count (usage prompt_tokens): the input tokens are unknown and count as 0",
	}
	if got := f.Notes(); !reflect.DeepEqual(got, wantNotes) {
		t.Errorf("notes:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(wantNotes, "\n"))
	}
}

// Request A's figures, by goodput's definitions: TTFT 200 ms (from the
// send, which stands for the due time); TPOT (305 − 200) / (5 − 1) =
// 26.25 ms; the chunk gaps 20, 40 and 45 ms, the 40 ms one closing a
// chunk of 2 tokens, so the per-token ITLs are 20, 20, 20 and 45 ms.
func TestGenAIPerfRequestMetrics(t *testing.T) {
	_, recs := readAll(t, gpFixture)
	a := recs[0]
	q := metrics.Compute(&a)
	if !q.OK || q.TTFT != 200*time.Millisecond || q.TTFTSent != 200*time.Millisecond || q.ClientQueue != 0 ||
		q.TPOT != 26250*time.Microsecond || q.E2E != 305*time.Millisecond || q.OutputTokens != 5 || q.InputTokens != 12 ||
		q.ITLMin != 20*time.Millisecond || q.ITLMax != 45*time.Millisecond ||
		q.ChunkGapMin != 20*time.Millisecond || q.ChunkGapMax != 45*time.Millisecond {
		t.Errorf("A: %+v", q)
	}
	s := metrics.NewSummary(metrics.Options{})
	s.Add(&a)
	l := s.Close().Latency
	if l.ITL.Count != 4 || l.ITL.Mean != 0.02625 || l.InterChunk.Count != 3 || l.InterChunk.Mean != 0.035 {
		t.Errorf("ITL %+v, inter-chunk %+v", l.ITL, l.InterChunk)
	}
}

// Perf Analyzer writes its export on one line; it reads as the indented
// fixture does.
func TestOpenGenAIPerfOneLine(t *testing.T) {
	_, want := readAll(t, gpFixture)
	b, err := os.ReadFile(gpFixture)
	if err != nil {
		t.Fatal(err)
	}
	var one bytes.Buffer
	if err := json.Compact(&one, b); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "profile_export.json")
	if err := os.WriteFile(path, one.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, got := readAll(t, path); !reflect.DeepEqual(got, want) {
		t.Errorf("one line: %+v\nwant %+v", got, want)
	}
	// A file of one experiment may name it, but no other.
	if _, got := readAll(t, gpFixture+"#1"); !reflect.DeepEqual(got, want) {
		t.Errorf("#1: %+v", got)
	}
	if _, err := Open(gpFixture+"#2", nil); err == nil || err.Error() != gpFixture+"#2: the GenAI-Perf profile export holds 1 experiment, not 2" {
		t.Errorf("#2: %v", err)
	}
}

// An export of several experiments (Perf Analyzer's --concurrency-range)
// holds a run per experiment: naming the file alone names none.
func TestOpenGenAIPerfExperiments(t *testing.T) {
	_, err := Open(gpSweep, nil)
	want := gpSweep + ": several runs (a GenAI-Perf profile export of 2 experiments: #1 concurrency 1, #2 request_rate 2.5): name one, as " + gpSweep + "#1"
	if err == nil || err.Error() != want {
		t.Errorf("err = %v\nwant  %s", err, want)
	}
	if _, err := Open(gpSweep+"#3", nil); err == nil || err.Error() != gpSweep+"#3: the GenAI-Perf profile export holds 2 experiments, not 3" {
		t.Errorf("#3: %v", err)
	}
	if _, err := Open("-", strings.NewReader(mustRead(t, gpSweep))); err == nil || !strings.HasSuffix(err.Error(), "name one, as FILE#1 (save standard input to a file)") {
		t.Errorf("stdin: %v", err)
	}

	f, recs := readAll(t, gpSweep+"#1")
	if f.Header().Tool != "import: GenAI-Perf profile_export.json (experiment 1 of 2, concurrency 1)" || len(recs) != 1 ||
		!reflect.DeepEqual(recs[0].Chunks, []record.Chunk{{At: ms(100), Tokens: 1}}) || recs[0].End != ms(110) {
		t.Errorf("#1: %q %+v", f.Header().Tool, recs)
	}
	// Experiment 2's reply was not streamed: its body arrived whole at
	// 400 ms, 4 tokens by its usage, and says so.
	f, recs = readAll(t, gpSweep+"#2")
	var cfg map[string]any
	json.Unmarshal(f.Header().Config, &cfg)
	if f.Header().Tool != "import: GenAI-Perf profile_export.json (experiment 2 of 2, request_rate 2.5)" || cfg["request_rate"] != 2.5 || cfg["experiment"] != 2.0 {
		t.Errorf("#2: %q %s", f.Header().Tool, f.Header().Config)
	}
	r := recs[0]
	if len(recs) != 1 || !reflect.DeepEqual(r.Chunks, []record.Chunk{{At: ms(400), Tokens: 4}}) || r.End != ms(400) ||
		r.OutputTokens != 4 || r.InputTokens != 8 || r.TokenSource != record.SourceUsage || r.Finish != "stop" {
		t.Errorf("#2: %+v", recs)
	}
	notes := f.Notes()
	if len(notes) != 2 || notes[1] != gpSweep+"#2: 1 request was not streamed: the answer counts as arriving whole at the end, so TTFT is e2e" {
		t.Errorf("notes %q", notes)
	}
}

func mustRead(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// GenAI-Perf's summaries hold statistics, not requests: they are refused
// with the file to give instead.
func TestOpenGenAIPerfSummaryRefused(t *testing.T) {
	for _, tt := range []struct{ path, what string }{
		{"testdata/genai-perf/profile_export_genai_perf.json", "GenAI-Perf summary (profile_export_genai_perf.json)"},
		{"testdata/genai-perf/profile_export_genai_perf.csv", "summary CSV of GenAI-Perf or AIPerf (profile_export_genai_perf.csv)"},
	} {
		_, err := Open(tt.path, nil)
		want := tt.path + ": a " + tt.what + " holds statistics, not requests: give the per-request export beside it, profile_export.json (GenAI-Perf; profile_export.jsonl for AIPerf)"
		if err == nil || err.Error() != want {
			t.Errorf("%s: %v\nwant %s", tt.path, err, want)
		}
	}
}

// A damaged export is an error that names the file and where, never a
// panic nor another format's complaint.
func TestOpenGenAIPerfDamaged(t *testing.T) {
	full := mustRead(t, gpFixture)
	dir := t.TempDir()
	// One request of the fixture, with what each case changes.
	req := func(s string) string {
		return `{"experiments":[{"experiment":{"mode":"concurrency","value":1},"requests":[` + s + `]}],"service_kind":"openai"}`
	}
	tests := []struct {
		name, doc, want string
	}{
		// Cut mid-file, as by a full disk or a killed writer.
		{"cut short", full[:len(full)/2], "GenAI-Perf profile export: the file is cut short (unexpected end of JSON input)"},
		{"garbage", strings.Replace(full, `"response_timestamps": [`, `"response_timestamps": [x`, 1), "GenAI-Perf profile export: line 14, column 35: invalid character 'x' looking for beginning of value"},
		{"no timestamp", req(`{"response_timestamps":[1],"response_outputs":[{"response":"data: [DONE]\n\n"}]}`), `experiment 1, request 1: no "timestamp"`},
		{"timestamp a string", req(`{"timestamp":"1"}`), `experiment 1: "requests.timestamp": want an integer, got a JSON string`},
		{"negative time", req(`{"timestamp":-5,"response_timestamps":[1]}`), `experiment 1, request 1: "timestamp" -5 is out of range`},
		{"response before the send", req(`{"timestamp":100,"response_timestamps":[50,60],"response_outputs":[{"response":"data: {\"choices\":[{\"text\":\"a\"}]}\n\n"},{"response":"data: [DONE]\n\n"}]}`),
			`experiment 1, request 1: impossible record: "ct"[0]: chunk at 50 is before "t0" 100: time goes backwards`},
		{"no experiments", `{"experiments":[],"service_kind":"openai"}`, "a GenAI-Perf profile export without experiments"},
		{"experiment without requests", `{"experiments":[{"experiment":{"mode":"concurrency","value":1}}],"service_kind":"openai"}`, `experiment 1 has no "requests"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(dir, strings.ReplaceAll(tt.name, " ", "_")+".json")
			if err := os.WriteFile(path, []byte(tt.doc), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := Open(path, nil)
			if err == nil || err.Error() != path+": "+tt.want {
				t.Errorf("err = %v\nwant  %s: %s", err, path, tt.want)
			}
		})
	}
}

// gpOne reads the only request of an export of one experiment.
func gpOne(t *testing.T, kind, request string) (*File, record.Record) {
	t.Helper()
	doc := `{"experiments":[{"experiment":{"mode":"concurrency","value":1},"requests":[` + request + `]}],"service_kind":"` + kind + `","endpoint":""}`
	f, err := Open("-", strings.NewReader(doc))
	if err != nil {
		t.Fatal(err)
	}
	var r record.Record
	if err := f.Next(&r); err != nil {
		t.Fatal(err)
	}
	return f, r
}

// sse makes a response_outputs entry of server-sent events.
func sse(events ...string) string {
	var b strings.Builder
	for _, e := range events {
		b.WriteString("data: " + e + "\n\n")
	}
	s, _ := json.Marshal(b.String())
	return `{"response":` + string(s) + `}`
}

// The shapes of response other servers and service kinds give.
func TestOpenGenAIPerfResponses(t *testing.T) {
	chat := func(content string) string {
		return `{"object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"` + content + `"}}]}`
	}
	tests := []struct {
		name, kind, request string
		check               func(r record.Record) bool
	}{{
		// Triton's text_output, the empty first and last responses of a
		// decoupled model carrying no token.
		"triton", "triton", `{"timestamp":1000,"request_inputs":{"text_input":"hi","max_tokens":[8]},"response_timestamps":[1100,1200,1300,1400],
			"response_outputs":[{"text_output":""},{"text_output":"a"},{"text_output":" b"},{"text_output":""}]}`,
		func(r record.Record) bool {
			return reflect.DeepEqual(r.Chunks, []record.Chunk{{At: 200, Tokens: 1}, {At: 300, Tokens: 1}}) && r.End == 400 &&
				r.OutputTokens == 2 && r.TokenSource == record.SourceChunks && r.InputTokens == 0
		},
	}, {
		// The TensorRT-LLM engine's token ids: exact counts, the prompt's
		// ids its input.
		"tensorrt-llm engine", "triton_c_api", `{"timestamp":1000,"request_inputs":{"input_ids":[1,2,3],"request_output_len":4},"response_timestamps":[1100,1200,1300],
			"response_outputs":[{"output_ids":7},{"output_ids":[8,9]},{"output_ids":""}]}`,
		func(r record.Record) bool {
			return reflect.DeepEqual(r.Chunks, []record.Chunk{{At: 100, Tokens: 1}, {At: 200, Tokens: 2}}) && r.End == 300 &&
				r.OutputTokens == 3 && r.TokenSource == record.SourceUsage && r.InputTokens == 3
		},
	}, {
		// vLLM's flat error object; 503 is "unavailable".
		"vllm error", "openai", `{"timestamp":1000,"response_timestamps":[1100,1200],"response_outputs":[` + sse(chat("x")) + `,` +
			sse(`{"object":"error","message":"no capacity","type":"ServiceUnavailableError","param":null,"code":503}`) + `]}`,
		func(r record.Record) bool {
			return r.Error == record.ErrUnavailable && r.Status == 200 && r.Msg == "ServiceUnavailableError: no capacity (code 503)" &&
				len(r.Chunks) == 1 && r.OutputTokens == 1 && r.End == 200
		},
	}, {
		// An SSE error event names no status.
		"error event", "openai", `{"timestamp":1000,"response_timestamps":[1100],"response_outputs":[{"response":"event: error\ndata: engine died\n\n"}]}`,
		func(r record.Record) bool {
			return r.Error == record.ErrStream && r.Msg == "engine died" && r.Status == 200
		},
	}, {
		// TGI's error string.
		"tgi error", "openai", `{"timestamp":1000,"response_timestamps":[1100],"response_outputs":[` + sse(`{"error":"Input validation error","error_type":"validation"}`) + `]}`,
		func(r record.Record) bool { return r.Error == record.ErrStream && r.Msg == "Input validation error" },
	}, {
		// An error body that was not streamed was answered with its status.
		"error body", "openai", `{"timestamp":1000,"response_timestamps":[1100],"response_outputs":[{"response":"{\"error\":{\"message\":\"slow down\",\"type\":\"rate_limit\",\"code\":429}}"}]}`,
		func(r record.Record) bool {
			return r.Error == record.ErrRateLimited && r.Status == 429 && r.Msg == "rate_limit: slow down (code 429)"
		},
	}, {
		"malformed event", "openai", `{"timestamp":1000,"response_timestamps":[1100],"response_outputs":[{"response":"data: {\"choices\":\n\n"}]}`,
		func(r record.Record) bool {
			return r.Error == record.ErrMalformed && r.Msg == "a response could not be parsed: unexpected end of JSON input"
		},
	}, {
		"no response", "openai", `{"timestamp":1000,"response_timestamps":[],"response_outputs":[]}`,
		func(r record.Record) bool { return r.Error == record.ErrOther && r.Status == 0 && r.End == 0 },
	}, {
		// A reply of nothing but [DONE] succeeded with no token.
		"empty reply", "openai", `{"timestamp":1000,"response_timestamps":[1100],"response_outputs":[{"response":"data: [DONE]\n\n"}]}`,
		func(r record.Record) bool { return r.OK() && len(r.Chunks) == 0 && r.OutputTokens == 0 && r.End == 100 },
	}, {
		// A completion's text; usage with more tokens than pieces gives
		// the surplus to the earlier chunks; cached prompt tokens.
		"completions with usage", "openai", `{"timestamp":1000,"response_timestamps":[1100,1200,1300],"response_outputs":[` +
			sse(`{"object":"text_completion","choices":[{"text":"ab"}]}`) + `,` + sse(`{"object":"text_completion","choices":[{"text":"cd","finish_reason":"length"}]}`) + `,` +
			sse(`{"choices":[],"usage":{"prompt_tokens":30,"completion_tokens":5,"prompt_tokens_details":{"cached_tokens":16}}}`, "[DONE]") + `]}`,
		func(r record.Record) bool {
			return reflect.DeepEqual(r.Chunks, []record.Chunk{{At: 100, Tokens: 3}, {At: 200, Tokens: 2}}) && r.OutputTokens == 5 &&
				r.InputTokens == 30 && r.CacheReported && r.CachedTokens == 16 && r.Finish == "length" && r.End == 300
		},
	}, {
		// Reasoning chunks, told apart, with the server's reasoning count.
		"reasoning", "openai", `{"timestamp":1000,"response_timestamps":[1100,1200,1300],"response_outputs":[` +
			sse(`{"choices":[{"delta":{"reasoning_content":"hmm"}}]}`) + `,` + sse(chat("42")) + `,` +
			sse(`{"choices":[],"usage":{"prompt_tokens":3,"completion_tokens":6,"completion_tokens_details":{"reasoning_tokens":4}}}`) + `]}`,
		func(r record.Record) bool {
			return reflect.DeepEqual(r.Chunks, []record.Chunk{{At: 100, Tokens: 4, Reasoning: true}, {At: 200, Tokens: 2}}) &&
				r.ReasoningTokens == 4 && r.ReasoningSource == record.SourceUsage && r.OutputTokens == 6
		},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, r := gpOne(t, tt.kind, tt.request)
			if !tt.check(r) {
				t.Errorf("%+v", r)
			}
		})
	}
}

// Requests of one session_id are the turns of a multi-turn session, in
// the order they were sent.
func TestOpenGenAIPerfSessions(t *testing.T) {
	turn := func(at int, session string) string {
		return `{"timestamp":` + jsonInt(at) + `,"request_inputs":{"payload":"{}","session_id":"` + session + `"},"response_timestamps":[` + jsonInt(at+10) + `],"response_outputs":[` + sse(`{"choices":[{"delta":{"content":"x"}}]}`) + `]}`
	}
	doc := `{"experiments":[{"experiment":{"mode":"request_rate","value":0.0},"requests":[` +
		turn(300, "s1") + `,` + turn(100, "s1") + `,` + turn(200, "s2") + `]}],"service_kind":"openai"}`
	f, err := Open("-", strings.NewReader(doc))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for {
		var r record.Record
		if err := f.Next(&r); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		got = append(got, r.Session+"/"+jsonInt(r.Turn))
	}
	// s2 has one turn: outside any session.
	if want := []string{"s1/1", "/0", "s1/2"}; !reflect.DeepEqual(got, want) {
		t.Errorf("sessions %v, want %v", got, want)
	}
	var cfg map[string]any
	json.Unmarshal(f.Header().Config, &cfg)
	if _, ok := cfg["request_rate"]; ok {
		t.Errorf("a rate of 0 (as fast as the sessions go) is no request rate: %s", f.Header().Config)
	}
}

func jsonInt(n int) string { b, _ := json.Marshal(n); return string(b) }

// The detection takes only Perf Analyzer's layout: "experiments" of
// another shape is left to the other readers.
func TestOpenGenAIPerfDetection(t *testing.T) {
	for _, doc := range []string{
		`{"experiments":[{"name":"a"}]}`,
		`{"experiments":"many"}`,
	} {
		f, err := Open("-", strings.NewReader(doc))
		if err == nil && f.Format == "genai-perf" || err != nil && strings.Contains(err.Error(), "GenAI-Perf") {
			t.Errorf("%s: read as GenAI-Perf's (%v)", doc, err)
		}
	}
	// Perf Analyzer's own keys, with no experiment measured, are its export.
	if _, err := Open("-", strings.NewReader(`{"experiments":[],"version":"2.45.0","service_kind":"openai"}`)); err == nil ||
		err.Error() != "-: a GenAI-Perf profile export without experiments" {
		t.Errorf("empty export: %v", err)
	}
}
