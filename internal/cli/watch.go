package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/spf13/cobra"

	"github.com/goodput-dev/goodput/promscrape"
	"github.com/goodput-dev/goodput/serverview"
)

// clearScreen moves the cursor home and clears the terminal, so each
// refresh redraws the view in place.
const clearScreen = "\x1b[H\x1b[2J"

func newWatchCmd(env *Env) *cobra.Command {
	var (
		interval, window, timeout time.Duration
		once, plain               bool
		format, model, baseURL    string
		apiKey                    string
		advise                    adviseFlags
	)
	cmd := &cobra.Command{
		Use:   "watch URL | --base-url URL",
		Short: "Live view of a server's own metrics: queue, KV cache, server TTFT and a plain-words status",
		Long: `watch scrapes a server's Prometheus /metrics (vLLM, SGLang, TGI, llama.cpp)
every --interval and shows what the server itself reports: requests running
and waiting, KV cache usage, prompt and generation tokens per second, server
TTFT and ITL p50/p99 over the last --window (bucket estimates from histogram
deltas), preemptions per second and the prefix-cache hit rate.

The status line says in plain words where the server stands: idle, healthy,
at capacity, about to preempt, or past the knee (a queue that keeps growing
while TTFT p99 climbs: scale out).

URL is the server's base URL (http://host:8000 or http://host:8000/v1) or its
/metrics URL, as an argument or, as bench takes it, with --base-url. A failed
scrape is shown and the watch goes on.

On a terminal the view is redrawn in place; otherwise, or with --plain, a line
is appended per refresh. --format json prints one JSON object per refresh;
with --once, one snapshot after two scrapes --interval apart (so that rates
exist), and the exit status is 1 when the server's metrics could not be
read (server down, no known engine metrics, no such --model).

With --advise --from sweep.json it advises a replica count instead: the
servers' arrival rate, read with Little's Law from their running and waiting
requests and their own mean latency over --window, over the requests per
second one replica serves at the sweep's operating point. Give one URL per
replica, or dns+http://NAME:PORT for one per address NAME resolves to (a
Kubernetes headless Service), looked up again at every interval. --listen serves the count as the gauge
goodput_desired_replicas for a KEDA ScaledObject or an HPA external metric
(see docs/autoscaling.md), with its inputs and, at /advice, the reasoning
in words.`,
		Example: `  goodput watch http://localhost:8000
  goodput watch http://gpu-7:8000/metrics --interval 2s --window 1m --plain
  goodput watch http://localhost:8000 --once --format json | jq .status.text
  goodput watch --advise --from sweep.json --listen 127.0.0.1:9465 http://gpu-1:8000 http://gpu-2:8000`,
		Args: func(cmd *cobra.Command, args []string) error {
			switch {
			case baseURL != "" && len(args) > 0:
				return usageErr("watch: give the URL as an argument or with --base-url, not both")
			case baseURL == "" && len(args) != 1 && !(advise.on && len(args) > 1):
				return usageErr("watch: want one URL (the server's base URL or its /metrics URL), got %d arguments", len(args))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			switch {
			case interval <= 0:
				return usageErr("watch: --interval %v: must be positive", interval)
			case window < interval:
				return usageErr("watch: --window %v: must be at least --interval (%v)", window, interval)
			case timeout < 0:
				return usageErr("watch: --timeout %v: must not be negative", timeout)
			case format != "text" && format != "json":
				return usageErr("watch: --format %q: want text or json", format)
			}
			if err := advise.check(cmd.Flags()); err != nil {
				return err
			}
			if advise.on {
				targets := args
				if baseURL != "" {
					targets = []string{baseURL}
				}
				return runAdvise(cmd.Context(), env, &advise, targets, model, interval, window, timeout, format, once, scrapeAuth(env, apiKey))
			}
			target := baseURL
			if target == "" {
				target = args[0]
			}
			url, err := serverview.DefaultMetricsURL(target)
			if err != nil {
				return usageErr("watch: %w", err)
			}
			sc := promscrape.Scraper{URL: url, Model: model, Interval: interval, Timeout: timeout, Header: scrapeAuth(env, apiKey)}
			if err := sc.Validate(); err != nil {
				return usageErr("watch: %w", err)
			}
			show := viewPrinter(env.Stdout, format, once, env.IsTerminal && !plain)
			var (
				shown   int
				showErr error
				noted   bool
			)
			last := serverview.Watch(cmd.Context(), sc, window, func(v serverview.View) bool {
				shown++
				if model != "" && !noted && v.Engine != promscrape.Unknown && len(v.Models) == 0 {
					// TGI and llama.cpp serve one model and name none.
					noted = true
					fmt.Fprintf(env.Stderr, "goodput watch: --model %s: the server's metrics (%s) name no model, so they are the whole server's\n", model, v.Engine)
				}
				if once && shown < 2 {
					return true // the first scrape has no rates yet
				}
				if showErr = show(v); showErr != nil {
					return false
				}
				return !once
			})
			switch {
			case showErr != nil:
				return fmt.Errorf("watch: write: %w", showErr)
			case once && shown < 2:
				return &ExitError{Code: ExitInterrupt, Err: fmt.Errorf("watch %s: interrupted before two scrapes", url)}
			case once && last.Status.Level == serverview.LevelUnknown:
				// The snapshot is printed; the status tells a script it is empty.
				return fmt.Errorf("watch: %s", last.Status.Text)
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.DurationVar(&interval, "interval", time.Second, "time between scrapes (and refreshes)")
	f.DurationVar(&window, "window", 30*time.Second, "trailing window for percentiles, preemptions, prefix hits and the queue trend")
	f.DurationVar(&timeout, "timeout", promscrape.DefaultTimeout, "time one scrape may take before it counts as failed")
	f.BoolVar(&once, "once", false, "print one snapshot after two scrapes --interval apart, and exit")
	f.BoolVar(&plain, "plain", false, "append a line per refresh instead of redrawing the terminal")
	f.StringVar(&format, "format", "text", "output format: text or json (one object per refresh)")
	f.StringVar(&model, "model", "", "show only this model's metrics (its model_name label)")
	f.StringVar(&baseURL, "base-url", "", "the server's base URL, instead of the URL argument")
	f.StringVar(&apiKey, "api-key", "", "API key sent as a Bearer token, for a server that guards /metrics as llama-server --api-key does (default: $OPENAI_API_KEY)")
	advise.register(f)
	return cmd
}

// scrapeAuth is the Authorization a watch sends with its scrapes: the
// --api-key, else $OPENAI_API_KEY, as bench sends it; nil for none.
func scrapeAuth(env *Env, key string) http.Header {
	if key == "" {
		key = env.getenv("OPENAI_API_KEY")
	}
	if key == "" {
		return nil
	}
	return http.Header{"Authorization": {"Bearer " + key}}
}

// viewPrinter returns the function that shows one View: JSON, one object a
// line; a block redrawn in place on a terminal (and for a single snapshot);
// or a table row under a heading printed once.
func viewPrinter(w io.Writer, format string, once, redraw bool) func(serverview.View) error {
	switch {
	case format == "json":
		enc := json.NewEncoder(w)
		return func(v serverview.View) error { return enc.Encode(v) }
	case once:
		return func(v serverview.View) error { return serverview.ViewText(w, v) }
	case redraw:
		return func(v serverview.View) error {
			if _, err := io.WriteString(w, clearScreen); err != nil {
				return err
			}
			return serverview.ViewText(w, v)
		}
	}
	headed := false
	return func(v serverview.View) error {
		if !headed {
			headed = true
			if _, err := fmt.Fprintln(w, serverview.ViewHeader()); err != nil {
				return err
			}
		}
		_, err := fmt.Fprintln(w, serverview.ViewRow(v))
		return err
	}
}
