package bench

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"

	"github.com/goodput-dev/goodput/arrival"
	"github.com/goodput-dev/goodput/backend"
	"github.com/goodput-dev/goodput/internal/human"
	"github.com/goodput-dev/goodput/load"
	"github.com/goodput-dev/goodput/record"
	"github.com/goodput-dev/goodput/session"
	"github.com/goodput-dev/goodput/tokenizer"
	"github.com/goodput-dev/goodput/workload"
)

// flows reports whether cfg's workload is made of sessions or agent tasks.
func (c *Config) flows() bool { return session.Enabled(c.Workload, c.Sessions) }

// flowUnit names what one arrival of cfg's plan is: "" for a request,
// "session" or "task" for a flow.
func flowUnit(c *Config) string {
	switch {
	case !c.flows():
		return ""
	case c.Workload.Dataset == session.DatasetAgent:
		return session.KindTask.String()
	}
	return session.KindSession.String()
}

// newSources builds the run's content: a workload.Source of independent
// requests, or a session.Source of flows (the other one nil).
func newSources(cfg Config, wl workload.Config) (workload.Source, session.Source, error) {
	if !cfg.flows() {
		src, err := workload.New(wl)
		return src, nil, err
	}
	fsrc, err := session.New(wl, cfg.Sessions)
	return nil, fsrc, err
}

// flowDoer runs the flows of a session.Source over HTTP: each call's
// request is built from its conversation when it is due, sent through the
// run's load.HTTP (whose adapter keeps the answer's text), and its reply
// kept for the calls that wait for it. It implements load.Flows.
type flowDoer struct {
	src    session.Source
	send   load.Doer // the run's load.HTTP, observed once the run has an observer
	chat   bool      // send messages (openai-chat, openai-responses), else the conversation as one text prompt
	base   backend.Request
	header string                              // carries the flow's id; empty for none
	apply  func(r *backend.Request, seq int64) // the run's per-request options (sampling, request id)

	pending sync.Map // seq → prepared: the request Do is about to send
}

var _ load.Flows = (*flowDoer)(nil)

// newFlowDoer returns the flows' doer and points h's Request at it. base
// holds what every request shares (model, EOS and min-tokens settings,
// extra body, headers).
func newFlowDoer(src session.Source, h *load.HTTP, base backend.Request, header string, apply func(*backend.Request, int64)) *flowDoer {
	d := &flowDoer{src: src, send: h, chat: h.Adapter.Chat(), base: base, header: header, apply: apply}
	h.Request = d.request
	return d
}

// request hands load.HTTP what Do stored for seq. A request no flow
// prepared, a pre-run warm-up one, is the first flow's first call.
func (d *flowDoer) request(seq int64) (backend.Request, int) {
	v, ok := d.pending.LoadAndDelete(seq)
	if !ok {
		fl := d.src.Flow(0)
		conv := fl.Prompt(0, make([]session.Conversation, len(fl.Calls)))
		return d.build(fl, 0, conv, seq), conv.Tokens()
	}
	p := v.(prepared)
	return p.req, p.in
}

type prepared struct {
	req backend.Request
	in  int
}

// Start returns flow f.
func (d *flowDoer) Start(f int64) load.Flow {
	fl := d.src.Flow(f)
	return &flowRun{d: d, f: f, flow: fl, done: make([]session.Conversation, len(fl.Calls))}
}

// flowRun is one running flow: the conversations its finished calls ended
// with. done[j] is written by call j's Do before any call waiting for it
// starts (RunFlows orders them), so it needs no lock.
type flowRun struct {
	d    *flowDoer
	f    int64
	flow *session.Flow
	done []session.Conversation
}

// Graph numbers call j of flow f f·MaxCalls + j.
func (r *flowRun) Graph() load.Graph {
	stride := int64(r.d.src.MaxCalls())
	g := load.Graph{Nodes: make([]load.Node, len(r.flow.Calls))}
	for j, c := range r.flow.Calls {
		n := load.Node{Seq: r.f*stride + int64(j), Delay: c.Delay}
		for _, dep := range c.After {
			n.After = append(n.After, load.Edge{From: dep.Call, Wait: dep.Wait})
		}
		g.Nodes[j] = n
	}
	return g
}

// Do sends call j with its conversation so far and keeps its reply.
func (r *flowRun) Do(ctx context.Context, j int, rec *record.Record, now func() int64) {
	d, fl := r.d, r.flow
	conv := fl.Prompt(j, r.done)
	if fl.Kind == session.KindTask {
		rec.Task, rec.Call = fl.ID, fl.Calls[j].ID
	} else {
		rec.Session, rec.Turn = fl.ID, j+1
	}
	d.pending.Store(rec.Seq, prepared{d.build(fl, j, conv, rec.Seq), conv.Tokens()})
	d.send.Do(ctx, rec.Seq, rec, now)
	d.pending.Delete(rec.Seq) // a request that never reached load.HTTP
	r.done[j] = session.Reply(conv, rec.Text)
}

// build returns the request of call j of fl, whose conversation is conv.
func (d *flowDoer) build(fl *session.Flow, j int, conv session.Conversation, seq int64) backend.Request {
	c := fl.Calls[j]
	req := d.base
	req.MaxTokens = c.OutputTokens
	req.MinTokens = min(d.base.MinTokens, c.OutputTokens)
	if d.apply != nil {
		d.apply(&req, seq)
	}
	if d.chat {
		req.Messages = make([]backend.Message, len(conv))
		for i, m := range conv {
			req.Messages[i] = backend.Message{Role: m.Role, Content: m.Content}
		}
	} else {
		req.Prompt = conv.Text()
	}
	if d.header != "" {
		req.Headers = req.Headers.Clone()
		if req.Headers == nil {
			req.Headers = http.Header{}
		}
		req.Headers.Set(d.header, fl.ID)
	}
	return req
}

