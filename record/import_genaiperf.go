package record

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/goodput-dev/goodput/internal/jsonerr"
)

// genaiPerfExport is the per-request export of NVIDIA's GenAI-Perf
// (`genai-perf profile`): the file Perf Analyzer, which GenAI-Perf runs
// to send the load, writes with --profile-export-file, as
// artifacts/<run>/profile_export.json. It is one JSON document (on one
// line) holding an experiment per load Perf Analyzer measured
// ({"mode": "concurrency" or "request_rate", "value": N}), each with the
// requests it counted and its measurement windows, and the version of
// Perf Analyzer, its service kind and the endpoint.
//
// Of each request it holds:
//
//   - timestamp: when Perf Analyzer sent it, in ns since the Unix epoch
//     (the system clock). It keeps no time the request was due, so the
//     send stands for both: TTFT counts from the send, as GenAI-Perf's
//     does, and a client that fell behind its schedule does not show;
//   - request_inputs: what was sent. For the OpenAI service kind the body,
//     as a JSON string, in "payload" (its model and max_tokens are read),
//     and "session_id" in multi-turn runs; for Triton the inputs by name
//     ("text_input", "max_tokens"); for the TensorRT-LLM engine (the
//     triton_c_api kind) the prompt's token ids, "input_ids", and
//     "request_output_len";
//   - response_timestamps: when each response arrived, ns;
//   - response_outputs: what each response held, beside its time. For
//     OpenAI the bytes as they came, in "response": server-sent events
//     ("data: {…}\n\n", "data: [DONE]\n\n"), several events in one
//     response when they arrived together, or an event split over two
//     responses (Perf Analyzer passes on what curl hands it); a reply that
//     was not streamed is its whole JSON body, in one response. For
//     Triton the text in "text_output"; for the TensorRT-LLM engine the
//     token ids in "output_ids".
//
// An event is placed at the response in which its last byte arrived. A
// response whose events carry generated text (a completion's text, a chat
// delta's content, or its reasoning_content or reasoning, marked as
// reasoning; Triton's text_output) is a chunk at that response's time;
// events without text (a first chunk that only names the role, a
// usage-only last chunk, [DONE], SSE comments) carry no token, but the
// last response, whatever it holds, ends the request. Token counts come
// from the server's usage block where the stream has one (completion
// tokens spread over the chunks, prompt tokens as the input); without it
// each piece of text counts as one token and the input is unknown: the
// file keeps no count, since GenAI-Perf counts both with its tokenizer
// afterwards. The TensorRT-LLM engine's token ids are exact counts.
//
// A response that reports an error (an "error" object or string, vLLM's
// {"object": "error", …}, an SSE "error" event) makes the request a failed
// one, classified by the HTTP status its code names, with its message;
// GenAI-Perf itself stops at such a stream. Perf Analyzer does not export
// requests whose HTTP status was an error (it stops the run on the first),
// so nothing else marks a failure.
//
// Perf Analyzer measures a load in windows until its latency is stable
// and exports the requests that ended within them; window_boundaries
// holds each window's start and end. The records keep their send times,
// so goodput's window spans them, from the first send to the last end,
// as GenAI-Perf's own throughput divides by that span; the windows are
// kept in the header's configuration, not as Header.Window, which is for
// records that do not say when their requests were sent.
//
// Learned from triton-inference-server/perf_analyzer:
// src/profile_data_exporter.cc (the layout), src/inference_profiler.cc
// (which requests and windows it keeps), src/client_backend/openai/
// (how responses are cut) and genai-perf/genai_perf/profile_data_parser/
// llm_profile_data_parser.py with its tests (how GenAI-Perf reads them).
type genaiPerfExport struct {
	Experiments []json.RawMessage `json:"experiments"`
	Version     string            `json:"version"`
	ServiceKind string            `json:"service_kind"`
	Endpoint    string            `json:"endpoint"`
}

type genaiPerfExperiment struct {
	Experiment *genaiPerfLoad     `json:"experiment"`
	Requests   []genaiPerfRequest `json:"requests"`
	Windows    []int64            `json:"window_boundaries"`
}

// genaiPerfLoad is an experiment's load: a concurrency, or a request rate
// in requests per second.
type genaiPerfLoad struct {
	Mode  string  `json:"mode"`
	Value decimal `json:"value"`
}

