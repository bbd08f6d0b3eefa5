package export

import (
	"time"
)

// Kind is the type of a column's values.
type Kind int

// Column kinds.
const (
	KindString Kind = iota
	KindInt
	KindFloat
	KindBool
	KindFloatList // a list of floats (CSV: separated by spaces)
	KindIntList   // a list of integers (CSV: separated by spaces)
)

// Column is one named column of a table.
type Column struct {
	Name string
	Kind Kind
	// Optional says the column may be null: a value the request does not
	// define.
	Optional bool
	// Doc says what the column holds, for the command's help.
	Doc string
	// value returns the row's value and whether it has one: string,
	// int64, float64, bool, []float64 or []int64 by Kind.
	value func(r *Row) (any, bool)
}

// Value returns the column's value in r and false when it is null.
func (c Column) Value(r *Row) (any, bool) { return c.value(r) }

// nsSeconds converts ns to seconds; float64 holds every ns of a run of
// up to about 100 days exactly enough to convert back.
func nsSeconds(ns int64) float64 { return float64(ns) / 1e9 }

func ms(d time.Duration) float64 { return float64(d) / 1e6 }

func str(s string) (any, bool) { return s, s != "" }

// latency is a latency column's value: d in milliseconds when has, and
// null for a failed request whatever it measured before failing, for a
// summary counts no latency of a failure: the rows summarise as the
// records do. The raw times of a failure stay in their columns.
func latency(r *Row, d time.Duration, has bool) (any, bool) {
	return ms(d), has && r.Metrics.OK
}

// baseColumns are the columns every table has, in order.
var baseColumns = []Column{
	{Name: "seq", Kind: KindInt, Doc: "sequence number in the schedule",
		value: func(r *Row) (any, bool) { return r.Seq, true }},
	{Name: "warmup", Kind: KindBool, Doc: "a warm-up request, excluded from statistics",
		value: func(r *Row) (any, bool) { return r.Warmup, true }},
	{Name: "outcome", Kind: KindString, Doc: "ok, or why it failed: http, timeout, reset, dropped, …",
		value: func(r *Row) (any, bool) { return r.Outcome, true }},
	{Name: "status", Kind: KindInt, Optional: true, Doc: "HTTP status",
		value: func(r *Row) (any, bool) { return int64(r.Status), r.Status != 0 }},
	{Name: "finish", Kind: KindString, Optional: true, Doc: "the server's finish reason",
		value: func(r *Row) (any, bool) { return str(r.Finish) }},
	{Name: "scheduled_s", Kind: KindFloat, Doc: "when it was due, seconds from the run's start",
		value: func(r *Row) (any, bool) { return nsSeconds(r.Scheduled), true }},
	{Name: "sent_s", Kind: KindFloat, Optional: true, Doc: "when it was sent; null when never sent",
		value: func(r *Row) (any, bool) { return nsSeconds(r.Sent), r.HasSent }},
	{Name: "first_token_s", Kind: KindFloat, Optional: true, Doc: "when its first token arrived",
		value: func(r *Row) (any, bool) { return nsSeconds(r.FirstToken), r.Chunks > 0 }},
	{Name: "last_token_s", Kind: KindFloat, Optional: true, Doc: "when its last token arrived",
		value: func(r *Row) (any, bool) { return nsSeconds(r.LastToken), r.Chunks > 0 }},
	{Name: "end_s", Kind: KindFloat, Doc: "when the response ended",
		value: func(r *Row) (any, bool) { return nsSeconds(r.End), true }},
	{Name: "input_tokens", Kind: KindInt, Doc: "prompt tokens",
		value: func(r *Row) (any, bool) { return int64(r.InputTokens), true }},
	{Name: "output_tokens", Kind: KindInt, Doc: "output tokens",
		value: func(r *Row) (any, bool) { return int64(r.OutputTokens), true }},
	{Name: "chunks", Kind: KindInt, Doc: "streamed chunks that carried tokens",
		value: func(r *Row) (any, bool) { return int64(r.Chunks), true }},
	{Name: "token_source", Kind: KindString, Optional: true, Doc: "where output_tokens came from: usage, tokenizer or chunks",
		value: func(r *Row) (any, bool) { return str(r.TokenSource) }},
	{Name: "client_queue_ms", Kind: KindFloat, Optional: true, Doc: "sent − scheduled",
		value: func(r *Row) (any, bool) { return latency(r, r.Metrics.ClientQueue, r.Metrics.HasSent) }},
	{Name: "ttft_ms", Kind: KindFloat, Optional: true, Doc: "time to first token, from scheduled",
		value: func(r *Row) (any, bool) { return latency(r, r.Metrics.TTFT, r.Metrics.HasFirstToken) }},
	{Name: "ttft_sent_ms", Kind: KindFloat, Optional: true, Doc: "time to first token, from sent (what vLLM prints)",
		value: func(r *Row) (any, bool) {
			return latency(r, r.Metrics.TTFTSent, r.Metrics.HasFirstToken && r.Metrics.HasSent)
		}},
	{Name: "tpot_ms", Kind: KindFloat, Optional: true, Doc: "time per output token after the first",
		value: func(r *Row) (any, bool) { return latency(r, r.Metrics.TPOT, r.Metrics.HasTPOT) }},
	{Name: "itl_max_ms", Kind: KindFloat, Optional: true, Doc: "the longest per-token gap",
		value: func(r *Row) (any, bool) { return latency(r, r.Metrics.ITLMax, r.Metrics.HasGaps) }},
	{Name: "e2e_ms", Kind: KindFloat, Optional: true, Doc: "end-to-end latency, from scheduled",
		value: func(r *Row) (any, bool) { return latency(r, r.Metrics.E2E, r.Metrics.HasE2E) }},
	{Name: "good", Kind: KindBool, Optional: true, Doc: "met the SLO; null without one",
		value: func(r *Row) (any, bool) { return r.Good, r.HasGood }},
	{Name: "message", Kind: KindString, Optional: true, Doc: "the error message of a failure",
		value: func(r *Row) (any, bool) { return str(r.Message) }},
}