// runLoad runs the plan: flows when fd is set, independent requests
// otherwise.
func runLoad(ctx context.Context, p load.Plan, send load.Doer, fd *flowDoer, out chan<- *record.Record) (load.Result, error) {
	if fd != nil {
		return load.RunFlows(ctx, p, fd, out)
	}
	return load.Run(ctx, p, send, out)
}

// expectedRequests returns how many requests the plan will send, 0 when
// unknown (a duration, or flows whose length depends on the source).
func expectedRequests(p arrival.Plan, fsrc session.Source) int {
	if fsrc != nil {
		return 0
	}
	return expected(p)
}

// spreadNotes are the run's notes on its flows (how their history is
// sent) and on its endpoints (which, and how the load is spread).
func spreadNotes(cfg Config, fsrc session.Source, chat bool) []string {
	var notes []string
	if fsrc != nil {
		how := "as one text prompt"
		if chat {
			how = "as chat messages"
		}
		what := "each turn sends the whole history (replies as received) and the next message"
		if fsrc.Kind() == session.KindTask {
			what = "each call continues its first dependency's conversation (replies as received)"
		}
		note := fmt.Sprintf("%ss: %s, %s", capitalize(fsrc.Kind().String()), what, how)
		if h := cfg.Sessions.Header; h != "" {
			note += fmt.Sprintf("; the %s id in header %s", fsrc.Kind(), h)
		}
		notes = append(notes, note)
	}
	if cfg.several() {
		shown := make([]string, len(cfg.BaseURLs))
		for i, u := range cfg.BaseURLs {
			shown[i] = human.URL(u)
		}
		notes = append(notes, fmt.Sprintf("Endpoints: %d, %s: %s", len(cfg.BaseURLs), cfg.balance(), strings.Join(shown, ", ")))
	}
	return notes
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// addSpreadConfig adds the flow and endpoint settings to the run header's
// configuration.
func addSpreadConfig(runCfg map[string]any, cfg Config) {
	if cfg.flows() {
		sc := cfg.Sessions
		runCfg["multi_turn"] = sc.MultiTurn
		runCfg["session_turns"] = sc.Turns.String()
		runCfg["session_max_turns"] = sc.MaxTurns
		runCfg["think_time"] = sc.Think.String()
		runCfg["session_header"] = sc.Header
		runCfg["dataset_path"] = cfg.Workload.Path
	}
	if cfg.several() {
		runCfg["base_urls"] = cfg.BaseURLs
		runCfg["balance"] = string(cfg.balance())
	}
}

// ValidateWorkload checks the workload flags: as sessions or agent tasks
// when they describe those, as independent requests otherwise. Validate
// calls it; a caller that wants to say a workload mistake before slower
// work (starting a simulator) calls it first.
func (c *Config) ValidateWorkload() error {
	if c.flows() {
		if c.PromptFormat == PromptIDs {
			return errors.New("--prompt-format ids: sessions and agent tasks send their conversations as text (chat messages or one prompt)")
		}
		return session.Validate(c.Workload, c.Sessions)
	}
	if c.Workload.Dataset == workload.DatasetPrefixRepetition {
		// Known before the run, and before a simulator starts: a usage error.
		return errors.Join(c.Workload.Validate(), c.Workload.PrefixRepetition.CheckRequests(c.Arrival.NumPrompts))
	}
	return c.Workload.Validate()
}

// flowsOver returns the doer of fsrc's flows, sending through h (whose
// adapter it makes keep the answers' text, the history of later calls),
// or nil when the run has no flows. apply sets the run's per-request
// options.
func flowsOver(fsrc session.Source, h *load.HTTP, a *backend.Adapter, base backend.Request, header string, apply func(*backend.Request, int64)) *flowDoer {
	if fsrc == nil {
		return nil
	}
	h.Adapter = a.WithText()
	return newFlowDoer(fsrc, h, base, header, apply)
}

// newFlowSource builds the run's sessions or tasks, nil when it has none.
func newFlowSource(cfg Config, wl workload.Config) (session.Source, error) {
	if !cfg.flows() {
		return nil, nil
	}
	return session.New(wl, cfg.Sessions)
}

// prepareFirst builds the first requests before the epoch: the plan's
// first prompts, or, for flows, whose prompts are built as they go, the
// built-in tokenizer's tables, which the first calls would otherwise
// wait for.
func prepareFirst(p load.Plan, doer *load.HTTP, fsrc session.Source) {
	if fsrc == nil {
		load.PrepareFirst(p, doer)
		return
	}
	tokenizer.Count(fsrc.Flow(0).Calls[0].Text)
}

// content returns what the run sends, for its description.
func content(src workload.Source, fsrc session.Source) fmt.Stringer {
	if fsrc != nil {
		return fsrc
	}
	return src
}

// ArrivalUnit names what one arrival of cfg's plan is, for
// arrival.Config.Unit: "" for a request, "session" or "task" for a flow.
func ArrivalUnit(cfg *Config) string { return flowUnit(cfg) }

// NewContent builds what cfg's run sends, from wl (cfg.Workload with the
// run's limit), without a server: for --dry-run.
func NewContent(cfg Config, wl workload.Config) (fmt.Stringer, error) {
	src, fsrc, err := newSources(cfg, wl)
	if err != nil {
		return nil, err
	}
	return content(src, fsrc), nil
}