// String names the load as "concurrency 4" or "request_rate 2.5".
func (l *genaiPerfLoad) String() string {
	switch {
	case l == nil || l.Mode == "":
		return "unnamed load"
	case !l.Value.set:
		return l.Mode
	}
	return l.Mode + " " + l.Value.text
}

type genaiPerfRequest struct {
	Timestamp          *int64                     `json:"timestamp"`
	Inputs             map[string]json.RawMessage `json:"request_inputs"`
	ResponseTimestamps []int64                    `json:"response_timestamps"`
	ResponseOutputs    []genaiPerfOutput          `json:"response_outputs"`
}

type genaiPerfOutput struct {
	Response   *string         `json:"response"`    // OpenAI: the bytes of the HTTP response
	TextOutput *string         `json:"text_output"` // Triton
	OutputIDs  json.RawMessage `json:"output_ids"`  // TensorRT-LLM engine: a token id, a list of them, or "" for none
}

// gpEvent is one server-sent event of a response stream, or the whole
// body of a reply that was not streamed.
type gpEvent struct {
	at   int64  // when its last byte arrived
	name string // its "event:" field, "" when it has none
	data []byte // its "data:" lines, joined
}

// gpChunk is what goodput reads of an OpenAI response event or body.
type gpChunk struct {
	Object  string `json:"object"`
	Choices []struct {
		Text  json.RawMessage `json:"text"`
		Delta *gpMessage      `json:"delta"`
		// Message is a reply that was not streamed.
		Message      *gpMessage `json:"message"`
		FinishReason *string    `json:"finish_reason"`
	} `json:"choices"`
	TextOutput json.RawMessage `json:"text_output"` // Triton's generate endpoint
	Usage      *struct {
		PromptTokens        decimal `json:"prompt_tokens"`
		CompletionTokens    decimal `json:"completion_tokens"`
		PromptTokensDetails *struct {
			CachedTokens decimal `json:"cached_tokens"`
		} `json:"prompt_tokens_details"`
		CompletionTokensDetails *struct {
			ReasoningTokens decimal `json:"reasoning_tokens"`
		} `json:"completion_tokens_details"`
	} `json:"usage"`
	Error   json.RawMessage `json:"error"`
	Message json.RawMessage `json:"message"` // vLLM's {"object": "error", "message", "type", "code"}
	Type    json.RawMessage `json:"type"`
	Code    json.RawMessage `json:"code"`
	Detail  json.RawMessage `json:"detail"` // FastAPI's error body
}

type gpMessage struct {
	Content          json.RawMessage `json:"content"`
	ReasoningContent json.RawMessage `json:"reasoning_content"`
	Reasoning        json.RawMessage `json:"reasoning"`
}

// gpTally counts, for the notes, the requests whose figures are not all
// measured.
type gpTally struct {
	pieces    int // tokens counted one per piece of text: no usage
	nonStream int // not streamed: the answer arrived whole
	noInput   int // no prompt token count
}

// isGenAIPerf reports whether a JSON document's top-level keys are a
// Perf Analyzer profile export's: "experiments", a list of objects of
// which one holds "requests" (or none, with Perf Analyzer's
// "service_kind" beside it).
func isGenAIPerf(top map[string]json.RawMessage) bool {
	raw, ok := top["experiments"]
	if !ok {
		return false
	}
	var exps []map[string]json.RawMessage
	if json.Unmarshal(raw, &exps) != nil {
		return false
	}
	for _, e := range exps {
		if _, ok := e["requests"]; ok {
			return true
		}
	}
	_, kind := top["service_kind"]
	return kind
}

// isGenAIPerfSummary reports whether a JSON document is GenAI-Perf's
// summary, profile_export_genai_perf.json: its statistics by metric and
// the input_config it ran with.
func isGenAIPerfSummary(top map[string]json.RawMessage) bool {
	if top["input_config"] == nil {
		return false
	}
	for _, k := range []string{"request_latency", "request_throughput", "time_to_first_token", "output_token_throughput"} {
		if top[k] != nil {
			return true
		}
	}
	return false
}

