package sim

import (
	"slices"
	"sync"
	"time"
)

// StepTiming says how precisely the wall-clock loop kept its schedule: for
// each step, the lateness is the time at which the step's tokens had all
// been handed to their HTTP streams minus the step's intended end (previous
// end + modelled step time). Negative lateness cannot happen: the loop never
// emits early.
type StepTiming struct {
	Steps   int64         // steps since Start
	Samples int           // steps the quantiles cover: the most recent, at most lagWindow
	P50     time.Duration // median lateness
	P99     time.Duration // 99th percentile lateness (nearest rank)
	Max     time.Duration // largest lateness among the samples
}

// lagWindow is how many recent steps StepTiming summarizes.
const lagWindow = 1 << 16

// lagRecorder keeps the lateness of recent steps.
type lagRecorder struct {
	mu    sync.Mutex // guards the fields below
	ring  []time.Duration
	next  int
	steps int64
}

func (l *lagRecorder) add(late time.Duration) {
	l.mu.Lock()
	if len(l.ring) < lagWindow {
		l.ring = append(l.ring, late)
	} else {
		l.ring[l.next] = late
		l.next = (l.next + 1) % lagWindow
	}
	l.steps++
	l.mu.Unlock()
}

func (l *lagRecorder) summary() StepTiming {
	l.mu.Lock()
	sorted := slices.Clone(l.ring)
	t := StepTiming{Steps: l.steps, Samples: len(l.ring)}
	l.mu.Unlock()
	if len(sorted) == 0 {
		return t
	}
	slices.Sort(sorted)
	rank := func(p float64) time.Duration {
		return sorted[int(p*float64(len(sorted)-1)+0.5)]
	}
	t.P50, t.P99, t.Max = rank(0.50), rank(0.99), sorted[len(sorted)-1]
	return t
}
