package bench

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/goodput-dev/goodput/internal/cpuload"
	"github.com/goodput-dev/goodput/load"
	"github.com/goodput-dev/goodput/record"
	"github.com/goodput-dev/goodput/transport"
)

// lagsOf returns n lags of d.
func lagsOf(n int, d time.Duration) []time.Duration {
	out := make([]time.Duration, n)
	for i := range out {
		out[i] = d
	}
	return out
}

// The self-check calls a run generator-limited when its p99 dispatch lag
// passes the threshold, and on a process with few Go processors whose
// GOMAXPROCS nobody chose it suggests more.
func TestCheckGenerator(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))

	t.Setenv("GOMAXPROCS", "")
	g := checkGenerator(selfCheck{run: load.Result{Lag: lagsOf(100, 100*time.Microsecond)}, threshold: time.Millisecond, open: true})
	if g.Limited || len(g.Warnings) != 0 {
		t.Errorf("100 µs of lag: limited %v, warnings %q", g.Limited, g.Warnings)
	}
	g = checkGenerator(selfCheck{run: load.Result{Lag: lagsOf(100, 3*time.Millisecond)}, threshold: time.Millisecond, open: true})
	// An open loop's late requests come at the planned rate, each late;
	// a closed loop's slow next request lowers the load.
	if !g.Limited || len(g.Warnings) != 1 || !strings.Contains(g.Warnings[0], "requests went out late") ||
		!strings.Contains(g.Warnings[0], "so it includes that lateness, and the server met each request later than planned") ||
		strings.Contains(g.Warnings[0], "offered load was lower") ||
		!strings.Contains(g.Warnings[0], "with 2 Go processors, GOMAXPROCS=8 may also help") {
		t.Errorf("3 ms of lag: limited %v, warnings %q", g.Limited, g.Warnings)
	}

	t.Setenv("GOMAXPROCS", "2") // chosen: no advice about it
	g = checkGenerator(selfCheck{run: load.Result{Lag: lagsOf(100, 3*time.Millisecond)}, threshold: time.Millisecond})
	if !g.Limited || !strings.Contains(g.Warnings[0], "workers were slow") || !strings.Contains(g.Warnings[0], "the offered load was lower than planned") ||
		strings.Contains(g.Warnings[0], "GOMAXPROCS") {
		t.Errorf("closed loop, GOMAXPROCS chosen: warnings %q", g.Warnings)
	}
}

// A short run whose p99 is its worst two requests says that those were
// late, not that the generator limited the run; a run late throughout
// says it did. Both count the late requests.
func TestCheckGeneratorCountsTheLateRequests(t *testing.T) {
	t.Setenv("GOMAXPROCS", "2")
	lag := lagsOf(40, 300*time.Microsecond)
	lag[17], lag[31] = 1970*time.Microsecond, 3460*time.Microsecond
	g := checkGenerator(selfCheck{run: load.Result{Lag: lag}, threshold: time.Millisecond, open: true})
	if !g.Limited || g.LateRequests != 2 || g.JudgedRequests != 40 || len(g.Warnings) != 1 ||
		!strings.HasPrefix(g.Warnings[0], "the generator sent some requests late (2 of 40 more than 1.00 ms after they were due; p99 dispatch lag 2.88 ms, max 3.46 ms). TTFT still counts from the scheduled times, so theirs includes that lateness: ") {
		t.Errorf("two late of 40: limited %v, late %d of %d, warnings %q", g.Limited, g.LateRequests, g.JudgedRequests, g.Warnings)
	}
	if l := g.Line(); !strings.HasPrefix(l, "Generator: sent 2 of 40 requests late (see the warnings)") {
		t.Errorf("line %q", l)
	}
	for i := range 8 {
		lag[i] = 2 * time.Millisecond
	}
	g = checkGenerator(selfCheck{run: load.Result{Lag: lag}, threshold: time.Millisecond, open: true})
	if g.LateRequests != 10 || !strings.HasPrefix(g.Warnings[0], "the generator, not the server, limited this run: requests went out late (10 of 40 more than 1.00 ms") ||
		!strings.HasPrefix(g.Line(), "Generator: limited the run (see the warnings)") {
		t.Errorf("ten late of 40: late %d, warnings %q, line %q", g.LateRequests, g.Warnings, g.Line())
	}
	// The same lateness beside 200 ms between requests (5 a second) is a
	// sliver of the schedule: the load was as planned, and the words say
	// so; beside 20 ms (50 a second) it limited the run.
	g = checkGenerator(selfCheck{run: load.Result{Lag: lag}, threshold: time.Millisecond, open: true, gap: 200 * time.Millisecond})
	if !g.Slight || !strings.HasPrefix(g.Warnings[0], "the generator sent requests a little late (10 of 40 more than 1.00 ms") ||
		!strings.Contains(g.Warnings[0], "beside the 200 ms between requests the load was as planned") ||
		!strings.HasPrefix(g.Line(), "Generator: sent 10 of 40 requests late (see the warnings)") {
		t.Errorf("ten late of 40, 200 ms apart: slight %v, warnings %q, line %q", g.Slight, g.Warnings, g.Line())
	}
	g = checkGenerator(selfCheck{run: load.Result{Lag: lag}, threshold: time.Millisecond, open: true, gap: 20 * time.Millisecond})
	if g.Slight || !strings.HasPrefix(g.Warnings[0], "the generator, not the server, limited this run") {
		t.Errorf("ten late of 40, 20 ms apart: slight %v, warnings %q", g.Slight, g.Warnings)
	}
}

