package serverview

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/goodput-dev/goodput/promscrape"
)

// Level grades a Status, worst last.
type Level string

// Status levels.
const (
	LevelUnknown  Level = "unknown"  // no usable metrics: nothing can be said
	LevelOK       Level = "ok"       // idle or serving with nothing waiting
	LevelWarn     Level = "warn"     // at capacity, or about to preempt
	LevelCritical Level = "critical" // past the knee: the queue grows without bound
)

// Status is the server's state in one line of plain words, with its grade.
type Status struct {
	Level Level  `json:"level"`
	Text  string `json:"text"`
}

// String returns the text.
func (s Status) String() string { return s.Text }

// Signals are the readings Assess judges. A nil pointer means the server
// does not export that quantity or no scrape has seen it yet.
//
// A live view fills them from the latest scrape and the trailing window; a
// finished run from its measured window (see Compare), so Waiting may be a
// mean and need not be a whole number.
type Signals struct {
	// Err is why the latest scrape failed; empty when it succeeded.
	// ErrKind is its kind; DownSince when the run of failed scrapes it
	// ends began, and At when the latest scrape was. Seen says an earlier
	// scrape succeeded: a server seen before that stops answering is
	// unreachable, not unknown.
	Err       string
	ErrKind   promscrape.FailureKind
	DownSince time.Time
	At        time.Time
	Seen      bool
	// Engine is the engine the metrics came from; Unknown when no metric
	// carried a known prefix.
	Engine promscrape.Engine

	Running      *float64 // requests in the running batch
	Waiting      *float64 // requests queued and not yet scheduled
	KVCacheUsage *float64 // fraction of the KV cache in use, 0–1

	// PreemptionsPerSecond is the rate of preemptions over the window.
	PreemptionsPerSecond *float64

	// QueueFor is how long the queue has held at least one request
	// without emptying, and QueueRise how much the waiting count grew over
	// that time (the slope of a least-squares line through the scraped
	// counts, times QueueFor). Both are zero when the queue is empty or
	// too few scrapes saw it.
	QueueFor  time.Duration
	QueueRise float64

	// QueueShare is the share of the server's request latency spent
	// waiting to be scheduled, over the window (promscrape.Phase). It tells
	// a queue that holds requests for a step or two, as any busy server's
	// does, from one that makes them wait.
	QueueShare *float64

	// TTFTP99 is the server's TTFT p99 over the window, in seconds, and
	// TTFTP99Before the same over the window before it; the ratio says
	// whether time to first token is climbing with the queue.
	TTFTP99       *float64
	TTFTP99Before *float64
	// ClientTTFTP99 is the client's TTFT p99 over the window, seconds,
	// where there is a client (a finished run): it stands in for the
	// server's when the server has no TTFT histogram (llama.cpp).
	ClientTTFTP99 *float64
	// Bound is the most requests the client kept at the server at once (a
	// closed loop's concurrency, --max-concurrency), 0 when its load was
	// not bounded (an open loop) or unknown. A queue such a client fills
	// cannot grow past it: its rise is the load arriving, not a server
	// past its knee.
	Bound int
}

// Thresholds of Assess.
const (
	// KVHigh is the KV cache usage above which preemption is near: a few
	// long requests growing at once will not find a free block.
	KVHigh = 0.9
	// MinQueueRise is the least growth, in requests, that counts as a
	// growing queue; smaller changes are scheduling noise.
	MinQueueRise = 2.0
	// QueueRiseShare is the least growth, as a share of the requests
	// waiting now, that counts as a growing queue: a long queue that rose
	// by a few requests is steady, not growing.
	QueueRiseShare = 0.25
	// TTFTRise is the ratio of TTFT p99 now to before above which it is
	// said to have risen.
	TTFTRise = 1.5
	// QueueShareLow is the share of latency spent queued below which
	// waiting requests are only passing through: a request waits for the
	// next engine step, not for capacity.
	QueueShareLow = 0.1
	// QueueingRatio is how many times the running batch (at least one
	// request) must wait for the server to be queueing, not passing
	// requests through; SlowTTFT the TTFT p99 that confirms it.
	QueueingRatio = 2.0
	SlowTTFT      = time.Second
)

