package backend

import (
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/goodput-dev/goodput/record"
)

// flags lists which chunks were reasoning.
func flags(rec *record.Record) []bool {
	var out []bool
	for _, c := range rec.Chunks {
		out = append(out, c.Reasoning)
	}
	return out
}

// The reasoning fixtures are written from each server's documented
// stream format (field names, their order and nulls as the server's own
// protocol types define them), one reply of a reasoning model each.
func TestReadStreamReasoningDialects(t *testing.T) {
	T, F := true, false
	tests := []struct {
		file      string
		backend   string
		tokens    []int32
		reasoning []bool
		out       int
		source    record.Source
		rt        int
		rsrc      record.Source
		finish    string
	}{
		// vLLM before 0.11: reasoning_content, continuous usage (one chunk
		// carries 2 tokens); the empty finish chunk's rise is the answer's
		// end-of-sequence token, so it continues the answer.
		{"vllm_chat_reasoning_content.sse", "openai-chat", []int32{1, 2, 1, 1, 1, 1}, []bool{T, T, T, F, F, F},
			7, record.SourceUsage, 4, record.SourceChunks, "stop"},
		// vLLM 0.11 and later: reasoning, and the count in
		// usage.completion_tokens_details, which agrees with the chunks.
		{"vllm_chat_reasoning.sse", "openai-chat", []int32{1, 1, 1, 1, 1}, []bool{T, T, T, F, F},
			5, record.SourceUsage, 3, record.SourceUsage, "length"},
		// SGLang: reasoning_content beside null content; a final total (9)
		// and usage.reasoning_tokens (5): each kind's chunks share their own.
		{"sglang_chat_reasoning.sse", "openai-chat", []int32{1, 2, 2, 1, 1, 2}, []bool{T, T, T, F, F, F},
			9, record.SourceUsage, 5, record.SourceUsage, "stop"},
		// llama.cpp's /v1 with --reasoning-format deepseek: reasoning_content,
		// a total on the finish chunk and no reasoning count: the total is
		// spread and the reasoning chunks' share is the count.
		{"llamacpp_v1_reasoning.sse", "openai-chat", []int32{1, 1, 2, 1, 2}, []bool{T, T, F, F, F},
			7, record.SourceUsage, 2, record.SourceChunks, "stop"},
		// DeepSeek's API: reasoning_content and content, the other null;
		// completion_tokens_details.reasoning_tokens on the finish chunk.
		{"deepseek_reasoner.sse", "openai-chat", []int32{1, 1, 2, 2, 2}, []bool{T, T, T, F, F},
			8, record.SourceUsage, 4, record.SourceUsage, "stop"},
		// OpenAI-style reasoning (OpenRouter): reasoning beside empty content.
		{"openrouter_reasoning.sse", "openai-chat", []int32{1, 1, 2, 2}, []bool{T, T, F, F},
			6, record.SourceUsage, 2, record.SourceUsage, "stop"},
		// OpenAI's o-series stream no reasoning text but count it: 64 of
		// the 67 tokens were thinking before the first answer chunk, so the
		// two answer chunks carry only the answer's three.
		{"openai_hidden_reasoning.sse", "openai-chat", []int32{1, 2}, []bool{F, F},
			67, record.SourceUsage, 64, record.SourceUsage, "stop"},
		// Ollama's native API: thinking, then response; eval_count spread.
		{"ollama_thinking.ndjson", "ollama", []int32{1, 2, 1, 2}, []bool{T, T, F, F},
			6, record.SourceUsage, 3, record.SourceChunks, "stop"},
		// A stream without reasoning says nothing of it.
		{"openai_chat_final_usage.sse", "openai-chat", []int32{1, 2, 1, 2}, []bool{F, F, F, F},
			6, record.SourceUsage, 0, "", "stop"},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			b, err := os.ReadFile(filepath.Join("testdata", tt.file))
			if err != nil {
				t.Fatal(err)
			}
			a := mustLookup(t, tt.backend)
			rec, _ := readAll(a, strings.NewReader(string(b)))
			if rec.Error != "" {
				t.Fatalf("failed: %s: %s", rec.Error, rec.Msg)
			}
			if got := tokens(rec); !reflect.DeepEqual(got, tt.tokens) {
				t.Errorf("chunk tokens = %v, want %v", got, tt.tokens)
			}
			if got := flags(rec); !reflect.DeepEqual(got, tt.reasoning) {
				t.Errorf("reasoning chunks = %v, want %v", got, tt.reasoning)
			}
			if rec.OutputTokens != tt.out || rec.TokenSource != tt.source || rec.Finish != tt.finish {
				t.Errorf("out %d (%s) finish %q, want %d (%s) %q", rec.OutputTokens, rec.TokenSource, rec.Finish, tt.out, tt.source, tt.finish)
			}
			if rec.ReasoningTokens != tt.rt || rec.ReasoningSource != tt.rsrc {
				t.Errorf("reasoning tokens %d (%q), want %d (%q)", rec.ReasoningTokens, rec.ReasoningSource, tt.rt, tt.rsrc)
			}
			if err := rec.Check(); err != nil {
				t.Errorf("the record is impossible: %v", err)
			}
			for how, r := range splits(b) {
				got, _ := readAll(a, r())
				if !sameButTimes(got, rec) || !reflect.DeepEqual(flags(got), flags(rec)) || got.ReasoningTokens != rec.ReasoningTokens {
					t.Fatalf("%s: record %+v; whole body gave %+v", how, got, rec)
				}
			}
		})
	}
}