// A run whose first requests left late is flagged even when the rest of
// the run keeps its p99 low: a few late requests at the start hide from
// the percentiles of a long run.
func TestCheckGeneratorSeesALateStart(t *testing.T) {
	lag := lagsOf(1000, 50*time.Microsecond)
	g := checkGenerator(selfCheck{run: load.Result{Lag: lag, StartLag: 45 * time.Millisecond}, threshold: time.Millisecond, open: true})
	if g.LagP99 > 0.001 {
		t.Fatalf("p99 %v: the fixture should hide the start", g.LagP99)
	}
	if !g.Limited || g.StartLag != 0.045 || len(g.Warnings) != 1 || !strings.Contains(g.Warnings[0], "the first requests went out late (up to 45.00 ms") {
		t.Errorf("limited %v, start lag %v, warnings %q", g.Limited, g.StartLag, g.Warnings)
	}
	if w := g.Warnings[0]; !strings.Contains(w, "the generator was slow to start") {
		t.Errorf("warning %q, want it to blame the start", w)
	}
	if l := g.Line(); !g.LateStart || !strings.HasPrefix(l, "Generator: sent the first requests late (see the warnings)") {
		t.Errorf("late start %v, line %q", g.LateStart, l)
	}
	// Where the kernel's account shows the process's threads waiting for
	// cores that others held, that is the cause given.
	g = checkGenerator(selfCheck{run: load.Result{Lag: lag, StartLag: 2 * time.Millisecond}, threshold: time.Millisecond, open: true,
		busy: 0.59, steal: 0.03, cores: 2, serverLocal: true, cpu: 100 * time.Millisecond, wall: 3 * time.Second,
		runQueue: cpuload.RunQueue{Wait: 528 * time.Millisecond, Runs: 4258, OK: true}})
	if w := g.Warnings; len(w) != 1 || !strings.Contains(w[0], "the first requests went out late (up to 2.00 ms, threshold 1.00 ms): their TTFT and client queue include it; this process's threads waited for a core, 0.124 ms on average") ||
		!strings.Contains(w[0], "taskset -c") || !strings.Contains(w[0], "for 3 % of their time (steal)") || strings.Contains(w[0], "slow to start") {
		t.Errorf("warnings %q, want the wait for cores as the cause", w)
	}
	g = checkGenerator(selfCheck{run: load.Result{Lag: lag, StartLag: 500 * time.Microsecond}, threshold: time.Millisecond, open: true})
	if g.Limited || len(g.Warnings) != 0 {
		t.Errorf("a start within the threshold: limited %v, warnings %q", g.Limited, g.Warnings)
	}
	// A slow open loop of 30 requests whose first sixteen span seconds:
	// one of them 1.06 ms late, and one later 0.6 ms, is jitter, not a
	// late start; with the later requests at most 0.3 ms, it is one.
	for _, tt := range []struct {
		later   time.Duration
		limited bool
	}{{600 * time.Microsecond, false}, {300 * time.Microsecond, true}} {
		jitter := lagsOf(30, 100*time.Microsecond)
		jitter[3], jitter[20] = 1060*time.Microsecond, tt.later
		g = checkGenerator(selfCheck{run: load.Result{Lag: jitter, StartLag: 1060 * time.Microsecond, StartRequests: 16}, threshold: time.Millisecond, open: true})
		if g.Limited != tt.limited || len(g.Warnings) != map[bool]int{false: 0, true: 1}[tt.limited] {
			t.Errorf("start 1.06 ms, later requests up to %v: limited %v, warnings %q; want limited %v", tt.later, g.Limited, g.Warnings, tt.limited)
		}
	}
}

