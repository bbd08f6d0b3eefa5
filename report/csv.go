package report

import (
	"encoding/csv"
	"io"
	"strconv"
	"time"

	"github.com/goodput-dev/goodput/metrics"
	"github.com/goodput-dev/goodput/record"
	"github.com/goodput-dev/goodput/slo"
)

// RecordColumns are the columns RecordCSV writes, in order. Times are
// seconds from the run epoch; latencies are milliseconds, exact to the
// nanosecond; a latency the request does not define is an empty cell.
var RecordColumns = []string{
	"seq", "warmup", "ok", "error", "status", "finish",
	"scheduled_s", "sent_s", "end_s",
	"input_tokens", "output_tokens", "token_source", "chunks",
	"client_queue_ms", "ttft_ms", "ttft_sent_ms", "tpot_ms", "itl_min_ms", "itl_max_ms", "e2e_ms",
	"good", "message",
}

// RecordCSV writes one CSV row of per-request metrics per record, for a
// spreadsheet or a notebook. Create it with NewRecordCSV, call Write per
// record and Flush at the end.
type RecordCSV struct {
	w      *csv.Writer
	slo    slo.Conditions
	header bool
	row    []string
}

// NewRecordCSV returns a writer to w. With an SLO the good column says
// whether each request met it; without one the column is empty.
func NewRecordCSV(w io.Writer, cs slo.Conditions) *RecordCSV {
	return &RecordCSV{w: csv.NewWriter(w), slo: cs}
}

// Write writes r's row (and the header row before the first).
func (c *RecordCSV) Write(r *record.Record) error {
	if !c.header {
		c.header = true
		if err := c.w.Write(RecordColumns); err != nil {
			return err
		}
	}
	q := metrics.Compute(r)
	lat := func(ok bool, d time.Duration) string {
		if !ok {
			return ""
		}
		return strconv.FormatFloat(float64(d)/1e6, 'f', -1, 64)
	}
	status := ""
	if r.Status != 0 {
		status = strconv.Itoa(r.Status)
	}
	sent := ""
	if q.HasSent {
		sent = nsSeconds(r.Sent)
	}
	good := ""
	if c.slo != nil {
		good = strconv.FormatBool(c.slo.Good(q))
	}
	c.row = append(c.row[:0],
		strconv.FormatInt(r.Seq, 10), strconv.FormatBool(r.Warmup), strconv.FormatBool(q.OK),
		string(r.Error), status, r.Finish,
		nsSeconds(r.Scheduled), sent, nsSeconds(r.End),
		strconv.Itoa(r.InputTokens), strconv.Itoa(q.OutputTokens), string(r.TokenSource), strconv.Itoa(q.Chunks),
		lat(q.HasSent, q.ClientQueue), lat(q.HasFirstToken, q.TTFT), lat(q.HasFirstToken && q.HasSent, q.TTFTSent),
		lat(q.HasTPOT, q.TPOT), lat(q.HasGaps, q.ITLMin), lat(q.HasGaps, q.ITLMax), lat(q.HasE2E, q.E2E),
		good, r.Msg,
	)
	return c.w.Write(c.row)
}

// Flush writes any buffered rows and returns the first error of any write.
func (c *RecordCSV) Flush() error {
	c.w.Flush()
	return c.w.Error()
}

// nsSeconds writes nanoseconds as exact seconds.
func nsSeconds(ns int64) string { return strconv.FormatFloat(float64(ns)/1e9, 'f', -1, 64) }
