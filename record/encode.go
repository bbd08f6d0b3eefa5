package record

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
)

// The JSON Lines layout of a record (schema 1). Keys are short because a run
// can hold millions of records; times are integers in nanoseconds.
//
//	seq     sequence number
//	s       scheduled time, ns from the run epoch
//	t0      sent time, ns from the run epoch
//	te      end time, ns from the run epoch
//	ct      chunk arrival times: the first is an offset from t0, each later one
//	        a delta from the previous chunk (delta coding keeps numbers short)
//	ck      tokens per chunk, omitted when every chunk carried one token
//	cr      which chunks were reasoning, as lengths of alternating runs
//	        of chunks, reasoning first: [5] is five reasoning chunks and
//	        then answer, [0,2,3] two answer chunks, three reasoning, then
//	        answer; omitted when no chunk was reasoning
//	in, out input and output tokens
//	src     token count source (usage, tokenizer, chunks)
//	cached  prompt tokens the server served from its cache, only when it said
//	retries sends after the first (a reused connection failed), omitted when 0
//	prefill_ns, decode_ns  the server's own prompt and output time, when given
//	rt,rsrc reasoning tokens among out and their source (usage, chunks),
//	        omitted for a reply without reasoning
//	status  HTTP status
//	fin     finish reason
//	err,msg error kind and message (absent on success)
//	warm    true for warm-up requests
//	whole   true for an answer that was not streamed
//	rid     the x-request-id sent, absent when none
//	sid,turn  session id and turn number (1-based), absent outside a session
//	task,call agent task id and call id, absent outside a task
//	ep      the endpoint (base URL) of a run spread over several, else absent
//	labels  string map
//
// Unknown keys are ignored by the decoder, so later schema additions stay
// readable by older readers of the same schema version.