// The start-up burst of a 256-stream closed loop (every worker's first
// request due at the epoch) is reported as a burst, with its size and the
// time it took to send, not as a generator that limited the run: its
// requests' lags say how fast it went out, one after the other, and later
// requests left on time. Only a burst that takes long warns, and its
// advice is to leave the burst out, not to shard the load.
func TestCheckGeneratorReportsTheStartBurst(t *testing.T) {
	// 256 first-wave requests sent 20 µs apart, then 2,000 on time.
	lag := append(lagsOf(256, 20*time.Microsecond), lagsOf(2000, 150*time.Microsecond)...)
	tests := []struct {
		name  string
		drain time.Duration
		warn  string // in the one warning; "" for none
	}{
		// 256 × 20 µs: the burst went out in 5 ms.
		{"a quick burst", 5 * time.Millisecond, ""},
		// One that took long, as dialling 256 connections at the epoch did.
		{"a slow burst", 45 * time.Millisecond, "the start-up burst of 256 requests due at once took 45.0 ms to send"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			run := load.Result{Lag: lag, StartLag: 20 * time.Microsecond, StartRequests: 256,
				Burst: load.Burst{Requests: 256, Drain: tt.drain}}
			g := checkGenerator(selfCheck{run: run, threshold: time.Millisecond})
			if g.Limited || g.Burst == nil || g.Burst.Requests != 256 || g.Burst.DrainSeconds != tt.drain.Seconds() {
				t.Fatalf("limited %v, burst %+v; want a burst of 256 in %v, not limited", g.Limited, g.Burst, tt.drain)
			}
			switch {
			case tt.warn == "" && len(g.Warnings) != 0:
				t.Errorf("warnings %q, want none", g.Warnings)
			case tt.warn != "" && (len(g.Warnings) != 1 || !strings.Contains(g.Warnings[0], tt.warn) ||
				!strings.Contains(g.Warnings[0], "--num-warmups 256") || strings.Contains(g.Warnings[0], "shard")):
				t.Errorf("warnings %q, want one saying %q and advising warm-ups", g.Warnings, tt.warn)
			}
			if line := g.Line(); !strings.Contains(line, "kept up") || !strings.Contains(line, "start-up burst of 256 requests sent within") {
				t.Errorf("summary line %q", line)
			}
		})
	}
}

