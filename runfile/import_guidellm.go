package runfile

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"regexp"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/goodput-dev/goodput/internal/jsonerr"
	"github.com/goodput-dev/goodput/record"
)

// guidellmBenchmark is one benchmark (one load) of the report `guidellm
// benchmark --output-path` writes (benchmarks.json, or .yaml): its
// strategy, its measurement window and its requests by outcome, each with
// wall-clock times in Unix seconds.
//
// Three layouts are read. From GuideLLM 0.4 a request's times are in
// info.timings (targeted_start, request_start, first_token_iteration,
// last_token_iteration, token_iterations, request_end) and the benchmark's
// in scheduler_metrics; 0.3 kept them in scheduler_info.request_timings
// (first_iteration, last_iteration) and scheduler_info.scheduler_timings;
// 0.2 in the request itself (start_time, first_token_time,
// last_token_time, end_time) with scheduler_info.targeted_start_time.
type guidellmBenchmark struct {
	Config *struct {
		Strategy guidellmStrategy `json:"strategy"`
	} `json:"config"` // 0.4
	Scheduler *struct {
		Strategy guidellmStrategy `json:"strategy"`
	} `json:"scheduler"` // 0.3
	Args *struct {
		Strategy guidellmStrategy `json:"strategy"`
	} `json:"args"` // 0.2
	SchedulerMetrics *struct {
		RequestStart decimal         `json:"request_start_time"`
		MeasureStart decimal         `json:"measure_start_time"`
		MeasureEnd   decimal         `json:"measure_end_time"`
		RequestEnd   decimal         `json:"request_end_time"`
		RequestsMade *guidellmCounts `json:"requests_made"`
	} `json:"scheduler_metrics"` // 0.4
	RequestTotals *guidellmCounts `json:"request_totals"` // 0.3
	TotalCount    *guidellmCounts `json:"total_count"`    // 0.2
	Requests      *struct {
		Successful []guidellmRequest `json:"successful"`
		Incomplete []guidellmRequest `json:"incomplete"`
		Errored    []guidellmRequest `json:"errored"`
	} `json:"requests"`
}

type guidellmCounts struct {
	Successful int `json:"successful"`
	Incomplete int `json:"incomplete"`
	Errored    int `json:"errored"`
}

type guidellmStrategy struct {
	Type    string  `json:"type_"`
	Rate    decimal `json:"rate"`    // constant, poisson
	Streams *int    `json:"streams"` // concurrent
}

// String names the strategy as GuideLLM prints it: "synchronous",
// "concurrent@8", "constant@4".
func (s guidellmStrategy) String() string {
	switch {
	case s.Streams != nil:
		return fmt.Sprintf("%s@%d", s.Type, *s.Streams)
	case s.Rate.set && s.Rate.text != "Infinity":
		return s.Type + "@" + s.Rate.text
	case s.Type == "":
		return "unnamed strategy"
	}
	return s.Type
}

type guidellmRequest struct {
	RequestID string `json:"request_id"`
	Info      *struct {
		ConversationID string          `json:"conversation_id"`
		TurnIndex      int             `json:"turn_index"`
		Error          string          `json:"error"`
		Timings        guidellmTimings `json:"timings"`
	} `json:"info"` // 0.4
	SchedulerInfo *struct {
		TargetedStartTime decimal `json:"targeted_start_time"` // 0.2
		SchedulerTimings  *struct {
			TargetedStart decimal `json:"targeted_start"`
		} `json:"scheduler_timings"` // 0.3
		RequestTimings *struct {
			RequestStart   decimal `json:"request_start"`
			FirstIteration decimal `json:"first_iteration"`
			LastIteration  decimal `json:"last_iteration"`
			RequestEnd     decimal `json:"request_end"`
		} `json:"request_timings"` // 0.3
	} `json:"scheduler_info"`
	Iterations *int `json:"iterations"` // 0.3

	StartTime      decimal `json:"start_time"` // 0.2
	FirstTokenTime decimal `json:"first_token_time"`
	LastTokenTime  decimal `json:"last_token_time"`
	EndTime        decimal `json:"end_time"`
	Error          string  `json:"error"`

	InputMetrics *struct {
		CachedTokens decimal `json:"cached_tokens"`
	} `json:"input_metrics"` // 0.4: cached_tokens where the server said
	PromptTokens  decimal `json:"prompt_tokens"`
	OutputTokens  decimal `json:"output_tokens"`
	OutputMetrics *struct {
		TotalTokens decimal `json:"total_tokens"`
	} `json:"output_metrics"` // 0.4: unset when the server gave no usage
}

