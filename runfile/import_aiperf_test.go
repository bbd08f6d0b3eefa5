package runfile

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/record"
)

// The fixture holds, in the order AIPerf finished them: a warm-up
// request at 0 s; A, due at 1.000 s and sent at 1.002 s, TTFT 200 ms
// (from the send) and chunk gaps 10, 30, 20 ms, 4 tokens; a request that
// failed with HTTP 500 at 1.2 s; B, due and sent at 1.100 s, TTFT 150 ms,
// gaps 50, 50 ms, 6 tokens, ended (its last SSE event) at 1.400 s; and a
// request AIPerf canceled at 1.35 s.
func TestOpenAIPerfProfileExport(t *testing.T) {
	f, recs := readAll(t, filepath.Join("testdata", "aiperf_profile_export.jsonl"))
	h := f.Header()
	if f.Format != "aiperf" || h.Tool != "import: AIPerf profile_export.jsonl" || len(recs) != 5 {
		t.Fatalf("format %q, tool %q, %d records", f.Format, h.Tool, len(recs))
	}
	// The epoch is the earliest due time, the warm-up's.
	if want := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC); !h.Start.Equal(want) {
		t.Errorf("start %v, want %v", h.Start, want)
	}
	// Records come in the order they were due, numbered so.
	for i, r := range recs {
		if r.Seq != int64(i) || i > 0 && r.Scheduled < recs[i-1].Scheduled {
			t.Errorf("record %d: seq %d scheduled %d", i, r.Seq, r.Scheduled)
		}
	}
	w, a, c, b, d := recs[0], recs[1], recs[3], recs[2], recs[4]
	if !w.Warmup || w.OutputTokens != 3 || a.Warmup {
		t.Errorf("warm-up %+v", w)
	}

	// A: the credit is when it was due; TTFT counts from the send.
	if a.Scheduled != ms(1000) || a.Sent != ms(1002) || a.End != ms(1267) || a.RequestID != "req-1" {
		t.Errorf("A times %d %d %d, id %q", a.Scheduled, a.Sent, a.End, a.RequestID)
	}
	wantA := []record.Chunk{{At: ms(1202), Tokens: 1}, {At: ms(1212), Tokens: 1}, {At: ms(1242), Tokens: 1}, {At: ms(1262), Tokens: 1}}
	if !reflect.DeepEqual(a.Chunks, wantA) || a.OutputTokens != 4 || a.InputTokens != 100 || a.TokenSource != record.SourceTokenizer || a.Status != 200 {
		t.Errorf("A = %+v", a)
	}
	// B: 6 tokens over 3 chunks, 2 each; it ended with its last event.
	wantB := []record.Chunk{{At: ms(1250), Tokens: 2}, {At: ms(1300), Tokens: 2}, {At: ms(1350), Tokens: 2}}
	if !reflect.DeepEqual(b.Chunks, wantB) || b.End != ms(1400) || b.OutputTokens != 6 {
		t.Errorf("B = %+v", b)
	}
	// The failure keeps its status and message, and its prompt.
	if c.Error != record.ErrHTTP || c.Status != 500 || c.Msg != "Internal Server Error: engine died" || c.End != ms(1205) || c.InputTokens != 100 || len(c.Chunks) != 0 {
		t.Errorf("C = %+v", c)
	}
	if d.Error != record.ErrCanceled || d.Status != 0 || !strings.HasPrefix(d.Msg, "RequestCancellationError: ") || d.End != ms(1350) {
		t.Errorf("D = %+v", d)
	}
	notes := f.Notes()
	if len(notes) != 1 || !strings.Contains(notes[0], "AIPerf canceled 1 request itself") {
		t.Errorf("notes %q", notes)
	}
}