// "Short of CPU" quotes what the shortage did to the timestamps: how long
// bytes waited in the kernel before they were read, where the transport
// measured it, else how long goroutines waited for a processor. Late reads
// in a run whose requests wait on others' ends (here all of them) delay
// those requests: they say so, and the run is not called
// generator-limited for them. The cause follows the machine's load and
// the delays' shape.
func TestCheckGeneratorShortOfCPU(t *testing.T) {
	delays := func(fast, slow int, slowBy time.Duration, extra ...time.Duration) *transport.Delays {
		d := &transport.Delays{}
		for range fast {
			d.Add(80 * time.Microsecond)
		}
		for range slow {
			d.Add(slowBy)
		}
		for _, e := range extra {
			d.Add(e)
		}
		return d
	}
	bursts := delays(970, 30, 6*time.Millisecond)
	lag := lagsOf(100, 100*time.Microsecond)
	tests := []struct {
		name      string
		check     selfCheck
		lateReads bool     // else limited
		want      []string // in the one warning
		not       []string
	}{
		{"read delay on a saturated shared machine",
			selfCheck{conns: transport.Stats{ReadDelay: bursts}, busy: 0.97, samples: []float64{0.99, 0.98, 0.96, 0.5}, cores: 2, serverLocal: true}, true,
			[]string{"waited in the kernel p99 6.", "Chunk timestamps are the kernel's arrival times and leave the wait out",
				"a request that waits on another's end", "is due once that end was read, so the wait lowered the load offered by as much",
				"the server shares this machine"}, []string{"arrive together"}},
		{"bursts of reads on a quiet machine",
			selfCheck{conns: transport.Stats{ReadDelay: bursts}, busy: 0.3, cores: 16}, true,
			[]string{"waited in the kernel p99 6.", "median 0.08", "the machine was not saturated (30 % busy", "arrive together", "one after another", "GOMAXPROCS"}, []string{"pause", "server writes"}},
		{"bursts of reads beside a local server",
			selfCheck{conns: transport.Stats{ReadDelay: bursts}, busy: 0.05, cores: 2, serverLocal: true}, true,
			[]string{"arrive together", "the server writes the same batch on the same 2 cores"}, nil},
		{"the built-in simulator in this process",
			selfCheck{conns: transport.Stats{ReadDelay: delays(0, 1000, 2*time.Millisecond)}, busy: 0.03, cores: 2, serverInProcess: true}, true,
			[]string{"the built-in simulator, in this very process, writes the same batch"}, []string{"pause", "server writes"}},
		{"every read late on a quiet machine",
			selfCheck{conns: transport.Stats{ReadDelay: delays(0, 1000, 3*time.Millisecond)}, busy: 0.3, cores: 16}, true,
			[]string{"waited in the kernel p99 3.", "the machine was not saturated (30 % busy on average", "arrive together"}, []string{"pause"}},
		{"reads behind a local server's threads",
			selfCheck{conns: transport.Stats{ReadDelay: bursts}, busy: 0.58, cores: 2, serverLocal: true, cpu: 100 * time.Millisecond, wall: 4 * time.Second,
				runQueue: cpuload.RunQueue{Wait: 450 * time.Millisecond, Runs: 4000, OK: true}}, true,
			[]string{"the machine was not saturated (58 % busy", "this process 1 % of them", "this process's threads waited for a core, 0.113 ms on average each time the kernel gave them one (450 ms in all",
				"other processes' threads held the cores at those moments, the server's among them, on the same 2 cores", "taskset -c"},
			[]string{"one after another", "GOMAXPROCS"}},
		{"reads behind other work, the server elsewhere",
			selfCheck{conns: transport.Stats{ReadDelay: bursts}, busy: 0.7, cores: 4, cpu: 100 * time.Millisecond, wall: 4 * time.Second,
				runQueue: cpuload.RunQueue{Wait: 300 * time.Millisecond, Runs: 1000, OK: true}}, true,
			[]string{"waited for a core, 0.300 ms on average", "give the client cores of its own (taskset -c), or run it on a quieter machine"},
			[]string{"one after another", "the server's among them"}},
		{"a wait for a core too short to explain the reads",
			selfCheck{conns: transport.Stats{ReadDelay: bursts}, busy: 0.58, cores: 2, serverLocal: true, cpu: 100 * time.Millisecond, wall: 4 * time.Second,
				runQueue: cpuload.RunQueue{Wait: 40 * time.Millisecond, Runs: 4000, OK: true}}, true,
			[]string{"one after another", "the server writes the same batch"}, []string{"waited for a core"}},
		{"a process that used most of the machine waits for its own threads",
			selfCheck{conns: transport.Stats{ReadDelay: bursts}, busy: 0.8, cores: 2, serverLocal: true, cpu: 5 * time.Second, wall: 4 * time.Second,
				runQueue: cpuload.RunQueue{Wait: 450 * time.Millisecond, Runs: 4000, OK: true}}, true,
			[]string{"one after another"}, []string{"waited for a core"}},
		{"the built-in simulator's threads are this process's",
			selfCheck{conns: transport.Stats{ReadDelay: delays(0, 1000, 2*time.Millisecond)}, busy: 0.3, cores: 2, serverInProcess: true, cpu: time.Second, wall: 4 * time.Second,
				runQueue: cpuload.RunQueue{Wait: 450 * time.Millisecond, Runs: 4000, OK: true}}, true,
			[]string{"the built-in simulator, in this very process, writes the same batch"}, []string{"waited for a core"}},
		{"the hypervisor's turns",
			selfCheck{conns: transport.Stats{ReadDelay: bursts}, busy: 0.58, steal: 0.07, cores: 2, serverLocal: true, cpu: 100 * time.Millisecond, wall: 4 * time.Second,
				runQueue: cpuload.RunQueue{Wait: 450 * time.Millisecond, Runs: 4000, OK: true}}, true,
			[]string{"waited for a core, 0.113 ms", "the hypervisor also gave these cores to other machines for 7 % of their time (steal)"}, nil},
		{"the hypervisor's turns on a saturated machine",
			selfCheck{conns: transport.Stats{ReadDelay: bursts}, busy: 0.97, steal: 0.05, cores: 2}, true,
			[]string{"this machine's cores were saturated (97 % busy", "for 5 % of their time (steal)"}, nil},
		{"a little steal is not named",
			selfCheck{conns: transport.Stats{ReadDelay: bursts}, busy: 0.3, steal: 0.015, cores: 16}, true,
			[]string{"one after another"}, []string{"hypervisor"}},
		{"a throttled container",
			selfCheck{conns: transport.Stats{ReadDelay: bursts}, busy: 0.3, cores: 16, cpu: time.Second, wall: 4 * time.Second,
				runQueue: cpuload.RunQueue{Wait: 450 * time.Millisecond, Runs: 4000, OK: true},
				throttle: cpuload.Throttle{Periods: 50, Throttled: 40, Time: 180 * time.Millisecond, OK: true}}, true,
			[]string{"the CPU limit of this process's container (cgroup) held it back for 180 ms (summed over the cores) in 40 of its 50 periods (cpu.stat)",
				"raise or lift the client's CPU limit"}, []string{"waited for a core", "one after another"}},
		{"a little throttling is not named",
			selfCheck{conns: transport.Stats{ReadDelay: bursts}, busy: 0.3, cores: 16,
				throttle: cpuload.Throttle{Periods: 50, Throttled: 1, Time: 2 * time.Millisecond, OK: true}}, true,
			[]string{"one after another"}, []string{"CPU limit"}},
		{"the scheduler's latency in a throttled container",
			selfCheck{sched: 7 * time.Millisecond, busy: -1, throttle: cpuload.Throttle{Periods: 20, Throttled: 20, Time: 90 * time.Millisecond, OK: true}}, false,
			[]string{"goroutines waited p99 7.00 ms for a processor", "held it back for 90 ms (summed over the cores) in 20 of its 20 periods"}, []string{"could not be read"}},
		{"a pause",
			selfCheck{conns: transport.Stats{ReadDelay: delays(970, 30, 6*time.Millisecond, 90*time.Millisecond)}, busy: 0.3, cores: 16}, true,
			[]string{"arrive together", "looks like a pause of the process"}, nil},
		{"no read delay: the scheduler's latency",
			selfCheck{sched: 7 * time.Millisecond, busy: -1}, false,
			[]string{"goroutines waited p99 7.00 ms for a processor", "the machine's load could not be read"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := tt.check
			c.run, c.threshold, c.capped = load.Result{Lag: lag}, time.Millisecond, true
			g := checkGenerator(c)
			var short string
			for _, w := range g.Warnings {
				if strings.Contains(w, "late") || strings.Contains(w, "short of CPU") {
					short = w
				}
			}
			if short == "" || g.LateReads != tt.lateReads || g.Limited == tt.lateReads {
				t.Fatalf("limited %v, late reads %v, warnings %q", g.Limited, g.LateReads, g.Warnings)
			}
			for _, w := range tt.want {
				if !strings.Contains(short, w) {
					t.Errorf("warning %q lacks %q", short, w)
				}
			}
			not := append(tt.not, "timer")
			if c.steal == 0 {
				not = append(not, "hypervisor")
			}
			for _, w := range not {
				if strings.Contains(short, w) {
					t.Errorf("warning %q says %q", short, w)
				}
			}
			if rq := c.runQueue; rq.OK && (g.RunQueueWait != rq.Wait.Seconds() || g.RunQueueWaitMean != rq.Mean().Seconds()) {
				t.Errorf("run-queue wait %v s, mean %v s; want %v, %v", g.RunQueueWait, g.RunQueueWaitMean, rq.Wait, rq.Mean())
			}
			if th := c.throttle; g.CPUThrottled != th.Time.Seconds() || g.CPUThrottledPeriods != th.Throttled || g.CPUPeriods != th.Periods {
				t.Errorf("throttled %v s in %d of %d periods; want %+v", g.CPUThrottled, g.CPUThrottledPeriods, g.CPUPeriods, th)
			}
			line := g.Line()
			if tt.lateReads != strings.Contains(line, "kept up with the schedule, read late") {
				t.Errorf("summary line %q", line)
			}
			if stolen := fmt.Sprintf("%.0f %% busy in all, %.0f %% taken by the hypervisor)", 100*c.busy, 100*c.steal); (c.steal >= 0.01) != strings.Contains(line, stolen) {
				t.Errorf("summary line %q, steal %v", line, c.steal)
			}
		})
	}
}