// genaiPerfSummaryError is the error for a summary of GenAI-Perf (or of
// AIPerf, whose summaries look alike) given where records are read.
func genaiPerfSummaryError(name, what string) error {
	return fmt.Errorf("%s: a %s holds statistics, not requests: give the per-request export beside it, profile_export.json (GenAI-Perf; profile_export.jsonl for AIPerf)", name, what)
}

// openGenAIPerf reads experiment run (from 1) of the profile export in b;
// run 0 reads the only one, and is an error when there are several: the
// user names one as FILE#N.
func openGenAIPerf(b []byte, name string, run int) (*File, error) {
	var x genaiPerfExport
	if err := json.Unmarshal(b, &x); err != nil {
		return nil, fmt.Errorf("%s: GenAI-Perf profile export: %w", name, documentError(b, err))
	}
	n := len(x.Experiments)
	switch {
	case n == 0:
		return nil, fmt.Errorf("%s: a GenAI-Perf profile export without experiments", name)
	case run > n:
		return nil, fmt.Errorf("%s: the GenAI-Perf profile export holds %s, not %d", name, plural(n, "experiment"), run)
	case run == 0 && n > 1:
		names := make([]string, n)
		for i, raw := range x.Experiments {
			var e struct {
				Experiment *genaiPerfLoad `json:"experiment"`
			}
			load := "unreadable"
			if json.Unmarshal(raw, &e) == nil {
				load = e.Experiment.String()
			}
			names[i] = fmt.Sprintf("#%d %s", i+1, load)
		}
		hint := name + "#1"
		if name == "-" {
			hint = "FILE#1 (save standard input to a file)"
		}
		return nil, fmt.Errorf("%s: several runs (a GenAI-Perf profile export of %d experiments: %s): name one, as %s", name, n, strings.Join(names, ", "), hint)
	case run == 0:
		run = 1
	}
	var e genaiPerfExperiment
	if err := json.Unmarshal(x.Experiments[run-1], &e); err != nil {
		return nil, fmt.Errorf("%s: experiment %d: %w", name, run, jsonerr.Plain(err))
	}
	if e.Requests == nil {
		return nil, fmt.Errorf(`%s: experiment %d has no "requests"`, name, run)
	}
	var tally gpTally
	reqs := make([]imported, len(e.Requests))
	for i := range e.Requests {
		r, err := e.Requests[i].record(&tally)
		if err == nil {
			err = r.rec.Check()
		}
		if err != nil {
			return nil, fmt.Errorf("%s: experiment %d, request %d: %w", name, run, i+1, err)
		}
		reqs[i] = r
	}
	gpTurns(reqs)
	recs := placeTurns(reqs)
	start := rebase(recs)

	notes := []string{fmt.Sprintf("%s: GenAI-Perf records when a request was sent, not when it was due: the send stands for both, so TTFT counts from it and a client that fell behind its schedule does not show", name)}
	if tally.pieces > 0 {
		notes = append(notes, fmt.Sprintf("%s: %s no usage block in its response: its output tokens are counted one per piece of text the server sent (GenAI-Perf counts them with its tokenizer, which the file does not keep), so token counts, TPOT, ITL and throughput are approximate", name, requestsHave(tally.pieces)))
	}
	if tally.noInput > 0 {
		notes = append(notes, fmt.Sprintf("%s: %s no prompt token count (usage prompt_tokens): the input tokens are unknown and count as 0", name, requestsHave(tally.noInput)))
	}
	if tally.nonStream > 0 {
		notes = append(notes, fmt.Sprintf("%s: %s not streamed: the answer counts as arriving whole at the end, so TTFT is e2e", name, plural(tally.nonStream, "request")+" was"))
	}
	load := e.Experiment.String()
	what := load
	if n > 1 {
		what = fmt.Sprintf("experiment %d of %d, %s", run, n, load)
	}
	h := Header{Kind: KindHeader, Schema: SchemaVersion, Start: start, Tool: "import: GenAI-Perf profile_export.json (" + what + ")"}
	h.Config, _ = json.Marshal(genaiPerfConfig(&x, &e, run, n))
	return &File{Reader: &slice{h: h, recs: recs}, Format: "genai-perf", notes: notes}, nil
}

