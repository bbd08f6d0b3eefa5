package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/goodput-dev/goodput/autoscale"
	"github.com/goodput-dev/goodput/promserve"
	"github.com/goodput-dev/goodput/serverview"
	"github.com/goodput-dev/goodput/sweep"
)

// adviseFlags are the flags of watch --advise.
type adviseFlags struct {
	on     bool
	from   string
	listen string
	policy autoscale.Policy
}

func (f *adviseFlags) register(fl *pflag.FlagSet) {
	fl.BoolVar(&f.on, "advise", false, "advise a replica count: the servers' arrival rate (Little's Law on running + waiting) over what one replica serves at the operating point of --from")
	fl.StringVar(&f.from, "from", "", "with --advise: the sweep file (sweep.json) whose operating point sizes one replica")
	fl.StringVar(&f.listen, "listen", "", "with --advise: serve "+autoscale.DesiredReplicas+" and its inputs for Prometheus at this address (/metrics), and the advice as JSON (/advice)")
	fl.Float64Var(&f.policy.Headroom, "headroom", 0, "with --advise: demand to absorb beyond the arrival rate, as a fraction (0.2: size for 120 %)")
	fl.IntVar(&f.policy.Min, "min-replicas", 1, "with --advise: never advise fewer")
	fl.IntVar(&f.policy.Max, "max-replicas", 0, "with --advise: never advise more (0: no bound)")
}

// check reports flags given without --advise.
func (f *adviseFlags) check(fl *pflag.FlagSet) error {
	if f.on {
		if f.from == "" {
			return usageErr("watch --advise: give --from, the sweep file whose operating point sizes one replica")
		}
		return nil
	}
	for _, name := range []string{"from", "listen", "headroom", "min-replicas", "max-replicas"} {
		if fl.Changed(name) {
			return usageErr("watch: --%s needs --advise", name)
		}
	}
	return nil
}

// runAdvise watches the servers at targets and prints (and serves) the
// advice at every interval.
func runAdvise(ctx context.Context, env *Env, f *adviseFlags, targets []string, model string, interval, window, timeout time.Duration, format string, once bool, header http.Header) error {
	if err := f.policy.Validate(); err != nil {
		return usageErr("watch: %v", err)
	}
	file, err := os.Open(f.from)
	if err != nil {
		return fmt.Errorf("--from: %w", err)
	}
	sum, err := sweep.ReadJSON(file)
	file.Close()
	if err != nil {
		return fmt.Errorf("--from %s: %w", f.from, err)
	}
	op, err := autoscale.FromSweep(sum)
	if err != nil {
		return fmt.Errorf("--from %s: %w", f.from, err)
	}
	var urls []string
	for _, t := range targets {
		inner, dns := strings.CutPrefix(t, autoscale.DNSScheme)
		u, err := serverview.DefaultMetricsURL(inner)
		if err != nil {
			return usageErr("watch: %v", err)
		}
		if dns {
			u = autoscale.DNSScheme + u
		}
		urls = append(urls, u)
	}
	exp := autoscale.NewExporter()
	if f.listen != "" {
		srv, err := promserve.Listen("--listen", f.listen, exp.Registry(), map[string]http.Handler{"/advice": exp.Handler()})
		if err != nil {
			return err
		}
		defer srv.Close()
		fmt.Fprintf(env.Stderr, "goodput: serving %s at %s (and the advice at http://%s/advice)\n", autoscale.DesiredReplicas, srv.URL(), srv.Addr())
	}
	enc := json.NewEncoder(env.Stdout)
	shown, failed := 0, false
	var writeErr error
	err = autoscale.Run(ctx, autoscale.Config{Targets: urls, Model: model, Header: header,
		OnLookupError: func(err error) { fmt.Fprintf(env.Stderr, "goodput: %v\n", err) }, Interval: interval, Timeout: timeout, Window: window, Operating: op, Policy: f.policy},
		func(a autoscale.Advice, aerr error) bool {
			exp.Set(a, aerr)
			shown++
			if once && shown < 2 {
				return true // the first reading has no latency yet
			}
			failed = aerr != nil
			if format == "json" {
				writeErr = enc.Encode(struct {
					At time.Time `json:"at"`
					OK bool      `json:"ok"`
					autoscale.Advice
				}{time.Now().UTC(), aerr == nil, a})
			} else {
				_, writeErr = fmt.Fprintf(env.Stdout, "%s  desired %d  %s\n", time.Now().Format("15:04:05"), a.Desired, a.Reason)
			}
			return writeErr == nil && !once
		})
	switch {
	case err != nil:
		return usageErr("watch: %v", err)
	case writeErr != nil:
		return fmt.Errorf("watch: write: %w", writeErr)
	case once && shown < 2:
		return &ExitError{Code: ExitInterrupt, Err: fmt.Errorf("watch --advise: interrupted before two scrapes")}
	case once && failed:
		return fmt.Errorf("watch --advise: %v", autoscale.ErrNoMetrics)
	}
	return nil
}
