package runfile

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/goodput-dev/goodput/internal/jsonerr"
	"github.com/goodput-dev/goodput/record"
)

// ipEntry is one request of inference-perf's per-request report,
// per_request_lifecycle_metrics.json, which it writes when
// report.request_lifecycle.per_request is on: a JSON array (indented by
// two spaces when saved locally, on one line in a bucket) of
//
//	{"start_time", "end_time", "request", "response", "info", "error"}
//
// in the order the requests ended, every stage's in one list. The layout
// was learned from kubernetes-sigs/inference-perf's
// inference_perf/reportgen/base.py (generate_reports,
// build_per_request_lifecycle_entry), inference_perf/apis/base.py
// (RequestLifecycleMetric, InferenceInfo, StreamedResponseMetrics),
// apis/streaming_parser.py and client/modelserver/openai_client.py. The
// fields read:
//
//   - start_time, end_time: seconds on the clock of time.perf_counter()
//     of the process that sent the request, taken just before the POST
//     and once the whole response was read. The clock is monotonic with an
//     arbitrary epoch (on Linux the system-wide CLOCK_MONOTONIC, which the
//     worker processes of one machine share); it has no wall-clock value,
//     so the run's start is not known.
//   - request: the request body as a JSON string, read only for the
//     model's name.
//   - error: null, or {"error_type", "error_msg"}: "HTTP Error <status>"
//     (in some versions "<status> <reason>") with the response body, or
//     the name of the Python exception caught (TimeoutError,
//     ClientConnectorError, ServerDisconnectedError, ClientPayloadError,
//     …) with its text. A request inference-perf canceled at a stage's
//     timeout is not in the file.
//   - info, in one of two layouts.
//
// From v0.5.0 (the multimodal rework of April 2026) info holds
// request_metrics.text.input_tokens (the server's usage.prompt_tokens,
// else inference-perf's tokenizer count), retries_attempted, and
// response_metrics: output_tokens (its tokenizer's count of the whole
// answer), server_usage (the server's last usage: completion_tokens, or
// output_tokens from the Anthropic API, and
// prompt_tokens_details.cached_tokens), and, for a streamed answer,
// chunk_times (when each content-bearing event arrived, perf_counter
// seconds) and output_token_times: the same times, or, where
// inference-perf retokenized the chunks for its reports, one per token,
// a chunk's time repeated for each of its tokens. A non-streamed answer
// has no times.
//
// From v0.1 to v0.4 info is flat: input_tokens and output_tokens (its
// tokenizer's counts) and output_token_times, one time per event read from
// the stream (in the first releases per line), events without a token
// included: inference-perf's own TTFT and ITL count them so.
//
// Not read: response and response_chunks (the raw answer), session_id,
// computed_metrics (goodput computes its own), extra_info, lora_adapter,
// labels. Neither layout keeps the time a request was due
// (scheduled_time, which only the stage reports' schedule_delay uses),
// nor the stage it belongs to: that comes from the stage reports beside
// the file (see ipFindStages). The summary reports
// (summary_lifecycle_metrics.json, stage_N_lifecycle_metrics.json) hold
// statistics, not requests: given as records, they are refused with a
// message naming this file (see ipSummaryError).
type ipEntry struct {
	StartTime decimal         `json:"start_time"`
	EndTime   decimal         `json:"end_time"`
	Request   json.RawMessage `json:"request"`
	Info      *ipInfo         `json:"info"`
	Error     *ipError        `json:"error"`
}

type ipInfo struct {
	RequestMetrics *struct {
		Text *struct {
			InputTokens decimal `json:"input_tokens"`
		} `json:"text"`
	} `json:"request_metrics"` // v0.5 on
	ResponseMetrics *ipResponse `json:"response_metrics"` // v0.5 on

	InputTokens      decimal   `json:"input_tokens"`       // before v0.5, and mirrored after
	OutputTokens     decimal   `json:"output_tokens"`      // before v0.5
	OutputTokenTimes []decimal `json:"output_token_times"` // before v0.5
	Retries          decimal   `json:"retries_attempted"`
}

// nested reports whether info is in the layout of v0.5 on.
func (in *ipInfo) nested() bool { return in.RequestMetrics != nil || in.ResponseMetrics != nil }