// Assess turns s into a status line. It is a pure function; the first rule
// that applies wins:
//
//  1. the latest scrape failed: unreachable since the first failure of the
//     run of failures it ends (critical, when an earlier scrape succeeded
//     and the failure is a refused connection or a timeout), else unknown,
//     with why; never the last good status;
//  2. no known engine metrics, or none of running, waiting and KV usage:
//     unknown;
//  3. the queue grew (by at least MinQueueRise and QueueRiseShare of what
//     waits now) over QueueFor, beyond what a client bounded to Bound
//     requests can hold there, and requests spend at least QueueShareLow
//     of their latency queued or are queueing (rule 6): arrivals outpace
//     the server, which is past its knee — critical, naming the TTFT p99
//     rise when there is one;
//  4. requests are being preempted: warn, KV cache exhausted;
//  5. KV cache usage at or above KVHigh: warn, preemptions likely;
//  6. queueing: at least QueueingRatio times the running batch waits, and
//     TTFT p99 (the server's, else the client's) is at least SlowTTFT or
//     unknown: warn, requests wait for a free slot. A short queue share
//     never excuses this: it is read from requests that finished, and
//     those that waited longest have not;
//  7. requests wait (at least half a request on average) and spend at
//     least QueueShareLow of their latency queued, or the server does not
//     say: warn, at capacity, with the queue called steady where enough
//     scrapes of it (QueueFor) showed no growth;
//  8. nothing running or waiting: ok, idle;
//  9. otherwise ok, healthy (saying so when requests wait only briefly).
func Assess(s Signals) Status {
	switch {
	case s.Err != "":
		return down(s)
	case s.Engine == promscrape.Unknown:
		return Status{LevelUnknown, "no known engine metrics (vllm:, sglang:, tgi_, llamacpp:) at this URL"}
	case s.Running == nil && s.Waiting == nil && s.KVCacheUsage == nil:
		return Status{LevelUnknown, "the server exports no running, waiting or KV cache metric"}
	}
	q := queueing(s)
	brief := s.QueueShare != nil && *s.QueueShare < QueueShareLow && !q // waiting only for the next step
	if growing(s) && !brief {
		rise := ""
		if s.TTFTP99 != nil && s.TTFTP99Before != nil && *s.TTFTP99Before > 0 {
			if r := *s.TTFTP99 / *s.TTFTP99Before; r >= TTFTRise {
				rise = fmt.Sprintf(" while TTFT p99 rose %s×", ratio(r))
			}
		}
		return Status{LevelCritical, fmt.Sprintf("queue has grown by %.0f over %s%s: past the knee — scale out",
			s.QueueRise, seconds(s.QueueFor), rise)}
	}
	kv := kvSuffix(s.KVCacheUsage, ", KV ", "")
	if p := value(s.PreemptionsPerSecond); p > 0 {
		return Status{LevelWarn, fmt.Sprintf("preempting %s requests/s%s: KV cache exhausted — lower max-num-seqs or add KV memory",
			rate(p), kvSuffix(s.KVCacheUsage, " with KV ", ""))}
	}
	if u := s.KVCacheUsage; u != nil && *u >= KVHigh {
		return Status{LevelWarn, fmt.Sprintf("KV cache above %s (%s): preemptions likely", percent(KVHigh), percent(*u))}
	}
	if q {
		slow := ""
		if t := ttftP99(s); t != nil {
			slow = fmt.Sprintf(", TTFT p99 %s", seconds(secondsDuration(*t)))
		}
		return Status{LevelWarn, fmt.Sprintf("queueing: %s waiting for %s running%s%s: requests wait for a free slot — at capacity",
			count(*s.Waiting), count(*s.Running), slow, kv)}
	}
	share := ""
	if s.QueueShare != nil {
		share = fmt.Sprintf(" (%s of latency queued)", percent(*s.QueueShare))
	}
	if waiting := value(s.Waiting); waiting >= 0.5 {
		if brief {
			return Status{LevelOK, fmt.Sprintf("healthy: %s waiting, briefly%s%s", count(waiting), share, kv)}
		}
		steady := ", queue steady"
		if s.QueueFor <= 0 {
			steady = "" // too few scrapes of a queue to see a trend in
		}
		return Status{LevelWarn, fmt.Sprintf("at capacity: %s waiting%s%s%s", count(waiting), steady, share, kv)}
	}
	if s.Running != nil && *s.Running < 0.5 && s.Waiting != nil {
		return Status{LevelOK, "idle: nothing running or waiting" + kv}
	}
	if s.Waiting == nil {
		if s.Running == nil {
			return Status{LevelOK, "serving (running and waiting not exported)" + kv}
		}
		return Status{LevelOK, fmt.Sprintf("serving: %s running (waiting not exported)%s", count(*s.Running), kv)}
	}
	return Status{LevelOK, "healthy: nothing waiting" + kv}
}