type guidellmTimings struct {
	TargetedStart       decimal `json:"targeted_start"`
	ResolveStart        decimal `json:"resolve_start"`
	RequestStart        decimal `json:"request_start"`
	FirstTokenIteration decimal `json:"first_token_iteration"`
	LastTokenIteration  decimal `json:"last_token_iteration"`
	TokenIterations     *int    `json:"token_iterations"`
	RequestEnd          decimal `json:"request_end"`
	ResolveEnd          decimal `json:"resolve_end"`
}

// guidellmTimes are a request's times in whichever layout it came.
type guidellmTimes struct {
	due, start, first, last, end decimal
	iterations                   int // chunks that carried tokens; 0 when not said
}

func (q *guidellmRequest) times() guidellmTimes {
	var t guidellmTimes
	switch si := q.SchedulerInfo; {
	case q.Info != nil:
		ti := q.Info.Timings
		t = guidellmTimes{due: ti.TargetedStart, start: ti.RequestStart, first: ti.FirstTokenIteration, last: ti.LastTokenIteration, end: ti.RequestEnd}
		if !t.start.set {
			t.start = ti.ResolveStart
		}
		if !t.end.set {
			t.end = ti.ResolveEnd
		}
		if ti.TokenIterations != nil {
			t.iterations = *ti.TokenIterations
		}
	case q.StartTime.set:
		t = guidellmTimes{start: q.StartTime, first: q.FirstTokenTime, last: q.LastTokenTime, end: q.EndTime}
		if si != nil {
			t.due = si.TargetedStartTime
		}
	case si != nil && si.RequestTimings != nil:
		rt := si.RequestTimings
		t = guidellmTimes{start: rt.RequestStart, first: rt.FirstIteration, last: rt.LastIteration, end: rt.RequestEnd}
		if si.SchedulerTimings != nil {
			t.due = si.SchedulerTimings.TargetedStart
		}
		if q.Iterations != nil {
			t.iterations = *q.Iterations
		}
	}
	return t
}

// guidellmReport is the top of the file: the run's arguments and its
// benchmarks, decoded one at a time.
type guidellmReport struct {
	Args       map[string]json.RawMessage `json:"args"`
	Benchmarks []json.RawMessage          `json:"benchmarks"`
}

// openGuideLLM reads benchmark run (from 1) of a GuideLLM report; run 0
// reads the only one, and is an error when there are several, as a
// directory of several runs is: the user names one as FILE#N.
func openGuideLLM(b []byte, name string, run int) (*File, error) {
	var rep guidellmReport
	if err := json.Unmarshal(b, &rep); err != nil {
		return nil, fmt.Errorf("%s: GuideLLM report: %w", name, jsonerr.Plain(err))
	}
	// The benchmarks are decoded one at a time, later; their keys are
	// checked now, against their fields, where the error can name the line.
	var guide struct {
		guidellmReport
		Benchmarks []guidellmBenchmark `json:"benchmarks"`
	}
	if err := jsonerr.Keys(b, &guide); err != nil {
		return nil, fmt.Errorf("%s: GuideLLM report: %w", name, err)
	}
	n := len(rep.Benchmarks)
	switch {
	case n == 0:
		return nil, fmt.Errorf("%s: a GuideLLM report without benchmarks", name)
	case run > n:
		return nil, fmt.Errorf("%s: the GuideLLM report holds %d benchmarks, not %d", name, n, run)
	case run == 0 && n > 1:
		names := make([]string, n)
		for i, raw := range rep.Benchmarks {
			names[i] = fmt.Sprintf("#%d %s", i+1, guidellmStrategyOf(raw))
		}
		hint := name + "#1"
		if name == "-" {
			hint = "FILE#1 (save standard input to a file)"
		}
		return nil, fmt.Errorf("%s: several runs (a GuideLLM report of %d benchmarks: %s): name one, as %s", name, n, strings.Join(names, ", "), hint)
	case run == 0:
		run = 1
	}
	var bm guidellmBenchmark
	if err := json.Unmarshal(rep.Benchmarks[run-1], &bm); err != nil {
		return nil, fmt.Errorf("%s: benchmark %d: %w", name, run, jsonerr.Plain(err))
	}
	if bm.Requests == nil {
		return nil, fmt.Errorf(`%s: benchmark %d has no "requests": not a generative benchmark of GuideLLM`, name, run)
	}
	strategy := bm.strategy()
	var reqs []imported
	var even int
	for _, set := range []struct {
		status string
		reqs   []guidellmRequest
	}{{"successful", bm.Requests.Successful}, {"incomplete", bm.Requests.Incomplete}, {"errored", bm.Requests.Errored}} {
		for i := range set.reqs {
			q := &set.reqs[i]
			r, spread, err := q.record(set.status)
			if err == nil {
				err = r.rec.Check()
			}
			if err != nil {
				id := ""
				if q.RequestID != "" {
					id = fmt.Sprintf(" (%s)", q.RequestID)
				}
				return nil, fmt.Errorf("%s: benchmark %d, %s request %d%s: %w", name, run, set.status, i+1, id, err)
			}
			if spread {
				even++
			}
			reqs = append(reqs, r)
		}
	}
	if err := bm.markTransients(reqs); err != nil {
		return nil, fmt.Errorf("%s: benchmark %d: %w", name, run, err)
	}
	recs := placeTurns(reqs)
	start := rebase(recs)

	what := fmt.Sprintf("benchmark %d of %d, %s", run, n, strategy)
	if n == 1 {
		what = strategy.String()
	}
	var notes []string
	if even > 0 {
		notes = append(notes, fmt.Sprintf("%s: GuideLLM times only the first and the last token of a request: the tokens between are spread evenly (TTFT, TPOT and e2e are exact; ITL is not measured)", name))
	}
	if made, ok := bm.made(); ok && made > len(recs) {
		notes = append(notes, fmt.Sprintf("%s: GuideLLM kept %d of the benchmark's %d requests (it saves a sample): the latency percentiles are of that sample, but throughput, goodput and the window are not the run's", name, len(recs), made))
	}
	h := record.Header{Kind: record.KindHeader, Schema: record.SchemaVersion, Start: start, Tool: "import: GuideLLM benchmarks report (" + what + ")"}
	h.Config, _ = json.Marshal(guidellmConfig(rep.Args, strategy, run, n))
	return &File{Reader: &slice{h: h, recs: recs}, Format: "guidellm", notes: notes}, nil
}

