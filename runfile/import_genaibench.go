package runfile

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/goodput-dev/goodput/internal/jsonerr"
	"github.com/goodput-dev/goodput/record"
)

// genaiBenchResult is the file genai-bench (sgl-project/genai-bench,
// SGLang's benchmark tool) writes for each load of an experiment, one
// traffic scenario at one concurrency (or batch size, or request rate):
// {scenario}_{task}_{iteration_type}_{value}_time_{seconds}s.json in the
// experiment's folder, beside experiment_metadata.json. It is the JSON of
// AggregatedMetricsCollector.save: "aggregated_metrics" (AggregatedMetrics),
// "individual_request_metrics" (one RequestLevelMetrics per request, in
// the order they finished) and "_time_unit".
//
// Of each request it reads:
//
//   - ttft: from the request's send to the first streamed chunk that
//     carried text (content or reasoning_content);
//   - e2e_latency: from the send to the end of the stream (after the
//     usage chunk), not to the last token;
//   - num_input_tokens: the prompt tokens, the server's usage where it
//     gave them, else genai-bench's count of the prompt;
//   - num_output_tokens: the server's usage.completion_tokens (reasoning
//     included), else genai-bench's tokenizer count of the text; the file
//     does not say which;
//   - error_code, error_message: set on failure (then every metric is
//     null). The code is the HTTP status; or the code of an error the
//     server sent in the stream, -1 when it gave none; or one genai-bench
//     made up: 503 for a connection that failed ("Connection error: …"),
//     408 for a timeout ("Request timed out: …"), 500 for another client
//     exception. A request counts as failed when the code is neither null
//     nor 0, as genai-bench counts it.
//
// tpot, (e2e_latency − ttft) / (num_output_tokens − 1), is not read but
// recomputed from the above, which gives it to the nanosecond; genai-bench
// writes null for a request of one token or less, and in later versions
// for one whose output took under 10 ms or ran over 1,000 tok/s (its
// filter), which its own statistics then leave out. output_latency,
// output_inference_speed, total_tokens and the throughputs follow from
// the others; num_reasoning_tokens (later versions) is not read, as
// without the time of the first answer token it cannot be placed (see
// aiperfLine.spread).
//
// The times are seconds, or milliseconds where "_time_unit" says "ms"
// (--metrics-time-unit ms); files before genai-bench wrote the key are in
// seconds. aggregated_metrics.run_duration is always seconds: the run's
// length on genai-bench's monotonic clock, from its start to the stop of
// the load, which is what its throughputs divide by.
//
// No request's send time is in the file, only its latencies (genai-bench
// takes them from time.monotonic and keeps differences). So every request
// is placed at the run's start (scheduled and sent at 0), its first token
// at ttft and its end at e2e_latency: TTFT, TPOT and e2e are exact, but
// the client's queue and the run over time are not measured. The run's
// window is run_duration, given in Header.Window: throughput, goodput and
// the mean of requests in flight divide by it, as genai-bench's
// mean_output_throughput_tokens_per_s and requests_per_second do. The
// earliest layout has no run_duration but requests_per_minute (completed
// requests per minute of the run), from which the duration follows; a
// file with neither (a debug_for_run file of a run whose aggregation
// failed) is refused, as its throughput would be impossible.
//
// genai-bench times only the first token and the end, so the tokens
// between are spread evenly from ttft to e2e_latency (evenChunks); ITL is
// not measured. A request of one token has its chunk at ttft, so its e2e
// is its TTFT in goodput's definition (the last token), not genai-bench's
// end of stream. genai-bench's statistics leave out the first and last
// requests of a run started with --warmup-ratio or --cooldown-ratio,
// which the file does not say: a note says when its TTFT mean is not that
// of the requests it holds.
//
// Learned from genai_bench/metrics/metrics.py, aggregated_metrics_collector.py,
// request_metrics_collector.py, time_units.py, cli/cli.py and
// user/openai_user.py of genai-bench's 0.0.x releases (pyproject 0.0.1 to
// 0.0.3), and, for the earliest layout, its tests/analysis/mock_run_data.json.
type genaiBenchResult struct {
	Aggregated *genaiBenchAggregated `json:"aggregated_metrics"`
	Requests   []genaiBenchRequest   `json:"individual_request_metrics"`
	TimeUnit   *string               `json:"_time_unit"`
}

