package backend

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/goodput-dev/goodput/record"
)

// counter returns a now function that counts its calls: 1, 2, 3, …
func counter() func() int64 {
	var n int64
	return func() int64 { n++; return n }
}

// mustLookup returns the named adapter or stops the test.
func mustLookup(t testing.TB, name string) *Adapter {
	t.Helper()
	a, err := Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// readAll runs the stream reader over r with a counting clock.
func readAll(a *Adapter, r io.Reader) (*record.Record, Stats) {
	rec := &record.Record{}
	st := a.read(r, "", counter(), rec)
	return rec, st
}

// tokens lists the chunks' token counts.
func tokens(rec *record.Record) []int32 {
	var out []int32
	for _, c := range rec.Chunks {
		out = append(out, c.Tokens)
	}
	return out
}

func TestReadStreamFixtures(t *testing.T) {
	tests := []struct {
		file    string
		backend string
		tokens  []int32 // per chunk
		input   int
		source  record.Source
		finish  string
		kind    record.ErrorKind
		msg     string // part of rec.Msg
		events  int
		usage   int // Stats.UsageTokens
	}{
		// vLLM completions with continuous usage; one chunk carries 3 tokens.
		{"openai_completions_continuous.sse", "openai", []int32{1, 1, 3, 1}, 12, record.SourceUsage, "length", "", "", 6, 6},
		// vLLM chat: the role-only chunk is not a token; reasoning is; the
		// empty finish chunk is, because the running count rose (EOS).
		{"openai_chat_continuous.sse", "openai-chat", []int32{1, 1, 1, 1}, 20, record.SourceUsage, "stop", "", "", 7, 4},
		// N=1: one token, so no TPOT; the role chunk before it is no token.
		{"openai_single_token.sse", "openai-chat", []int32{1}, 31, record.SourceUsage, "length", "", "", 4, 1},
		// SGLang chat: a role-only first chunk with "usage":null, then
		// running counts of 1, 4, 5, 9, 11, 12 (speculative decoding).
		{"sglang_chat_continuous.sse", "openai-chat", []int32{1, 3, 1, 4, 2, 1}, 17, record.SourceUsage, "length", "", "", 10, 12},
		// OpenAI with include_usage only: 6 tokens spread over 4 chunks.
		{"openai_chat_final_usage.sse", "openai-chat", []int32{1, 2, 1, 2}, 9, record.SourceUsage, "stop", "", "", 8, 6},
		// No usage at all, CRLF line ends and a keep-alive comment.
		{"openai_no_usage_crlf.sse", "openai", []int32{1, 1, 1}, 0, record.SourceChunks, "stop", "", "", 4, -1},
		// llama.cpp /v1 puts the total on the finish chunk: a total, not a
		// running count. It is one more than the text chunks and the stream
		// stopped on an empty finish event: the end-of-sequence token, a
		// chunk of its own at the finish event.
		{"openai_llamacpp_v1.sse", "openai-chat", []int32{1, 1, 1, 1}, 5, record.SourceUsage, "stop", "", "", 6, 4},
		// An error object mid-stream; the chunks before it are kept. Its
		// code 500 is the status vLLM answers it with before a stream.
		{"openai_error_midstream.sse", "openai", []int32{1, 1}, 4, record.SourceUsage, "", record.ErrHTTP,
			"InternalServerError: CUDA out of memory. Tried to allocate 2.00 GiB (code 500)", 3, 2},
		// SGLang chat ending on finish_reason "abort", then its usage and
		// [DONE]: the server gave up, so it fails, keeping its chunks.
		{"sglang_chat_abort.sse", "openai-chat", []int32{1, 1, 1}, 17, record.SourceUsage, "abort", record.ErrStream,
			"the server aborted the request (finish_reason abort)", 7, 3},
		// vLLM completions ending the same way.
		{"openai_completions_abort.sse", "openai", []int32{1, 1}, 9, record.SourceUsage, "abort", record.ErrStream,
			"the server aborted the request (finish_reason abort)", 5, 2},
		// vLLM's older flat error shape, of code 400.
		{"openai_vllm_legacy_error.sse", "openai", nil, 0, record.SourceChunks, "", record.ErrHTTP,
			"BadRequestError: This model's maximum context length is 4096 tokens. (code 400)", 1, -1},
		// The body closes after two chunks: no [DONE], no finish reason.
		{"openai_truncated.sse", "openai", []int32{1, 1}, 4, record.SourceUsage, "", record.ErrTruncated,
			"stream ended after 2 events and 444 bytes without data: [DONE] or a finish_reason", 2, 2},
		// The body closes inside an event.
		{"openai_cut_mid_event.sse", "openai", []int32{1}, 0, record.SourceChunks, "", record.ErrTruncated,
			"stream ended inside an event: event 2 at byte 155: unexpected end of JSON", 2, -1},
		// A finish reason without [DONE] is a complete response.
		{"openai_finish_without_done.sse", "openai", []int32{1, 1}, 0, record.SourceChunks, "length", "", "", 2, -1},
		// Bad JSON names the event and where it starts.
		{"openai_malformed.sse", "openai", []int32{1}, 0, record.SourceChunks, "", record.ErrMalformed,
			`event 2 at byte 155: invalid character '}', want string at offset 48: "{\"id\"`, 2, -1},
		// TGI: one token per event, the last with details.
		{"tgi.sse", "tgi", []int32{1, 1, 1}, 7, record.SourceUsage, "stop", "", "", 3, 3},
		// TGI's error event of a failure while generating, which TGI
		// answers with 424 before a stream.
		{"tgi_error.sse", "tgi", []int32{1}, 0, record.SourceChunks, "", record.ErrHTTP,
			"generation: Request failed during generation: Server error: Out of available cache blocks", 2, -1},
		// TGI's overloaded (429) and validation (422) errors likewise.
		{"tgi_overloaded.sse", "tgi", nil, 0, record.SourceChunks, "", record.ErrRateLimited,
			"overloaded: Model is overloaded", 1, -1},
		{"tgi_validation.sse", "tgi", nil, 0, record.SourceChunks, "", record.ErrHTTP,
			"validation: Input validation error: `inputs` must have less than 4096 tokens. Given: 5000", 1, -1},
		// llama.cpp with token ids: exact counts; tokens_evaluated (6) wins
		// over timings.prompt_n (2, the uncached part).
		{"llamacpp.sse", "llamacpp", []int32{1, 1, 2}, 6, record.SourceUsage, "length", "", "", 4, 4},
		// llama.cpp without token ids: predicted_n 5 spread over 3 chunks.
		{"llamacpp_text_only.sse", "llamacpp", []int32{1, 2, 2}, 11, record.SourceUsage, "stop", "", "", 4, 5},
		// Ollama: eval_count 3 over 2 chunks.
		// Ollama counts the end-of-sequence token in eval_count; the done
		// line is where it was decoded.
		{"ollama.ndjson", "ollama", []int32{1, 1, 1}, 26, record.SourceUsage, "stop", "", "", 3, 3},
		// Ollama's error line.
		{"ollama_error.ndjson", "ollama", []int32{1}, 0, record.SourceChunks, "", record.ErrStream,
			"an error was encountered while running the model: unexpected EOF", 2, -1},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			b, err := os.ReadFile(filepath.Join("testdata", tt.file))
			if err != nil {
				t.Fatal(err)
			}
			a := mustLookup(t, tt.backend)
			rec, st := readAll(a, strings.NewReader(string(b)))
			if got := tokens(rec); !reflect.DeepEqual(got, tt.tokens) {
				t.Errorf("chunk tokens = %v, want %v", got, tt.tokens)
			}
			n := 0
			for _, k := range tt.tokens {
				n += int(k)
			}
			if rec.OutputTokens != n || rec.InputTokens != tt.input || rec.TokenSource != tt.source || rec.Finish != tt.finish {
				t.Errorf("output %d input %d source %q finish %q; want %d %d %q %q",
					rec.OutputTokens, rec.InputTokens, rec.TokenSource, rec.Finish, n, tt.input, tt.source, tt.finish)
			}
			if rec.Error != tt.kind || !strings.Contains(rec.Msg, tt.msg) || (tt.kind == "") != (rec.Msg == "") {
				t.Errorf("error %q %q, want %q containing %q", rec.Error, rec.Msg, tt.kind, tt.msg)
			}
			if st.Events != tt.events || st.UsageTokens != tt.usage || st.Chunks != len(tt.tokens) || st.Bytes != int64(len(b)) && tt.kind == "" {
				t.Errorf("stats %+v, want %d events, usage %d, %d chunks, %d bytes", st, tt.events, tt.usage, len(tt.tokens), len(b))
			}
			// The whole body came in one Read: every chunk has its time, and
			// the end is that time (terminator) or the next clock reading.
			for i, c := range rec.Chunks {
				if c.At != 1 {
					t.Errorf("chunk %d at %d, want 1", i, c.At)
				}
			}
			if rec.End < 1 || rec.End > 2 {
				t.Errorf("end = %d, want 1 or 2", rec.End)
			}

			// Any way of splitting the body gives the same record, but for
			// the times.
			for how, r := range splits(b) {
				got, gst := readAll(a, r())
				if !sameButTimes(got, rec) || gst.Events != st.Events || gst.UsageTokens != st.UsageTokens {
					t.Fatalf("%s: record %+v, stats %+v; whole body gave %+v, %+v", how, got, gst, rec, st)
				}
			}
		})
	}
}