// guidellmStrategyOf names the strategy of a benchmark not otherwise
// decoded.
func guidellmStrategyOf(raw json.RawMessage) string {
	var bm struct {
		Config, Scheduler, Args *struct {
			Strategy guidellmStrategy `json:"strategy"`
		}
	}
	if json.Unmarshal(raw, &bm) != nil {
		return "unreadable"
	}
	full := guidellmBenchmark{Config: bm.Config, Scheduler: bm.Scheduler, Args: bm.Args}
	return full.strategy().String()
}

func (bm *guidellmBenchmark) strategy() guidellmStrategy {
	switch {
	case bm.Config != nil:
		return bm.Config.Strategy
	case bm.Scheduler != nil:
		return bm.Scheduler.Strategy
	case bm.Args != nil:
		return bm.Args.Strategy
	}
	return guidellmStrategy{}
}

// made returns how many requests the benchmark made, as it counted them.
func (bm *guidellmBenchmark) made() (int, bool) {
	c := bm.TotalCount
	if bm.SchedulerMetrics != nil && bm.SchedulerMetrics.RequestsMade != nil {
		c = bm.SchedulerMetrics.RequestsMade
	} else if bm.RequestTotals != nil {
		c = bm.RequestTotals
	}
	if c == nil {
		return 0, false
	}
	return c.Successful + c.Incomplete + c.Errored, true
}

// markTransients marks as warm-up the requests GuideLLM left out of its
// measurement (0.4 on): those that started before its measurement window
// opened (warm-up) or after it closed (cool-down). goodput leaves both out
// of statistics and of the window.
func (bm *guidellmBenchmark) markTransients(reqs []imported) error {
	sm := bm.SchedulerMetrics
	if sm == nil {
		return nil
	}
	bound := func(d decimal, key string) (int64, bool, error) {
		if !d.set {
			return 0, false, nil
		}
		if f, err := d.float(key); err != nil || f <= 0 {
			return 0, false, err // GuideLLM writes -1 for a time it never reached
		}
		ns, err := d.scaled(1e9, key)
		return ns, err == nil, err
	}
	from, hasFrom, err := bound(sm.MeasureStart, `"measure_start_time"`)
	if err != nil {
		return err
	}
	to, hasTo, err := bound(sm.MeasureEnd, `"measure_end_time"`)
	if err != nil {
		return err
	}
	for i := range reqs {
		r := &reqs[i].rec
		if hasFrom && r.Sent < from || hasTo && r.Sent > to {
			r.Warmup = true
		}
	}
	return nil
}