// In an open loop without a cap no request waits on another's end and
// every latency is timed by the kernel's stamps, so reads as late as the
// ones above change nothing measured: no warning, and the summary line
// gives the delay without calling the reads late.
func TestCheckGeneratorLateReadsInAnUncappedOpenLoop(t *testing.T) {
	d := &transport.Delays{}
	for range 1000 {
		d.Add(3 * time.Millisecond)
	}
	g := checkGenerator(selfCheck{run: load.Result{Lag: lagsOf(100, 100*time.Microsecond)}, threshold: time.Millisecond,
		open: true, conns: transport.Stats{ReadDelay: d}, busy: 0.3, cores: 16})
	if g.LateReads || g.Limited || len(g.Warnings) != 0 {
		t.Fatalf("late reads %v, limited %v, warnings %q", g.LateReads, g.Limited, g.Warnings)
	}
	if g.ReadDelayP99 < 0.0029 {
		t.Fatalf("read delay p99 %v s, want the 3 ms measured", g.ReadDelayP99)
	}
	if line := g.Line(); !strings.HasPrefix(line, "Generator: kept up (") || !strings.Contains(line, "read delay p99 3.") {
		t.Fatalf("summary line %q", line)
	}
}

// Client and server on one saturated machine: neither side's timing can
// be trusted, whatever the generator's own lags say. The same load on a
// remote server, or a local one on a machine with room, says nothing.
func TestCheckGeneratorSharedSaturatedMachine(t *testing.T) {
	lag := lagsOf(100, 100*time.Microsecond)
	busy := []float64{0.99, 0.97, 0.98, 0.6}
	tests := []struct {
		name   string
		local  bool
		busy   float64
		warned bool
	}{
		{"local server, saturated", true, 0.88, true},    // 3 of 4 seconds ≥ 95 %
		{"remote server, saturated", false, 0.88, false}, // the server's timing is its own
		{"local server, room to spare", true, 0.4, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			samples := busy
			if tt.busy < 0.5 {
				samples = []float64{0.4, 0.45, 0.38}
			}
			g := checkGenerator(selfCheck{run: load.Result{Lag: lag}, threshold: time.Millisecond, busy: tt.busy,
				samples: samples, cores: 2, serverLocal: tt.local, cpu: time.Second, wall: 4 * time.Second, tokens: 100000})
			warned := len(g.Warnings) == 1 && strings.Contains(g.Warnings[0], "the server runs on this machine, whose 2 cores were saturated (88 % busy on average, 3 of 4 seconds at 95 % or more; this process 12 % of them)")
			if warned != tt.warned || (!tt.warned && len(g.Warnings) != 0) {
				t.Errorf("warnings %q, want the shared-machine warning: %v", g.Warnings, tt.warned)
			}
			if g.CPUPerToken != 1e-5 || g.MachineShare != 0.125 {
				t.Errorf("CPU per token %v, machine share %v; want 10 µs and 1/8", g.CPUPerToken, g.MachineShare)
			}
		})
	}
}

