package bench

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/goodput-dev/goodput/backend"
	"github.com/goodput-dev/goodput/internal/cpuload"
	"github.com/goodput-dev/goodput/load"
	"github.com/goodput-dev/goodput/metrics"
	"github.com/goodput-dev/goodput/transport"
)

// Generator is the load generator's account of itself: how late it sent
// requests, how late it read the answers, what CPU it used and on what
// machine, and how its connections were opened. When the lateness is
// large, the generator, not the server, limited the run, and Warnings say
// why and what to do.
type Generator struct {
	LagP50 float64 `json:"dispatch_lag_p50_seconds"`
	LagP99 float64 `json:"dispatch_lag_p99_seconds"`
	LagMax float64 `json:"dispatch_lag_max_seconds"`
	// StartLag is the largest lag of the run's first requests
	// (load.Result.StartLag).
	StartLag float64 `json:"start_lag_seconds"`
	// Burst is the start-up burst, when requests were due together at the
	// start (a closed loop's first wave): its size and how long it took
	// to send. It is reported as such, not as lag.
	Burst *StartBurst `json:"start_burst,omitempty"`

	// ReadDelay is how long response bytes waited in the kernel before
	// the generator read them, from the kernel's receive timestamps (the
	// event-loop transport on Linux), which are also the chunks' times:
	// the wait is how late the generator learned of them, not an error
	// on their timestamps. Reads is how many reads were measured; 0 when
	// none.
	ReadDelayP50 float64 `json:"read_delay_p50_seconds,omitempty"`
	ReadDelayP99 float64 `json:"read_delay_p99_seconds,omitempty"`
	ReadDelayMax float64 `json:"read_delay_max_seconds,omitempty"`
	Reads        int64   `json:"read_delay_reads,omitempty"`
	// SchedLatencyP99 is the 99th percentile of the time the process's
	// goroutines waited for a processor once runnable.
	SchedLatencyP99 float64 `json:"sched_latency_p99_seconds"`
	// RunQueueWait is how long the process's threads waited, runnable,
	// for a core during the run: in all, and on average each time the
	// kernel gave them one (its schedstat account, Linux only). It is
	// the wait the scheduler latency above cannot see: a thread woken to
	// read that finds every core held by other processes' threads. Both
	// are 0 where the kernel keeps no such account.
	RunQueueWait     float64 `json:"run_queue_wait_seconds,omitempty"`
	RunQueueWaitMean float64 `json:"run_queue_wait_mean_seconds,omitempty"`
	// CPUThrottled is how long the CPU limit of the process's cgroup (a
	// container's limit) held it back during the run, in how many of how
	// many enforcement periods (cpu.stat); 0 where there is no limit or
	// it never bit.
	CPUThrottled        float64 `json:"cpu_throttled_seconds,omitempty"`
	CPUThrottledPeriods uint64  `json:"cpu_throttled_periods,omitempty"`
	CPUPeriods          uint64  `json:"cpu_periods,omitempty"`

	// CPUSeconds is the CPU time (user and system) the process used
	// during the run; CPUPerToken that over the output tokens it read.
	CPUSeconds  float64 `json:"cpu_seconds"`
	CPUPerToken float64 `json:"cpu_per_token_seconds,omitempty"`
	// MachineShare is CPUSeconds over all the machine's core time during
	// the run; MachineBusy how busy its cores were, by anyone, and
	// SaturatedSeconds for how many one-second samples they were at least
	// 95 % busy. Cores is how many the machine has; MachineBusy is -1
	// where the machine's counters cannot be read.
	MachineShare float64 `json:"machine_share"`
	MachineBusy  float64 `json:"machine_busy"`
	// MachineSteal is the part of the cores' time, within MachineBusy,
	// that the hypervisor gave to other machines (steal): a stolen core
	// stops whatever ran on it for the hypervisor's turn, milliseconds.
	MachineSteal     float64 `json:"machine_steal,omitempty"`
	SaturatedSeconds int     `json:"saturated_seconds"`
	Samples          int     `json:"machine_samples"`
	Cores            int     `json:"cores"`
	// ServerLocal says that the server's address is this machine's;
	// ServerInProcess that it runs in this very process (the built-in
	// simulator).
	ServerLocal     bool `json:"server_on_this_machine"`
	ServerInProcess bool `json:"server_in_this_process,omitempty"`

	Connections Connections `json:"connections"`

	Threshold float64 `json:"threshold_seconds"`
	// Limited says that the generator's own lateness limited the run:
	// requests left later than scheduled, so the offered load was lower
	// than planned (or the process was short of CPU throughout).
	Limited bool `json:"generator_limited"`
	// LateRequests of JudgedRequests, those sent after the start-up burst,
	// left more than Threshold after they were due.
	LateRequests int `json:"late_requests"`
	// Slight says the open loop's late requests were late by less than
	// slightLag of the mean time between them: the load was as planned.
	Slight         bool `json:"late_slightly,omitempty"`
	JudgedRequests int  `json:"judged_requests"`
	// LateStart says that the run's first requests left late where the
	// rest did not: what Limited says of such a run.
	LateStart bool `json:"late_start,omitempty"`
	// LateReads says that the server's bytes waited in the kernel longer
	// than the threshold (p99) before this process read them, in a run
	// whose requests wait on others' ends (a closed loop, --max-concurrency,
	// sessions): those left that much later. Chunk timestamps are the
	// kernel's and leave the wait out, so in an open loop without a cap
	// nothing measured moves with it and it is not flagged.
	LateReads bool `json:"reads_late,omitempty"`

	Warnings []string `json:"warnings,omitempty"`
}