// genaiBenchAggregated is what of aggregated_metrics is read: the load
// and the run's length.
type genaiBenchAggregated struct {
	Scenario          string  `json:"scenario"`
	Concurrency       decimal `json:"num_concurrency"` // a request rate (QPS) in open-loop runs
	BatchSize         decimal `json:"batch_size"`
	IterationType     string  `json:"iteration_type"` // "num_concurrency", "batch_size" or "request_rate"
	RunDuration       decimal `json:"run_duration"`   // seconds
	RequestsPerMinute decimal `json:"requests_per_minute"`
	Completed         decimal `json:"num_completed_requests"`
	TotalArrivals     decimal `json:"total_arrivals"`              // open-loop runs only
	ArrivalRate       decimal `json:"arrival_requests_per_second"` // open-loop runs only
	Stats             struct {
		TTFT struct {
			Mean decimal `json:"mean"`
		} `json:"ttft"`
	} `json:"stats"`
}

type genaiBenchRequest struct {
	TTFT         decimal `json:"ttft"`
	E2E          decimal `json:"e2e_latency"`
	InputTokens  decimal `json:"num_input_tokens"`
	OutputTokens decimal `json:"num_output_tokens"`
	ErrorCode    decimal `json:"error_code"`
	ErrorMessage string  `json:"error_message"`
}

// isGenAIBench reports whether a JSON document's top-level keys are a
// genai-bench result's.
func isGenAIBench(top map[string]json.RawMessage) bool {
	_, reqs := top["individual_request_metrics"]
	_, agg := top["aggregated_metrics"]
	return reqs || agg
}

// openGenAIBench reads the genai-bench result in b.
func openGenAIBench(b []byte, name string) (*File, error) {
	var g genaiBenchResult
	if err := jsonerr.Unmarshal(b, &g); err != nil {
		return nil, fmt.Errorf("%s: genai-bench result: %w", name, documentError(b, err))
	}
	switch {
	case g.Requests == nil:
		return nil, fmt.Errorf(`%s: a genai-bench result without "individual_request_metrics"`, name)
	case g.Aggregated == nil:
		return nil, fmt.Errorf(`%s: a genai-bench result without "aggregated_metrics": the run's length is unknown`, name)
	}
	unit := int64(1e9)
	if g.TimeUnit != nil {
		switch *g.TimeUnit {
		case "s":
		case "ms":
			unit = 1e6
		default:
			return nil, fmt.Errorf(`%s: "_time_unit" %q: want "s" or "ms"`, name, *g.TimeUnit)
		}
	}
	window, err := g.Aggregated.window()
	if err != nil {
		return nil, fmt.Errorf("%s: aggregated_metrics: %w", name, err)
	}
	recs := make([]record.Record, len(g.Requests))
	var spread, ok int
	var ttfts int64 // of the successes, ns
	for i := range g.Requests {
		rec, err := g.Requests[i].record(unit)
		if err == nil {
			err = rec.Check()
		}
		if err != nil {
			return nil, fmt.Errorf("%s: individual_request_metrics[%d]: %w", name, i, err)
		}
		rec.Seq = int64(i)
		recs[i] = rec
		if rec.OK() {
			ok++
			if c, has := rec.FirstToken(); has {
				ttfts += c
			}
			if len(rec.Chunks) > 2 {
				spread++
			}
		}
	}
	a := g.Aggregated
	notes := []string{fmt.Sprintf("%s: genai-bench keeps no request's send time: every request is placed at the run's start, so TTFT, TPOT and e2e are exact but the client's queue and the run over time are not measured; the window is genai-bench's run duration, %s s, which throughput and goodput divide by", name, strconv.FormatFloat(float64(window)/1e9, 'f', -1, 64))}
	if spread > 0 {
		notes = append(notes, fmt.Sprintf("%s: genai-bench times only a request's first token and the end of its stream: the tokens between are spread evenly up to the end (TPOT is genai-bench's own; ITL is not measured)", name))
	}
	if mean, err := a.Stats.TTFT.Mean.scaled(unit, "mean"); err == nil && ok > 0 {
		if got := float64(ttfts) / float64(ok); math.Abs(got-float64(mean)) > 1e3 {
			notes = append(notes, fmt.Sprintf("%s: genai-bench's own TTFT mean, %.2f ms, is not that of the %d successful requests the file holds, %.2f ms: it left some out of its statistics (--warmup-ratio, --cooldown-ratio), goodput counts them all", name, float64(mean)/1e6, ok, got/1e6))
		}
	}
	load, cfg := a.load()
	h := record.Header{Kind: record.KindHeader, Schema: record.SchemaVersion, Tool: "import: genai-bench result (" + load + ")", Window: window}
	h.Config, _ = json.Marshal(cfg)
	return &File{Reader: &slice{h: h, recs: recs}, Format: "genai-bench", notes: notes}, nil
}

