package bench

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"time"

	"github.com/goodput-dev/goodput/backend"
	"github.com/goodput-dev/goodput/load"
	"github.com/goodput-dev/goodput/record"
	"github.com/goodput-dev/goodput/transport"
	"github.com/goodput-dev/goodput/vllmresult"
)

// ProbePrompt is the prompt of every probe request, as vLLM's.
const ProbePrompt = "Hi"

// Probes is what the one-token probe requests sent beside a run measured
// (--probe-request-rate): how much the run's load stalls a request that
// asks almost nothing of the server.
type Probes struct {
	Rate       float64   `json:"rate"`         // asked for, per second
	Latencies  []float64 `json:"e2el_seconds"` // end-to-end latency of each that succeeded, in the order sent
	Failed     int       `json:"failed"`
	FirstError string    `json:"first_error,omitempty"` // the first failure's kind and message
	// Late counts the probes sent after their due time because the one
	// before them was still in flight (one is in flight at a time).
	Late int `json:"late,omitempty"`
}

// requests says how many probes were sent, as "N <kind> requests".
func (p *Probes) requests(kind string) string {
	if p.Sent() == 1 {
		return "1 " + kind + " request"
	}
	return fmt.Sprintf("%d %s requests", p.Sent(), kind)
}

// Sent returns how many probes were sent.
func (p *Probes) Sent() int { return len(p.Latencies) + p.Failed }

// Stats returns vLLM's figures of the probes; ok is false when none
// succeeded (vLLM then prints and saves none).
func (p *Probes) Stats() (vllmresult.ProbeStats, bool) {
	return vllmresult.Probes{Latencies: p.Latencies, Failed: p.Failed}.Stats()
}

// prober sends probe requests on its own connection until stopped.
type prober struct {
	stop context.CancelFunc
	done chan struct{}
	out  *Probes
}

// startProbes starts sending a probe every 1/rate seconds from now over
// tr, a transport of their own: req (the run's model, headers, extra body
// and sampling; its RequestID the prefix of the probes' ids, "" for none)
// with the prompt ProbePrompt and one output token, outside
// --max-concurrency. One probe is in flight at a time: when one takes
// longer than the interval, the next leaves as it returns, counted late.
// It returns nil when rate is 0; the caller must call end.
func startProbes(ctx context.Context, rate float64, tr transport.Transport, run *load.HTTP, req backend.Request) *prober {
	if rate <= 0 {
		return nil
	}
	idPrefix := req.RequestID
	req.Prompt, req.PromptTokenIDs, req.Messages = ProbePrompt, nil, nil
	if run.Adapter.Chat() {
		req.Prompt = ""
		req.Messages = []backend.Message{{Role: "user", Content: ProbePrompt}}
	}
	req.MaxTokens, req.MinTokens = 1, 0
	doer := &load.HTTP{
		Transport: tr, Router: run.Router, Adapter: run.Adapter, BaseURL: run.BaseURL, Endpoint: run.Endpoint, Timeout: run.Timeout,
		Request: func(seq int64) (backend.Request, int) {
			r := req
			if idPrefix != "" {
				r.RequestID = idPrefix + "probe-" + strconv.FormatInt(seq, 10)
			}
			return r, 1
		},
	}
	ctx, stop := context.WithCancel(ctx)
	p := &prober{stop: stop, done: make(chan struct{}), out: &Probes{Rate: rate}}
	go func() {
		defer close(p.done)
		// A rate below one probe per century sends the first probe
		// only; its interval must not overflow.
		p.loop(ctx, doer, time.Duration(min(float64(time.Second)/rate, math.MaxInt64/4)))
	}()
	return p
}

func (p *prober) loop(ctx context.Context, doer *load.HTTP, every time.Duration) {
	start := time.Now()
	now := func() int64 { return int64(time.Since(start)) }
	timer := time.NewTimer(0)
	defer timer.Stop()
	for seq := int64(0); ; seq++ {
		due := time.Duration(seq) * every
		if wait := due - time.Since(start); wait > 0 {
			timer.Reset(wait)
			select {
			case <-ctx.Done():
				return
			case <-timer.C:
			}
		} else if seq > 0 && -wait > time.Millisecond {
			p.out.Late++
		}
		if ctx.Err() != nil {
			return
		}
		var rec record.Record
		doer.Do(ctx, seq, &rec, now)
		if ctx.Err() != nil {
			return // cut off by the run's end: neither a success nor a failure
		}
		if rec.OK() {
			p.out.Latencies = append(p.out.Latencies, float64(rec.End-rec.Sent)/1e9)
		} else {
			p.out.Failed++
			if p.out.FirstError == "" {
				p.out.FirstError = fmt.Sprintf("%s: %s", rec.Error, rec.Msg)
			}
		}
	}
}

// end stops the probes, waits for the one in flight to be cut off, and
// returns what they measured.
func (p *prober) end() *Probes {
	if p == nil {
		return nil
	}
	p.stop()
	<-p.done
	return p.out
}

// probeNote says how the probes were sent, for the run's notes.
func probeNote(p *Probes) string {
	s := fmt.Sprintf("Probes: %s (%q) at %g/s beside the run, one at a time on their own connection, outside --max-concurrency and the run's figures",
		p.requests("one-token"), ProbePrompt, p.Rate)
	if p.Late > 0 {
		s += fmt.Sprintf("; %d sent late, as the one before was still in flight", p.Late)
	}
	if p.Failed > 0 {
		s += fmt.Sprintf("; %d failed, the first with %s", p.Failed, p.FirstError)
	}
	return s
}

// probeRequest is the request every probe sends, but for its prompt: the
// run's model (as the server names it), headers, extra body, sampling and
// end-of-sequence rule; its RequestID carries the id prefix.
func probeRequest(cfg Config, model string, headers http.Header) backend.Request {
	req := backend.Request{Model: model, IgnoreEOS: cfg.Workload.RequestOptions().IgnoreEOS, Extra: cfg.Extra, Headers: headers}
	o := cfg.Request
	o.LoRA = nil // the base model, as vLLM's probes ask for
	o.apply(&req, 0, 0)
	req.RequestID = o.RequestIDPrefix
	return req
}

// probesInServerView notes, on each server account of the run, that the
// server's counts hold the probes, which the client's figures leave out.
func probesInServerView(out *Outcome) {
	p := out.Probes
	if p == nil || p.Sent() == 0 {
		return
	}
	note := fmt.Sprintf("the server's figures include the %s (one output token each), which the client's leave out", p.requests("probe"))
	if out.Server != nil {
		out.Server.Notes = append(out.Server.Notes, note)
	}
	for _, e := range out.Servers {
		if e.Server != nil {
			e.Server.Notes = append(e.Server.Notes, note)
		}
	}
}
