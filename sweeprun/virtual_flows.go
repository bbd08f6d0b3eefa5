package sweeprun

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/goodput-dev/goodput/arrival"
	"github.com/goodput-dev/goodput/bench"
	"github.com/goodput-dev/goodput/metrics"
	"github.com/goodput-dev/goodput/record"
	"github.com/goodput-dev/goodput/session"
	"github.com/goodput-dev/goodput/sim"
	"github.com/goodput-dev/goodput/tokenizer"
	"github.com/goodput-dev/goodput/workload"
)

// rngReply seeds the stand-in replies of a virtual-time session, which
// has no text of its own: "vreply".
const rngReply = 0x767265706c79

// flowCache keeps the session source of the last seed, so that a sweep's
// points read a sessions file once. One goroutine uses it at a time.
type flowCache struct {
	seed  uint64
	limit int
	src   session.Source
}

func (c *flowCache) get(wl workload.Config, sc session.Config) (session.Source, error) {
	if c.src != nil && c.seed == wl.Seed && c.limit == wl.Limit {
		return c.src, nil
	}
	src, err := session.New(wl, sc)
	if err != nil {
		return nil, err
	}
	c.seed, c.limit, c.src = wl.Seed, wl.Limit, src
	return src, nil
}

// measureVirtualFlows runs measurement m of a sessions or agent workload
// on the simulator's engine in virtual time. Flows arrive as the plan says
// (open loop, with or without a cap on concurrent flows, or a closed loop
// of users); each call is released when what it waits for ended plus its
// wait, its prompt the token ids of its conversation, whose replies are
// made-up text as long as the simulated answers. Records and the summary
// are written as measureVirtual writes them.
func (r *Runner) measureVirtualFlows(ctx context.Context, m Measurement, cfg bench.Config) (*metrics.Result, error) {
	cfg.Arrival.Unit = bench.ArrivalUnit(&cfg)
	plan, err := cfg.Arrival.Plan()
	if err != nil {
		return nil, err
	}
	if plan.Closed != nil && (plan.Closed.Count == 0 || plan.Closed.Duration > 0) {
		return nil, fmt.Errorf("%s: in virtual time a closed loop ends by count: give --num-prompts, not --duration", m.Name())
	}
	wl := cfg.Workload
	if wl.Limit == 0 && cfg.Arrival.NumPrompts > 0 {
		wl.Limit = cfg.Arrival.NumPrompts
	}
	src, err := r.flows.get(wl, cfg.Sessions)
	if err != nil {
		return nil, err
	}
	opts := *r.cfg.Virtual
	opts.Seed = m.Seed(opts.Seed)
	d := newVirtualFlows(src, plan, cfg)

	header, err := r.virtualHeader(plan, cfg, src, opts.Seed, map[string]any{"ignore_eos": cfg.Workload.Request.IgnoreEOS,
		"think_time": cfg.Sessions.Think.String(), "session_turns": cfg.Sessions.Turns.String()})
	if err != nil {
		return nil, err
	}
	out, err := openVirtualOut(r.cfg.Dir, m.Name(), header, cfg.Metrics)
	if err != nil {
		return nil, err
	}
	defer out.close()
	emit := func(rec *record.Record) error {
		d.place(rec)
		rec.Labels = cfg.Labels
		return out.add(rec)
	}
	err = sim.StreamVirtual(ctx, opts, sim.VirtualPlan{Requests: d.start(), Follow: d.follow}, emit)
	return out.finish(err)
}

// virtualFlows drives a virtual-time run of flows: it starts flows as the
// plan lets them, and, told of each finished request (sim.VirtualPlan's
// Follow), releases the calls that waited for it and the flows that waited
// for a slot. The simulator numbers requests in the order they are
// released; byIndex maps that number back to its flow and call.
type virtualFlows struct {
	src       session.Source
	stride    int64
	ignoreEOS bool
	minTokens int
	seed      uint64

	arrivals []time.Duration // open loop: the flows' arrival times; nil for a closed loop
	flowSeq  func(i int) int64
	limit    int // flows at most at once (0: no limit)
	count    int // flows in all
	warm     func(i int, at time.Duration) bool

	started, active int
	byIndex         []vnode
}

// vflow is one running flow.
type vflow struct {
	f       int64
	flow    *session.Flow
	warm    bool
	done    []session.Conversation
	due     []time.Duration
	pending []int
	left    int // calls not yet finished
}

// vnode is one released call: its flow, index, conversation and the time
// it was due.
type vnode struct {
	fl   *vflow
	j    int
	conv session.Conversation
	due  time.Duration
}