// SGLang's chat stream, as _generate_chat_stream writes it (sgl-project/sglang
// python/sglang/srt/entrypoints/openai/serving_chat.py) with
// continuous_usage_stats: a role-only first chunk built without usage
// ("usage":null), content chunks each with the running usage, a finish
// chunk with "usage":null, a usage chunk with "choices":[], then [DONE].
// The content chunks carry 1, 3, 1, 4, 2 and 1 tokens, as under
// speculative decoding. Each event arrives in a Read of its own, so event
// i is stamped i+1: every chunk keeps its own count at its own time,
// rather than an even spread of the total.
func TestReadStreamSGLangRunningUsage(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "sglang_chat_continuous.sse"))
	if err != nil {
		t.Fatal(err)
	}
	var pieces []string
	for _, e := range splitEvents(b, "\n\n") {
		pieces = append(pieces, string(e))
	}
	rec := &record.Record{}
	mustLookup(t, "openai-chat").read(&scriptReader{pieces: pieces}, "text/event-stream", counter(), rec)
	want := []record.Chunk{{At: 2, Tokens: 1}, {At: 3, Tokens: 3}, {At: 4, Tokens: 1}, {At: 5, Tokens: 4}, {At: 6, Tokens: 2}, {At: 7, Tokens: 1}}
	if !reflect.DeepEqual(rec.Chunks, want) {
		t.Errorf("chunks %+v, want %+v", rec.Chunks, want)
	}
	if rec.OutputTokens != 12 || rec.InputTokens != 17 || rec.TokenSource != record.SourceUsage || rec.Finish != "length" || rec.Error != "" || rec.End != 10 {
		t.Errorf("output %d input %d source %q finish %q error %q end %d; want 12 17 usage length, no error, end 10",
			rec.OutputTokens, rec.InputTokens, rec.TokenSource, rec.Finish, rec.Error, rec.End)
	}
}