// genaiPerfConfig is the header's configuration: which experiment, its
// load under goodput's keys (so that compare sees two loads differ), what
// the requests asked for, and Perf Analyzer's measurement windows.
func genaiPerfConfig(x *genaiPerfExport, e *genaiPerfExperiment, run, n int) map[string]any {
	c := map[string]any{"experiment": run, "experiments": n}
	if l := e.Experiment; l != nil {
		c["load"] = l.String()
		if f, err := l.Value.float("value"); err == nil {
			switch l.Mode {
			case "concurrency":
				c["max_concurrency"] = f
			case "request_rate":
				if f > 0 {
					c["request_rate"] = f
				}
			}
		}
	}
	for k, v := range map[string]string{"perf_analyzer_version": x.Version, "service_kind": x.ServiceKind, "endpoint": x.Endpoint} {
		if v != "" {
			c[k] = v
		}
	}
	if model, max, ok := gpAsked(e.Requests); ok {
		if model != "" {
			c["model"] = model
		}
		if max > 0 {
			c["max_tokens"] = max
		}
	}
	if w := e.Windows; len(w) >= 2 {
		c["measurement_windows"] = len(w) / 2
		c["measurement_ns"] = w[len(w)-1] - w[0]
	}
	return c
}

// gpAsked returns the model and max_tokens the requests asked for, when
// all that name them name the same (0 for max_tokens when they differ or
// none says).
func gpAsked(reqs []genaiPerfRequest) (model string, maxTokens int, ok bool) {
	models, maxes := map[string]bool{}, map[int]bool{}
	for i := range reqs {
		m, mt := reqs[i].asked()
		if m != "" {
			models[m] = true
		}
		if mt > 0 {
			maxes[mt] = true
		}
	}
	if len(models) == 1 {
		for m := range models {
			model = m
		}
	}
	if len(maxes) == 1 {
		for mt := range maxes {
			maxTokens = mt
		}
	}
	return model, maxTokens, model != "" || maxTokens > 0
}

// asked returns the model and the output limit a request asked for: the
// OpenAI body's model and max_tokens (or max_completion_tokens), Triton's
// max_tokens input, the TensorRT-LLM engine's request_output_len.
func (q *genaiPerfRequest) asked() (model string, maxTokens int) {
	var body struct {
		Model     string  `json:"model"`
		MaxTokens decimal `json:"max_tokens"`
		MaxCompl  decimal `json:"max_completion_tokens"`
	}
	if p, ok := gpString(q.Inputs["payload"]); ok && json.Unmarshal([]byte(p), &body) == nil {
		model = body.Model
		for _, d := range []decimal{body.MaxTokens, body.MaxCompl} {
			if n, err := d.count("max_tokens"); err == nil && n > 0 {
				return model, n
			}
		}
		return model, 0
	}
	for _, k := range []string{"max_tokens", "request_output_len"} {
		if n, ok := gpScalar(q.Inputs[k]); ok && n > 0 {
			return "", n
		}
	}
	return "", 0
}

// gpTurns numbers the turns of each multi-turn session (request_inputs'
// session_id) in the order they were sent.
func gpTurns(reqs []imported) {
	bySession := map[string][]int{}
	for i, r := range reqs {
		if r.session != "" {
			bySession[r.session] = append(bySession[r.session], i)
		}
	}
	for _, idx := range bySession {
		slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(reqs[a].rec.Sent, reqs[b].rec.Sent) })
		for turn, i := range idx {
			reqs[i].turn = turn
		}
	}
}

// gpMaxTime bounds the times read, as decimal.scaled bounds others', so
// that no difference of two overflows.
const gpMaxTime = 1 << 62