type ipResponse struct {
	OutputTokens     decimal   `json:"output_tokens"`
	ServerUsage      *ipUsage  `json:"server_usage"`
	ChunkTimes       []decimal `json:"chunk_times"` // absent for an answer not streamed
	OutputTokenTimes []decimal `json:"output_token_times"`
}

type ipUsage struct {
	CompletionTokens    decimal `json:"completion_tokens"`
	OutputTokens        decimal `json:"output_tokens"` // the Anthropic Messages API's spelling
	PromptTokensDetails *struct {
		CachedTokens decimal `json:"cached_tokens"`
	} `json:"prompt_tokens_details"`
}

type ipError struct {
	Type string `json:"error_type"`
	Msg  string `json:"error_msg"`
}

// ipReq is a request of the report as a record on the file's clock, with
// what of its times the file did not give in full, for the notes.
type ipReq struct {
	rec    record.Record
	spread bool // more tokens than the times account for, spread over the chunks
	whole  bool // a success without token times: not streamed
	events bool // times of stream events, before v0.5
}

// ipTally counts the requests of each kind of ipReq's flags.
type ipTally struct{ spread, whole, events int }

func ipCount(reqs []ipReq) ipTally {
	var t ipTally
	for _, q := range reqs {
		if q.spread {
			t.spread++
		}
		if q.whole {
			t.whole++
		}
		if q.events {
			t.events++
		}
	}
	return t
}

// ipPerRequest is the name inference-perf gives the per-request report,
// after the report_file_prefix its configuration may set.
const ipPerRequest = "per_request_lifecycle_metrics.json"

// inferencePerfStart matches the start of the per-request report: an
// array whose first object begins with one of its entries' keys
// ("start_time" first, as inference-perf writes them; another where the
// file was edited). The seeds' log, the other array goodput reads, has
// other keys.
var inferencePerfStart = regexp.MustCompile(`^\[\s*\{\s*"(start_time|end_time|request|response|info|error|session_id)"\s*:`)

// openArray reads a file that is a JSON array: inference-perf's
// per-request report, or else the seeds' request log.
func openArray(br *bufio.Reader, name string, run int) (*File, error) {
	head, _ := br.Peek(4096) // a shorter file gives what it holds
	if !inferencePerfStart.Match(head) {
		return openSeedsArray(br, name)
	}
	b, err := io.ReadAll(br)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return openInferencePerf(pythonNumbers(b), name, run)
}

