package sweeprun

import (
	"context"
	"fmt"
	"strings"

	"github.com/goodput-dev/goodput/backend"
	"github.com/goodput-dev/goodput/bench"
	"github.com/goodput-dev/goodput/metrics"
	"github.com/goodput-dev/goodput/record"
	"github.com/goodput-dev/goodput/session"
	"github.com/goodput-dev/goodput/sim"
)

// measureVirtual runs measurement m on the simulator's engine in virtual
// time: the same prompts and arrival schedule a measurement over HTTP would
// send, with no HTTP and no waiting. Records and the summary are written
// like bench writes them, so that every later step reads them alike.
func (r *Runner) measureVirtual(ctx context.Context, m Measurement, cfg bench.Config) (*metrics.Result, error) {
	if session.Enabled(cfg.Workload, cfg.Sessions) {
		return r.measureVirtualFlows(ctx, m, cfg)
	}
	plan, err := cfg.Arrival.Plan()
	if err != nil {
		return nil, err
	}
	var n, concurrency int
	if plan.Open != nil {
		n = plan.Open.Len()
	} else {
		n, concurrency = plan.Closed.Count, plan.Closed.Concurrency
		if n == 0 || plan.Closed.Duration > 0 {
			return nil, fmt.Errorf("%s: in virtual time a closed loop ends by count: give --num-prompts, not --duration", m.Name())
		}
	}
	// Prompts go as token ids, as bench sends them to a server that takes
	// them: the prefix cache then finds shared prefixes, and keeps what a
	// preempted request had computed, as it does with a real client.
	protos, groups, src, err := r.prompts.get(ctx, cfg.Workload, n, true)
	if err != nil {
		return nil, err
	}
	reqs := protos
	chat := chatEndpoint(cfg)
	if plan.Open != nil || chat {
		// The prompts are shared with other points: give this one its own
		// copy to carry the arrival times and the endpoint.
		reqs = make([]sim.VirtualRequest, n)
		copy(reqs, protos)
		for i := range reqs {
			if plan.Open != nil {
				reqs[i].At = plan.Open.Offsets[i]
			}
			reqs[i].Chat = chat
		}
	}
	opts := *r.cfg.Virtual
	opts.Seed = m.Seed(opts.Seed)

	header, err := r.virtualHeader(plan, cfg, src, opts.Seed, map[string]any{"ignore_eos": cfg.Workload.IgnoreEOS()})
	if err != nil {
		return nil, err
	}
	out, err := openVirtualOut(r.cfg.Dir, m.Name(), header, cfg.Metrics)
	if err != nil {
		return nil, err
	}
	defer out.close()
	warmups, warmupTime := int64(cfg.Warmups), int64(cfg.WarmupTime)
	emit := func(rec *record.Record) error {
		rec.Warmup = rec.Seq < warmups || rec.Scheduled < warmupTime
		rec.Labels = cfg.Labels // shared and read-only: the writer and the summary only read it
		if groups != nil && groups[rec.Seq] != "" {
			rec.Labels = withGroup(cfg.Labels, groups[rec.Seq])
		}
		return out.add(rec)
	}
	err = sim.StreamVirtual(ctx, opts, sim.VirtualPlan{Requests: reqs, Concurrency: concurrency}, emit)
	return out.finish(err)
}

// chatEndpoint reports whether the requests go to the chat or Responses
// endpoint, whose template the simulator's front end renders.
func chatEndpoint(cfg bench.Config) bool {
	endpoint := cfg.Endpoint
	if endpoint == "" {
		if a, err := backend.Lookup(cfg.Backend); err == nil {
			endpoint = a.Endpoint()
		}
	}
	return strings.HasSuffix(endpoint, "/chat/completions") || strings.HasSuffix(endpoint, "/responses")
}

// rateJSON writes an unbounded rate as "inf", which JSON numbers cannot
// hold.
func rateJSON(v float64) any {
	if v > 1e300 {
		return "inf"
	}
	return v
}

// withGroup returns labels and the prefix group label, in a map of its own.
func withGroup(labels map[string]string, group string) map[string]string {
	out := make(map[string]string, len(labels)+1)
	for k, v := range labels {
		out[k] = v
	}
	out[record.LabelPrefixGroup] = group
	return out
}
