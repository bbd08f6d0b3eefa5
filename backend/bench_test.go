package backend

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/record"
)

// benchChunks is the number of chunks in each benchmark stream.
const benchChunks = 1000

// vllmCompletionStream builds a vLLM-shaped /v1/completions stream of n
// chunks with continuous usage, the final usage chunk and [DONE].
func vllmCompletionStream(n int) []byte {
	var b bytes.Buffer
	for i := 1; i <= n; i++ {
		finish := "null"
		if i == n {
			finish = `"length"`
		}
		fmt.Fprintf(&b, `data: {"id":"cmpl-8f3a2b1c9d7e4f60a1b2c3d4e5f60718","object":"text_completion","created":1732867200,"model":"meta-llama/Llama-3.1-8B-Instruct","choices":[{"index":0,"text":" tok%d","logprobs":null,"finish_reason":%s,"stop_reason":null}],"usage":{"prompt_tokens":128,"total_tokens":%d,"completion_tokens":%d}}`+"\n\n", i, finish, 128+i, i)
	}
	fmt.Fprintf(&b, `data: {"id":"cmpl-8f3a2b1c9d7e4f60a1b2c3d4e5f60718","object":"text_completion","created":1732867200,"model":"meta-llama/Llama-3.1-8B-Instruct","choices":[],"usage":{"prompt_tokens":128,"total_tokens":%d,"completion_tokens":%d}}`+"\n\n", 128+n, n)
	b.WriteString("data: [DONE]\n\n")
	return b.Bytes()
}

// reportPerChunk reports time and allocations per streamed chunk for a
// benchmark whose every iteration streams chunks chunks.
func reportPerChunk(b *testing.B, chunks int, mallocs uint64) {
	n := float64(b.N) * float64(chunks)
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/n, "ns/chunk")
	b.ReportMetric(float64(mallocs)/n, "allocs/chunk")
}

func mallocs() uint64 {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.Mallocs
}

// BenchmarkStreamLoopback measures the client's cost per chunk including
// the HTTP read: each iteration is one request (BuildRequest, Do,
// ReadStream) to a loopback server that writes a canned stream of 1,000
// vLLM completion chunks with continuous usage. The server runs in the same
// process, so the figures are an upper bound on the client's own cost.
//
//   - canned: the server writes the whole stream at once, so each Read
//     returns many events (a fast server, or a client catching up);
//   - flush-per-chunk: the server flushes every event, so Reads return
//     about one event each (a server streaming in real time); this also
//     counts the server's per-flush write cost.
func BenchmarkStreamLoopback(b *testing.B) {
	stream := vllmCompletionStream(benchChunks)
	for _, mode := range []string{"canned", "flush-per-chunk"} {
		b.Run(mode, func(b *testing.B) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				_, _ = io.Copy(io.Discard, r.Body)
				w.Header().Set("Content-Type", "text/event-stream")
				if mode == "canned" {
					_, _ = w.Write(stream)
					return
				}
				fl := w.(http.Flusher)
				rest := stream
				for len(rest) > 0 {
					i := bytes.Index(rest, []byte("\n\n")) + 2
					_, _ = w.Write(rest[:i])
					fl.Flush()
					rest = rest[i:]
				}
			}))
			defer srv.Close()
			client := srv.Client()
			a := mustLookup(b, "openai")
			req := &Request{Model: "meta-llama/Llama-3.1-8B-Instruct", Prompt: "hello", MaxTokens: benchChunks}
			epoch := time.Now()
			now := func() int64 { return int64(time.Since(epoch)) }
			b.SetBytes(int64(len(stream)))
			b.ReportAllocs()
			m0 := mallocs()
			b.ResetTimer()
			for range b.N {
				hreq, err := a.BuildRequest(context.Background(), srv.URL, "", req)
				if err != nil {
					b.Fatal(err)
				}
				resp, err := client.Do(hreq)
				if err != nil {
					b.Fatal(err)
				}
				rec := &record.Record{}
				a.ReadStream(resp, now, rec)
				if !rec.OK() || len(rec.Chunks) != benchChunks || rec.OutputTokens != benchChunks {
					b.Fatalf("record %s %s, %d chunks", rec.Error, rec.Msg, len(rec.Chunks))
				}
			}
			b.StopTimer()
			reportPerChunk(b, benchChunks, mallocs()-m0)
		})
	}
}

