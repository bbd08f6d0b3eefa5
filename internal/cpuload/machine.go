package cpuload

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"sync"
	"time"
)

// Machine is a reading of the machine's CPU counters: the time all its
// cores spent busy and in all, in the kernel's ticks, and of the busy
// time how much the hypervisor gave to other machines (Steal).
type Machine struct {
	Busy, Total, Steal uint64
	Cores              int
}

// statPath is the kernel's CPU counters; tests point it elsewhere.
var statPath = "/proc/stat"

// ErrNoStat is ReadMachine's error where the machine's counters cannot be
// read (no /proc/stat: not Linux).
var ErrNoStat = errors.New("the machine's CPU counters are not readable here (no /proc/stat)")

// ReadMachine reads the machine's CPU counters from /proc/stat.
func ReadMachine() (Machine, error) {
	b, err := os.ReadFile(statPath)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return Machine{}, ErrNoStat
		}
		return Machine{}, err
	}
	return parseStat(b)
}

// parseStat reads the aggregate "cpu" line of /proc/stat (user nice system
// idle iowait irq softirq steal guest guest_nice, in ticks) and counts the
// "cpuN" lines. Idle and iowait are idle; guest time is already in user,
// so it is not counted twice; steal is time the hypervisor gave another
// machine, which this one's processes could not use: busy, as far as
// they are concerned.
func parseStat(b []byte) (Machine, error) {
	var m Machine
	found := false
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		f := bytes.Fields(sc.Bytes())
		if len(f) == 0 || !bytes.HasPrefix(f[0], []byte("cpu")) {
			continue
		}
		if len(f[0]) > 3 {
			m.Cores++
			continue
		}
		if len(f) < 5 {
			return Machine{}, fmt.Errorf("%s: cpu line with %d fields", statPath, len(f))
		}
		var v [8]uint64
		for i := range v {
			if i+1 >= len(f) {
				break
			}
			n, err := strconv.ParseUint(string(f[i+1]), 10, 64)
			if err != nil {
				return Machine{}, fmt.Errorf("%s: cpu line field %d: %w", statPath, i+1, err)
			}
			v[i] = n
		}
		idle := v[3] + v[4]
		for _, x := range v {
			m.Total += x
		}
		m.Busy = m.Total - idle
		m.Steal = v[7]
		found = true
	}
	if err := sc.Err(); err != nil {
		return Machine{}, err
	}
	if !found {
		return Machine{}, fmt.Errorf("%s: no cpu line", statPath)
	}
	return m, nil
}

// BusyShare returns the share of the machine's core time spent busy from
// a to b, 0 to 1; 0 when no tick passed.
func BusyShare(a, b Machine) float64 { return share(a, b, a.Busy, b.Busy) }

// StealShare returns the share of the machine's core time from a to b
// that the hypervisor gave to other machines, 0 to 1; 0 when no tick
// passed. A stolen core stops whatever ran on it, for as long as the
// hypervisor's turn lasts (milliseconds).
func StealShare(a, b Machine) float64 { return share(a, b, a.Steal, b.Steal) }

// share returns what counter x gained from reading a to reading b over
// the ticks that passed, at most 1; 0 when no tick passed or a counter
// went back (a new boot).
func share(a, b Machine, xa, xb uint64) float64 {
	if b.Total <= a.Total || xb < xa {
		return 0
	}
	return min(float64(xb-xa)/float64(b.Total-a.Total), 1)
}

// gain returns what a counter gained from a reading a to a later one b:
// never below zero, since a counter that went back (a thread that ended
// took its counts with it) gained nothing.
func gain[T ~uint64 | ~int64](a, b T) T {
	if b > a {
		return b - a
	}
	return 0
}

// Watch samples the machine once every period until Stop: each sample is
// the busy share of the period before it. Its cost is one read of
// /proc/stat per period.
type Watch struct {
	stop context.CancelFunc
	done chan struct{}

	mu      sync.Mutex // guards samples
	samples []float64
}

// StartWatch begins sampling; it returns nil where the machine's counters
// cannot be read.
func StartWatch(period time.Duration) *Watch {
	first, err := ReadMachine()
	if err != nil {
		return nil
	}
	ctx, stop := context.WithCancel(context.Background())
	w := &Watch{stop: stop, done: make(chan struct{})}
	go func() {
		defer close(w.done)
		t := time.NewTicker(period)
		defer t.Stop()
		prev := first
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
			m, err := ReadMachine()
			if err != nil {
				continue
			}
			w.mu.Lock()
			w.samples = append(w.samples, BusyShare(prev, m))
			w.mu.Unlock()
			prev = m
		}
	}()
	return w
}

// Stop ends the sampling and returns the samples, one per period.
func (w *Watch) Stop() []float64 {
	if w == nil {
		return nil
	}
	w.stop()
	<-w.done
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.samples
}