// httpxStatus finds the status in httpx's error messages ("Server error
// '503 Service Unavailable' for url …"), which GuideLLM keeps as a
// request's error.
var httpxStatus = regexp.MustCompile(`(?:Client|Server) error '([1-5][0-9][0-9]) `)

// record converts a request of the given outcome to a record on the Unix
// clock, and says whether its chunk times were spread evenly.
func (q *guidellmRequest) record(status string) (imported, bool, error) {
	t := q.times()
	if !t.start.set {
		return imported{}, false, errors.New("no start time (info.timings.request_start, or start_time before GuideLLM 0.4)")
	}
	sent, err := t.start.scaled(1e9, "the start time")
	if err != nil {
		return imported{}, false, err
	}
	rec := record.Record{Scheduled: sent, Sent: sent, End: sent, TokenSource: record.SourceUsage}
	if due, err := t.due.float("the targeted start"); err == nil && due > 0 {
		// GuideLLM writes -1 for a targeted start it never set.
		d, err := t.due.scaled(1e9, "the targeted start")
		if err != nil {
			return imported{}, false, err
		}
		rec.Scheduled = min(d, sent)
	}
	if t.end.set {
		e, err := t.end.scaled(1e9, "the end time")
		if err != nil {
			return imported{}, false, err
		}
		rec.End = e
	}
	if q.PromptTokens.set {
		if rec.InputTokens, err = q.PromptTokens.count(`"prompt_tokens"`); err != nil {
			return imported{}, false, err
		}
	}
	if q.InputMetrics != nil && q.InputMetrics.CachedTokens.set {
		if rec.CachedTokens, err = q.InputMetrics.CachedTokens.count(`"cached_tokens"`); err != nil {
			return imported{}, false, err
		}
		rec.CacheReported = true
	}
	n := 0
	if q.OutputTokens.set {
		if n, err = q.OutputTokens.count(`"output_tokens"`); err != nil {
			return imported{}, false, err
		}
	}
	if q.Info != nil && (q.OutputMetrics == nil || !q.OutputMetrics.TotalTokens.set) {
		// Without the server's usage GuideLLM counts one token per
		// iteration that carried any.
		rec.TokenSource = record.SourceChunks
	}
	spread := false
	if t.first.set {
		first, err := t.first.scaled(1e9, "the first token time")
		if err != nil {
			return imported{}, false, err
		}
		last := first
		if t.last.set {
			if last, err = t.last.scaled(1e9, "the last token time"); err != nil {
				return imported{}, false, err
			}
		}
		k := t.iterations
		if k < 1 {
			k = max(n, 1)
		}
		rec.Chunks = evenChunks(first, last, k)
		spread = len(rec.Chunks) > 2
		if n < 1 {
			n, rec.TokenSource = len(rec.Chunks), record.SourceChunks
		}
		// GuideLLM counts the first iteration as one token; the rest
		// share the others.
		if len(rec.Chunks) > 1 {
			if err := record.SpreadTokens(rec.Chunks[1:], n-1); err != nil {
				return imported{}, false, err
			}
		}
		if rec.TokenSource == record.SourceChunks {
			n = 0
			for _, c := range rec.Chunks {
				n += int(c.Tokens)
			}
		}
		rec.End = max(rec.End, rec.Chunks[len(rec.Chunks)-1].At)
	}
	rec.OutputTokens = n
	msg := q.Error
	session, turn := "", 0
	if q.Info != nil {
		msg = q.Info.Error
		session, turn = q.Info.ConversationID, q.Info.TurnIndex
	}
	switch status {
	case "successful":
		rec.Status = 200
	case "incomplete":
		// Still in flight when the benchmark ended, and canceled then:
		// what goodput records of a request an interruption cancels.
		rec.Error, rec.Msg = record.ErrCanceled, "in flight when the benchmark ended"
		if msg != "" {
			rec.Msg += ": " + msg
		}
	default:
		rec.Error, rec.Msg = record.ErrOther, msg
		if rec.Msg == "" {
			rec.Msg = "errored (GuideLLM gave no message)"
		}
		if m := httpxStatus.FindStringSubmatch(msg); m != nil {
			code, _ := strconv.Atoi(m[1])
			rec.Status = code
			switch code {
			case 429:
				rec.Error = record.ErrRateLimited
			case 503:
				rec.Error = record.ErrUnavailable
			default:
				rec.Error = record.ErrHTTP
			}
		}
	}
	return imported{rec: rec, session: session, turn: turn}, spread, nil
}