// BenchmarkParse measures the stream reader alone, without a network: the
// same framing, decoding and token accounting over an in-memory body.
// "reads=32KiB" hands over many events per Read; "reads=1-event" one event
// per Read, as a real-time stream arrives.
func BenchmarkParse(b *testing.B) {
	stream := vllmCompletionStream(benchChunks)
	eventSize := bytes.Index(stream, []byte("\n\n")) + 2
	cases := []struct {
		name    string
		backend string
		body    []byte
		chunks  int
		piece   int
	}{
		{"openai/reads=32KiB", "openai", stream, benchChunks, 32 << 10},
		{"openai/reads=1-event", "openai", stream, benchChunks, eventSize},
		{"openai-chat/reads=32KiB", "openai-chat", chatStream(benchChunks), benchChunks, 32 << 10},
		{"tgi/reads=32KiB", "tgi", tgiStream(benchChunks), benchChunks, 32 << 10},
		{"llamacpp/reads=32KiB", "llamacpp", llamaStream(benchChunks), benchChunks, 32 << 10},
		{"ollama/reads=32KiB", "ollama", ollamaStream(benchChunks), benchChunks, 32 << 10},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			a := mustLookup(b, c.backend)
			rec := &record.Record{Chunks: make([]record.Chunk, 0, c.chunks)}
			var clock int64
			now := func() int64 { clock++; return clock }
			b.SetBytes(int64(len(c.body)))
			b.ReportAllocs()
			m0 := mallocs()
			b.ResetTimer()
			for range b.N {
				a.read(&pieceReader{b: c.body, size: c.piece}, "", now, rec)
				if !rec.OK() || len(rec.Chunks) != c.chunks {
					b.Fatalf("record %s %s, %d chunks", rec.Error, rec.Msg, len(rec.Chunks))
				}
			}
			b.StopTimer()
			reportPerChunk(b, c.chunks, mallocs()-m0)
		})
	}
}

func chatStream(n int) []byte {
	var b strings.Builder
	b.WriteString(`data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1732867200,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}],"usage":{"prompt_tokens":128,"total_tokens":128,"completion_tokens":0}}` + "\n\n")
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, `data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1732867200,"model":"m","choices":[{"index":0,"delta":{"content":" tok%d"},"logprobs":null,"finish_reason":null}],"usage":{"prompt_tokens":128,"total_tokens":%d,"completion_tokens":%d}}`+"\n\n", i, 128+i, i)
	}
	b.WriteString("data: [DONE]\n\n")
	return []byte(b.String())
}

func tgiStream(n int) []byte {
	var b strings.Builder
	for i := 1; i < n; i++ {
		fmt.Fprintf(&b, `data:{"index":%d,"token":{"id":%d,"text":" tok","logprob":-0.52,"special":false},"generated_text":null,"details":null}`+"\n\n", i, 1000+i)
	}
	fmt.Fprintf(&b, `data:{"index":%d,"token":{"id":2,"text":"</s>","logprob":-0.01,"special":true},"generated_text":"…","details":{"finish_reason":"length","generated_tokens":%d,"seed":null,"input_length":128}}`+"\n\n", n, n)
	return []byte(b.String())
}

func llamaStream(n int) []byte {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, `data: {"index":0,"content":" tok","tokens":[%d],"stop":false,"id_slot":0,"tokens_predicted":%d,"tokens_evaluated":128}`+"\n\n", 1000+i, i)
	}
	fmt.Fprintf(&b, `data: {"index":0,"content":"","tokens":[],"stop":true,"stop_type":"limit","tokens_predicted":%d,"tokens_evaluated":128,"timings":{"prompt_n":128,"predicted_n":%d}}`+"\n\n", n, n)
	return []byte(b.String())
}

func ollamaStream(n int) []byte {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		b.WriteString(`{"model":"llama3.2","created_at":"2024-11-29T07:44:00.123456789Z","response":" tok","done":false}` + "\n")
	}
	fmt.Fprintf(&b, `{"model":"llama3.2","created_at":"2024-11-29T07:44:01Z","response":"","done":true,"done_reason":"length","prompt_eval_count":128,"eval_count":%d,"eval_duration":1}`+"\n", n)
	return []byte(b.String())
}

// BenchmarkDecodeChunk compares decoding one vLLM chunk with the scanner
// against encoding/json into a struct holding only the needed fields: the
// reason the package has its own scanner.
func BenchmarkDecodeChunk(b *testing.B) {
	stream := vllmCompletionStream(1)
	payload := bytes.TrimSuffix(bytes.TrimPrefix(stream[:bytes.Index(stream, []byte("\n\n"))], []byte("data: ")), nil)
	b.Run("scanner", func(b *testing.B) {
		var d decoder
		var ev event
		b.SetBytes(int64(len(payload)))
		b.ReportAllocs()
		for range b.N {
			ev.reset()
			if err := decodeOpenAI(&d, payload, &ev); err != nil || ev.tokens != 1 {
				b.Fatal(err)
			}
		}
	})
	b.Run("encoding-json", func(b *testing.B) {
		type chunk struct {
			Choices []struct {
				Text  string `json:"text"`
				Delta struct {
					Content string `json:"content"`
				} `json:"delta"`
				FinishReason *string `json:"finish_reason"`
			} `json:"choices"`
			Usage *struct {
				PromptTokens     int `json:"prompt_tokens"`
				CompletionTokens int `json:"completion_tokens"`
			} `json:"usage"`
			Error json.RawMessage `json:"error"`
		}
		b.SetBytes(int64(len(payload)))
		b.ReportAllocs()
		for range b.N {
			var c chunk
			if err := json.Unmarshal(payload, &c); err != nil || len(c.Choices) != 1 {
				b.Fatal(err)
			}
		}
	})
}
