package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/pflag"

	"github.com/goodput-dev/goodput/bench"
	"github.com/goodput-dev/goodput/load"
	"github.com/goodput-dev/goodput/session"
	"github.com/goodput-dev/goodput/sim"
)

// spreadFlags are the flags of sessions, agent tasks and several
// endpoints that need parsing before they fit bench.Config.
type spreadFlags struct {
	baseURLs    []string
	baseURLFile string
	balance     string
	turns       string
	think       string
}

// registerSpreadFlags registers them; --base-url itself is one of them,
// since it may be given several times.
func registerSpreadFlags(fl *pflag.FlagSet, cfg *bench.Config, f *spreadFlags) {
	fl.Var(&baseURLFlag{urls: &f.baseURLs, first: &cfg.BaseURL}, "base-url", "server base URL, e.g. http://127.0.0.1:8000; several spread the load over them (default: start the built-in simulator)")
	fl.StringVar(&f.baseURLFile, "base-url-file", "", "file of endpoint base URLs, one a line, to spread the load over (# comments)")
	fl.StringVar(&f.balance, "balance", "", "spread over several endpoints: round-robin, least-outstanding or session (default: session for sessions and tasks, else round-robin)")

	sc := &cfg.Sessions
	fl.BoolVar(&sc.MultiTurn, "multi-turn", false, "multi-turn sessions: random makes synthetic ones, sharegpt sends every turn (--num-prompts and --request-rate then count sessions)")
	fl.StringVar(&f.turns, "session-turns", sc.Turns.String(), "turns of a synthetic session: a count (4) or a range (2-6)")
	fl.IntVar(&sc.MaxTurns, "session-max-turns", 0, "keep at most this many turns of a dataset's sessions (0: all)")
	fl.StringVar(&f.think, "think-time", "0s", "user think time before each later turn, for turns whose dataset gives none: 2s, exp:2s (exponential mean) or uniform:1s-5s")
	fl.StringVar(&sc.Header, "session-header", sc.Header, "HTTP header carrying each request's session or task id, for routers' session affinity (empty: none)")
}

// apply parses the flags into cfg.
func (f *spreadFlags) apply(cfg *bench.Config) error {
	var err error
	if cfg.Sessions.Turns, err = session.ParseSpan(f.turns); err != nil {
		return usageErr("--session-turns: %v", err)
	}
	if cfg.Sessions.Think, err = session.ParseThink(f.think); err != nil {
		return usageErr("--think-time: %v", err)
	}
	urls := append([]string(nil), f.baseURLs...)
	if f.baseURLFile != "" {
		fh, err := os.Open(f.baseURLFile)
		if err != nil {
			return usageErr("--base-url-file: %v", err)
		}
		more, err := load.ReadEndpoints(fh, f.baseURLFile)
		fh.Close()
		if err != nil {
			return usageErr("--base-url-file: %v", err)
		}
		urls = append(urls, more...)
	}
	for i, u := range urls {
		urls[i] = strings.TrimRight(strings.TrimSpace(u), "/")
	}
	// A single --base-url stays as the flag (or a vLLM --host and
	// --port) set it.
	if len(urls) > 1 || f.baseURLFile != "" {
		cfg.BaseURL = urls[0]
	}
	if len(urls) > 1 {
		cfg.BaseURLs = urls
	}
	if f.balance != "" {
		b, err := load.ParseBalance(f.balance)
		if err != nil {
			return usageErr("--balance %v", err)
		}
		cfg.Balance = b
	}
	return nil
}

// startSims starts n built-in simulators built from opts (n ≤ 1: one) on
// free loopback ports and points cfg at them, spreading the load over
// them when there are several. Each gets its own seed, opts.Seed + i, so
// that their answers differ as replicas' do. The caller must call the
// returned function to stop them.
func startSims(ctx context.Context, env *Env, cfg *bench.Config, opts sim.Options, n int) (func(), error) {
	if n < 1 || n > maxSimReplicas {
		return nil, usageErr("--sim-replicas %d: want 1 to %d", n, maxSimReplicas)
	}
	if n == 1 {
		return startSimWith(ctx, env, cfg, opts)
	}
	var stops []func()
	stopAll := func() {
		for _, s := range stops {
			s()
		}
	}
	var urls []string
	target := ""
	for i := range n {
		one := *cfg
		o := opts
		o.Seed = opts.Seed + uint64(i)
		stop, err := startSimWith(ctx, env, &one, o)
		if err != nil {
			stopAll()
			return nil, err
		}
		stops = append(stops, stop)
		urls = append(urls, one.BaseURL)
		target = one.Target
	}
	cfg.BaseURL, cfg.BaseURLs = urls[0], urls
	cfg.Target = fmt.Sprintf("built-in simulators: %d replicas of %s", n, strings.TrimPrefix(target, "built-in simulator: "))
	return stopAll, nil
}

// maxSimReplicas bounds --sim-replicas: each is an engine goroutine and a
// listener on this machine.
const maxSimReplicas = 64

// baseURLFlag is --base-url: each use adds an endpoint, and the first is
// the run's BaseURL as soon as it is parsed, as a plain string flag would
// set it.
type baseURLFlag struct {
	urls  *[]string
	first *string
}

func (b *baseURLFlag) Set(s string) error {
	if strings.TrimSpace(s) == "" {
		// An unset variable ("--base-url $URL") must not run the
		// built-in simulator in the server's place.
		return errors.New("empty: give the server's URL, or leave --base-url out to run the built-in simulator")
	}
	*b.urls = append(*b.urls, s)
	if len(*b.urls) == 1 {
		*b.first = s
	}
	return nil
}

func (b *baseURLFlag) String() string { return strings.Join(*b.urls, ",") }

func (b *baseURLFlag) Type() string { return "url" }