// StartBurst is a start-up burst: Requests due at once, the last of them
// sent DrainSeconds after they were due.
type StartBurst struct {
	Requests     int     `json:"requests"`
	DrainSeconds float64 `json:"drain_seconds"`
}

// Connections says how the run's connections were opened.
type Connections struct {
	Transport string `json:"transport"`
	// DialAhead is false for cold connections (--dial-ahead=false).
	DialAhead bool `json:"dial_ahead"`
	// Warmed were opened before the run, Ahead by the pool of spares
	// during it, Late by requests that found none idle when due, which
	// waited LateSeconds in all for them. Dead idle connections were
	// closed by the server before use.
	Warmed      int64   `json:"opened_before"`
	Ahead       int64   `json:"opened_ahead"`
	Late        int64   `json:"dialled_when_due"`
	LateSeconds float64 `json:"dialled_when_due_seconds"`
	Dead        int64   `json:"closed_idle"`
	// WarmError says why connections could not be opened before the run.
	WarmError string `json:"open_before_error,omitempty"`
}

// selfCheck is what the self-check judges a run by.
type selfCheck struct {
	run       load.Result
	threshold time.Duration
	open      bool // an open loop
	// capped is true when a request waits on another's end: a closed
	// loop, an open one under --max-concurrency, or sessions and agent
	// tasks, whose next call follows the one before.
	capped bool
	// gap is an open loop's mean time between due times, 0 when unknown.
	gap   time.Duration
	conns transport.Stats
	// The process and the machine during the run; cpu 0 where not read.
	cpu, wall       time.Duration
	tokens          int64
	cores           int
	busy            float64   // the machine's cores' busy share, -1 unknown
	steal           float64   // the hypervisor's share of the cores' time
	samples         []float64 // busy share per second
	sched           time.Duration
	runQueue        cpuload.RunQueue // the process's threads' wait for a core
	throttle        cpuload.Throttle // its cgroup's CPU limit at work
	serverLocal     bool
	serverInProcess bool
}

// slightLag is the share of an open loop's mean gap between requests
// below which its requests' lateness is told as slight (Generator.Slight).
const slightLag = 0.05

// saturated is the busy share at which a second counts as saturated.
const saturated = 0.95

func quantiles(d []time.Duration) (p50, p99, mx float64) {
	if len(d) == 0 {
		return 0, 0, 0
	}
	s := make([]float64, len(d))
	for i, v := range d {
		s[i] = v.Seconds()
	}
	slices.Sort(s)
	return metrics.Percentile(s, 50, metrics.Linear), metrics.Percentile(s, 99, metrics.Linear), s[len(s)-1]
}