// sameButTimes compares two records ignoring chunk and end times.
func sameButTimes(a, b *record.Record) bool {
	if len(a.Chunks) != len(b.Chunks) {
		return false
	}
	for i := range a.Chunks {
		if a.Chunks[i].Tokens != b.Chunks[i].Tokens {
			return false
		}
	}
	ac, bc := *a, *b
	ac.Chunks, bc.Chunks, ac.End, bc.End = nil, nil, 0, 0
	// Messages with byte counts are the same; offsets too.
	return reflect.DeepEqual(ac, bc)
}

// scriptReader returns its pieces one per Read.
type scriptReader struct{ pieces []string }

func (r *scriptReader) Read(p []byte) (int, error) {
	if len(r.pieces) == 0 {
		return 0, io.EOF
	}
	n := copy(p, r.pieces[0])
	if n < len(r.pieces[0]) {
		r.pieces[0] = r.pieces[0][n:]
	} else {
		r.pieces = r.pieces[1:]
	}
	return n, nil
}

func TestReadStreamTimestamps(t *testing.T) {
	chunk := func(text string) string {
		return `data: {"choices":[{"index":0,"text":"` + text + `","finish_reason":null}]}` + "\n\n"
	}
	a := mustLookup(t, "openai")
	tests := []struct {
		name   string
		pieces []string
		want   []int64 // chunk times; the clock reads 1 at the first Read, 2 at the second, …
		end    int64
	}{
		{
			// Several events in one Read share its time.
			"one read, three events",
			[]string{chunk("a") + chunk("b") + chunk("c") + "data: [DONE]\n\n"},
			[]int64{1, 1, 1}, 1,
		},
		{
			// An event split over two Reads gets the second's time; the
			// event completed by the first Read keeps the first's.
			"event split across reads",
			[]string{chunk("a") + chunk("b")[:20], chunk("b")[20:] + chunk("c"), "data: [DONE]\n\n"},
			[]int64{1, 2, 2}, 3,
		},
		{
			// A blank line in the next Read completes the event.
			"terminating blank line arrives later",
			[]string{strings.TrimSuffix(chunk("a"), "\n"), "\n", "data: [DONE]\n", "\n"},
			[]int64{2}, 4,
		},
		{
			// Without a terminator the end is read after EOF.
			"end at EOF",
			[]string{chunk("a"), `data: {"choices":[{"text":"","finish_reason":"stop"}]}` + "\n\n"},
			[]int64{1}, 3,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := &record.Record{}
			a.read(&scriptReader{pieces: append([]string(nil), tt.pieces...)}, "", counter(), rec)
			var got []int64
			for _, c := range rec.Chunks {
				got = append(got, c.At)
			}
			if !reflect.DeepEqual(got, tt.want) || rec.End != tt.end || !rec.OK() {
				t.Fatalf("chunk times %v end %d (%s %s), want %v end %d", got, rec.End, rec.Error, rec.Msg, tt.want, tt.end)
			}
		})
	}
}