// reasoningColumns are added when a request reasoned, after the base
// columns. For a reply without reasoning they read as the seeds' metrics
// do: TTFA is TTFT and TPOT over the answer is TPOT.
var reasoningColumns = []Column{
	{Name: "reasoning_tokens", Kind: KindInt, Doc: "of output_tokens, those a reasoning model spent thinking",
		value: func(r *Row) (any, bool) { return int64(r.Metrics.ReasoningTokens), true }},
	{Name: "answer_tokens", Kind: KindInt, Doc: "output_tokens − reasoning_tokens",
		value: func(r *Row) (any, bool) { return int64(r.Metrics.AnswerTokens), true }},
	{Name: "reasoning_source", Kind: KindString, Optional: true, Doc: "where reasoning_tokens came from: usage (the server's count) or chunks",
		value: func(r *Row) (any, bool) { return str(r.ReasoningSource) }},
	{Name: "first_answer_s", Kind: KindFloat, Optional: true, Doc: "when its first answer token arrived",
		value: func(r *Row) (any, bool) { return nsSeconds(r.FirstAnswer), r.HasFirstAnswer }},
	{Name: "ttfa_ms", Kind: KindFloat, Optional: true, Doc: "time to first answer token, from scheduled",
		value: func(r *Row) (any, bool) { return latency(r, r.Metrics.TTFA, r.Metrics.HasTTFA) }},
	{Name: "tpot_reasoning_ms", Kind: KindFloat, Optional: true, Doc: "time per output token over the reasoning",
		value: func(r *Row) (any, bool) { return latency(r, r.Metrics.TPOTReasoning, r.Metrics.HasTPOTReasoning) }},
	{Name: "tpot_answer_ms", Kind: KindFloat, Optional: true, Doc: "time per output token over the answer",
		value: func(r *Row) (any, bool) { return latency(r, r.Metrics.TPOTAnswer, r.Metrics.HasTPOTAnswer) }},
}

// chunkReasoningColumn is added with Options.Chunks when a request
// reasoned: which chunks were reasoning.
var chunkReasoningColumn = Column{Name: "chunk_reasoning", Kind: KindIntList, Doc: "1 for each chunk that was reasoning, 0 for an answer chunk",
	value: func(r *Row) (any, bool) {
		out := make([]int64, len(r.ChunkReasoning))
		for i, k := range r.ChunkReasoning {
			if k {
				out[i] = 1
			}
		}
		return out, true
	}}

// chunkColumns are added with Options.Chunks.
var chunkColumns = []Column{
	{Name: "chunk_times_s", Kind: KindFloatList, Doc: "arrival of every token-bearing chunk, seconds from the run's start",
		value: func(r *Row) (any, bool) {
			out := make([]float64, len(r.ChunkTimes))
			for i, t := range r.ChunkTimes {
				out[i] = nsSeconds(t)
			}
			return out, true
		}},
	{Name: "chunk_tokens", Kind: KindIntList, Doc: "tokens each chunk carried",
		value: func(r *Row) (any, bool) {
			out := make([]int64, len(r.ChunkTokens))
			for i, k := range r.ChunkTokens {
				out[i] = int64(k)
			}
			return out, true
		}},
}

// LabelPrefix starts the name of a label's column: label_model for the
// label model.
const LabelPrefix = "label_"

// labelColumn is the column of one label key.
func labelColumn(key string) Column {
	return Column{Name: LabelPrefix + key, Kind: KindString, Optional: true, Doc: "the record's label " + key,
		value: func(r *Row) (any, bool) {
			v, ok := r.Labels[key]
			return v, ok
		}}
}

// BaseColumns returns the columns every table has, in order: for help
// texts and documentation.
func BaseColumns() []Column { return append([]Column(nil), baseColumns...) }

// ReasoningColumns returns the columns a table of a run in which requests
// reasoned adds after the base columns, in order.
func ReasoningColumns() []Column { return append([]Column(nil), reasoningColumns...) }