// checkGenerator judges the run's own health.
func checkGenerator(c selfCheck) Generator {
	g := Generator{Threshold: c.threshold.Seconds(), Cores: c.cores, MachineBusy: c.busy, MachineSteal: c.steal,
		ServerLocal: c.serverLocal || c.serverInProcess, ServerInProcess: c.serverInProcess, Samples: len(c.samples), SchedLatencyP99: c.sched.Seconds()}
	g.LagP50, g.LagP99, g.LagMax = quantiles(c.run.Lag)
	g.StartLag = c.run.StartLag.Seconds()
	if b := c.run.Burst; b.Requests > 1 {
		g.Burst = &StartBurst{Requests: b.Requests, DrainSeconds: b.Drain.Seconds()}
	}
	if d := c.conns.ReadDelay; d != nil && d.Count() > 0 {
		g.Reads = d.Count()
		g.ReadDelayP50, g.ReadDelayP99, g.ReadDelayMax = d.Quantile(0.5).Seconds(), d.Quantile(0.99).Seconds(), d.Max().Seconds()
	}
	g.CPUSeconds = c.cpu.Seconds()
	if c.runQueue.OK {
		g.RunQueueWait, g.RunQueueWaitMean = c.runQueue.Wait.Seconds(), c.runQueue.Mean().Seconds()
	}
	if t := c.throttle; t.OK {
		g.CPUThrottled, g.CPUThrottledPeriods, g.CPUPeriods = t.Time.Seconds(), t.Throttled, t.Periods
	}
	if c.tokens > 0 && c.cpu > 0 {
		g.CPUPerToken = c.cpu.Seconds() / float64(c.tokens)
	}
	if c.wall > 0 && c.cores > 0 {
		g.MachineShare = c.cpu.Seconds() / (c.wall.Seconds() * float64(c.cores))
	}
	for _, s := range c.samples {
		if s >= saturated {
			g.SaturatedSeconds++
		}
	}
	g.Connections = Connections{Transport: string(c.conns.Kind), DialAhead: c.conns.DialAhead,
		Warmed: c.conns.Warmed, Ahead: c.conns.Ahead, Late: c.conns.Late, LateSeconds: c.conns.LateWait.Seconds(), Dead: c.conns.Dead}
	if c.run.WarmErr != nil {
		g.Connections.WarmError = c.run.WarmErr.Error()
	}

	th := g.Threshold
	// The start-up burst is judged by how long it took to send (below),
	// the rest of the run by its lag: a pause between two of the burst's
	// sends is the burst's, and where every request was in it (vLLM's
	// default, all at once) the run has no lag of its own to judge.
	past, pastWhat := c.run.Lag, ""
	if g.Burst != nil {
		past, pastWhat = past[min(len(past), g.Burst.Requests):], " past the start-up burst"
	}
	_, pastP99, pastMax := quantiles(past)
	g.JudgedRequests = len(past)
	for _, l := range past {
		if l.Seconds() > th {
			g.LateRequests++
		}
	}
	if pastP99 > th {
		g.Limited = true
		// An open loop's late requests still come at the planned rate,
		// each later than due; a closed loop's late next request lowers
		// the load it offers.
		what, effect := "requests went out late", "TTFT still counts from the scheduled times, so it includes that lateness, and the server met each request later than planned"
		if !c.open {
			what, effect = "workers were slow to send the next request", "TTFT still counts from the scheduled times, but the offered load was lower than planned"
		}
		head := "the generator, not the server, limited this run: " + what
		// Late by a sliver of the time between requests, an open loop
		// still offered the load planned.
		g.Slight = c.open && c.gap > 0 && pastP99 < slightLag*c.gap.Seconds()
		switch {
		case g.few():
			// A few late requests of a short run put its p99 over the
			// threshold: they are what happened, not the whole run.
			head = "the generator sent some requests late"
			effect = "TTFT still counts from the scheduled times, so theirs includes that lateness"
		case g.Slight:
			head = "the generator sent requests a little late"
			effect = fmt.Sprintf("TTFT still counts from the scheduled times, so it includes that lateness; beside the %.0f ms between requests the load was as planned", 1e3*c.gap.Seconds())
		}
		g.Warnings = append(g.Warnings, fmt.Sprintf(
			"%s (%d of %d%s more than %.2f ms after they were due; p99 dispatch lag %.2f ms, max %.2f ms). %s: %s.",
			head, g.LateRequests, g.JudgedRequests, pastWhat, 1e3*th, 1e3*pastP99, 1e3*pastMax, effect, g.advice()))
	}
	// A burst that covers the run's start has said how its start went.
	startIsBurst := g.Burst != nil && g.Burst.Requests >= c.run.StartRequests
	// The start is judged on its own only where it went worse than the
	// rest of the run, its worst lag over twice the worst after it. One
	// request a little past the threshold among the first sixteen of a
	// slow open loop, seconds apart, is the run's ordinary jitter, which
	// its p99 judges.
	var afterMax time.Duration
	for _, l := range c.run.Lag[min(len(c.run.Lag), c.run.StartRequests):] {
		afterMax = max(afterMax, l)
	}
	if g.StartLag > th && g.StartLag > 2*afterMax.Seconds() && pastP99 <= th && !startIsBurst {
		g.Limited, g.LateStart = true, true
		why := "the generator was slow to start, and their TTFT and client queue include it"
		if g.throttled() {
			why = "their TTFT and client queue include it; " + g.throttleCause()
		} else if g.waitedForCores() {
			why = "their TTFT and client queue include it; " + g.coreWait()
		}
		g.Warnings = append(g.Warnings, fmt.Sprintf(
			"the first requests went out late (up to %.2f ms, threshold %.2f ms): %s%s",
			1e3*g.StartLag, 1e3*th, why, g.stealText()))
	}
	if b := g.Burst; b != nil && b.DrainSeconds > max(10*th, 0.01) {
		after := fmt.Sprintf("Later requests went out on time; to leave the burst out of the statistics, give --num-warmups %d.", b.Requests)
		if len(past) == 0 {
			after = "It was the whole run: a finite --request-rate spreads the requests out."
		} else if pastP99 > th {
			after = fmt.Sprintf("To leave the burst out of the statistics, give --num-warmups %d.", b.Requests)
		}
		g.Warnings = append(g.Warnings, fmt.Sprintf(
			"the start-up burst of %d requests due at once took %.1f ms to send: the last of them waited that long in this client, and their TTFT includes it. %s",
			b.Requests, 1e3*b.DrainSeconds, after))
	}
	switch {
	case g.Reads > 0 && g.ReadDelayP99 > max(th, 0.001):
		// Without requests that wait on others' ends, every latency comes
		// from the kernel's stamps: the delay is in the summary line only.
		if c.capped {
			g.LateReads = true
			g.Warnings = append(g.Warnings, fmt.Sprintf(
				"this process read the server's bytes late: they waited in the kernel p99 %.2f ms (median %.3f ms, max %.2f ms) before it read them. Chunk timestamps are the kernel's arrival times and leave the wait out, but a request that waits on another's end (a closed loop's next request, the next under --max-concurrency, a session's next turn) is due once that end was read, so the wait lowered the load offered by as much; %s",
				1e3*g.ReadDelayP99, 1e3*g.ReadDelayP50, 1e3*g.ReadDelayMax, g.readCause()))
		}
	case g.Reads == 0 && g.SchedLatencyP99 > max(2*th, 0.002):
		g.Limited = true
		g.Warnings = append(g.Warnings, fmt.Sprintf(
			"this process was short of CPU: its goroutines waited p99 %.2f ms for a processor once runnable, so a timestamp taken after a wake-up is late by up to that much; %s",
			1e3*g.SchedLatencyP99, g.cpuCause()))
	}
	if g.ServerLocal && g.saturated() {
		g.Warnings = append(g.Warnings, fmt.Sprintf(
			"the server runs on this machine, whose %d cores were saturated (%s): client and server competed for them, so neither side's timing can be trusted. Run the client on another machine, or give each its own cores (taskset).",
			g.Cores, g.busyText()))
	}
	return g
}

