package runfile

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/goodput-dev/goodput/internal/jsonerr"
	"github.com/goodput-dev/goodput/record"
)

// aiperfLine is one line of AIPerf's profile_export.jsonl: a request's
// metadata, the metrics AIPerf computed for it (each a value with its
// unit, in AIPerf's display units), and its error when it failed.
//
// The shape changed in late 2025: earlier files hold the start in
// metadata.timestamp_ns, the phase in credit_phase and TTFT under the tag
// "ttft"; later ones request_start_ns, request_end_ns, credit_issued_ns,
// benchmark_phase and "time_to_first_token". Both are read.
type aiperfLine struct {
	Metadata *aiperfMeta             `json:"metadata"`
	Metrics  map[string]aiperfMetric `json:"metrics"`
	Error    *aiperfError            `json:"error"`
}

// aiperfMeta holds wall-clock times in ns since the Unix epoch
// (Python's time.time_ns).
type aiperfMeta struct {
	XRequestID     string  `json:"x_request_id"`
	XCorrelationID string  `json:"x_correlation_id"`
	ConversationID string  `json:"conversation_id"`
	TurnIndex      int     `json:"turn_index"`
	Timestamp      decimal `json:"timestamp_ns"`     // the request's start, in files before request_start_ns
	CreditIssued   decimal `json:"credit_issued_ns"` // when the rate limiter released the request: when it was due
	RequestStart   decimal `json:"request_start_ns"`
	RequestEnd     decimal `json:"request_end_ns"`
	Cancelled      decimal `json:"cancellation_time_ns"`
	CreditPhase    string  `json:"credit_phase"`
	BenchmarkPhase string  `json:"benchmark_phase"`
	WasCancelled   bool    `json:"was_cancelled"`
}

type aiperfMetric struct {
	Value json.RawMessage `json:"value"`
	Unit  string          `json:"unit"`
}

type aiperfError struct {
	Code    *int   `json:"code"`
	Type    string `json:"type"`
	Message string `json:"message"`
}

// aiperfTally counts the requests whose chunk times the file did not
// give, for the notes.
type aiperfTally struct {
	even      int // tokens spread evenly between the first and the last token
	nonStream int // no TTFT: the answer arrived whole
	reasoning int // reasoned, but the reasoning chunks are not known
	canceled  int // canceled by AIPerf itself
}

func openAIPerf(r io.Reader, name string) (*File, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 1<<16), record.MaxLineBytes)
	var reqs []imported
	var tally aiperfTally
	// AIPerf gives each request its own x_request_id: one seen twice is a
	// line repeated (files concatenated, an edit), and rebase would number
	// the copy as another request.
	ids := map[string]int{}
	for line := 1; sc.Scan(); line++ {
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 {
			continue
		}
		var l aiperfLine
		if err := jsonerr.Unmarshal(pythonNumbers(b), &l); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", name, line, lineError(err))
		}
		req, err := l.request(&tally)
		if err == nil {
			err = req.rec.Check()
		}
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", name, line, err)
		}
		if id := l.Metadata.XRequestID; id != "" {
			if first, dup := ids[id]; dup {
				return nil, fmt.Errorf("%s:%d: x_request_id %q appears again (first at line %d): a request counted twice", name, line, id, first)
			}
			ids[id] = line
		}
		reqs = append(reqs, req)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	recs := placeTurns(reqs)
	start := rebase(recs)
	var notes []string
	if tally.even > 0 {
		notes = append(notes, fmt.Sprintf("%s: %s no inter_chunk_latency: the tokens between a first and a last are spread evenly (TTFT, TPOT and e2e are exact; ITL is not measured)", name, requestsHave(tally.even)))
	}
	if tally.reasoning > 0 {
		notes = append(notes, fmt.Sprintf("%s: %s reasoning tokens but no time_to_first_output_token to tell the reasoning chunks: the reasoning is counted as output, not apart (no TTFA)", name, requestsHave(tally.reasoning)))
	}
	if tally.canceled > 0 {
		notes = append(notes, fmt.Sprintf("%s: AIPerf canceled %s itself (RequestCancellationError; --request-cancellation-rate cancels on purpose): goodput counts them canceled by the client, outside SLO attainment, as it does requests in flight at an interrupt", name, plural(tally.canceled, "request")))
	}
	if tally.nonStream > 0 {
		notes = append(notes, fmt.Sprintf("%s: %s no time to first token (not streamed): the answer counts as arriving whole at the end, so TTFT is e2e", name, requestsHave(tally.nonStream)))
	}
	h := record.Header{Kind: record.KindHeader, Schema: record.SchemaVersion, Start: start, Tool: "import: AIPerf profile_export.jsonl"}
	return &File{Reader: &slice{h: h, recs: recs}, Format: "aiperf", notes: notes}, nil
}