// A generator that lagged throughout gets advice that fits the cause:
// its own CPU use, the machine shared with its server (saturated, or
// small enough that the server's threads hold its cores in turns), or
// neither.
func TestCheckGeneratorAdvice(t *testing.T) {
	t.Setenv("GOMAXPROCS", "2")
	lag := lagsOf(100, 4*time.Millisecond)
	tests := []struct {
		name  string
		check selfCheck
		want  string
	}{
		{"the generator used the machine", selfCheck{cpu: 7200 * time.Millisecond, wall: 4 * time.Second, cores: 2, busy: 0.93},
			"the generator used 90 % of this machine's 2 cores: shard the load across machines"},
		{"shared with its server", selfCheck{cpu: 2 * time.Second, wall: 4 * time.Second, cores: 2, busy: 0.97, serverLocal: true},
			"client and server share this machine and saturated its 2 cores"},
		{"a small machine shared with its server, not saturated", selfCheck{cpu: 100 * time.Millisecond, wall: 4 * time.Second, cores: 2, busy: 0.57, serverLocal: true},
			"the server runs on this machine (57 % busy on average; this process 1 % of them), and on 2 cores a sender woken to send (a worker whose response ended, a request come due) waits for a core the server's threads hold: give client and server cores of their own (taskset -c)"},
		{"threads that waited for cores, by the kernel's account", selfCheck{cpu: 100 * time.Millisecond, wall: 4 * time.Second, cores: 16, busy: 0.4, serverLocal: true,
			runQueue: cpuload.RunQueue{Wait: 2 * time.Second, Runs: 10000, OK: true}},
			"this process's threads waited for a core, 0.200 ms on average each time the kernel gave them one (2000 ms in all, by the kernel's run-queue account): other processes' threads held the cores at those moments, the server's among them, on the same 16 cores; give client and server cores of their own (taskset -c)"},
		{"a throttled container", selfCheck{cpu: 100 * time.Millisecond, wall: 4 * time.Second, cores: 2, busy: 0.57, serverLocal: true,
			runQueue: cpuload.RunQueue{Wait: 2 * time.Second, Runs: 10000, OK: true}, throttle: cpuload.Throttle{Periods: 40, Throttled: 30, Time: 600 * time.Millisecond, OK: true}},
			"the CPU limit of this process's container (cgroup) held it back for 600 ms (summed over the cores) in 30 of its 40 periods (cpu.stat): a throttled process stops until the next period begins"},
		{"a large machine shared with its server", selfCheck{cpu: 100 * time.Millisecond, wall: 4 * time.Second, cores: 16, busy: 0.2, serverLocal: true},
			"use fewer streams per process or shard the load"},
		{"the built-in simulator in this process", selfCheck{cpu: 100 * time.Millisecond, wall: 4 * time.Second, cores: 2, busy: 0.3, serverLocal: true, serverInProcess: true},
			"use fewer streams per process or shard the load"},
		{"neither", selfCheck{cpu: time.Second, wall: 4 * time.Second, cores: 8, busy: 0.2},
			"use fewer streams per process or shard the load"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := tt.check
			c.run, c.threshold, c.open = load.Result{Lag: lag}, time.Millisecond, true
			g := checkGenerator(c)
			if !g.Limited || len(g.Warnings) == 0 || !strings.Contains(g.Warnings[0], tt.want) {
				t.Errorf("warnings %q, want advice %q", g.Warnings, tt.want)
			}
		})
	}
}