// documentError words a decoding error of a whole JSON document b: a
// document cut short says so, a syntax error names its line and column.
func documentError(b []byte, err error) error {
	var se *json.SyntaxError
	if !errors.As(err, &se) {
		return jsonerr.Plain(err)
	}
	if se.Error() == "unexpected end of JSON input" {
		return errors.New("the file is cut short (unexpected end of JSON input)")
	}
	line, col, _ := jsonerr.Position(b, err)
	return fmt.Errorf("line %d, column %d: %w", line, col, err)
}

// window returns the run's length in ns: run_duration, or in the earliest
// layout the completed requests over requests_per_minute.
func (a *genaiBenchAggregated) window() (int64, error) {
	if a.RunDuration.set {
		d, err := a.RunDuration.scaled(1e9, `"run_duration"`)
		if err != nil {
			return 0, err
		}
		if d > 0 {
			return d, nil
		}
	}
	if a.RequestsPerMinute.set && a.Completed.set {
		rpm, err := a.RequestsPerMinute.float(`"requests_per_minute"`)
		if err != nil {
			return 0, err
		}
		n, err := a.Completed.count(`"num_completed_requests"`)
		if err != nil {
			return 0, err
		}
		if rpm > 0 && n > 0 {
			if ns, err := seconds(float64(n) / rpm * 60); err == nil && ns > 0 {
				return ns, nil
			}
		}
	}
	return 0, errors.New(`no "run_duration" (or it is 0, as in a debug_for_run file of a run whose aggregation failed): the run's length is unknown, and with no request's send time in the file, so are its throughput and goodput`)
}

// load names the run's load as genai-bench iterated it, and gives it
// under goodput's configuration keys, so that compare sees two loads
// differ.
func (a *genaiBenchAggregated) load() (string, map[string]any) {
	cfg := map[string]any{}
	what := "unnamed scenario"
	if a.Scenario != "" {
		cfg["scenario"], what = a.Scenario, a.Scenario
	}
	v, err := a.Concurrency.float(`"num_concurrency"`)
	openLoop := a.IterationType == "request_rate" || a.TotalArrivals.set || a.ArrivalRate.set
	switch {
	case a.IterationType == "batch_size":
		if b, err := a.BatchSize.count(`"batch_size"`); err == nil {
			cfg["batch_size"] = b
			what += fmt.Sprintf(", batch size %d", b)
		}
	case err != nil:
	case openLoop:
		cfg["request_rate"] = v
		what += ", " + a.Concurrency.text + " req/s"
	case v == math.Trunc(v) && v >= 1 && v <= math.MaxInt32:
		cfg["max_concurrency"] = int(v)
		what += fmt.Sprintf(", concurrency %d", int(v))
	}
	return what, cfg
}