// requestsHave says "1 request has" or "3 requests have".
func requestsHave(n int) string {
	if n == 1 {
		return "1 request has"
	}
	return fmt.Sprintf("%d requests have", n)
}

// plural says "1 request" or "3 requests".
func plural(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return fmt.Sprintf("%d %ss", n, thing)
}

// lineError words a decoding error for a line of JSON: a line cut short
// says so.
func lineError(err error) error {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		if se.Error() == "unexpected end of JSON input" {
			return errors.New("the line is cut short (unexpected end of JSON input)")
		}
		return fmt.Errorf("column %d: %w", se.Offset, err)
	}
	return jsonerr.Plain(err)
}

// request converts one line into a record on the file's clock.
func (l *aiperfLine) request(tally *aiperfTally) (imported, error) {
	m := l.Metadata
	if m == nil {
		return imported{}, errors.New(`no "metadata": not a line of AIPerf's profile_export.jsonl`)
	}
	if l.Metrics == nil && l.Error == nil {
		return imported{}, errors.New(`no "metrics": not a line of AIPerf's profile_export.jsonl (its raw export, profile_export_raw.jsonl, is not read)`)
	}
	start, key := m.RequestStart, `"request_start_ns"`
	if !start.set {
		start, key = m.Timestamp, `"timestamp_ns"`
	}
	if !start.set {
		return imported{}, errors.New(`no request start time ("request_start_ns" or "timestamp_ns" in "metadata")`)
	}
	sent, err := start.scaled(1, key)
	if err != nil {
		return imported{}, err
	}
	rec := record.Record{Scheduled: sent, Sent: sent, End: sent, RequestID: m.XRequestID,
		Warmup: m.BenchmarkPhase == "warmup" || m.CreditPhase == "warmup"}
	if m.CreditIssued.set {
		due, err := m.CreditIssued.scaled(1, `"credit_issued_ns"`)
		if err != nil {
			return imported{}, err
		}
		// A credit issued after the start it led to would be another
		// clock's reading; the start then stands for both.
		rec.Scheduled = min(due, sent)
	}
	session := m.XCorrelationID
	if session == "" {
		session = m.ConversationID
	}
	req := imported{session: session, turn: m.TurnIndex}
	end := sent
	for _, t := range []struct {
		d   decimal
		key string
	}{{m.RequestEnd, `"request_end_ns"`}, {m.Cancelled, `"cancellation_time_ns"`}} {
		if t.d.set {
			e, err := t.d.scaled(1, t.key)
			if err != nil {
				return imported{}, err
			}
			if e < sent {
				return imported{}, fmt.Errorf("%s %d is before the request's start, %d: time goes backwards", t.key, e, sent)
			}
			end = max(end, e)
			break
		}
	}
	in, _, err := l.firstCount("usage_prompt_tokens", "input_sequence_length", "error_isl")
	if err != nil {
		return imported{}, err
	}
	rec.InputTokens = in
	if l.failed() || m.WasCancelled {
		rec.Error, rec.Status, rec.Msg = l.failure(m.WasCancelled)
		if rec.Error == record.ErrCanceled {
			tally.canceled++
		}
		rec.End = end
		req.rec = rec
		return req, nil
	}
	if err := l.answer(&rec, tally); err != nil {
		return imported{}, err
	}
	rec.End = max(rec.End, end)
	rec.Status = 200
	req.rec = rec
	return req, nil
}

// failed reports whether the line holds an error.
func (l *aiperfLine) failed() bool {
	e := l.Error
	return e != nil && (e.Code != nil || e.Type != "" || e.Message != "")
}

// failure classifies the line's error: a request AIPerf canceled on
// purpose (--request-cancellation-rate; its code 499 is no HTTP status)
// was canceled by the client, as one in flight at an interruption is; an
// HTTP status gives its kind; a timeout or a failed connection says so in
// the exception's name.
func (l *aiperfLine) failure(cancelled bool) (record.ErrorKind, int, string) {
	e := l.Error
	if e == nil {
		return record.ErrCanceled, 0, "canceled by AIPerf"
	}
	msg := e.Message
	if e.Type != "" && msg != "" {
		msg = e.Type + ": " + msg
	} else if msg == "" {
		msg = e.Type
	}
	code := 0
	if e.Code != nil {
		code = *e.Code
	}
	switch {
	case cancelled || e.Type == "RequestCancellationError" || code == 499:
		return record.ErrCanceled, 0, msg
	case code == 429:
		return record.ErrRateLimited, code, msg
	case code == 503:
		return record.ErrUnavailable, code, msg
	case code >= 400 && code <= 599:
		return record.ErrHTTP, code, msg
	case code >= 200 && code <= 299:
		return record.ErrStream, code, msg
	case strings.Contains(e.Type, "Timeout"):
		return record.ErrTimeout, 0, msg
	case strings.Contains(e.Type, "Connect"):
		return record.ErrConnect, 0, msg
	}
	return record.ErrOther, 0, msg
}