// down is the status of a server whose latest scrape failed (rule 1).
func down(s Signals) Status {
	gone := s.ErrKind == promscrape.FailDown || s.ErrKind == promscrape.FailTimeout
	if !gone || s.DownSince.IsZero() {
		return Status{LevelUnknown, "no metrics: " + s.Err}
	}
	level := LevelUnknown
	if s.Seen {
		level = LevelCritical
	}
	since := s.DownSince.Local().Format("15:04:05")
	if d := s.At.Sub(s.DownSince); d > 0 {
		since += " (" + seconds(d) + ")"
	}
	return Status{level, fmt.Sprintf("unreachable since %s: %s", since, s.Err)}
}

// queueing reports rule 6: many times the running batch waits, and TTFT
// does not say they pass quickly.
func queueing(s Signals) bool {
	if s.Running == nil || s.Waiting == nil {
		return false
	}
	w := *s.Waiting
	if w < 1 || w < QueueingRatio*max(*s.Running, 1) {
		return false
	}
	t := ttftP99(s)
	return t == nil || *t >= SlowTTFT.Seconds()
}

// ttftP99 is the server's TTFT p99, else the client's, else nil.
func ttftP99(s Signals) *float64 {
	if s.TTFTP99 != nil {
		return s.TTFTP99
	}
	return s.ClientTTFTP99
}

// growing reports whether s says the queue grew, by the thresholds above.
func growing(s Signals) bool {
	if s.QueueFor <= 0 || s.Waiting == nil {
		return false
	}
	if s.Bound > 0 && *s.Waiting+value(s.Running) <= float64(s.Bound) {
		// All the server holds is the client's bounded load: filling
		// up to it is not growing without bound.
		return false
	}
	return s.QueueRise >= MinQueueRise && s.QueueRise >= QueueRiseShare**s.Waiting
}

func value(p *float64) float64 {
	if p == nil || math.IsNaN(*p) {
		return 0
	}
	return *p
}

// kvSuffix renders the KV usage after prefix, or alt when it is unknown.
func kvSuffix(kv *float64, prefix, alt string) string {
	if kv == nil {
		return alt
	}
	return prefix + percent(*kv)
}

// percent renders a fraction as a whole percentage, "42 %".
func percent(f float64) string { return fmt.Sprintf("%.0f %%", 100*f) }

// count renders a number of requests: whole when it is one, else to a tenth
// (a mean over a run).
func count(v float64) string {
	if v == math.Trunc(v) {
		return fmt.Sprintf("%.0f", v)
	}
	return fmt.Sprintf("%.1f", v)
}

// ratio renders a growth factor: "3", "2.5".
func ratio(r float64) string {
	s := fmt.Sprintf("%.1f", r)
	return strings.TrimSuffix(s, ".0")
}

// rate renders a per-second rate: whole from ten up, to a hundredth from a
// hundredth up, and to two significant digits below (a few preemptions over
// a long run must not print as zero).
func rate(v float64) string {
	switch {
	case v >= 10:
		return fmt.Sprintf("%.0f", v)
	case v >= 0.01:
		return fmt.Sprintf("%.2f", v)
	}
	return fmt.Sprintf("%.2g", v)
}

// seconds renders a duration the way a person says it: "30 s", "4.5 s".
func seconds(d time.Duration) string {
	s := d.Seconds()
	if s >= 10 {
		return fmt.Sprintf("%.0f s", s)
	}
	return strings.TrimSuffix(fmt.Sprintf("%.1f", s), ".0") + " s"
}