// openInferencePerf reads the requests of an inference-perf per-request
// report, all of them, or those of stage run (from 1) when the stage
// reports beside the file tell the stages apart; run 0 reads the only
// stage, and is an error when there are several.
func openInferencePerf(b []byte, name string, run int) (*File, error) {
	reqs, model, err := ipRecords(b, name)
	if err != nil {
		return nil, err
	}
	slices.SortStableFunc(reqs, func(a, b ipReq) int { return cmp.Compare(a.rec.Sent, b.rec.Sent) })

	var notes []string
	stages, err := ipFindStages(name)
	var blocks [][]ipReq
	if err == nil && len(stages) > 0 {
		blocks, err = ipSplit(reqs, stages)
	}
	var stage *ipStage
	switch {
	case err != nil && run > 0:
		return nil, fmt.Errorf("%s: #%d names a stage, but the stages cannot be told apart: %w", name, run, err)
	case err != nil:
		notes = append(notes, fmt.Sprintf("%s: %v: its %d requests are read as one run, which mixes the loads of its stages", name, err, len(reqs)))
	case len(stages) == 0 && run > 0:
		return nil, fmt.Errorf("%s: #%d names a stage, but no stage reports (%s) lie beside the file to tell its stages apart: name the file alone", name, run, ipStageName(name, "N"))
	case len(stages) == 0:
		where := "beside it"
		if name == "-" {
			where = "with standard input"
		}
		notes = append(notes, fmt.Sprintf("%s: no stage reports (%s) %s: its requests are read as one run, which mixes the loads of a run of several stages", name, ipStageName(name, "N"), where))
	case run > len(stages):
		return nil, fmt.Errorf("%s: the inference-perf run holds %d stages, not %d", name, len(stages), run)
	case run == 0 && len(stages) > 1:
		list := make([]string, len(stages))
		for i, s := range stages {
			list[i] = fmt.Sprintf("#%d stage %d (%s)", i+1, s.id, s.load())
		}
		return nil, fmt.Errorf("%s: several runs (an inference-perf run of %d stages: %s): name one, as %s#1", name, len(stages), strings.Join(list, ", "), name)
	default:
		run = max(run, 1)
		stage, reqs = &stages[run-1], blocks[run-1]
	}
	recs := make([]record.Record, len(reqs))
	for i := range reqs {
		recs[i] = reqs[i].rec
	}
	rebase(recs) // the clock has no wall-clock value: Start stays unknown
	tally := ipCount(reqs)

	if len(recs) > 0 {
		notes = append(notes, fmt.Sprintf("%s: inference-perf keeps no time a request was due (its scheduled_time is not in the file): TTFT and e2e count from the send, and queueing in the client is not seen", name))
	}
	if tally.events > 0 {
		notes = append(notes, fmt.Sprintf("%s: inference-perf before v0.5 timed the events it read from the stream, not only those that carried tokens (such as a chat stream's role-only first event, a usage event, [DONE]): each time counts as a chunk, as in inference-perf's own TTFT and ITL", name))
	}
	if tally.spread > 0 {
		notes = append(notes, fmt.Sprintf("%s: %s more output tokens than inference-perf timed: the tokens are spread evenly over the chunks (TTFT, TPOT, e2e and inter-chunk latency are exact; ITL per token is not measured)", name, requestsHave(tally.spread)))
	}
	if tally.whole > 0 {
		notes = append(notes, fmt.Sprintf("%s: %s no token times (not streamed): the answer counts as arriving whole at the end, so TTFT is the end-to-end latency; TPOT and ITL are not measured", name, requestsHave(tally.whole)))
	}

	tool := "import: inference-perf per-request report"
	cfg := map[string]any{}
	if stage != nil {
		of := ""
		if len(stages) > 1 {
			of = fmt.Sprintf("#%d of %d, ", run, len(stages))
		}
		tool += fmt.Sprintf(" (stage %d, %s%s)", stage.id, of, stage.load())
		cfg["stage"], cfg["stages"] = stage.id, len(stages)
		switch {
		case stage.concurrency > 0:
			cfg["max_concurrency"] = stage.concurrency
		case stage.rate > 0:
			cfg["request_rate"] = stage.rate
		}
	}
	if model != "" {
		cfg["model"] = model
	}
	h := record.Header{Kind: record.KindHeader, Schema: record.SchemaVersion, Tool: tool}
	if len(cfg) > 0 {
		h.Config, _ = json.Marshal(cfg)
	}
	return &File{Reader: &slice{h: h, recs: recs}, Format: "inference-perf", notes: notes}, nil
}

// ipRecords decodes the report's requests one at a time, each into a
// record on the file's perf_counter clock, in the file's order. It also
// returns the model the first request names.
func ipRecords(b []byte, name string) ([]ipReq, string, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	if _, err := dec.Token(); err != nil {
		return nil, "", fmt.Errorf("%s: inference-perf per-request report: %w", name, ipJSONError(err))
	}
	var reqs []ipReq
	model := ""
	lines := ipLines{b: b, line: 1}
	for i := 1; dec.More(); i++ {
		line := lines.at(dec.InputOffset())
		start := lines.off
		var e ipEntry
		if err := dec.Decode(&e); err != nil {
			return nil, "", fmt.Errorf("%s:%d: request %d: %w", name, line, i, ipJSONError(err))
		}
		if err := jsonerr.Keys(b[start:dec.InputOffset()], &e); err != nil {
			var de *jsonerr.DuplicateKeyError
			if errors.As(err, &de) && de.Line > 0 {
				// The line within the request's object, counted from its first.
				line += de.Line - 1
				de.Line = 0
			}
			return nil, "", fmt.Errorf("%s:%d: request %d: %w", name, line, i, err)
		}
		q, err := e.request()
		if err == nil {
			err = q.rec.Check()
		}
		if err != nil {
			return nil, "", fmt.Errorf("%s:%d: request %d: %w", name, line, i, err)
		}
		if model == "" && len(e.Request) > 0 {
			model = ipModel(e.Request)
		}
		reqs = append(reqs, q)
	}
	if _, err := dec.Token(); err != nil {
		return nil, "", fmt.Errorf("%s: inference-perf per-request report: %w", name, ipJSONError(err))
	}
	return reqs, model, nil
}

