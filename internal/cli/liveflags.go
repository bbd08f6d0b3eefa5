package cli

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/pflag"

	"github.com/goodput-dev/goodput/bench"
	"github.com/goodput-dev/goodput/clientmetrics"
	"github.com/goodput-dev/goodput/promserve"
)

// liveFlags are the flags of bench and sweep that export goodput's own
// metrics while the command runs.
type liveFlags struct {
	listen       string
	linger       time.Duration
	push         string
	pushInterval time.Duration
	pushInstance string
}

func (f *liveFlags) register(fl *pflag.FlagSet) {
	fl.StringVar(&f.listen, "metrics-listen", "", "serve goodput's own client metrics for Prometheus at this address while the command runs, e.g. 127.0.0.1:9464")
	fl.DurationVar(&f.linger, "metrics-linger", 0, "with --metrics-listen, keep serving this long after the run so that a last scrape sees its final counts")
	fl.StringVar(&f.push, "metrics-push", "", "push the client metrics to this Prometheus Pushgateway (e.g. http://127.0.0.1:9091) at the end, and every --metrics-push-interval")
	fl.DurationVar(&f.pushInterval, "metrics-push-interval", 15*time.Second, "with --metrics-push, how often to push during the run (0: only at the end)")
	fl.StringVar(&f.pushInstance, "metrics-push-instance", "", "with --metrics-push, the instance label of this process's group (default: the host name)")
}

// liveRun is the export started for one command; its zero value, for a
// command without the flags, does nothing.
type liveRun struct {
	f      *liveFlags
	env    *Env
	server *promserve.Server
	pusher *clientmetrics.Pusher
}

// start sets cfg.Observer to a new exporter and serves or pushes it as the
// flags ask. The caller must call finish.
func (f *liveFlags) start(env *Env, cfg *bench.Config) (*liveRun, error) {
	l := &liveRun{f: f, env: env}
	if f.listen == "" && f.push == "" {
		if f.linger != 0 {
			return nil, usageErr("--metrics-linger needs --metrics-listen")
		}
		return l, nil
	}
	if f.linger < 0 {
		return nil, usageErr("--metrics-linger %v: must not be negative", f.linger)
	}
	e := clientmetrics.New(Version)
	cfg.Observer = e
	var err error
	if f.push != "" {
		if l.pusher, err = clientmetrics.StartPush(e, f.push, f.pushInstance, f.pushInterval); err != nil {
			return nil, usageErr("%v", err)
		}
	}
	if f.listen != "" {
		if l.server, err = promserve.Listen("--metrics-listen", f.listen, e.Registry(), nil); err != nil {
			l.finish(context.Background())
			return nil, err
		}
		fmt.Fprintf(env.Stderr, "goodput: serving client metrics at %s\n", l.server.URL())
	}
	return l, nil
}

// finish lingers as asked (cut short by ctx), pushes the last counts and
// stops serving. A failed push is a warning: the run's own results stand.
func (l *liveRun) finish(ctx context.Context) {
	if l.server != nil {
		if l.f.linger > 0 {
			select {
			case <-time.After(l.f.linger):
			case <-ctx.Done():
			}
		}
		l.server.Close()
	}
	if l.pusher != nil {
		if err := l.pusher.Stop(context.WithoutCancel(ctx)); err != nil {
			fmt.Fprintf(l.env.Stderr, "goodput: warning: %v\n", err)
		}
	}
}