// The summary line says which transport carried the run and how its
// connections were opened: ahead, or cold, and how many were dialled when
// their request was due.
func TestGeneratorLineNamesTheConnections(t *testing.T) {
	tests := []struct {
		conns transport.Stats
		want  string
	}{
		{transport.Stats{Kind: transport.EventLoop, DialAhead: true, Warmed: 256, Ahead: 3},
			"transport eventloop, connections dialled ahead (256 before the start, 3 during the run), none dialled when due"},
		{transport.Stats{Kind: transport.NetHTTP, Late: 64, LateWait: 12 * time.Millisecond},
			"transport net/http, cold connections (--dial-ahead=false), 64 dialled when due (12.0 ms in all)"},
	}
	for _, tt := range tests {
		g := checkGenerator(selfCheck{run: load.Result{Lag: lagsOf(10, 0)}, threshold: time.Millisecond, conns: tt.conns})
		if line := g.Line(); !strings.Contains(line, tt.want) {
			t.Errorf("line %q lacks %q", line, tt.want)
		}
	}
}

// burstDoer sends one request at a time, each taking cost, as a client
// whose every send costs CPU does; its answers come much later.
type burstDoer struct {
	turn chan struct{} // a token: whoever holds it sends (a channel, which a synctest bubble can wait on)
	cost time.Duration
}