// ipJSONError words a decoding error: a file cut short says so.
func ipJSONError(err error) error {
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		return errors.New("the file is cut short (unexpected end of JSON input)")
	}
	return jsonerr.Plain(err)
}

// ipLines numbers the lines of b for offsets that only grow, counting
// each byte once.
type ipLines struct {
	b    []byte
	off  int // bytes counted
	line int // the line at off
}

// at returns the line on which the next value after off begins.
func (l *ipLines) at(off int64) int {
	end := int(min(off, int64(len(l.b))))
	for end < len(l.b) && strings.IndexByte(" \t\r\n,", l.b[end]) >= 0 {
		end++
	}
	if end > l.off {
		l.line += bytes.Count(l.b[l.off:end], []byte("\n"))
		l.off = end
	}
	return l.line
}

// ipModel returns the model a request body names, "" when it names none.
func ipModel(raw json.RawMessage) string {
	var body string
	if json.Unmarshal(raw, &body) != nil {
		return ""
	}
	var p struct {
		Model string `json:"model"`
	}
	json.Unmarshal([]byte(body), &p)
	return p.Model
}

// request converts one entry to a request on the file's clock.
func (e *ipEntry) request() (ipReq, error) {
	if !e.StartTime.set {
		return ipReq{}, errors.New(`no "start_time"`)
	}
	sent, err := e.StartTime.scaled(1e9, `"start_time"`)
	if err != nil {
		return ipReq{}, err
	}
	if !e.EndTime.set {
		return ipReq{}, errors.New(`no "end_time"`)
	}
	end, err := e.EndTime.scaled(1e9, `"end_time"`)
	if err != nil {
		return ipReq{}, err
	}
	if end < sent {
		return ipReq{}, fmt.Errorf(`"end_time" %s s is before "start_time" %s s: time goes backwards`, e.EndTime.text, e.StartTime.text)
	}
	q := ipReq{rec: record.Record{Scheduled: sent, Sent: sent, End: end}}
	if in := e.Info; in != nil {
		if q.rec.InputTokens, err = in.inputTokens(); err != nil {
			return ipReq{}, err
		}
		if in.Retries.set {
			if q.rec.Retries, err = in.Retries.count(`"retries_attempted"`); err != nil {
				return ipReq{}, err
			}
		}
	}
	if e.Error != nil {
		q.rec.Error, q.rec.Status, q.rec.Msg = e.Error.kind()
		return q, nil
	}
	if e.Info == nil {
		return ipReq{}, errors.New(`a successful request without "info": the report was written with report.request_lifecycle.per_request_fields.info off, and holds no token counts or times`)
	}
	q.rec.Status = 200
	if err := e.Info.answer(&q, e); err != nil {
		return ipReq{}, err
	}
	return q, nil
}

// inputTokens returns the prompt's tokens, by the layout.
func (in *ipInfo) inputTokens() (int, error) {
	if rm := in.RequestMetrics; rm != nil && rm.Text != nil && rm.Text.InputTokens.set {
		return rm.Text.InputTokens.count(`"request_metrics.text.input_tokens"`)
	}
	if in.InputTokens.set {
		return in.InputTokens.count(`"input_tokens"`)
	}
	return 0, nil
}