// record converts one request, the times in the file's unit of ns, to a
// record at the run's start.
func (q *genaiBenchRequest) record(unit int64) (record.Record, error) {
	var rec record.Record
	if q.InputTokens.set {
		n, err := q.InputTokens.count(`"num_input_tokens"`)
		if err != nil {
			return record.Record{}, err
		}
		rec.InputTokens = n
	}
	if code, failed, err := q.failed(); err != nil {
		return record.Record{}, err
	} else if failed {
		rec.Error, rec.Status, rec.Msg = genaiBenchFailure(code, q.ErrorMessage)
		return rec, nil
	}
	ttft, err := q.TTFT.scaled(unit, `"ttft"`)
	if err != nil {
		return record.Record{}, err
	}
	e2e, err := q.E2E.scaled(unit, `"e2e_latency"`)
	if err != nil {
		return record.Record{}, err
	}
	switch {
	case ttft < 0:
		return record.Record{}, fmt.Errorf(`"ttft" %s is negative`, q.TTFT.text)
	case e2e < ttft:
		return record.Record{}, fmt.Errorf(`"e2e_latency" %s is less than "ttft" %s: the request ended before its first token`, q.E2E.text, q.TTFT.text)
	}
	if !q.OutputTokens.set {
		return record.Record{}, errors.New(`a successful request without "num_output_tokens"`)
	}
	n, err := q.OutputTokens.count(`"num_output_tokens"`)
	if err != nil {
		return record.Record{}, err
	}
	rec.End, rec.Status, rec.OutputTokens, rec.TokenSource = e2e, 200, n, record.SourceUsage
	if n > 0 {
		// A task without output (embeddings) has none: no TTFT, as for
		// any success without a token.
		rec.Chunks = evenChunks(ttft, e2e, n)
		if err := record.SpreadTokens(rec.Chunks, n); err != nil {
			return record.Record{}, err
		}
	}
	return rec, nil
}

// failed returns the request's error code and whether it failed.
func (q *genaiBenchRequest) failed() (int, bool, error) {
	if !q.ErrorCode.set {
		return 0, false, nil
	}
	f, err := q.ErrorCode.float(`"error_code"`)
	if err != nil {
		return 0, false, err
	}
	if f != math.Trunc(f) || math.Abs(f) > math.MaxInt32 {
		return 0, false, fmt.Errorf(`"error_code" %s is not a status code`, q.ErrorCode.text)
	}
	return int(f), f != 0, nil
}

// genaiBenchFailure classifies a failure as the other imports do, by its
// HTTP status, but tells apart the codes genai-bench made up for a failed
// connection (503) and a timeout (408) by their messages, and an error in
// the stream that named no code (-1).
func genaiBenchFailure(code int, msg string) (record.ErrorKind, int, string) {
	if msg == "" {
		msg = fmt.Sprintf("error code %d (genai-bench gave no message)", code)
	}
	switch {
	case strings.HasPrefix(msg, "Connection error:"):
		return record.ErrConnect, 0, msg
	case strings.HasPrefix(msg, "Request timed out:"):
		return record.ErrTimeout, 0, msg
	case code == -1:
		return record.ErrStream, 200, msg
	case code == 429:
		return record.ErrRateLimited, code, msg
	case code == 503:
		return record.ErrUnavailable, code, msg
	case code >= 400 && code <= 599:
		return record.ErrHTTP, code, msg
	case code >= 200 && code <= 299:
		// An error sent in a stream that answered 200, with that code.
		return record.ErrStream, code, msg
	}
	return record.ErrOther, 0, msg
}

// genaiBenchRunName matches the name genai-bench gives the result of one
// load: {scenario}_{task}_{iteration_type}_{value}_time_{seconds}s.json.
var genaiBenchRunName = regexp.MustCompile(`^.+_(num_concurrency|batch_size|request_rate)_[0-9.]+_time_[0-9]+s\.json$`)

// GenAIBenchRuns says whether dir is a genai-bench experiment folder (it
// holds experiment_metadata.json, or files named as genai-bench names
// the result of a load) and returns the paths of its result files, a load
// each, in name order. A path that is no directory is none.
func GenAIBenchRuns(dir string) (runs []string, ok bool, err error) {
	fi, err := os.Stat(dir)
	if err != nil || !fi.IsDir() {
		return nil, false, nil
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, false, err
	}
	for _, e := range entries {
		switch name := e.Name(); {
		case e.IsDir():
		case name == "experiment_metadata.json":
			ok = true
		case genaiBenchRunName.MatchString(name):
			ok = true
			runs = append(runs, filepath.Join(dir, name))
		}
	}
	return runs, ok, nil
}
