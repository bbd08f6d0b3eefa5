package bench

// The causes the self-check gives for a generator that lagged or read
// late, from what the machine, the kernel and the process's cgroup show,
// each with what to do about it.

import (
	"fmt"
	"os"
	"runtime"
	"time"
)

// saturated reports whether the machine's cores were saturated for a
// good part of the run: a quarter of its seconds at 95 % or more, or 90 %
// on average.
func (g *Generator) saturated() bool {
	if g.MachineBusy < 0 {
		return false
	}
	return g.MachineBusy >= 0.9 || (g.Samples > 0 && 4*g.SaturatedSeconds >= g.Samples)
}

// busyText says how busy the machine was.
func (g *Generator) busyText() string {
	s := fmt.Sprintf("%.0f %% busy on average", 100*g.MachineBusy)
	if g.Samples > 0 {
		s += fmt.Sprintf(", %d of %d seconds at %.0f %% or more", g.SaturatedSeconds, g.Samples, 100*saturated)
	}
	return s + fmt.Sprintf("; this process %.0f %% of them", 100*g.MachineShare)
}

// ownsMachine reports whether the generator itself used most of the
// machine: 80 % of all its cores' time, or of one core's where the work
// cannot spread.
func (g *Generator) ownsMachine() bool {
	return g.MachineShare >= 0.8
}

// advice says what to do about a generator that lagged throughout, from
// what the machine shows.
func (g *Generator) advice() string {
	switch {
	case g.throttled():
		return g.throttleCause() + g.stealText()
	case g.ServerLocal && g.saturated():
		return fmt.Sprintf("client and server share this machine and saturated its %d cores (%s): run the client on another machine", g.Cores, g.busyText())
	case g.ownsMachine():
		return fmt.Sprintf("the generator used %.0f %% of this machine's %d cores: shard the load across machines (--shard/--shards)%s", 100*g.MachineShare, g.Cores, procsHint())
	case g.saturated():
		return fmt.Sprintf("this machine's cores were busy with other work (%s): run on a quieter machine", g.busyText())
	case g.waitedForCores():
		return g.coreWait() + g.stealText()
	case g.ServerLocal && !g.ServerInProcess && g.Cores > 0 && g.Cores <= smallMachine:
		// A sender woken to send waits for a core, and on a small machine
		// the server's threads hold them in turns, though the average load
		// leaves room (BENCHMARKS.md, "Client and server on two cores":
		// pinning each to cores of its own cut the lag by more than half).
		return fmt.Sprintf("the server runs on this machine (%s), and on %d cores a sender woken to send (a worker whose response ended, a request come due) waits for a core the server's threads hold: give client and server cores of their own (taskset -c), or run the client on another machine", g.busyText(), g.Cores)
	}
	return "use fewer streams per process or shard the load (--shard/--shards)" + procsHint()
}

// smallMachine is the most cores on which the generator's advice counts a
// server on the same machine as competing with the client for cores while
// the machine is not saturated.
const smallMachine = 4

// cpuCause says what the machine shows about a process short of CPU.
func (g *Generator) cpuCause() string {
	var why string
	switch {
	case g.throttled():
		why = g.throttleCause()
	case g.MachineBusy < 0:
		return "the machine's load could not be read" // nor then its steal
	case g.ServerLocal && g.saturated():
		why = fmt.Sprintf("the server shares this machine, and its cores were saturated (%s)", g.busyText())
	case g.saturated():
		why = fmt.Sprintf("this machine's cores were saturated (%s)", g.busyText())
	default:
		why = fmt.Sprintf("the machine was not saturated (%s): look for pauses (garbage collection, a throttled container)", g.busyText())
	}
	return why + g.stealText()
}

// stealNotable is the share of the cores' time taken by the hypervisor
// from which the self-check names it as a cause of waits.
const stealNotable = 0.02

// stealText names the hypervisor's turns as a cause when they took a
// notable share of the cores' time; "" otherwise.
func (g *Generator) stealText() string {
	if g.MachineSteal < stealNotable {
		return ""
	}
	return fmt.Sprintf("; the hypervisor also gave these cores to other machines for %.0f %% of their time (steal), and each of its turns stops whatever ran on a core for milliseconds, which nothing in the client shortens", 100*g.MachineSteal)
}