// answer fills in a successful request's output: its token count, where
// the count came from, and its chunks.
func (in *ipInfo) answer(q *ipReq, e *ipEntry) error {
	rec := &q.rec
	n, src, err := in.outputTokens(rec)
	if err != nil {
		return err
	}
	var chunkTimes, tokenTimes []decimal
	if rm := in.ResponseMetrics; rm != nil {
		chunkTimes, tokenTimes = rm.ChunkTimes, rm.OutputTokenTimes
	} else if !in.nested() {
		chunkTimes = in.OutputTokenTimes
		q.events = len(chunkTimes) > 0
	}
	timesKey := `"chunk_times"`
	if !in.nested() {
		timesKey = `"output_token_times"`
	}
	chunks, err := ipTimes(chunkTimes, timesKey, e)
	if err != nil {
		return err
	}
	perToken, err := ipTimes(tokenTimes, `"output_token_times"`, e)
	if err != nil {
		return err
	}
	// Times per token that are not the chunks' own are inference-perf's
	// count of each chunk's tokens: the times of a chunk repeated.
	var counted []record.Chunk
	if len(perToken) > 0 && !slices.Equal(perToken, chunks) {
		counted = groupTimes(perToken)
	}
	switch {
	case len(counted) > 0:
		rec.Chunks = counted
	case len(chunks) > 0:
		rec.Chunks = chunks
	case n > 0:
		// Not streamed: the whole answer arrived at the end.
		rec.Chunks = []record.Chunk{{At: rec.End, Tokens: int32(n)}} // a count is at most MaxInt32
		q.whole = true
	}
	switch got := tokensOf(rec.Chunks); {
	case len(rec.Chunks) == 0:
		// An empty answer.
	case n == 0:
		n, src = got, record.SourceChunks
	case got != n:
		// The counts per chunk, where the file has them, are not the
		// count: the count is spread over the chunks' times instead.
		for i := range rec.Chunks {
			rec.Chunks[i].Tokens = 1
		}
		q.spread = n > len(rec.Chunks)
		if err := record.SpreadTokens(rec.Chunks, n); err != nil {
			return err
		}
	}
	rec.OutputTokens, rec.TokenSource = n, src
	return nil
}

// outputTokens returns the output token count and its source: the
// server's usage where inference-perf kept it, else its tokenizer's
// count of the answer. It also records the cached prompt tokens the
// usage names.
func (in *ipInfo) outputTokens(rec *record.Record) (int, record.Source, error) {
	rm := in.ResponseMetrics
	if rm == nil {
		if in.nested() || !in.OutputTokens.set {
			return 0, record.SourceTokenizer, nil
		}
		n, err := in.OutputTokens.count(`"output_tokens"`)
		return n, record.SourceTokenizer, err
	}
	if u := rm.ServerUsage; u != nil {
		if d := u.PromptTokensDetails; d != nil && d.CachedTokens.set {
			c, err := d.CachedTokens.count(`"server_usage.prompt_tokens_details.cached_tokens"`)
			if err != nil {
				return 0, "", err
			}
			rec.CachedTokens, rec.CacheReported = c, true
		}
		for _, t := range []struct {
			d   decimal
			key string
		}{{u.CompletionTokens, `"server_usage.completion_tokens"`}, {u.OutputTokens, `"server_usage.output_tokens"`}} {
			if t.d.set {
				n, err := t.d.count(t.key)
				return n, record.SourceUsage, err
			}
		}
	}
	if !rm.OutputTokens.set {
		return 0, record.SourceTokenizer, nil
	}
	n, err := rm.OutputTokens.count(`"response_metrics.output_tokens"`)
	return n, record.SourceTokenizer, err
}

// ipTimes converts perf_counter seconds to one-token chunks, which must
// follow each other from the request's start to its end.
func ipTimes(ts []decimal, key string, e *ipEntry) ([]record.Chunk, error) {
	if len(ts) == 0 {
		return nil, nil
	}
	cs := make([]record.Chunk, len(ts))
	// request has read both times already.
	prev, _ := e.StartTime.scaled(1e9, `"start_time"`)
	end, _ := e.EndTime.scaled(1e9, `"end_time"`)
	prevKey, prevText := `"start_time"`, e.StartTime.text
	for i, t := range ts {
		k := fmt.Sprintf("%s[%d]", key, i)
		at, err := t.scaled(1e9, k)
		if err != nil {
			return nil, err
		}
		switch {
		case at < prev:
			return nil, fmt.Errorf("%s = %s s is before %s %s s: time goes backwards", k, t.text, prevKey, prevText)
		case at > end:
			return nil, fmt.Errorf(`%s = %s s is after "end_time" %s s: time goes backwards`, k, t.text, e.EndTime.text)
		}
		cs[i] = record.Chunk{At: at, Tokens: 1}
		prev, prevKey, prevText = at, k, t.text
	}
	return cs, nil
}

// groupTimes makes one chunk of each run of equal times, carrying as
// many tokens as the run is long.
func groupTimes(cs []record.Chunk) []record.Chunk {
	var out []record.Chunk
	for _, c := range cs {
		if n := len(out); n > 0 && out[n-1].At == c.At {
			out[n-1].Tokens++
			continue
		}
		out = append(out, record.Chunk{At: c.At, Tokens: 1})
	}
	return out
}