// chatEvent is one chat chunk with the given delta and, when n ≥ 0, a
// running usage of n completion tokens.
func chatEvent(delta string, n int) string {
	u := ""
	if n >= 0 {
		u = `,"usage":{"prompt_tokens":2,"total_tokens":` + itoa(2+n) + `,"completion_tokens":` + itoa(n) + `}`
	}
	return `data: {"object":"chat.completion.chunk","choices":[{"index":0,"delta":` + delta + `,"finish_reason":null}]` + u + "}\n\n"
}

var itoa = strconv.Itoa

// How a chunk's kind is decided, event by event.
func TestReasoningChunkKinds(t *testing.T) {
	T, F := true, false
	const done = "data: [DONE]\n\n"
	usage := func(total, reasoning int) string {
		return `data: {"choices":[],"usage":{"prompt_tokens":2,"completion_tokens":` + itoa(total) +
			`,"completion_tokens_details":{"reasoning_tokens":` + itoa(reasoning) + `}}}` + "\n\n"
	}
	tests := []struct {
		name      string
		body      string
		tokens    []int32
		reasoning []bool
		rt        int
		rsrc      record.Source
	}{
		// a token without text between thinking and answer (the end of the
		// thinking) continues the thinking
		{"silent token after reasoning", chatEvent(`{"reasoning":"a"}`, 1) + chatEvent(`{}`, 2) + chatEvent(`{"content":"b"}`, 3) + done,
			[]int32{1, 1, 1}, []bool{T, T, F}, 2, record.SourceChunks},
		// tokens without text at the start take the kind of the first text
		{"silent tokens first", chatEvent(`{"role":"assistant"}`, 1) + chatEvent(`{}`, 2) + chatEvent(`{"reasoning_content":"a"}`, 3) + chatEvent(`{"content":"b"}`, 4) + done,
			[]int32{1, 1, 1, 1}, []bool{T, T, T, F}, 3, record.SourceChunks},
		// ... and are answer when no text ever comes
		{"silent tokens only", chatEvent(`{}`, 1) + chatEvent(`{}`, 2) + done,
			[]int32{1, 1}, []bool{F, F}, 0, ""},
		// reasoning and answer text in one delta: answer-bearing
		{"both in one delta", chatEvent(`{"reasoning":"a","content":"b"}`, 1) + done,
			[]int32{1}, []bool{F}, 0, ""},
		// a tool call is answer, not reasoning
		{"tool call", chatEvent(`{"reasoning":"a"}`, 1) + chatEvent(`{"tool_calls":[{"index":0,"function":{"name":"f"}}]}`, 2) + done,
			[]int32{1, 1}, []bool{T, F}, 1, record.SourceChunks},
		// empty reasoning text carries nothing: role-only
		{"empty reasoning", chatEvent(`{"role":"assistant","reasoning":""}`, 0) + chatEvent(`{"content":"b"}`, 1) + done,
			[]int32{1}, []bool{F}, 0, ""},
		// two choices, one thinking and one answering: answer-bearing
		{"choices disagree", `data: {"choices":[{"index":0,"delta":{"reasoning":"a"}},{"index":1,"delta":{"content":"b"}}]}` + "\n\n" + done,
			[]int32{1}, []bool{F}, 0, ""},
		// thinking resumed after part of the answer is reasoning again
		{"interleaved", chatEvent(`{"reasoning":"a"}`, 1) + chatEvent(`{"content":"b"}`, 2) + chatEvent(`{"reasoning":"c"}`, 3) + done,
			[]int32{1, 1, 1}, []bool{T, F, T}, 2, record.SourceChunks},
		// the server counts 0 reasoning tokens yet streamed reasoning (SGLang
		// without a reasoning count): the chunks' own count stands
		{"reported zero", chatEvent(`{"reasoning_content":"a"}`, -1) + chatEvent(`{"content":"b"}`, -1) + usage(2, 0) + done,
			[]int32{1, 1}, []bool{T, F}, 1, record.SourceChunks},
		// a count the reasoning chunks cannot hold (fewer than them) is not
		// the stream's
		{"reported below the chunks", chatEvent(`{"reasoning":"a"}`, -1) + chatEvent(`{"reasoning":"b"}`, -1) + chatEvent(`{"content":"c"}`, -1) + usage(3, 1) + done,
			[]int32{1, 1, 1}, []bool{T, T, F}, 2, record.SourceChunks},
		// a count above the output is no count of this reply either
		{"reported above the output", chatEvent(`{"reasoning":"a"}`, -1) + chatEvent(`{"content":"c"}`, -1) + usage(2, 5) + done,
			[]int32{1, 1}, []bool{T, F}, 1, record.SourceChunks},
		// the answer's share cannot cover its chunks: spread as a whole,
		// and the reported count kept
		{"answer share too small", chatEvent(`{"reasoning":"a"}`, -1) + chatEvent(`{"content":"b"}`, -1) + chatEvent(`{"content":"c"}`, -1) + usage(4, 3) + done,
			[]int32{1, 1, 2}, []bool{T, F, F}, 3, record.SourceUsage},
		// the end-of-sequence token, counted but not streamed, ends the
		// answer: it continues the chunk before it
		{"end of sequence after the answer", chatEvent(`{"reasoning":"a"}`, -1) + chatEvent(`{"content":"b"}`, -1) +
			`data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}` + "\n\n" + usage(3, 1) + done,
			[]int32{1, 1, 1}, []bool{T, F, F}, 1, record.SourceUsage},
		// ... and a thought that stopped without an answer stays unanswered
		{"end of sequence after thinking", chatEvent(`{"reasoning":"a"}`, -1) +
			`data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}` + "\n\n" + `data: {"choices":[],"usage":{"completion_tokens":2}}` + "\n\n" + done,
			[]int32{1, 1}, []bool{T, T}, 2, record.SourceChunks},
		// everything was reasoning: the reply was cut off while thinking
		{"cut off thinking", chatEvent(`{"reasoning":"a"}`, -1) + chatEvent(`{"reasoning":"b"}`, -1) + usage(5, 5) + done,
			[]int32{2, 3}, []bool{T, T}, 5, record.SourceUsage},
	}
	a := mustLookup(t, "openai-chat")
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec, _ := readAll(a, strings.NewReader(tt.body))
			if rec.Error != "" {
				t.Fatalf("failed: %s: %s", rec.Error, rec.Msg)
			}
			if got := tokens(rec); !reflect.DeepEqual(got, tt.tokens) {
				t.Errorf("chunk tokens = %v, want %v", got, tt.tokens)
			}
			if got := flags(rec); !reflect.DeepEqual(got, tt.reasoning) {
				t.Errorf("reasoning chunks = %v, want %v", got, tt.reasoning)
			}
			if rec.ReasoningTokens != tt.rt || rec.ReasoningSource != tt.rsrc {
				t.Errorf("reasoning tokens %d (%q), want %d (%q)", rec.ReasoningTokens, rec.ReasoningSource, tt.rt, tt.rsrc)
			}
			if err := rec.Check(); err != nil {
				t.Errorf("the record is impossible: %v", err)
			}
		})
	}
}