// record converts one request to a record on the Unix clock.
func (q *genaiPerfRequest) record(tally *gpTally) (imported, error) {
	if q.Timestamp == nil {
		return imported{}, errors.New(`no "timestamp"`)
	}
	sent := *q.Timestamp
	if sent < 0 || sent > gpMaxTime {
		return imported{}, fmt.Errorf(`"timestamp" %d is out of range`, sent)
	}
	for i, t := range q.ResponseTimestamps {
		if t < 0 || t > gpMaxTime {
			return imported{}, fmt.Errorf(`"response_timestamps"[%d] %d is out of range`, i, t)
		}
	}
	rec := Record{Scheduled: sent, Sent: sent, End: sent, Status: 200}
	req := imported{}
	if s, ok := gpString(q.Inputs["session_id"]); ok {
		req.session = s
	}
	ts := q.ResponseTimestamps
	if len(ts) == 0 {
		rec.Status, rec.Error, rec.Msg = 0, ErrOther, "GenAI-Perf recorded no response"
		req.rec = rec
		return req, nil
	}
	rec.End = ts[len(ts)-1]
	// Perf Analyzer writes a response's output beside its time; a time
	// without one (a last response that was null) only ends the request.
	outs := q.ResponseOutputs[:min(len(q.ResponseOutputs), len(ts))]
	var inputKnown bool
	var err error
	switch {
	case slices.ContainsFunc(outs, func(o genaiPerfOutput) bool { return o.Response != nil }):
		inputKnown, err = gpHTTP(&rec, outs, ts, tally)
	case slices.ContainsFunc(outs, func(o genaiPerfOutput) bool { return len(o.OutputIDs) > 0 }):
		err = gpTokenIDs(&rec, outs, ts)
	default:
		gpTexts(&rec, outs, ts, tally)
	}
	if err != nil {
		return imported{}, err
	}
	if ids, ok := q.Inputs["input_ids"]; ok && !inputKnown {
		// The engine's prompt is its token ids.
		var list []json.RawMessage
		if json.Unmarshal(ids, &list) == nil {
			rec.InputTokens, inputKnown = len(list), true
		}
	}
	if !inputKnown && rec.OK() {
		tally.noInput++
	}
	req.rec = rec
	return req, nil
}

// gpTexts reads Triton's responses: each that holds text is a chunk of
// one piece.
func gpTexts(rec *Record, outs []genaiPerfOutput, ts []int64, tally *gpTally) {
	for i, o := range outs {
		if o.TextOutput != nil && *o.TextOutput != "" {
			rec.Chunks = append(rec.Chunks, Chunk{At: ts[i], Tokens: 1})
		}
	}
	rec.OutputTokens, rec.TokenSource = len(rec.Chunks), SourceChunks
	if len(rec.Chunks) > 0 {
		tally.pieces++
	}
}

// gpTokenIDs reads the TensorRT-LLM engine's responses: each carries the
// ids of the tokens it generated, an exact count.
func gpTokenIDs(rec *Record, outs []genaiPerfOutput, ts []int64) error {
	for i, o := range outs {
		var k int
		switch b := bytes.TrimSpace(o.OutputIDs); {
		case len(b) == 0 || b[0] == '"' || string(b) == "null":
			// An empty first or last response.
		case b[0] == '[':
			var ids []json.RawMessage
			if err := json.Unmarshal(b, &ids); err != nil {
				return fmt.Errorf(`"response_outputs"[%d].output_ids: %w`, i, jsonerr.Plain(err))
			}
			k = len(ids)
		default:
			k = 1
		}
		if k > 0 {
			rec.Chunks = append(rec.Chunks, Chunk{At: ts[i], Tokens: int32(min(k, 1<<30))})
			rec.OutputTokens += k
		}
	}
	// The engine's own token ids: as good as a server's usage.
	rec.TokenSource = SourceUsage
	return nil
}