// few reports whether the requests sent late, past the start-up burst,
// were under a tenth of them: a short run's p99 is its worst few.
func (g *Generator) few() bool {
	return g.LateRequests > 0 && 10*g.LateRequests < g.JudgedRequests
}

// Line is the self-check in one line for the text summary.
func (g *Generator) Line() string {
	var b strings.Builder
	switch {
	case g.Limited && g.LateStart:
		b.WriteString("Generator: sent the first requests late (see the warnings)")
	case g.Limited && (g.few() || g.Slight):
		fmt.Fprintf(&b, "Generator: sent %d of %d requests late (see the warnings)", g.LateRequests, g.JudgedRequests)
	case g.Limited:
		b.WriteString("Generator: limited the run (see the warnings)")
	case g.LateReads:
		b.WriteString("Generator: kept up with the schedule, read late (see the warnings)")
	default:
		b.WriteString("Generator: kept up")
	}
	fmt.Fprintf(&b, " (p99 dispatch lag %.3f ms", 1e3*g.LagP99)
	if g.Reads > 0 {
		fmt.Fprintf(&b, ", read delay p99 %.3f ms", 1e3*g.ReadDelayP99)
	} else {
		fmt.Fprintf(&b, ", scheduler latency p99 %.3f ms", 1e3*g.SchedLatencyP99)
	}
	b.WriteString(")")
	if bu := g.Burst; bu != nil {
		fmt.Fprintf(&b, "; start-up burst of %d requests sent within %.1f ms", bu.Requests, 1e3*bu.DrainSeconds)
	}
	if g.CPUPerToken > 0 {
		fmt.Fprintf(&b, "; CPU %.1f µs per output token", 1e6*g.CPUPerToken)
	}
	if g.Cores > 0 {
		fmt.Fprintf(&b, ", %.1f %% of this machine's %d cores", 100*g.MachineShare, g.Cores)
		if g.MachineBusy >= 0 {
			fmt.Fprintf(&b, " (%.0f %% busy in all", 100*g.MachineBusy)
			if g.MachineSteal >= 0.01 {
				fmt.Fprintf(&b, ", %.0f %% taken by the hypervisor", 100*g.MachineSteal)
			}
			b.WriteString(")")
		}
	}
	c := g.Connections
	fmt.Fprintf(&b, "; transport %s, ", c.Transport)
	if c.DialAhead {
		fmt.Fprintf(&b, "connections dialled ahead (%d before the start, %d during the run)", c.Warmed, c.Ahead)
	} else {
		b.WriteString("cold connections (--dial-ahead=false)")
	}
	if c.Late > 0 {
		fmt.Fprintf(&b, ", %d dialled when due (%.1f ms in all)", c.Late, 1e3*c.LateSeconds)
	} else {
		b.WriteString(", none dialled when due")
	}
	return b.String()
}