// The layout of autumn 2025 (ai-dynamo/aiperf examples/artifacts/run1):
// the start in timestamp_ns, TTFT under "ttft", the phase in
// credit_phase, no end time. Its one success reasoned (2 of 5 tokens) but
// the file does not say which chunks were reasoning.
func TestOpenAIPerfEarlierLayout(t *testing.T) {
	f, recs := readAll(t, filepath.Join("testdata", "aiperf_profile_export_2025.jsonl"))
	if f.Format != "aiperf" || len(recs) != 2 {
		t.Fatalf("format %q, %d records", f.Format, len(recs))
	}
	ok, canceled := recs[0], recs[1]
	want := []record.Chunk{{At: ms(120), Tokens: 1}, {At: ms(150), Tokens: 1}, {At: ms(180), Tokens: 1}, {At: ms(210), Tokens: 1}, {At: ms(240), Tokens: 1}}
	if !reflect.DeepEqual(ok.Chunks, want) || ok.End != ms(240) || ok.OutputTokens != 5 || ok.InputTokens != 550 {
		t.Errorf("success = %+v", ok)
	}
	// Reasoning it cannot place stays in the output: counted apart it
	// would read as hidden reasoning, and TTFA as TTFT.
	if ok.ReasoningTokens != 0 {
		t.Errorf("reasoning %d tokens", ok.ReasoningTokens)
	}
	if canceled.Error != record.ErrCanceled || canceled.Sent != ms(50) || canceled.End != ms(50) {
		t.Errorf("canceled = %+v", canceled)
	}
	if notes := strings.Join(f.Notes(), "\n"); !strings.Contains(notes, "1 request has reasoning tokens but no time_to_first_output_token") {
		t.Errorf("notes %q", notes)
	}
}

// aiperfLines writes lines as a profile_export.jsonl and reads it.
func aiperfLines(t *testing.T, lines ...string) (*File, []record.Record) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "profile_export.jsonl")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return readAll(t, path)
}

// aiperfOK is a successful request sent at second s (a Unix time of
// 2026), with the metrics given as JSON members.
func aiperfOK(s, metrics string) string {
	return `{"metadata":{"x_request_id":"r` + s + `","conversation_id":"c` + s + `","turn_index":0,"request_start_ns":176722560` + s + `000000000,"benchmark_phase":"profiling"},"metrics":{` + metrics + `},"error":null}`
}

// What the file leaves out is filled in as the notes say, and only then.
func TestAIPerfRequestsWithLessTiming(t *testing.T) {
	t.Run("no inter_chunk_latency: tokens spread evenly", func(t *testing.T) {
		// TTFT 100 ms, last chunk at 400 ms, 4 tokens: one every 100 ms.
		f, recs := aiperfLines(t, aiperfOK("0", `"time_to_first_token":{"value":100,"unit":"ms"},"request_latency":{"value":0.4,"unit":"s"},"output_sequence_length":{"value":4,"unit":"tokens"}`))
		want := []record.Chunk{{At: ms(100), Tokens: 1}, {At: ms(200), Tokens: 1}, {At: ms(300), Tokens: 1}, {At: ms(400), Tokens: 1}}
		if !reflect.DeepEqual(recs[0].Chunks, want) {
			t.Errorf("chunks %v, want %v", recs[0].Chunks, want)
		}
		if n := strings.Join(f.Notes(), "\n"); !strings.Contains(n, "1 request has no inter_chunk_latency: the tokens between a first and a last are spread evenly") {
			t.Errorf("notes %q", n)
		}
	})
	t.Run("no request_latency: the mean ITL gives the last token", func(t *testing.T) {
		// TTFT 100 ms, ITL 50 ms, 3 tokens: the last at 200 ms.
		_, recs := aiperfLines(t, aiperfOK("0", `"time_to_first_token":{"value":100000,"unit":"us"},"inter_token_latency":{"value":50,"unit":"ms"},"output_sequence_length":{"value":3,"unit":"tokens"}`))
		want := []record.Chunk{{At: ms(100), Tokens: 1}, {At: ms(150), Tokens: 1}, {At: ms(200), Tokens: 1}}
		if !reflect.DeepEqual(recs[0].Chunks, want) {
			t.Errorf("chunks %v, want %v", recs[0].Chunks, want)
		}
	})
	t.Run("not streamed: the answer arrives whole", func(t *testing.T) {
		f, recs := aiperfLines(t, aiperfOK("0", `"request_latency":{"value":300000000,"unit":"ns"},"output_sequence_length":{"value":8,"unit":"tokens"}`))
		if want := []record.Chunk{{At: ms(300), Tokens: 8}}; !reflect.DeepEqual(recs[0].Chunks, want) || recs[0].OutputTokens != 8 {
			t.Errorf("chunks %v, want %v", recs[0].Chunks, want)
		}
		if n := strings.Join(f.Notes(), "\n"); !strings.Contains(n, "TTFT is e2e") {
			t.Errorf("notes %q", n)
		}
	})
	t.Run("no token count: one per chunk", func(t *testing.T) {
		_, recs := aiperfLines(t, aiperfOK("0", `"time_to_first_token":{"value":10,"unit":"ms"},"inter_chunk_latency":{"value":[5,5],"unit":"ms"}`))
		if r := recs[0]; r.OutputTokens != 3 || r.TokenSource != record.SourceChunks {
			t.Errorf("%d tokens from %q", r.OutputTokens, r.TokenSource)
		}
	})
}