// gpHTTP reads the responses of an HTTP endpoint: server-sent events, or
// a body that was not streamed. A response that reports an error makes a
// failed record, which keeps the chunks before it. It reports whether the
// server's usage gave the prompt's tokens.
func gpHTTP(rec *Record, outs []genaiPerfOutput, ts []int64, tally *gpTally) (inputKnown bool, err error) {
	events, streamed := gpEvents(outs, ts)
	if !streamed {
		tally.nonStream++
	}
	var usage *gpUsage
	for _, ev := range events {
		if ev.name == "error" {
			msg := strings.TrimSpace(string(ev.data))
			if msg == "" {
				msg = "the server sent an error event"
			}
			gpFail(rec, ErrStream, 0, msg, streamed)
			return false, nil
		}
		data := bytes.TrimSpace(ev.data)
		if len(data) == 0 || string(data) == "[DONE]" {
			continue
		}
		var c gpChunk
		if err := json.Unmarshal(data, &c); err != nil {
			gpFail(rec, ErrMalformed, 0, "a response could not be parsed: "+jsonerr.Plain(err).Error(), streamed)
			return false, nil
		}
		if kind, code, msg, failed := c.failure(); failed {
			gpFail(rec, kind, code, msg, streamed)
			return false, nil
		}
		answer, reasoning := c.texts()
		switch {
		case answer:
			rec.Chunks = gpPiece(rec.Chunks, ev.at, false)
		case reasoning:
			rec.Chunks = gpPiece(rec.Chunks, ev.at, true)
		}
		for _, ch := range c.Choices {
			if ch.FinishReason != nil && *ch.FinishReason != "" {
				rec.Finish = *ch.FinishReason
			}
		}
		if c.Usage != nil {
			u, err := c.usage()
			if err != nil {
				return false, err
			}
			usage = &u
		}
	}
	gpCount(rec, usage, tally)
	return usage != nil && usage.prompt >= 0, nil
}

// gpFail marks rec failed by an error the server reported. One in a
// stream came after a 200; a body that was not streamed was answered with
// the status its code names, where it names one. The request still ends
// with its last response, when the stream closed.
func gpFail(rec *Record, kind ErrorKind, code int, msg string, streamed bool) {
	rec.Error, rec.Msg = kind, msg
	if !streamed && code != 0 {
		rec.Status = code
	}
	n := 0
	for _, c := range rec.Chunks {
		n += int(c.Tokens)
	}
	rec.OutputTokens, rec.TokenSource = n, SourceChunks
	rec.ReasoningTokens, rec.ReasoningSource = 0, ""
	for i := range rec.Chunks {
		rec.Chunks[i].Reasoning = false
	}
}

// gpPiece adds a piece of text arriving at time at: to the last chunk
// when it arrived in the same response and is of the same kind, else as
// a chunk of its own.
func gpPiece(cs []Chunk, at int64, reasoning bool) []Chunk {
	if k := len(cs); k > 0 && cs[k-1].At == at && cs[k-1].Reasoning == reasoning && cs[k-1].Tokens < 1<<30 {
		cs[k-1].Tokens++
		return cs
	}
	return append(cs, Chunk{At: at, Tokens: 1, Reasoning: reasoning})
}

// gpEvents splits the responses of one request into events, each at the
// response in which its last byte arrived, and reports whether they were
// a stream: a reply whose first bytes open a JSON object is a body that
// was not streamed, one event at the last response.
func gpEvents(outs []genaiPerfOutput, ts []int64) ([]gpEvent, bool) {
	var all strings.Builder
	for _, o := range outs {
		if o.Response != nil {
			all.WriteString(*o.Response)
		}
	}
	if t := strings.TrimSpace(all.String()); strings.HasPrefix(t, "{") || strings.HasPrefix(t, "[") {
		return []gpEvent{{at: ts[len(ts)-1], data: []byte(t)}}, false
	}
	var events []gpEvent
	var pending []byte
	for i, o := range outs {
		if o.Response == nil {
			continue
		}
		pending = append(pending, strings.ReplaceAll(*o.Response, "\r\n", "\n")...)
		for {
			j := bytes.Index(pending, []byte("\n\n"))
			if j < 0 {
				break
			}
			if ev, ok := gpParseEvent(pending[:j], ts[i]); ok {
				events = append(events, ev)
			}
			pending = pending[j+2:]
		}
	}
	// An event whose blank line never came ends with the stream.
	if ev, ok := gpParseEvent(pending, ts[len(ts)-1]); ok {
		events = append(events, ev)
	}
	return events, true
}

// gpParseEvent reads one server-sent event's fields; ok is false for a
// block with neither data nor an event name (a comment, a blank).
func gpParseEvent(block []byte, at int64) (gpEvent, bool) {
	ev := gpEvent{at: at}
	var data [][]byte
	for line := range bytes.SplitSeq(block, []byte("\n")) {
		field, value, _ := bytes.Cut(line, []byte(":"))
		value = bytes.TrimPrefix(value, []byte(" "))
		switch string(field) {
		case "data":
			data = append(data, value)
		case "event":
			ev.name = strings.TrimSpace(string(value))
		}
	}
	ev.data = bytes.Join(data, []byte("\n"))
	return ev, data != nil || ev.name != ""
}