// AppendJSON appends r's JSON encoding (without a newline) to dst.
func AppendJSON(dst []byte, r *Record) []byte {
	dst = append(dst, `{"seq":`...)
	dst = strconv.AppendInt(dst, r.Seq, 10)
	dst = append(dst, `,"s":`...)
	dst = strconv.AppendInt(dst, r.Scheduled, 10)
	dst = append(dst, `,"t0":`...)
	dst = strconv.AppendInt(dst, r.Sent, 10)
	dst = append(dst, `,"te":`...)
	dst = strconv.AppendInt(dst, r.End, 10)
	if len(r.Chunks) > 0 {
		dst = append(dst, `,"ct":[`...)
		prev := r.Sent
		ones := true
		for i, c := range r.Chunks {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = strconv.AppendInt(dst, c.At-prev, 10)
			prev = c.At
			if c.Tokens != 1 {
				ones = false
			}
		}
		dst = append(dst, ']')
		if !ones {
			dst = append(dst, `,"ck":[`...)
			for i, c := range r.Chunks {
				if i > 0 {
					dst = append(dst, ',')
				}
				dst = strconv.AppendInt(dst, int64(c.Tokens), 10)
			}
			dst = append(dst, ']')
		}
		dst = appendReasoningRuns(dst, r.Chunks)
	}
	dst = append(dst, `,"in":`...)
	dst = strconv.AppendInt(dst, int64(r.InputTokens), 10)
	dst = append(dst, `,"out":`...)
	dst = strconv.AppendInt(dst, int64(r.OutputTokens), 10)
	if r.TokenSource != "" {
		dst = append(dst, `,"src":`...)
		dst = AppendJSONString(dst, string(r.TokenSource))
	}
	if r.CacheReported {
		dst = append(dst, `,"cached":`...)
		dst = strconv.AppendInt(dst, int64(r.CachedTokens), 10)
	}
	if r.Retries != 0 {
		dst = append(dst, `,"retries":`...)
		dst = strconv.AppendInt(dst, int64(r.Retries), 10)
	}
	if r.ServerPrefill != 0 {
		dst = append(dst, `,"prefill_ns":`...)
		dst = strconv.AppendInt(dst, r.ServerPrefill, 10)
	}
	if r.ServerDecode != 0 {
		dst = append(dst, `,"decode_ns":`...)
		dst = strconv.AppendInt(dst, r.ServerDecode, 10)
	}
	if r.ReasoningTokens != 0 {
		dst = append(dst, `,"rt":`...)
		dst = strconv.AppendInt(dst, int64(r.ReasoningTokens), 10)
	}
	if r.ReasoningSource != "" {
		dst = append(dst, `,"rsrc":`...)
		dst = AppendJSONString(dst, string(r.ReasoningSource))
	}
	if r.Status != 0 {
		dst = append(dst, `,"status":`...)
		dst = strconv.AppendInt(dst, int64(r.Status), 10)
	}
	if r.Finish != "" {
		dst = append(dst, `,"fin":`...)
		dst = AppendJSONString(dst, r.Finish)
	}
	if r.Error != ErrNone {
		dst = append(dst, `,"err":`...)
		dst = AppendJSONString(dst, string(r.Error))
	}
	if r.Msg != "" {
		dst = append(dst, `,"msg":`...)
		dst = AppendJSONString(dst, r.Msg)
	}
	if r.Warmup {
		dst = append(dst, `,"warm":true`...)
	}
	if r.Whole {
		dst = append(dst, `,"whole":true`...)
	}
	if r.RequestID != "" {
		dst = append(dst, `,"rid":`...)
		dst = AppendJSONString(dst, r.RequestID)
	}
	dst = appendPlace(dst, r)
	if len(r.Labels) > 0 {
		dst = append(dst, `,"labels":{`...)
		keys := make([]string, 0, len(r.Labels))
		for k := range r.Labels {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for i, k := range keys {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = AppendJSONString(dst, k)
			dst = append(dst, ':')
			dst = AppendJSONString(dst, r.Labels[k])
		}
		dst = append(dst, '}')
	}
	return append(dst, '}')
}

// appendReasoningRuns appends the "cr" key for cs: the lengths of the runs
// of reasoning and answer chunks, alternating, reasoning first, without
// the last run when it is answer. Nothing is appended when no chunk was
// reasoning, so records of models that do not reason stay as they were.
func appendReasoningRuns(dst []byte, cs []Chunk) []byte {
	last := -1 // index of the last reasoning chunk
	for i := len(cs) - 1; i >= 0; i-- {
		if cs[i].Reasoning {
			last = i
			break
		}
	}
	if last < 0 {
		return dst
	}
	dst = append(dst, `,"cr":[`...)
	reasoning, run := true, 0
	for _, c := range cs[:last+1] {
		if c.Reasoning != reasoning {
			dst = strconv.AppendInt(dst, int64(run), 10)
			dst = append(dst, ',')
			reasoning, run = c.Reasoning, 0
		}
		run++
	}
	dst = strconv.AppendInt(dst, int64(run), 10)
	return append(dst, ']')
}

// Writer writes a record file: a Header line, then one line per record, then
// an optional Trailer. Each record reaches the underlying writer in a single
// Write call as soon as it is written, so an interrupted run leaves every
// record it measured. A Writer is not safe for concurrent use; a run funnels
// records to one goroutine that owns it.
type Writer struct {
	w     io.Writer
	buf   []byte
	count int64
	err   error
}

// NewWriter writes h to w and returns a Writer for the records that follow.
func NewWriter(w io.Writer, h Header) (*Writer, error) {
	if h.Kind == "" {
		h.Kind = KindHeader
	}
	if h.Schema == 0 {
		h.Schema = SchemaVersion
	}
	b, err := json.Marshal(h)
	if err != nil {
		return nil, fmt.Errorf("encode run header: %w", err)
	}
	if _, err := w.Write(append(b, '\n')); err != nil {
		return nil, fmt.Errorf("write run header: %w", err)
	}
	return &Writer{w: w, buf: make([]byte, 0, 4096)}, nil
}

// Write appends r as one line. After the first error every call returns it.
func (w *Writer) Write(r *Record) error {
	if w.err != nil {
		return w.err
	}
	w.buf = AppendJSON(w.buf[:0], r)
	w.buf = append(w.buf, '\n')
	if _, err := w.w.Write(w.buf); err != nil {
		w.err = fmt.Errorf("write record %d: %w", r.Seq, err)
		return w.err
	}
	w.count++
	return nil
}

// Count returns how many records were written.
func (w *Writer) Count() int64 { return w.count }

// Close writes the trailer. It does not close the underlying writer.
func (w *Writer) Close(t Trailer) error {
	if w.err != nil {
		return w.err
	}
	t.Kind = KindTrailer
	t.Records = w.count
	b, err := json.Marshal(t)
	if err != nil {
		return fmt.Errorf("encode trailer: %w", err)
	}
	if _, err := w.w.Write(append(b, '\n')); err != nil {
		w.err = fmt.Errorf("write trailer: %w", err)
		return w.err
	}
	return nil
}

// appendPlace appends the keys that place r in a session, an agent task
// and among several endpoints, each only when set.
func appendPlace(dst []byte, r *Record) []byte {
	if r.Session != "" {
		dst = append(dst, `,"sid":`...)
		dst = AppendJSONString(dst, r.Session)
	}
	if r.Turn != 0 {
		dst = append(dst, `,"turn":`...)
		dst = strconv.AppendInt(dst, int64(r.Turn), 10)
	}
	if r.Task != "" {
		dst = append(dst, `,"task":`...)
		dst = AppendJSONString(dst, r.Task)
	}
	if r.Call != "" {
		dst = append(dst, `,"call":`...)
		dst = AppendJSONString(dst, r.Call)
	}
	if r.Endpoint != "" {
		dst = append(dst, `,"ep":`...)
		dst = AppendJSONString(dst, r.Endpoint)
	}
	return dst
}