func TestReadStreamReusesChunkCapacity(t *testing.T) {
	a := mustLookup(t, "openai")
	b, err := os.ReadFile("testdata/openai_completions_continuous.sse")
	if err != nil {
		t.Fatal(err)
	}
	rec := &record.Record{Chunks: make([]record.Chunk, 7, 64)}
	a.read(strings.NewReader(string(b)), "", counter(), rec)
	if len(rec.Chunks) != 4 || cap(rec.Chunks) != 64 {
		t.Fatalf("len %d cap %d, want the 4 chunks in the preallocated 64", len(rec.Chunks), cap(rec.Chunks))
	}
}

func TestReadStreamOversizedEvent(t *testing.T) {
	// One data line past the limit fails the request, naming the limit.
	a := mustLookup(t, "openai")
	body := "data: {\"choices\":[{\"text\":\"a\"}]}\n\ndata: \"" + strings.Repeat("x", MaxEvent+lineSlack) + "\"\n\n"
	rec, st := readAll(a, strings.NewReader(body))
	if rec.Error != record.ErrMalformed || !strings.Contains(rec.Msg, "line longer than 1049600 bytes at byte 34") {
		t.Fatalf("error %q %q, want malformed naming the limit and offset", rec.Error, rec.Msg)
	}
	if len(rec.Chunks) != 1 || st.Events != 1 {
		t.Fatalf("%d chunks, %d events before the bad line; want 1, 1", len(rec.Chunks), st.Events)
	}
}

func TestReadStreamErrorEventName(t *testing.T) {
	// An SSE event named "error" fails the stream whatever its data.
	a := mustLookup(t, "openai-chat")
	rec, _ := readAll(a, strings.NewReader("event: error\ndata: {\"message\":\"overloaded\"}\n\n"))
	if rec.Error != record.ErrStream || rec.Msg != "overloaded" {
		t.Fatalf("error %q %q, want stream_error %q", rec.Error, rec.Msg, "overloaded")
	}
}

func TestReadStreamNoEvents(t *testing.T) {
	// A server that ignored stream=true answers with one JSON document.
	a := mustLookup(t, "openai")
	rec := &record.Record{}
	a.read(strings.NewReader(`{"choices":[{"text":"hi"}]}`), "application/json", counter(), rec)
	want := `stream ended after 27 bytes without any event (content type "application/json", not text/event-stream: the server may have ignored streaming)`
	if rec.Error != record.ErrTruncated || rec.Msg != want {
		t.Fatalf("error %q %q, want truncated %q", rec.Error, rec.Msg, want)
	}
}

// stuckReader returns (0, nil) forever.
type stuckReader struct{}

func (stuckReader) Read([]byte) (int, error) { return 0, nil }

func TestReadStreamStuckReader(t *testing.T) {
	// A reader that never progresses must not hang the worker.
	rec, _ := readAll(mustLookup(t, "openai"), stuckReader{})
	if rec.Error != record.ErrOther || !strings.Contains(rec.Msg, "multiple Read calls return no data or error") {
		t.Fatalf("error %q %q, want other/no progress", rec.Error, rec.Msg)
	}
}

func TestReadStreamCompressed(t *testing.T) {
	// An answer compressed without being asked to be reads as no event;
	// the failure says why.
	var gz bytes.Buffer
	w := gzip.NewWriter(&gz)
	io.WriteString(w, "data: {\"choices\":[{\"text\":\"hi\"}]}\n\ndata: [DONE]\n\n")
	w.Close()
	n := gz.Len()
	resp := &http.Response{StatusCode: http.StatusOK, Body: io.NopCloser(&gz),
		Header: http.Header{"Content-Type": {"text/event-stream"}, "Content-Encoding": {"gzip"}}}
	rec := &record.Record{}
	mustLookup(t, "openai").ReadStream(resp, counter(), rec)
	want := fmt.Sprintf("stream ended after %d bytes without any event (Content-Encoding gzip: the server compressed its answer, which goodput does not ask for and does not read)", n)
	if rec.Error != record.ErrTruncated || rec.Msg != want {
		t.Fatalf("error %q %q, want truncated %q", rec.Error, rec.Msg, want)
	}
}
