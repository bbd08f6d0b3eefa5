package metrics

import (
	"cmp"
	"slices"
	"time"

	"github.com/goodput-dev/goodput/record"
)

// Sessions is how a run's multi-turn sessions went: its records that name a
// session (record.Session), grouped by it, as DESIGN.md defines them. A
// session is good only when every one of its measured turns is good;
// session goodput is the output tokens of good sessions over the run's
// window W.
type Sessions struct {
	FlowCounts
	// Duration is, per session, the end of its last turn minus the
	// scheduled time of its first.
	Duration Distribution `json:"duration"`
	// TTFTByTurn is the TTFT of the successful turns of each number, in
	// turn order: where a prefix cache's reuse of the history shows.
	TTFTByTurn []TurnTTFT `json:"ttft_by_turn"`
	// Goodput is nil when no per-request SLO was given.
	Goodput *FlowGoodput `json:"goodput,omitempty"`
}

// Tasks is how a run's agent tasks went: its records that name a task
// (record.Task), grouped by it. A task is good only when every one of its
// measured calls is good.
type Tasks struct {
	FlowCounts
	// Completion is, per task, the end of its last call minus the
	// scheduled time of its first: the task completion time.
	Completion Distribution `json:"completion"`
	// Goodput is nil when no per-request SLO was given.
	Goodput *FlowGoodput `json:"goodput,omitempty"`
}

// The spans of sessions and agent tasks, named as a latency metric is so
// that a gate can read their statistics (p99(session_duration)). They are
// not per-request metrics: Metrics does not list them, and a condition of
// the per-request SLO cannot name them.
const (
	MetricSessionDuration Metric = "session_duration" // Sessions.Duration
	MetricTaskCompletion  Metric = "task_completion"  // Tasks.Completion
)

// FlowCounts counts the sessions or tasks of a run.
type FlowCounts struct {
	Count    int64 `json:"count"`    // sessions (tasks) with at least one measured request
	Requests int64 `json:"requests"` // their measured turns (calls)
	Failed   int64 `json:"failed"`   // sessions (tasks) with a failed request
	// Canceled counts those with a request canceled at an interrupt: they
	// are outside attainment, like the requests themselves.
	Canceled     int64 `json:"canceled,omitempty"`
	OutputTokens int64 `json:"output_tokens"` // of their successful requests
}

// Judged returns the sessions (tasks) attainment is a fraction of.
func (c FlowCounts) Judged() int64 { return c.Count - c.Canceled }

// TurnTTFT is the TTFT distribution of one turn number.
type TurnTTFT struct {
	Turn int          `json:"turn"`
	TTFT Distribution `json:"ttft"`
}

// FlowGoodput is the share of sessions (tasks) that met the SLO in every
// request, and the throughput they carried.
type FlowGoodput struct {
	Good                  int64   `json:"good"`                     // sessions (tasks) whose every request was good
	GoodOutputTokens      int64   `json:"good_output_tokens"`       // their output tokens
	OutputTokensPerSecond float64 `json:"output_tokens_per_second"` // GoodOutputTokens / W
	PerSecond             float64 `json:"per_second"`               // Good / W
	Attainment            float64 `json:"attainment"`               // Good / FlowCounts.Judged()
}

// flowState is one session's or task's account so far.
type flowState struct {
	first, last int64 // min Scheduled, max End
	requests    int64
	tokens      int64 // output tokens of successful requests
	failed      bool  // a request failed
	canceled    bool  // a request was canceled at an interrupt
	bad         bool  // a request was not good
}

// flowAgg groups records by session or task id.
type flowAgg struct {
	flows map[string]*flowState
}

// add folds in one measured record of flow id.
func (a *flowAgg) add(id string, r *record.Record, q *Request, good bool) {
	if a.flows == nil {
		a.flows = map[string]*flowState{}
	}
	te := max(r.End, r.Scheduled)
	f := a.flows[id]
	if f == nil {
		f = &flowState{first: r.Scheduled, last: te}
		a.flows[id] = f
	}
	f.first, f.last = min(f.first, r.Scheduled), max(f.last, te)
	f.requests++
	if q.OK {
		f.tokens += int64(q.OutputTokens)
	} else {
		f.failed = true
		f.canceled = f.canceled || q.Error == record.ErrCanceled
	}
	f.bad = f.bad || !good
}

// result computes the counts, the distribution of each flow's span (end of
// its last request − scheduled time of its first) and, when slo, goodput
// over a window of w seconds.
func (a *flowAgg) result(slo bool, w float64, ps []float64, m Method) (FlowCounts, Distribution, *FlowGoodput) {
	var c FlowCounts
	var spans store
	var good, goodTokens int64
	for _, f := range a.flows {
		c.Count++
		c.Requests += f.requests
		c.OutputTokens += f.tokens
		if f.failed {
			c.Failed++
		}
		if f.canceled {
			c.Canceled++
		}
		spans.add(int64(span(f.first, f.last)))
		if !f.bad && !f.failed {
			good++
			goodTokens += f.tokens
		}
	}
	d := describe([]*store{&spans}, ps, m)
	if !slo {
		return c, d, nil
	}
	g := &FlowGoodput{Good: good, GoodOutputTokens: goodTokens}
	if w > 0 {
		g.OutputTokensPerSecond = float64(goodTokens) / w
		g.PerSecond = float64(good) / w
	}
	if j := c.Judged(); j > 0 {
		g.Attainment = float64(good) / float64(j)
	}
	return c, d, g
}