// answer fills in a successful request's chunks and token counts.
//
// AIPerf measures TTFT from the request's start to the first content
// chunk, inter_chunk_latency as the gaps between content chunks, and
// request_latency to the last one: together they give every chunk's
// time. It does not say how many tokens each chunk carried, so the
// output count is spread over the chunks as for vLLM's files. Without the
// gaps, the tokens are spread evenly from the first to the last token.
func (l *aiperfLine) answer(rec *record.Record, tally *aiperfTally) error {
	ttft, hasTTFT, err := l.duration("time_to_first_token", "ttft")
	if err != nil {
		return err
	}
	lat, hasLat, err := l.duration("request_latency")
	if err != nil {
		return err
	}
	gaps, hasGaps, err := l.durations("inter_chunk_latency")
	if err != nil {
		return err
	}
	n, src, err := l.outputTokens()
	if err != nil {
		return err
	}
	for _, d := range []struct {
		v   int64
		key string
	}{{ttft, "time_to_first_token"}, {lat, "request_latency"}} {
		if d.v < 0 {
			return fmt.Errorf("%q is negative", d.key)
		}
	}
	if hasTTFT && hasLat && ttft > lat {
		return fmt.Errorf(`"time_to_first_token" %.3f ms is past "request_latency" %.3f ms: the first token came after the end`, float64(ttft)/1e6, float64(lat)/1e6)
	}
	t0 := rec.Sent
	switch {
	case hasTTFT && hasGaps:
		at := t0 + ttft
		rec.Chunks = append(rec.Chunks, record.Chunk{At: at, Tokens: 1})
		for i, g := range gaps {
			if g < 0 {
				return fmt.Errorf(`"inter_chunk_latency"[%d] is negative`, i)
			}
			at += g
			rec.Chunks = append(rec.Chunks, record.Chunk{At: at, Tokens: 1})
		}
	case hasTTFT:
		if !hasLat {
			if itl, ok, err := l.duration("inter_token_latency"); err != nil {
				return err
			} else if ok && n > 1 {
				lat, hasLat = ttft+itl*int64(n-1), true
			}
		}
		first, last := t0+ttft, t0+ttft
		if hasLat && t0+lat > first {
			last = t0 + lat
		}
		rec.Chunks = evenChunks(first, last, n)
		if len(rec.Chunks) > 1 {
			tally.even++
		}
	case hasLat:
		rec.Chunks = []record.Chunk{{At: t0 + lat, Tokens: 1}}
		tally.nonStream++
	default:
		return errors.New(`a successful request without "time_to_first_token" or "request_latency": no timing to read`)
	}
	rec.End = rec.Chunks[len(rec.Chunks)-1].At
	if src == "" {
		n, src = len(rec.Chunks), record.SourceChunks
	}
	rec.OutputTokens, rec.TokenSource = n, src
	unplaced, err := l.spread(rec, hasTTFT && hasGaps)
	if unplaced {
		tally.reasoning++
	}
	return err
}

// maxEvenChunks bounds the chunks evenChunks makes of one request: past
// it they carry several tokens each (SpreadTokens), which leaves TPOT and
// the even ITL as they were, and a count in a file cannot make a reader
// allocate without end.
const maxEvenChunks = 1 << 16

// evenChunks returns n one-token chunks spread evenly from first to last
// (one chunk at first when n ≤ 1 or last is first; at most
// maxEvenChunks), for a request whose file gives only the first and last
// token times.
func evenChunks(first, last int64, n int) []record.Chunk {
	if n <= 1 || last <= first {
		return []record.Chunk{{At: first, Tokens: 1}}
	}
	n = min(n, maxEvenChunks)
	cs := make([]record.Chunk, n)
	span := last - first
	for i := range cs {
		cs[i] = record.Chunk{At: first + span*int64(i)/int64(n-1), Tokens: 1}
	}
	return cs
}