// texts reports whether the event carries answer text or reasoning text.
func (c *gpChunk) texts() (answer, reasoning bool) {
	if s, ok := gpString(c.TextOutput); ok && s != "" {
		answer = true
	}
	for _, ch := range c.Choices {
		if s, ok := gpString(ch.Text); ok && s != "" {
			answer = true
		}
		for _, m := range []*gpMessage{ch.Delta, ch.Message} {
			if m == nil {
				continue
			}
			if s, ok := gpString(m.Content); ok && s != "" {
				answer = true
			}
			for _, r := range []json.RawMessage{m.ReasoningContent, m.Reasoning} {
				if s, ok := gpString(r); ok && s != "" {
					reasoning = true
				}
			}
		}
	}
	return answer, reasoning
}

// failure reports the error an event or body holds: an "error" object
// (OpenAI, SGLang, llama.cpp) or string (TGI), vLLM's flat
// {"object": "error", …}, or FastAPI's {"detail": …} with no choices.
// Its kind is that of the HTTP status its code names, as for goodput's
// own streams; ErrStream when it names none.
func (c *gpChunk) failure() (kind ErrorKind, code int, msg string, failed bool) {
	var typ, codeText string
	switch {
	case len(c.Error) > 0 && string(c.Error) != "null":
		var obj struct {
			Message json.RawMessage `json:"message"`
			Type    json.RawMessage `json:"type"`
			Code    json.RawMessage `json:"code"`
		}
		if s, ok := gpString(c.Error); ok {
			msg = s
		} else if json.Unmarshal(c.Error, &obj) == nil {
			msg, typ, codeText = gpText(obj.Message), gpText(obj.Type), gpText(obj.Code)
		} else {
			msg = string(c.Error)
		}
		if codeText == "" {
			codeText = gpText(c.Code)
		}
	case c.Object == "error":
		msg, typ, codeText = gpText(c.Message), gpText(c.Type), gpText(c.Code)
	case len(c.Detail) > 0 && string(c.Detail) != "null" && c.Choices == nil:
		msg = gpText(c.Detail)
	default:
		return "", 0, "", false
	}
	if msg == "" {
		msg = "the server reported an error without a message"
	}
	if typ != "" {
		msg = typ + ": " + msg
	}
	kind = ErrStream
	if n, err := strconv.Atoi(codeText); err == nil && n >= 400 && n <= 599 {
		code = n
		msg = fmt.Sprintf("%s (code %d)", msg, n)
		switch n {
		case 429:
			kind = ErrRateLimited
		case 503:
			kind = ErrUnavailable
		default:
			kind = ErrHTTP
		}
	}
	return kind, code, msg, true
}

// gpUsage is a usage block's counts, each -1 when not given.
type gpUsage struct {
	prompt, completion, cached, reasoning int
}

// usage reads the event's usage block.
func (c *gpChunk) usage() (gpUsage, error) {
	u := c.Usage
	count := func(d decimal, key string) (int, error) {
		if !d.set {
			return -1, nil
		}
		return d.count(key)
	}
	var out gpUsage
	var err error
	if out.prompt, err = count(u.PromptTokens, `usage "prompt_tokens"`); err != nil {
		return out, err
	}
	if out.completion, err = count(u.CompletionTokens, `usage "completion_tokens"`); err != nil {
		return out, err
	}
	out.cached, out.reasoning = -1, -1
	if d := u.PromptTokensDetails; d != nil {
		if out.cached, err = count(d.CachedTokens, `usage "cached_tokens"`); err != nil {
			return out, err
		}
	}
	if d := u.CompletionTokensDetails; d != nil {
		if out.reasoning, err = count(d.ReasoningTokens, `usage "reasoning_tokens"`); err != nil {
			return out, err
		}
	}
	return out, nil
}

