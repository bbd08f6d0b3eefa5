package clientmetrics

import (
	"context"
	"fmt"
	"net/url"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus/push"
)

// PushJob is the job label of metrics pushed to a Pushgateway.
const PushJob = "goodput"

// Pusher pushes an Exporter's metrics to a Prometheus Pushgateway every
// interval and once more when stopped, so that a run shorter than a scrape
// interval still leaves its final counts. Each push replaces the group
// job="goodput", instance=<this host>. Build it with StartPush; the caller
// must call Stop.
type Pusher struct {
	p    *push.Pusher
	gw   string
	stop chan struct{} // closed by Stop
	done chan struct{} // closed when the loop has ended
	mu   sync.Mutex    // guards err
	err  error         // the latest failed push, cleared by a good one
}

// StartPush checks gateway (the Pushgateway's base URL, e.g.
// http://127.0.0.1:9091) and starts pushing e every interval (zero: only
// when stopped). instance names this process in the grouping key; empty
// means the host name.
func StartPush(e *Exporter, gateway, instance string, interval time.Duration) (*Pusher, error) {
	u, err := url.Parse(gateway)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("--metrics-push %q: want the Pushgateway's http:// or https:// URL", gateway)
	}
	if interval < 0 {
		return nil, fmt.Errorf("--metrics-push-interval %v: must not be negative", interval)
	}
	if instance == "" {
		instance = hostname()
	}
	p := &Pusher{
		p:    push.New(gateway, PushJob).Gatherer(e.Registry()).Grouping("instance", instance),
		gw:   gateway,
		stop: make(chan struct{}),
		done: make(chan struct{}),
	}
	go p.loop(interval)
	return p, nil
}

func (p *Pusher) loop(interval time.Duration) {
	defer close(p.done)
	if interval == 0 {
		return
	}
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-t.C:
			p.push(context.Background())
		case <-p.stop:
			return
		}
	}
}

// pushTimeout bounds one push: a gateway that does not answer must not
// hold up the end of a run.
const pushTimeout = 10 * time.Second

func (p *Pusher) push(ctx context.Context) {
	ctx, cancel := context.WithTimeout(ctx, pushTimeout)
	defer cancel()
	err := p.p.PushContext(ctx)
	p.mu.Lock()
	defer p.mu.Unlock()
	if err != nil {
		p.err = err
		return
	}
	p.err = nil
}

// Stop ends the periodic pushes and pushes once more. It returns the error
// of that last push, naming the gateway.
func (p *Pusher) Stop(ctx context.Context) error {
	close(p.stop)
	<-p.done
	p.push(ctx)
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.err != nil {
		return fmt.Errorf("--metrics-push %s: %w", p.gw, p.err)
	}
	return nil
}