// A reasoning count that is not a count is left out as if the server had
// sent none, and named: the reasoning tokens are the reasoning chunks',
// and the answer succeeds with every other count as reported.
func TestReasoningCountNotACount(t *testing.T) {
	a := mustLookup(t, "openai-chat")
	body := func(reasoning string) string {
		return chatEvent(`{"reasoning_content":"hm"}`, -1) + chatEvent(`{"reasoning_content":"m"}`, -1) + chatEvent(`{"content":"a"}`, -1) +
			`data: {"choices":[],"usage":{"prompt_tokens":2,"completion_tokens":6,"completion_tokens_details":{"reasoning_tokens":` + reasoning + `}}}` + "\n\n" +
			"data: [DONE]\n\n"
	}
	none, _ := readAll(a, strings.NewReader(body("null")))
	for _, v := range []string{`-1`, `"4"`, `1.5`, `{}`} {
		rec, st := readAll(a, strings.NewReader(body(v)))
		if !rec.OK() || rec.OutputTokens != 6 || rec.ReasoningTokens != 4 || rec.ReasoningSource != record.SourceChunks {
			t.Errorf("reasoning_tokens %s: %s %q, %d output, %d reasoning (%s); want 6 and the reasoning chunks' 4",
				v, rec.Error, rec.Msg, rec.OutputTokens, rec.ReasoningTokens, rec.ReasoningSource)
		}
		if want := "usage.completion_tokens_details.reasoning_tokens " + v; st.BadCount != want {
			t.Errorf("BadCount %q, want %q", st.BadCount, want)
		}
		if !sameButTimes(rec, none) {
			t.Errorf("reasoning_tokens %s: record %+v\nwith none sent %+v", v, rec, none)
		}
	}
}