// gpCount gives a successful request's chunks their tokens: the server's
// usage (the last block of the stream) where it gave one, shared over the
// chunks by the pieces each carried, reasoning and answer apart when it
// says how many were reasoning; else one per piece.
func gpCount(rec *Record, u *gpUsage, tally *gpTally) {
	cs := rec.Chunks
	isReasoning := func(c *Chunk) bool { return c.Reasoning }
	isAnswer := func(c *Chunk) bool { return !c.Reasoning }
	all := func(*Chunk) bool { return true }
	if u != nil && u.prompt >= 0 {
		rec.InputTokens = u.prompt
	}
	if u != nil && u.cached >= 0 {
		rec.CachedTokens, rec.CacheReported = u.cached, true
	}
	if u == nil || u.completion < 0 {
		n, rt := tokensIn(cs, all), tokensIn(cs, isReasoning)
		rec.OutputTokens, rec.TokenSource = n, SourceChunks
		if rt > 0 {
			rec.ReasoningTokens, rec.ReasoningSource = rt, SourceChunks
		}
		if len(cs) > 0 {
			tally.pieces++
		}
		return
	}
	n := u.completion
	rec.OutputTokens, rec.TokenSource = n, SourceUsage
	kr, ka := countIn(cs, isReasoning), countIn(cs, isAnswer)
	switch {
	case kr == 0:
		share(cs, all, n)
		if u.reasoning > 0 && u.reasoning <= n {
			// Reasoning the server hid: counted, never streamed.
			rec.ReasoningTokens, rec.ReasoningSource = u.reasoning, SourceUsage
		}
	case u.reasoning >= kr && n-u.reasoning >= ka:
		share(cs, isReasoning, u.reasoning)
		share(cs, isAnswer, n-u.reasoning)
		rec.ReasoningTokens, rec.ReasoningSource = u.reasoning, SourceUsage
	default:
		share(cs, all, n)
		if rt := tokensIn(cs, isReasoning); u.reasoning < 0 && rt <= n {
			rec.ReasoningTokens, rec.ReasoningSource = rt, SourceChunks
			break
		}
		// The usage contradicts the chunks: the reasoning is counted as
		// output, not apart.
		for i := range cs {
			cs[i].Reasoning = false
		}
	}
}

// share gives the chunks pick selects n tokens: each keeps the pieces it
// carried and the surplus is spread evenly over them, earlier chunks
// first. When n is less than their pieces, each keeps one.
func share(cs []Chunk, pick func(*Chunk) bool, n int) {
	k, have := countIn(cs, pick), tokensIn(cs, pick)
	if k == 0 {
		return
	}
	if n < have {
		for i := range cs {
			if pick(&cs[i]) {
				cs[i].Tokens = 1
			}
		}
		have = k
	}
	if n <= have {
		return
	}
	q, rem := (n-have)/k, (n-have)%k
	j := 0
	for i := range cs {
		if !pick(&cs[i]) {
			continue
		}
		t := int(cs[i].Tokens) + q
		if j < rem {
			t++
		}
		cs[i].Tokens = int32(min(t, 1<<30))
		j++
	}
}

func countIn(cs []Chunk, pick func(*Chunk) bool) int {
	k := 0
	for i := range cs {
		if pick(&cs[i]) {
			k++
		}
	}
	return k
}

func tokensIn(cs []Chunk, pick func(*Chunk) bool) int {
	n := 0
	for i := range cs {
		if pick(&cs[i]) {
			n += int(cs[i].Tokens)
		}
	}
	return n
}

// gpString returns a JSON string's value.
func gpString(raw json.RawMessage) (string, bool) {
	if len(raw) == 0 || raw[0] != '"' {
		return "", false
	}
	var s string
	return s, json.Unmarshal(raw, &s) == nil
}

// gpText returns a JSON value as text: a string's value, any other
// value's JSON, "" for none or null.
func gpText(raw json.RawMessage) string {
	if s, ok := gpString(raw); ok {
		return s
	}
	if t := strings.TrimSpace(string(raw)); t != "null" {
		return t
	}
	return ""
}

// gpScalar reads a Triton input that holds a count: a number, or a list
// of one.
func gpScalar(raw json.RawMessage) (int, bool) {
	var d decimal
	if json.Unmarshal(raw, &d) != nil {
		var list []decimal
		if json.Unmarshal(raw, &list) != nil || len(list) != 1 {
			return 0, false
		}
		d = list[0]
	}
	n, err := d.count("value")
	return n, err == nil
}
