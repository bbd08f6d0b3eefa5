package runfile

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/goodput-dev/goodput/internal/jsonerr"
	"github.com/goodput-dev/goodput/record"
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
	// The experiments are decoded one at a time, later; their keys are
	// checked now, against their fields, where the error can name the line.
	var guide struct {
		genaiPerfExport
		Experiments []genaiPerfExperiment `json:"experiments"`
	}
	if err := jsonerr.Keys(b, &guide); err != nil {
		return nil, fmt.Errorf("%s: GenAI-Perf profile export: %w", name, err)
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
	h := record.Header{Kind: record.KindHeader, Schema: record.SchemaVersion, Start: start, Tool: "import: GenAI-Perf profile_export.json (" + what + ")"}
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