// overLimitWarning says when answers were longer than the max_tokens
// they asked for, which a server that honours the limit never sends.
// completionField says the limit went only as max_completion_tokens,
// which some servers do not read: the warning then names the field and
// how to send max_tokens too, rather than blame the server.
func overLimitWarning(t load.TokenCheck, completionField bool) string {
	if t.OverLimit == 0 {
		return ""
	}
	if completionField {
		return fmt.Sprintf("%d responses carried more output tokens than their max_completion_tokens (the first %d for %d): the limit was sent as max_completion_tokens, which some servers ignore (Ollama's /v1, older TGI); --max-tokens-field both sends max_tokens too; the output counts, throughput and TPOT are the server's own",
			t.OverLimit, t.OverOutput, t.OverAsked)
	}
	return fmt.Sprintf("%d responses carried more output tokens than their max_tokens (the first %d for %d): the server did not hold to the limit, or counts tokens otherwise; the output counts, throughput and TPOT are its own",
		t.OverLimit, t.OverOutput, t.OverAsked)
}

// limitOnlyAsCompletionTokens reports whether a's requests carry their
// output limit as max_completion_tokens and not as max_tokens: chat
// requests with the default field, and an --extra-body that sets neither.
func limitOnlyAsCompletionTokens(a *backend.Adapter, extra map[string]any) bool {
	if a.Name() != "openai-chat" || a.MaxTokensField() != backend.LimitMaxCompletionTokens {
		return false
	}
	_, tokens := extra["max_tokens"]
	_, completion := extra["max_completion_tokens"]
	return !tokens && !completion
}

// tokenWarning reports when servers' token counts disagree with the chunks.
func tokenWarning(t load.TokenCheck) string {
	if t.Mismatched == 0 {
		return ""
	}
	return fmt.Sprintf("%d responses reported a different token count than the chunks they streamed (%d tokens in %d chunks): per-token ITL and inter-chunk latency differ; see the inter-chunk line",
		t.Mismatched, t.UsageTokens, t.UsageChunks)
}