// tokensOf returns the tokens chunks carry.
func tokensOf(cs []record.Chunk) int {
	n := 0
	for _, c := range cs {
		n += int(c.Tokens)
	}
	return n
}

// ipStatus finds the HTTP status in an error_type: "HTTP Error 503", or
// "503 Service Unavailable" in early versions.
var ipStatus = regexp.MustCompile(`^(?:HTTP Error )?([1-5][0-9][0-9])(?:\s|$)`)

// kind classifies a failure by its HTTP status, else by the name of the
// exception inference-perf caught (aiohttp's and Python's).
func (e *ipError) kind() (record.ErrorKind, int, string) {
	msg := e.Type
	if m := ipErrorMessage(e.Msg); m != "" {
		msg += ": " + m
	}
	if msg == "" {
		msg = "failed (inference-perf gave no error type)"
	}
	if m := ipStatus.FindStringSubmatch(e.Type); m != nil {
		code, _ := strconv.Atoi(m[1])
		switch code {
		case 429:
			return record.ErrRateLimited, code, msg
		case 503:
			return record.ErrUnavailable, code, msg
		}
		return record.ErrHTTP, code, msg
	}
	t := e.Type
	switch {
	case strings.Contains(t, "Timeout"):
		return record.ErrTimeout, 0, msg
	case strings.HasPrefix(t, "ClientConnector") || t == "ConnectionRefusedError":
		return record.ErrConnect, 0, msg
	case t == "ServerDisconnectedError" || t == "ClientPayloadError" || t == "ClientOSError" ||
		strings.Contains(t, "ConnectionReset") || t == "ClientConnectionError" || t == "BrokenPipeError":
		return record.ErrReset, 0, msg
	case t == "JSONDecodeError" || t == "ContentTypeError":
		return record.ErrMalformed, 0, msg
	case t == "CancelledError":
		return record.ErrCanceled, 0, msg
	}
	return record.ErrOther, 0, msg
}

// ipErrorMessage returns the message of a server's JSON error body
// ({"error": {"message"}}, {"message"}), else the text as it is.
func ipErrorMessage(raw string) string {
	raw = strings.TrimSpace(raw)
	var body struct {
		Message string `json:"message"`
		Error   *struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal([]byte(raw), &body) == nil {
		if body.Error != nil && body.Error.Message != "" {
			return body.Error.Message
		}
		if body.Message != "" {
			return body.Message
		}
	}
	return raw
}

// ipStage is what a stage report (stage_N_lifecycle_metrics.json) says of
// its stage.
type ipStage struct {
	id          int
	path        string
	count       int     // requests the stage sent, failures included
	rate        float64 // requested rate, req/s; 0 when not said
	concurrency int     // concurrency of a concurrent stage; 0 when not said
}

// load names the stage's load.
func (s *ipStage) load() string {
	switch {
	case s.concurrency > 0:
		return fmt.Sprintf("concurrency %d", s.concurrency)
	case s.rate > 0:
		return strconv.FormatFloat(s.rate, 'g', -1, 64) + " req/s"
	}
	return "load not said"
}

// ipStageName names a stage report of the per-request report name.
func ipStageName(name, id string) string {
	file, _ := SplitRun(name)
	prefix, _ := strings.CutSuffix(filepath.Base(file), ipPerRequest)
	if name == "-" || prefix == filepath.Base(file) {
		prefix = ""
	}
	return prefix + "stage_" + id + "_lifecycle_metrics.json"
}

// ipFindStages reads the stage reports beside the per-request report
// name: inference-perf writes one per stage in the same directory, named
// as the per-request report is, stage_N_lifecycle_metrics.json for
// per_request_lifecycle_metrics.json, behind the same prefix. Their
// load_summary gives each stage's request count and load, in the order
// of the stage ids. None is found for standard input or for a file named
// otherwise.
func ipFindStages(name string) ([]ipStage, error) {
	if name == "-" {
		return nil, nil
	}
	file, _ := SplitRun(name)
	prefix, ok := strings.CutSuffix(filepath.Base(file), ipPerRequest)
	if !ok {
		return nil, nil
	}
	dir := filepath.Dir(file)
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, nil // the file was read: a directory that cannot be listed has no stages to say
	}
	var stages []ipStage
	for _, de := range ents {
		rest, ok := strings.CutPrefix(de.Name(), prefix+"stage_")
		if !ok || de.IsDir() {
			continue
		}
		digits, ok := strings.CutSuffix(rest, "_lifecycle_metrics.json")
		if !ok || digits == "" || strings.Trim(digits, "0123456789") != "" {
			continue
		}
		id, err := strconv.Atoi(digits)
		if err != nil {
			continue
		}
		s, err := ipReadStage(filepath.Join(dir, de.Name()), id)
		if err != nil {
			return nil, err
		}
		stages = append(stages, s)
	}
	slices.SortFunc(stages, func(a, b ipStage) int { return cmp.Compare(a.id, b.id) })
	return stages, nil
}

