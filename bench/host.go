package bench

import (
	"context"
	"net"
	"net/url"
	"runtime"
	"time"

	"github.com/goodput-dev/goodput/internal/cpuload"
)

// hostReading is what the process and the machine did during a run,
// from counters read at its start and end (and the machine once a
// second): nothing is spent on it while the run waits.
type hostReading struct {
	cpu0    time.Duration
	m0      cpuload.Machine
	m0err   error
	sched0  cpuload.Sched
	rq0     cpuload.RunQueue
	thr0    cpuload.Throttle
	start   time.Time
	watch   *cpuload.Watch
	cpu     time.Duration // the process's CPU time during the run
	wall    time.Duration
	cores   int
	busy    float64   // the machine's busy share, -1 unknown
	steal   float64   // the hypervisor's share of the machine's time
	samples []float64 // busy share per second
	sched   time.Duration
	// runQueue is how long the process's threads waited for a core, by
	// the kernel's account.
	runQueue cpuload.RunQueue
	// throttle is how the CPU limit of the process's cgroup held it back.
	throttle cpuload.Throttle
}

// readHost takes the readings of a run's start.
func readHost() *hostReading {
	h := &hostReading{start: time.Now(), cpu0: cpuload.Self(), sched0: cpuload.ReadSched(), rq0: cpuload.ReadRunQueue(), thr0: cpuload.ReadThrottle()}
	h.m0, h.m0err = cpuload.ReadMachine()
	h.watch = cpuload.StartWatch(time.Second)
	return h
}

// end takes the readings of the run's end.
func (h *hostReading) end() {
	h.wall = time.Since(h.start)
	h.cpu = cpuload.Self() - h.cpu0
	h.samples = h.watch.Stop()
	h.sched, _ = cpuload.SchedQuantile(h.sched0, cpuload.ReadSched(), 0.99)
	h.runQueue = cpuload.ReadRunQueue().Since(h.rq0)
	h.throttle = cpuload.ReadThrottle().Since(h.thr0)
	h.busy = -1
	h.cores = runtime.NumCPU()
	if m1, err := cpuload.ReadMachine(); err == nil && h.m0err == nil {
		h.busy = cpuload.BusyShare(h.m0, m1)
		h.steal = cpuload.StealShare(h.m0, m1)
		if m1.Cores > 0 {
			h.cores = m1.Cores
		}
	}
}

// serverLocal reports whether baseURL's host is this machine: a loopback
// address, or one of this machine's own.
func serverLocal(baseURL string) bool {
	u, err := url.Parse(baseURL)
	if err != nil {
		return false
	}
	host := u.Hostname()
	if host == "localhost" {
		return true
	}
	var ips []net.IP
	if ip := net.ParseIP(host); ip != nil {
		ips = []net.IP{ip}
	} else {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		addrs, err := net.DefaultResolver.LookupIPAddr(ctx, host)
		if err != nil {
			return false
		}
		for _, a := range addrs {
			ips = append(ips, a.IP)
		}
	}
	own, _ := net.InterfaceAddrs()
	for _, ip := range ips {
		if ip.IsLoopback() || ip.IsUnspecified() {
			return true
		}
		for _, a := range own {
			if n, ok := a.(*net.IPNet); ok && n.IP.Equal(ip) {
				return true
			}
		}
	}
	return false
}