func (d *burstDoer) Do(_ context.Context, _ int64, rec *record.Record, now func() int64) {
	<-d.turn
	time.Sleep(d.cost)
	rec.Sent = now()
	d.turn <- struct{}{}
	time.Sleep(2 * time.Second)
	rec.End = now()
}

// A run that is one burst (vLLM's default: every request at once) is
// judged by the time the burst took, not by the pauses between its sends:
// two 5 ms pauses among 200 sends are the burst's 23.5 ms, not a generator
// that limited the run. Requests after a burst are judged by their own lag.
func TestARunThatIsOneBurstIsJudgedAsABurst(t *testing.T) {
	burst := lagsOf(200, 90*time.Microsecond)
	burst[60], burst[61], burst[140] = 5*time.Millisecond, 5*time.Millisecond, 2*time.Millisecond
	tests := []struct {
		name    string
		lag     []time.Duration
		limited bool
		warns   []string // each in one warning, in order
	}{
		{"all at once", burst, false,
			[]string{"the start-up burst of 200 requests due at once took 23.5 ms to send: the last of them waited that long in this client, and their TTFT includes it. It was the whole run: a finite --request-rate"}},
		{"a burst, then 1,000 on time", append(slices.Clone(burst), lagsOf(1000, 100*time.Microsecond)...), false,
			[]string{"took 23.5 ms to send: the last of them waited that long in this client, and their TTFT includes it. Later requests went out on time; to leave the burst out of the statistics, give --num-warmups 200."}},
		{"a burst, then 1,000 late", append(slices.Clone(burst), lagsOf(1000, 3*time.Millisecond)...), true,
			[]string{"(1000 of 1000 past the start-up burst more than 1.00 ms after they were due; p99 dispatch lag 3.00 ms, max 3.00 ms)",
				"took 23.5 ms to send: the last of them waited that long in this client, and their TTFT includes it. To leave the burst out of the statistics, give --num-warmups 200."}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			run := load.Result{Lag: tt.lag, StartLag: 5 * time.Millisecond, StartRequests: 16,
				Burst: load.Burst{Requests: 200, Drain: 23500 * time.Microsecond}}
			g := checkGenerator(selfCheck{run: run, threshold: time.Millisecond, open: true})
			if g.Limited != tt.limited || len(g.Warnings) != len(tt.warns) {
				t.Fatalf("limited %v, warnings %q; want limited %v and %d warnings", g.Limited, g.Warnings, tt.limited, len(tt.warns))
			}
			for k, w := range tt.warns {
				if !strings.Contains(g.Warnings[k], w) {
					t.Errorf("warning %d = %q, want it to say %q", k, g.Warnings[k], w)
				}
			}
		})
	}
}

// A 256-stream closed loop starts with a burst: every worker's first
// request due at once, sent one after the other. The self-check reports
// it as the start-up burst, with its size and the time it took, and does
// not call the run generator-limited: each first request's lag counts
// from the one sent before it.
func TestClosedLoopStartBurstIsABurst(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		d := &burstDoer{turn: make(chan struct{}, 1), cost: 40 * time.Microsecond}
		d.turn <- struct{}{}
		out := make(chan *record.Record, 1024)
		go func() {
			for range out {
			}
		}()
		res, err := load.Run(t.Context(), load.Plan{Concurrency: 256, Count: 512, FineWait: -1}, d, out)
		close(out)
		if err != nil {
			t.Fatal(err)
		}
		if res.Burst.Requests != 256 || res.Burst.Drain != 256*40*time.Microsecond {
			t.Fatalf("burst %+v, want 256 requests sent within %v", res.Burst, 256*40*time.Microsecond)
		}
		g := checkGenerator(selfCheck{run: res, threshold: time.Millisecond})
		if g.Limited || g.Burst == nil || g.Burst.Requests != 256 || g.Burst.DrainSeconds != 0.01024 || len(g.Warnings) != 1 ||
			!strings.Contains(g.Warnings[0], "the start-up burst of 256 requests due at once took 10.2 ms to send") {
			t.Errorf("limited %v, burst %+v, lag p99 %v, start lag %v, warnings %q", g.Limited, g.Burst, g.LagP99, g.StartLag, g.Warnings)
		}
	})
}
