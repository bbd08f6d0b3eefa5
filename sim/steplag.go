package sim

import (
	"slices"
	"sync"
	"time"
)

// StepTiming says how precisely the wall-clock loop kept its schedule: for
// each step, the lateness is the time at which the step's tokens had all
// been handed to their HTTP streams minus the step's intended end (previous
// end + modelled step time). The wake-up lateness is the part of it spent
// before the hand-off began: the sleep's own error. Negative lateness cannot
// happen: the loop never emits early.
type StepTiming struct {
	Steps   int64         // steps since Start or the last ResetStepTiming
	Samples int           // steps the quantiles cover: the most recent, at most lagWindow
	P50     time.Duration // median lateness
	P99     time.Duration // 99th percentile lateness (nearest rank)
	Max     time.Duration // largest lateness among the samples
	WakeP50 time.Duration // median wake-up lateness
	WakeP99 time.Duration // 99th percentile wake-up lateness
}

// lagWindow is how many recent steps StepTiming summarizes.
const lagWindow = 1 << 16

// lagRecorder keeps the lateness of recent steps.
type lagRecorder struct {
	mu    sync.Mutex // guards the fields below
	late  []time.Duration
	woke  []time.Duration // same ring positions as late
	next  int
	steps int64
}

// add records one step: woke and late are how long after its intended end
// the loop woke up and finished the hand-off.
func (l *lagRecorder) add(woke, late time.Duration) {
	l.mu.Lock()
	if len(l.late) < lagWindow {
		l.late = append(l.late, late)
		l.woke = append(l.woke, woke)
	} else {
		l.late[l.next], l.woke[l.next] = late, woke
		l.next = (l.next + 1) % lagWindow
	}
	l.steps++
	l.mu.Unlock()
}

func (l *lagRecorder) reset() {
	l.mu.Lock()
	l.late, l.woke, l.next, l.steps = l.late[:0], l.woke[:0], 0, 0
	l.mu.Unlock()
}

func (l *lagRecorder) summary() StepTiming {
	l.mu.Lock()
	late, woke := slices.Clone(l.late), slices.Clone(l.woke)
	t := StepTiming{Steps: l.steps, Samples: len(l.late)}
	l.mu.Unlock()
	if len(late) == 0 {
		return t
	}
	slices.Sort(late)
	slices.Sort(woke)
	rank := func(sorted []time.Duration, p float64) time.Duration {
		return sorted[int(p*float64(len(sorted)-1)+0.5)]
	}
	t.P50, t.P99, t.Max = rank(late, 0.50), rank(late, 0.99), late[len(late)-1]
	t.WakeP50, t.WakeP99 = rank(woke, 0.50), rank(woke, 0.99)
	return t
}