// guidellmConfig is the header's configuration: which benchmark of the
// report, its load under goodput's keys (so that compare sees two loads
// differ), and the model and target the report names.
func guidellmConfig(args map[string]json.RawMessage, s guidellmStrategy, run, n int) map[string]any {
	c := map[string]any{"benchmark": run, "benchmarks": n, "strategy": s.String()}
	switch {
	case s.Streams != nil:
		c["max_concurrency"] = *s.Streams
	case s.Type == "synchronous":
		c["max_concurrency"] = 1
	}
	if f, err := s.Rate.float("rate"); err == nil {
		c["request_rate"] = f
	}
	for _, k := range []string{"model", "target"} {
		var v string
		if json.Unmarshal(args[k], &v) == nil && v != "" {
			c[k] = v
		}
	}
	return c
}

// openYAML reads a YAML document: GuideLLM writes its report as YAML too
// (benchmarks.yaml). It becomes the JSON it stands for, numbers kept as
// written, and is read as the JSON report would be.
func openYAML(r io.Reader, name string, run int) (*File, error) {
	in, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(in, &doc); err != nil {
		return nil, fmt.Errorf("%s: not a record file: YAML: %w", name, err)
	}
	// PyYAML writes an alias for an object it meets twice; expanding
	// them may not grow the document without bound.
	y := yamlWriter{budget: 64 + 16*len(in)}
	if err := y.write(&doc, 0); err != nil {
		return nil, fmt.Errorf("%s: YAML: %w", name, err)
	}
	var top map[string]json.RawMessage
	if json.Unmarshal(y.b, &top) != nil || top["benchmarks"] == nil {
		return nil, fmt.Errorf(`%s: a YAML document without "benchmarks": not a GuideLLM report`, name)
	}
	return openGuideLLM(y.b, name, run)
}

// yamlWriter writes the JSON of a YAML node tree. Numbers keep the text
// they were written with (see decimal); YAML's .inf and .nan become the
// strings pythonNumbers makes of Python's.
type yamlWriter struct {
	b      []byte
	budget int // nodes it may still write
}

func (y *yamlWriter) write(n *yaml.Node, depth int) error {
	y.budget--
	switch {
	case y.budget < 0:
		return errors.New("its aliases expand past any report's size")
	case depth > 1000:
		return errors.New("nested too deep")
	}
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			y.b = append(y.b, "null"...)
			return nil
		}
		return y.write(n.Content[0], depth+1)
	case yaml.AliasNode:
		return y.write(n.Alias, depth+1)
	case yaml.SequenceNode:
		y.b = append(y.b, '[')
		for i, c := range n.Content {
			if i > 0 {
				y.b = append(y.b, ',')
			}
			if err := y.write(c, depth+1); err != nil {
				return err
			}
		}
		y.b = append(y.b, ']')
		return nil
	case yaml.MappingNode:
		y.b = append(y.b, '{')
		// A key written twice is refused here, where its line is known.
		seen := make(map[string]int, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			if first, dup := seen[k.Value]; dup {
				return fmt.Errorf("line %d: key %q appears twice (first at line %d): which value is meant cannot be told", k.Line, k.Value, first)
			}
			seen[k.Value] = k.Line
			if i > 0 {
				y.b = append(y.b, ',')
			}
			if err := y.scalarString(n.Content[i].Value); err != nil {
				return err
			}
			y.b = append(y.b, ':')
			if err := y.write(n.Content[i+1], depth+1); err != nil {
				return err
			}
		}
		y.b = append(y.b, '}')
		return nil
	}
	switch n.ShortTag() {
	case "!!null":
		y.b = append(y.b, "null"...)
		return nil
	case "!!bool":
		var v bool
		if err := n.Decode(&v); err != nil {
			return err
		}
		y.b = strconv.AppendBool(y.b, v)
		return nil
	case "!!int", "!!float":
		if json.Valid([]byte(n.Value)) {
			y.b = append(y.b, n.Value...)
			return nil
		}
		var f float64
		if err := n.Decode(&f); err != nil {
			return err
		}
		switch {
		case math.IsNaN(f):
			y.b = append(y.b, `"NaN"`...)
		case math.IsInf(f, 1):
			y.b = append(y.b, `"Infinity"`...)
		case math.IsInf(f, -1):
			y.b = append(y.b, `"-Infinity"`...)
		default:
			y.b = strconv.AppendFloat(y.b, f, 'g', -1, 64)
		}
		return nil
	}
	return y.scalarString(n.Value)
}

func (y *yamlWriter) scalarString(s string) error {
	js, err := json.Marshal(s)
	y.b = append(y.b, js...)
	return err
}