// turnTTFT holds the TTFT samples of each turn number.
type turnTTFT map[int]*store

func (t *turnTTFT) add(turn int, ttft int64) {
	if *t == nil {
		*t = turnTTFT{}
	}
	s := (*t)[turn]
	if s == nil {
		s = &store{}
		(*t)[turn] = s
	}
	s.add(ttft)
}

func (t turnTTFT) result(ps []float64, m Method) []TurnTTFT {
	turns := make([]int, 0, len(t))
	for k := range t {
		turns = append(turns, k)
	}
	slices.Sort(turns)
	out := make([]TurnTTFT, len(turns))
	for i, k := range turns {
		out[i] = TurnTTFT{Turn: k, TTFT: describe([]*store{t[k]}, ps, m)}
	}
	return out
}

// placed holds what a Summary keeps of records that belong to a session,
// a task or one of several endpoints, apart from the per-request path that
// every record takes.
type placed struct {
	sessions, tasks flowAgg
	turns           turnTTFT
	endpoints       map[string]*Summary
}

// add folds in one measured record; s.mu is held.
func (p *placed) add(s *Summary, r *record.Record, q *Request, good bool) {
	if r.Session != "" && r.Task == "" {
		p.sessions.add(r.Session, r, q, good)
		if q.OK && q.HasFirstToken && r.Turn > 0 {
			p.turns.add(r.Turn, int64(q.TTFT))
		}
	}
	if r.Task != "" {
		p.tasks.add(r.Task, r, q, good)
	}
	if r.Endpoint != "" && !s.leaf {
		if p.endpoints == nil {
			p.endpoints = map[string]*Summary{}
		}
		e := p.endpoints[r.Endpoint]
		if e == nil {
			e = NewSummary(s.opts)
			e.leaf = true
			p.endpoints[r.Endpoint] = e
		}
		e.Add(r)
	}
}

// fill sets r's Sessions, Tasks and Endpoints; s.mu is held.
func (p *placed) fill(s *Summary, r *Result, closing bool) {
	o := &s.opts
	slo := o.Good != nil
	if len(p.sessions.flows) > 0 {
		c, d, g := p.sessions.result(slo, r.Window.Seconds, o.Percentiles, o.Method)
		r.Sessions = &Sessions{FlowCounts: c, Duration: d, TTFTByTurn: p.turns.result(o.Percentiles, o.Method), Goodput: g}
	}
	if len(p.tasks.flows) > 0 {
		c, d, g := p.tasks.result(slo, r.Window.Seconds, o.Percentiles, o.Method)
		r.Tasks = &Tasks{FlowCounts: c, Completion: d, Goodput: g}
	}
	if len(p.endpoints) > 0 {
		names := make([]string, 0, len(p.endpoints))
		for k := range p.endpoints {
			names = append(names, k)
		}
		slices.Sort(names)
		for _, k := range names {
			e := p.endpoints[k]
			var er *Result
			if closing {
				er = e.Close()
			} else {
				er = e.Snapshot()
			}
			r.Endpoints = append(r.Endpoints, EndpointResult{Endpoint: k, Result: er})
		}
	}
}

// EndpointResult is the part of a run one endpoint served, measured as a
// run of its own over its own window.
type EndpointResult struct {
	Endpoint string  `json:"endpoint"`
	Result   *Result `json:"result"`
}

// Flow is one session's or agent task's own account, as Sessions and
// Tasks count it: what a comparison resamples, one flow at a time.
type Flow struct {
	ID    string
	Start int64 // the earliest scheduled time of its requests, ns
	// Span is the end of its last request − Start: the session duration
	// or task completion time that Sessions.Duration and Tasks.Completion
	// describe.
	Span         time.Duration
	Requests     int64
	OutputTokens int64 // of its successful requests
	// Good is set when every request met the per-request SLO (never
	// without one); its OutputTokens then count toward flow goodput.
	Good     bool
	Failed   bool
	Canceled bool
}

// Flows returns the sessions and the agent tasks of the records added so
// far, each in order of Start (then ID). Close releases them: a caller
// that wants both the flows and the Result calls Flows first.
func (s *Summary) Flows() (sessions, tasks []Flow) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.placed.sessions.list(), s.placed.tasks.list()
}

// list returns a's flows in order of their first scheduled time.
func (a *flowAgg) list() []Flow {
	if len(a.flows) == 0 {
		return nil
	}
	out := make([]Flow, 0, len(a.flows))
	for id, f := range a.flows {
		out = append(out, Flow{ID: id, Start: f.first, Span: time.Duration(span(f.first, f.last)), Requests: f.requests,
			OutputTokens: f.tokens, Good: !f.bad && !f.failed, Failed: f.failed, Canceled: f.canceled})
	}
	slices.SortFunc(out, func(x, y Flow) int { return cmp.Or(cmp.Compare(x.Start, y.Start), cmp.Compare(x.ID, y.ID)) })
	return out
}