// The server's usage, where AIPerf kept it, is the best count; AIPerf's
// own counts are a tokenizer's.
func TestAIPerfTokenCounts(t *testing.T) {
	timing := `"time_to_first_token":{"value":10,"unit":"ms"},"inter_chunk_latency":{"value":[5,5],"unit":"ms"},`
	tests := []struct {
		name, metrics string
		in, out       int
		src           record.Source
	}{
		// usage first
		{"usage", `"usage_prompt_tokens":{"value":12,"unit":"tokens"},"usage_completion_tokens":{"value":9,"unit":"tokens"},"input_sequence_length":{"value":11,"unit":"tokens"},"output_sequence_length":{"value":8,"unit":"tokens"}`, 12, 9, record.SourceUsage},
		// AIPerf's count of answer and reasoning tokens
		{"osl", `"input_sequence_length":{"value":11,"unit":"tokens"},"output_sequence_length":{"value":8,"unit":"tokens"}`, 11, 8, record.SourceTokenizer},
		// older files: the answer count and the reasoning count
		{"parts", `"output_token_count":{"value":5,"unit":"tokens"},"reasoning_token_count":{"value":2,"unit":"tokens"}`, 0, 7, record.SourceTokenizer},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, recs := aiperfLines(t, aiperfOK("0", timing+tt.metrics))
			if r := recs[0]; r.InputTokens != tt.in || r.OutputTokens != tt.out || r.TokenSource != tt.src {
				t.Errorf("in %d out %d from %q, want %d %d %q", r.InputTokens, r.OutputTokens, r.TokenSource, tt.in, tt.out, tt.src)
			}
		})
	}
}

// With the first answer token timed, the chunks before it are the
// reasoning: TTFA and the reasoning figures come out right.
func TestAIPerfReasoningChunks(t *testing.T) {
	// Chunks at 100, 110, 120, 130 ms; the answer starts at 120 ms. 6
	// tokens of which 3 reasoning: 2 + 1 on the reasoning chunks, 2 + 1 on
	// the answer's.
	_, recs := aiperfLines(t, aiperfOK("0", `"time_to_first_token":{"value":100,"unit":"ms"},"time_to_first_output_token":{"value":120,"unit":"ms"},"inter_chunk_latency":{"value":[10,10,10],"unit":"ms"},"output_sequence_length":{"value":6,"unit":"tokens"},"reasoning_token_count":{"value":3,"unit":"tokens"}`))
	r := recs[0]
	want := []record.Chunk{{At: ms(100), Tokens: 2, Reasoning: true}, {At: ms(110), Tokens: 1, Reasoning: true}, {At: ms(120), Tokens: 2}, {At: ms(130), Tokens: 1}}
	if !reflect.DeepEqual(r.Chunks, want) || r.ReasoningTokens != 3 || r.ReasoningSource != record.SourceTokenizer {
		t.Errorf("chunks %v, reasoning %d from %q", r.Chunks, r.ReasoningTokens, r.ReasoningSource)
	}
	if at, ok := r.FirstAnswer(); !ok || at != ms(120) {
		t.Errorf("first answer at %d", at)
	}
}

// Failures keep the kind their status or exception names.
func TestAIPerfFailureKinds(t *testing.T) {
	line := func(err string) string {
		return `{"metadata":{"request_start_ns":1767225600000000000,"request_end_ns":1767225600001000000,"benchmark_phase":"profiling"},"metrics":{},"error":` + err + `}`
	}
	tests := []struct {
		err    string
		kind   record.ErrorKind
		status int
		msg    string
	}{
		{`{"code":429,"type":"Too Many Requests","message":"slow down"}`, record.ErrRateLimited, 429, "Too Many Requests: slow down"},
		{`{"code":503,"type":"Service Unavailable","message":""}`, record.ErrUnavailable, 503, "Service Unavailable"},
		{`{"code":400,"type":"Bad Request","message":"too long"}`, record.ErrHTTP, 400, "Bad Request: too long"},
		{`{"code":null,"type":"TimeoutError","message":"read timed out"}`, record.ErrTimeout, 0, "TimeoutError: read timed out"},
		{`{"code":null,"type":"ClientConnectorError","message":"refused"}`, record.ErrConnect, 0, "ClientConnectorError: refused"},
		{`{"code":200,"type":"SSEError","message":"bad event"}`, record.ErrStream, 200, "SSEError: bad event"},
		{`{"code":null,"type":"ValueError","message":"odd"}`, record.ErrOther, 0, "ValueError: odd"},
	}
	for _, tt := range tests {
		_, recs := aiperfLines(t, line(tt.err))
		if r := recs[0]; r.Error != tt.kind || r.Status != tt.status || r.Msg != tt.msg || r.End != ms(1) {
			t.Errorf("%s: %q %d %q, want %q %d %q", tt.err, r.Error, r.Status, r.Msg, tt.kind, tt.status, tt.msg)
		}
	}
}