// spread gives the chunks their tokens, reasoning apart. Where AIPerf
// timed the first answer token (time_to_first_output_token) and the
// chunks' times are measured, the chunks before it were reasoning, and
// each side gets its own tokens. Reasoning it cannot place so is left in
// the output count, not counted apart: a reasoning count without its
// chunks would read as reasoning the server hid, and TTFA as TTFT. It
// reports whether it left reasoning so.
func (l *aiperfLine) spread(rec *record.Record, measured bool) (unplaced bool, err error) {
	rt, hasRT, err := l.firstCount("usage_reasoning_tokens", "reasoning_token_count")
	if err != nil {
		return false, err
	}
	cs := rec.Chunks
	if hasRT && rt > 0 {
		ttfo, ok, err := l.duration("time_to_first_output_token")
		if err != nil {
			return false, err
		}
		k := 0
		for ok && measured && k < len(cs) && cs[k].At < rec.Sent+ttfo {
			k++
		}
		if k == 0 || k == len(cs) || k > rt || len(cs)-k > rec.OutputTokens-rt {
			return true, record.SpreadTokens(cs, rec.OutputTokens)
		}
		for i := range cs[:k] {
			cs[i].Reasoning = true
		}
		rec.ReasoningTokens, rec.ReasoningSource = rt, rec.TokenSource
		if rec.TokenSource == record.SourceChunks {
			rec.ReasoningSource = record.SourceTokenizer
		}
		if err := record.SpreadTokens(cs[:k], rt); err != nil {
			return false, err
		}
		return false, record.SpreadTokens(cs[k:], rec.OutputTokens-rt)
	}
	return false, record.SpreadTokens(cs, rec.OutputTokens)
}

// outputTokens returns the output token count and where it came from: the
// server's usage when AIPerf kept it (usage_completion_tokens), else
// AIPerf's own count (output_sequence_length, answer and reasoning, by
// its tokenizer unless it ran with --use-server-token-count); "" when the
// file has neither.
func (l *aiperfLine) outputTokens() (int, record.Source, error) {
	if n, ok, err := l.firstCount("usage_completion_tokens"); err != nil || ok {
		return n, record.SourceUsage, err
	}
	if n, ok, err := l.firstCount("output_sequence_length"); err != nil || ok {
		return n, record.SourceTokenizer, err
	}
	n, ok, err := l.firstCount("output_token_count")
	if err != nil || !ok {
		return 0, "", err
	}
	rt, _, err := l.firstCount("reasoning_token_count")
	return n + rt, record.SourceTokenizer, err
}

// metric returns the metric of the first of tags the line holds.
func (l *aiperfLine) metric(tags ...string) (string, aiperfMetric, bool) {
	for _, t := range tags {
		if v, ok := l.Metrics[t]; ok && len(v.Value) > 0 && string(v.Value) != "null" {
			return t, v, true
		}
	}
	return "", aiperfMetric{}, false
}

// duration returns the first of tags as nanoseconds, by its unit.
func (l *aiperfLine) duration(tags ...string) (int64, bool, error) {
	tag, v, ok := l.metric(tags...)
	if !ok {
		return 0, false, nil
	}
	unit := unitNanos(v.Unit)
	if unit == 0 {
		return 0, false, fmt.Errorf("%q: unit %q is not a time unit", tag, v.Unit)
	}
	var d decimal
	if err := json.Unmarshal(v.Value, &d); err != nil {
		return 0, false, fmt.Errorf("%q: %w", tag, jsonerr.Plain(err))
	}
	ns, err := d.scaled(unit, fmt.Sprintf("%q", tag))
	return ns, err == nil, err
}

// durations returns a list metric (inter_chunk_latency) as nanoseconds.
func (l *aiperfLine) durations(tag string) ([]int64, bool, error) {
	_, v, ok := l.metric(tag)
	if !ok {
		return nil, false, nil
	}
	unit := unitNanos(v.Unit)
	if unit == 0 {
		return nil, false, fmt.Errorf("%q: unit %q is not a time unit", tag, v.Unit)
	}
	var ds []decimal
	if err := json.Unmarshal(v.Value, &ds); err != nil {
		return nil, false, fmt.Errorf("%q: %w", tag, jsonerr.Plain(err))
	}
	out := make([]int64, len(ds))
	for i, d := range ds {
		ns, err := d.scaled(unit, fmt.Sprintf("%q[%d]", tag, i))
		if err != nil {
			return nil, false, err
		}
		out[i] = ns
	}
	return out, true, nil
}

// firstCount returns the first of tags the line holds as a count.
func (l *aiperfLine) firstCount(tags ...string) (int, bool, error) {
	tag, v, ok := l.metric(tags...)
	if !ok {
		return 0, false, nil
	}
	var d decimal
	if err := json.Unmarshal(v.Value, &d); err != nil {
		return 0, false, fmt.Errorf("%q: %w", tag, jsonerr.Plain(err))
	}
	n, err := d.count(fmt.Sprintf("%q", tag))
	return n, err == nil, err
}