// ipReadStage reads one stage report's load_summary.
func ipReadStage(path string, id int) (ipStage, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return ipStage{}, fmt.Errorf("stage report %s: %w", path, err)
	}
	var rep struct {
		LoadSummary *struct {
			Count         decimal `json:"count"`
			RequestedRate decimal `json:"requested_rate"`
			Concurrency   decimal `json:"concurrency"`
		} `json:"load_summary"`
	}
	if err := jsonerr.Unmarshal(pythonNumbers(b), &rep); err != nil {
		return ipStage{}, fmt.Errorf("stage report %s: %w", path, ipJSONError(err))
	}
	ls := rep.LoadSummary
	if ls == nil || !ls.Count.set {
		return ipStage{}, fmt.Errorf(`stage report %s has no "load_summary.count"`, path)
	}
	s := ipStage{id: id, path: path}
	if s.count, err = ls.Count.count(`"load_summary.count"`); err != nil {
		return ipStage{}, fmt.Errorf("stage report %s: %w", path, err)
	}
	if ls.RequestedRate.set {
		if s.rate, err = ls.RequestedRate.float(`"load_summary.requested_rate"`); err != nil {
			return ipStage{}, fmt.Errorf("stage report %s: %w", path, err)
		}
	}
	if ls.Concurrency.set {
		if s.concurrency, err = ls.Concurrency.count(`"load_summary.concurrency"`); err != nil {
			return ipStage{}, fmt.Errorf("stage report %s: %w", path, err)
		}
	}
	return s, nil
}

// ipSplit cuts recs, ordered by their send, into the stages: inference-perf
// runs its stages one after the other, each waiting for every request of
// the one before to end, so a stage's requests are the next count of them
// in send order. The cut is checked: the counts must add up to the file's
// requests, and every request of a stage must end before the next stage's
// first is sent; otherwise the reports are not this file's run.
func ipSplit(reqs []ipReq, stages []ipStage) ([][]ipReq, error) {
	total := 0
	for _, s := range stages {
		total += s.count
	}
	if total != len(reqs) {
		return nil, fmt.Errorf("the stage reports beside it (%s) count %d requests, but the file holds %d", ipReportList(stages), total, len(reqs))
	}
	blocks := make([][]ipReq, len(stages))
	at := 0
	for i, s := range stages {
		blocks[i] = reqs[at : at+s.count : at+s.count]
		at += s.count
	}
	for i := 1; i < len(blocks); i++ {
		prev, next := blocks[i-1], blocks[i]
		if len(prev) == 0 || len(next) == 0 {
			continue
		}
		last := prev[0].rec.End
		for _, q := range prev {
			last = max(last, q.rec.End)
		}
		if last > next[0].rec.Sent {
			return nil, fmt.Errorf("the stage reports beside it (%s) do not fit the file: cut by their counts, stage %d's requests go on after stage %d's first is sent, which inference-perf never does", ipReportList(stages), stages[i-1].id, stages[i].id)
		}
	}
	return blocks, nil
}

// ipReportList names the stage reports' files.
func ipReportList(stages []ipStage) string {
	names := make([]string, len(stages))
	for i, s := range stages {
		names[i] = filepath.Base(s.path)
	}
	return strings.Join(names, ", ")
}

// ipSummaryError is the error for a summary report given where records
// are read: it holds statistics, not requests, and the per-request report
// that holds them is named.
func ipSummaryError(name string) error {
	return fmt.Errorf("%s: an inference-perf summary report (load_summary, successes, failures) holds statistics, not requests: read %s, which inference-perf writes when report.request_lifecycle.per_request is on", name, ipPerRequest)
}