// Requests of a multi-turn conversation form a session, turns from 1; a
// conversation of one request stays outside sessions.
func TestAIPerfSessions(t *testing.T) {
	turn := func(s, corr, idx string) string {
		return `{"metadata":{"x_correlation_id":"` + corr + `","conversation_id":"d","turn_index":` + idx + `,"request_start_ns":176722560` + s + `000000000},"metrics":{"request_latency":{"value":10,"unit":"ms"}},"error":null}`
	}
	_, recs := aiperfLines(t, turn("0", "u1", "0"), turn("1", "u2", "0"), turn("2", "u1", "1"))
	got := [][2]any{}
	for _, r := range recs {
		got = append(got, [2]any{r.Session, r.Turn})
	}
	want := [][2]any{{"u1", 1}, {"", 0}, {"u1", 2}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("sessions %v, want %v", got, want)
	}
}

// A bad line is an error that names the file and the line.
func TestAIPerfErrors(t *testing.T) {
	good := aiperfOK("0", `"request_latency":{"value":10,"unit":"ms"}`)
	tests := []struct {
		name string
		body string
		want string
	}{
		// the last line cut short, as a killed AIPerf leaves it
		{"cut", good + "\n" + good[:90], "profile_export.jsonl:2: the line is cut short"},
		// a line that is not JSON
		{"garbage", good + "\n" + `{"metadata":{]}`, "profile_export.jsonl:2: column 14"},
		// no start time anywhere
		{"untimed", `{"metadata":{"x_request_id":"x"},"metrics":{"request_latency":{"value":1,"unit":"ms"}},"error":null}`, `profile_export.jsonl:1: no request start time ("request_start_ns" or "timestamp_ns" in "metadata")`},
		// a success that says nothing of its timing
		{"no latency", aiperfOK("0", `"output_sequence_length":{"value":3,"unit":"tokens"}`), `profile_export.jsonl:1: a successful request without "time_to_first_token" or "request_latency"`},
		// a unit that is no time
		{"unit", aiperfOK("0", `"request_latency":{"value":10,"unit":"tokens"}`), `profile_export.jsonl:1: "request_latency": unit "tokens" is not a time unit`},
		// a chunk gap that goes back
		{"negative", aiperfOK("0", `"time_to_first_token":{"value":10,"unit":"ms"},"inter_chunk_latency":{"value":[5,-1],"unit":"ms"}`), `profile_export.jsonl:1: "inter_chunk_latency"[1] is negative`},
		// a first token after the end, an end before the start
		{"ttft past latency", aiperfOK("0", `"time_to_first_token":{"value":99999,"unit":"ms"},"request_latency":{"value":260,"unit":"ms"}`),
			`profile_export.jsonl:1: "time_to_first_token" 99999.000 ms is past "request_latency" 260.000 ms: the first token came after the end`},
		{"end before start", `{"metadata":{"x_request_id":"r","request_start_ns":2000000000,"request_end_ns":1000000000},"metrics":{"request_latency":{"value":1,"unit":"ms"}},"error":null}`,
			`profile_export.jsonl:1: "request_end_ns" 1000000000 is before the request's start, 2000000000: time goes backwards`},
		// a value of the wrong type
		{"type", aiperfOK("0", `"request_latency":{"value":"10","unit":"ms"}`), `profile_export.jsonl:1: "request_latency": want a number, got a JSON string`},
		// one request's line given twice: rebase would number the copy as
		// another request
		{"repeated", good + "\n" + aiperfOK("1", `"request_latency":{"value":10,"unit":"ms"}`) + "\n" + good + "\n",
			`profile_export.jsonl:3: x_request_id "r0" appears again (first at line 1): a request counted twice`},
		// AIPerf's raw export, which holds responses, not metrics
		{"raw", `{"metadata":{"request_start_ns":1},"start_perf_ns":5,"payload":{}}`, `profile_export.jsonl:1: no "metrics": not a line of AIPerf's profile_export.jsonl`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "profile_export.jsonl")
			if err := os.WriteFile(path, []byte(tt.body), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := Open(path, nil)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want %q", err, tt.want)
			}
		})
	}
}
