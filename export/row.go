// Package export writes a run's requests as a table, one row per request
// with named columns, for the tools people analyse data with: CSV for
// spreadsheets and pandas, JSON Lines for jq, Parquet for DuckDB, Polars
// and pandas. Every format holds the same columns (see Columns); a value
// a request does not define (the TPOT of a one-token reply, any latency
// of a failure, whose raw times stay) is an empty cell, a JSON null or a
// Parquet null.
//
// Times are seconds from the run epoch (the run header's start) and
// latencies milliseconds, both exact to the nanosecond: a row read back
// gives the record's times again, so the summary of exported rows is the
// summary of the records.
package export

import (
	"maps"
	"slices"

	"github.com/goodput-dev/goodput/metrics"
	"github.com/goodput-dev/goodput/record"
	"github.com/goodput-dev/goodput/slo"
)

// Options say what a table holds.
type Options struct {
	// SLO fills the good column: whether each request met it. Nil leaves
	// the column empty.
	SLO slo.Conditions
	// Chunks adds the chunk_times_s and chunk_tokens columns: every
	// token-bearing chunk's arrival and token count, from which each
	// request's ITLs can be recomputed.
	Chunks bool
}

// Outcome of a request that succeeded; a failed one's outcome is its
// error kind (http, timeout, …).
const OutcomeOK = "ok"

// Row is one request as a table row. Build it with NewRow.
type Row struct {
	Seq     int64
	Warmup  bool
	Outcome string // OutcomeOK or the error kind
	Status  int    // HTTP status, 0 when no response arrived
	Finish  string
	Message string

	// Times, ns from the run epoch. Sent is meaningless when HasSent is
	// false (a dropped request), FirstToken and LastToken when Chunks is 0.
	Scheduled, Sent, End  int64
	FirstToken, LastToken int64
	HasSent               bool

	InputTokens, OutputTokens, Chunks int
	TokenSource                       string

	// FirstAnswer is when the first answer-bearing chunk arrived, when
	// HasFirstAnswer; ReasoningSource is the record's.
	FirstAnswer     int64
	HasFirstAnswer  bool
	ReasoningSource string

	// Metrics are the request's latencies, as metrics computes them.
	Metrics metrics.Request
	// Good is whether the request met the SLO; HasGood is false without
	// one.
	Good, HasGood bool

	Labels map[string]string
	// Session, Turn, Task, Call and Endpoint place the request in a
	// session, an agent task and among several endpoints (see
	// record.Record).
	Session, Task, Call, Endpoint string
	Turn                          int
	// ChunkTimes and ChunkTokens are set with Options.Chunks.
	ChunkTimes     []int64
	ChunkTokens    []int32
	ChunkReasoning []bool
}

// NewRow builds r's row. It keeps r's labels map, not its chunks.
func NewRow(r *record.Record, o Options) Row {
	q := metrics.Compute(r)
	row := Row{
		Seq: r.Seq, Warmup: r.Warmup, Outcome: OutcomeOK, Status: r.Status, Finish: r.Finish, Message: r.Msg,
		Scheduled: r.Scheduled, Sent: r.Sent, End: r.End, HasSent: q.HasSent,
		InputTokens: r.InputTokens, OutputTokens: q.OutputTokens, Chunks: q.Chunks, TokenSource: string(r.TokenSource),
		Metrics: q, Labels: r.Labels, ReasoningSource: string(r.ReasoningSource),
		Session: r.Session, Turn: r.Turn, Task: r.Task, Call: r.Call, Endpoint: r.Endpoint,
	}
	if !q.OK {
		row.Outcome = string(r.Error)
	}
	first := true
	for _, c := range r.Chunks {
		if c.Tokens <= 0 {
			continue // not a token: metrics ignores it too
		}
		if first {
			row.FirstToken, first = c.At, false
		}
		row.LastToken = c.At
		if !c.Reasoning && !row.HasFirstAnswer {
			row.FirstAnswer, row.HasFirstAnswer = c.At, true
		}
		if o.Chunks {
			row.ChunkTimes = append(row.ChunkTimes, c.At)
			row.ChunkTokens = append(row.ChunkTokens, c.Tokens)
			row.ChunkReasoning = append(row.ChunkReasoning, c.Reasoning)
		}
	}
	if o.SLO != nil {
		row.Good, row.HasGood = o.SLO.Good(q), true
	}
	return row
}

// LabelKeys returns every label key of rows, sorted: the table's label
// columns.
func LabelKeys(rows []Row) []string {
	keys := map[string]bool{}
	for i := range rows {
		for k := range rows[i].Labels {
			keys[k] = true
		}
	}
	return slices.Sorted(maps.Keys(keys))
}
