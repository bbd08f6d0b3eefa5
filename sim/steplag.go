package sim

import (
	"slices"
	"sync"
	"time"
)

// StepTiming says how precisely the wall-clock loop kept its schedule.
//
// A step's lateness, its step-time error, is the time at which its tokens
// had all been published minus its intended end (previous end + modelled
// step time): from that moment every stream that looks sees them. The
// hand-off lateness runs on to the moment the loop had also woken every
// stream waiting for them, a cost that grows with the number of streams
// (about 0.4 µs per stream on a small VM) and that the next step does not inherit,
// since steps follow absolute deadlines. Neither includes writing to the
// network, which each stream's own goroutine does afterwards. Negative
// lateness cannot happen: the loop never emits early.
type StepTiming struct {
	Steps      int64         // steps since Start or the last ResetStepTiming
	Samples    int           // steps the quantiles cover: the most recent, at most lagWindow
	P50        time.Duration // median step lateness
	P99        time.Duration // 99th percentile step lateness (nearest rank)
	Max        time.Duration // largest step lateness among the samples
	HandOffP50 time.Duration // median hand-off lateness
	HandOffP99 time.Duration // 99th percentile hand-off lateness
	HandOffMax time.Duration // largest hand-off lateness among the samples
}

// lagWindow is how many recent steps StepTiming summarizes.
const lagWindow = 1 << 16

// lagRecorder keeps the lateness of recent steps.
type lagRecorder struct {
	mu    sync.Mutex      // guards the fields below
	late  []time.Duration // step lateness
	hand  []time.Duration // hand-off lateness, same ring positions as late
	next  int
	steps int64
}

// add records one step: late and hand are how long after its intended end
// the loop had published its tokens and woken their streams.
func (l *lagRecorder) add(late, hand time.Duration) {
	l.mu.Lock()
	if len(l.late) < lagWindow {
		l.late = append(l.late, late)
		l.hand = append(l.hand, hand)
	} else {
		l.late[l.next], l.hand[l.next] = late, hand
		l.next = (l.next + 1) % lagWindow
	}
	l.steps++
	l.mu.Unlock()
}

func (l *lagRecorder) reset() {
	l.mu.Lock()
	l.late, l.hand, l.next, l.steps = l.late[:0], l.hand[:0], 0, 0
	l.mu.Unlock()
}

func (l *lagRecorder) summary() StepTiming {
	l.mu.Lock()
	late, hand := slices.Clone(l.late), slices.Clone(l.hand)
	t := StepTiming{Steps: l.steps, Samples: len(l.late)}
	l.mu.Unlock()
	if len(late) == 0 {
		return t
	}
	slices.Sort(late)
	slices.Sort(hand)
	rank := func(sorted []time.Duration, p float64) time.Duration {
		return sorted[int(p*float64(len(sorted)-1)+0.5)]
	}
	t.P50, t.P99, t.Max = rank(late, 0.50), rank(late, 0.99), late[len(late)-1]
	t.HandOffP50, t.HandOffP99, t.HandOffMax = rank(hand, 0.50), rank(hand, 0.99), hand[len(hand)-1]
	return t
}