// readCause says why bytes waited before they were read, from the
// machine's load, what shares it and the kernel's account of this
// process's waits for a core.
func (g *Generator) readCause() string {
	if g.saturated() || g.throttled() {
		return g.cpuCause()
	}
	var why string
	if g.waitedForCores() {
		why = g.coreWait()
	} else {
		why = "the late reads come when many streams' tokens arrive together (a server decodes its whole batch in one step) and this process reads them one after another"
		switch {
		case g.ServerInProcess:
			why += ", while the built-in simulator, in this very process, writes the same batch on the same Go processors"
		case g.ServerLocal:
			why += fmt.Sprintf(", while the server writes the same batch on the same %d cores", g.Cores)
		}
		why += "; more cores for the client shorten the wait (GOMAXPROCS, a machine of its own, or fewer streams per process with --shard/--shards)"
	}
	if g.MachineBusy >= 0 {
		why = fmt.Sprintf("the machine was not saturated (%s): %s", g.busyText(), why)
	}
	if g.ReadDelayMax > max(10*g.ReadDelayP99, 0.02) {
		why += fmt.Sprintf("; the longest wait (%.1f ms) looks like a pause of the process (garbage collection, a throttled container)", 1e3*g.ReadDelayMax)
	}
	return why + g.stealText()
}

// coreWait says how long this process's threads waited for cores that
// other processes held, and what to do about it.
func (g *Generator) coreWait() string {
	why := fmt.Sprintf("this process's threads waited for a core, %.3f ms on average each time the kernel gave them one (%.0f ms in all, by the kernel's run-queue account): other processes' threads held the cores at those moments",
		1e3*g.RunQueueWaitMean, 1e3*g.RunQueueWait)
	if g.ServerLocal {
		return why + fmt.Sprintf(", the server's among them, on the same %d cores; give client and server cores of their own (taskset -c), or run the client on another machine", g.Cores)
	}
	return why + "; give the client cores of its own (taskset -c), or run it on a quieter machine"
}

// runQueueNotable is the mean wait for a core, each time the kernel gives
// the process's threads one, from which their wake-ups count as delayed
// by other processes: a woken thread that finds a core free runs within
// microseconds.
const runQueueNotable = 50 * time.Microsecond

// waitedForCores reports whether the kernel's account shows this
// process's threads waiting for cores that other processes held: a
// notable mean wait in a process that used under half the machine (one
// that used more may have waited for its own threads) and runs no server
// of its own (the built-in simulator's threads are this process's).
func (g *Generator) waitedForCores() bool {
	return g.RunQueueWaitMean >= runQueueNotable.Seconds() && g.MachineShare < 0.5 && !g.ServerInProcess &&
		!g.throttled() // a throttled thread waits too
}

// throttleNotable is how long a CPU limit must have held the process back,
// in all, for the self-check to name it.
const throttleNotable = 5 * time.Millisecond

// throttled reports whether the CPU limit of the process's cgroup held it
// back notably.
func (g *Generator) throttled() bool { return g.CPUThrottled >= throttleNotable.Seconds() }

// throttleCause says how the CPU limit of the process's cgroup held it
// back, and what to do; for a throttled process.
func (g *Generator) throttleCause() string {
	return fmt.Sprintf("the CPU limit of this process's container (cgroup) held it back for %.0f ms (summed over the cores) in %d of its %d periods (cpu.stat): a throttled process stops until the next period begins, for milliseconds, whatever the cores are doing; raise or lift the client's CPU limit",
		1e3*g.CPUThrottled, g.CPUThrottledPeriods, g.CPUPeriods)
}

// procsHint suggests more Go processors than cores when the process runs
// with fewer than 8 and GOMAXPROCS was not chosen: on a small machine a
// client that spends its time in read syscalls keeps up better so
// (BENCHMARKS.md, "Load generator timing precision").
func procsHint() string {
	if n := runtime.GOMAXPROCS(0); n < 8 && os.Getenv("GOMAXPROCS") == "" {
		return fmt.Sprintf("; with %d Go processors, GOMAXPROCS=8 may also help", n)
	}
	return ""
}