func newVirtualFlows(src session.Source, plan arrival.Plan, cfg bench.Config) *virtualFlows {
	d := &virtualFlows{
		src: src, stride: int64(src.MaxCalls()), seed: cfg.Workload.Seed,
		ignoreEOS: cfg.Workload.Request.IgnoreEOS, minTokens: cfg.Workload.Request.MinTokens,
		warm: func(i int, at time.Duration) bool { return i < cfg.Warmups || at < cfg.WarmupTime },
	}
	if plan.Open != nil {
		d.arrivals, d.count, d.limit = plan.Open.Offsets, plan.Open.Len(), plan.Concurrency
		d.flowSeq = plan.Open.Seq
	} else {
		d.count, d.limit = plan.Closed.Count, plan.Closed.Concurrency
		d.flowSeq = plan.Closed.Seq
	}
	return d
}

// start returns the first calls of the flows that start at once.
func (d *virtualFlows) start() []sim.VirtualRequest {
	var out []sim.VirtualRequest
	for d.started < d.count && (d.limit == 0 || d.active < d.limit) {
		out = append(out, d.startFlow(0)...)
	}
	return out
}

// startFlow starts the next flow no earlier than now and returns its first
// calls: due at its arrival (open loop) or now (a user's next flow), sent
// at now if that is later, the wait for a slot being client queue.
func (d *virtualFlows) startFlow(now time.Duration) []sim.VirtualRequest {
	i := d.started
	d.started++
	d.active++
	arrive := now
	if d.arrivals != nil {
		arrive = d.arrivals[i]
	}
	f := d.flowSeq(i)
	fl := d.src.Flow(f)
	v := &vflow{f: f, flow: fl, warm: d.warm(i, arrive), done: make([]session.Conversation, len(fl.Calls)),
		due: make([]time.Duration, len(fl.Calls)), pending: make([]int, len(fl.Calls)), left: len(fl.Calls)}
	var out []sim.VirtualRequest
	for j, c := range fl.Calls {
		v.pending[j] = len(c.After)
		if len(c.After) == 0 {
			v.due[j] = arrive + c.Delay
			out = append(out, d.release(v, j, max(v.due[j], now)))
		}
	}
	return out
}

// release makes call j of v a simulated request arriving at at.
func (d *virtualFlows) release(v *vflow, j int, at time.Duration) sim.VirtualRequest {
	c := v.flow.Calls[j]
	conv := v.flow.Prompt(j, v.done)
	d.byIndex = append(d.byIndex, vnode{fl: v, j: j, conv: conv, due: v.due[j]})
	return sim.VirtualRequest{At: at, Prompt: tokenizer.Encode(conv.Text()), MaxTokens: c.OutputTokens,
		MinTokens: min(d.minTokens, c.OutputTokens), IgnoreEOS: d.ignoreEOS}
}

// follow is told that the request with simulator number rec.Seq ended and
// returns the calls and flows that may go now.
func (d *virtualFlows) follow(rec *record.Record) []sim.VirtualRequest {
	n := d.byIndex[rec.Seq]
	v, end := n.fl, time.Duration(rec.End)
	reply := rand.New(rand.NewPCG(d.seed^rngReply, uint64(v.f)*uint64(d.stride)+uint64(n.j)))
	v.done[n.j] = session.Reply(n.conv, tokenizer.Decode(tokenizer.Words(rec.OutputTokens, reply)))
	var out []sim.VirtualRequest
	for c, call := range v.flow.Calls {
		for _, dep := range call.After {
			if dep.Call != n.j {
				continue
			}
			v.due[c] = max(v.due[c], end+dep.Wait)
			if v.pending[c]--; v.pending[c] == 0 {
				out = append(out, d.release(v, c, v.due[c]))
			}
		}
	}
	if v.left--; v.left == 0 {
		d.active--
		if d.started < d.count {
			out = append(out, d.startFlow(end)...)
		}
	}
	return out
}

// place gives a simulated record its place: the sequence number
// f·MaxCalls + j, the time it was due, its session or task, warm-up.
func (d *virtualFlows) place(rec *record.Record) {
	n := d.byIndex[rec.Seq]
	v := n.fl
	rec.Seq = v.f*d.stride + int64(n.j)
	rec.Scheduled = min(int64(n.due), rec.Sent)
	rec.Warmup = v.warm
	if v.flow.Kind == session.KindTask {
		rec.Task, rec.Call = v.flow.ID, v.flow.Calls[n.j].ID
	} else {
		rec.Session, rec.Turn = v.flow.ID, n.j+1
	}
}
