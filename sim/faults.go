package sim

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Faults are misbehaviours the simulated server injects into its HTTP
// responses, so that clients can be tested against them. Every decision is
// drawn from a generator seeded by Options.Seed, in arrival order, so a run
// with the same seed and the same arrival order sees the same faults. The
// zero value injects nothing.
type Faults struct {
	ErrorRate float64 // fraction of requests answered 500 at once

	// Overload, when positive, bounds the waiting queue: a request that
	// arrives while Overload requests already wait is answered
	// OverloadStatus (429 unless set to 503).
	Overload       int
	OverloadStatus int

	DisconnectRate float64 // fraction of streams whose connection drops mid-stream
	MalformedRate  float64 // fraction of streams with one malformed chunk

	Stall     time.Duration // how long a stalled stream stops sending
	StallRate float64       // fraction of streams that stall once

	SlowFirstByte     time.Duration // delay before the response's first byte
	SlowFirstByteRate float64       // fraction of requests delayed (1 when given without @rate)
}

// FaultKeys lists the keys ParseFault accepts, for help texts.
const FaultKeys = "error-rate=P, overload=N, overload-status=429|503, disconnect-rate=P, " +
	"malformed-rate=P, stall=DURATION@P, slow-first-byte=DURATION[@P]"

// ParseFault applies one fault specification "key=value" (a --fault flag)
// to f. Rates are fractions in [0, 1]; durations use Go's syntax ("2s",
// "500ms").
func (f *Faults) ParseFault(spec string) error {
	key, val, ok := strings.Cut(strings.TrimSpace(spec), "=")
	if !ok || key == "" || val == "" {
		return fmt.Errorf("fault %q: want key=value with key one of: %s", spec, FaultKeys)
	}
	wrap := func(err error) error { return fmt.Errorf("fault %q: %w", spec, err) }
	var err error
	switch key {
	case "error-rate":
		f.ErrorRate, err = parseRate(val)
	case "disconnect-rate":
		f.DisconnectRate, err = parseRate(val)
	case "malformed-rate":
		f.MalformedRate, err = parseRate(val)
	case "overload":
		var n int
		n, err = strconv.Atoi(val)
		if err == nil && n < 1 {
			err = fmt.Errorf("queue bound %d: must be at least 1", n)
		}
		f.Overload = n
	case "overload-status":
		var n int
		n, err = strconv.Atoi(val)
		if err == nil && n != http.StatusTooManyRequests && n != http.StatusServiceUnavailable {
			err = fmt.Errorf("status %d: must be 429 or 503", n)
		}
		f.OverloadStatus = n
	case "stall":
		d, rate, hasRate, perr := parseDurationRate(val)
		if perr == nil && !hasRate {
			perr = errors.New("want DURATION@RATE, e.g. 2s@0.01")
		}
		f.Stall, f.StallRate, err = d, rate, perr
	case "slow-first-byte":
		d, rate, hasRate, perr := parseDurationRate(val)
		if !hasRate {
			rate = 1
		}
		f.SlowFirstByte, f.SlowFirstByteRate, err = d, rate, perr
	default:
		return fmt.Errorf("fault %q: unknown key %q (known: %s)", spec, key, FaultKeys)
	}
	if err != nil {
		return wrap(err)
	}
	return nil
}

func parseRate(s string) (float64, error) {
	p, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, fmt.Errorf("rate %q: %w", s, err)
	}
	if !(p >= 0 && p <= 1) {
		return 0, fmt.Errorf("rate %v: must be in [0, 1]", p)
	}
	return p, nil
}

func parseDurationRate(s string) (time.Duration, float64, bool, error) {
	ds, rs, hasRate := strings.Cut(s, "@")
	d, err := time.ParseDuration(ds)
	if err != nil {
		return 0, 0, false, fmt.Errorf("duration %q: %w", ds, err)
	}
	if d < 0 {
		return 0, 0, false, fmt.Errorf("duration %v: must not be negative", d)
	}
	if !hasRate {
		return d, 0, false, nil
	}
	p, err := parseRate(rs)
	return d, p, true, err
}

// validate checks Faults built in code rather than parsed.
func (f Faults) validate() error {
	for _, r := range []struct {
		name string
		v    float64
	}{
		{"error-rate", f.ErrorRate}, {"disconnect-rate", f.DisconnectRate},
		{"malformed-rate", f.MalformedRate}, {"stall rate", f.StallRate},
		{"slow-first-byte rate", f.SlowFirstByteRate},
	} {
		if !(r.v >= 0 && r.v <= 1) {
			return fmt.Errorf("fault %s %v: must be in [0, 1]", r.name, r.v)
		}
	}
	switch {
	case f.Overload < 0:
		return fmt.Errorf("fault overload %d: must not be negative", f.Overload)
	case f.OverloadStatus != 0 && f.OverloadStatus != http.StatusTooManyRequests && f.OverloadStatus != http.StatusServiceUnavailable:
		return fmt.Errorf("fault overload-status %d: must be 429 or 503", f.OverloadStatus)
	case f.Stall < 0 || f.SlowFirstByte < 0:
		return errors.New("fault durations must not be negative")
	}
	return nil
}

// String renders f as the --fault flags that would produce it.
func (f Faults) String() string {
	var out []string
	add := func(format string, args ...any) { out = append(out, fmt.Sprintf(format, args...)) }
	if f.ErrorRate > 0 {
		add("error-rate=%v", f.ErrorRate)
	}
	if f.Overload > 0 {
		add("overload=%d", f.Overload)
		if f.OverloadStatus != 0 {
			add("overload-status=%d", f.OverloadStatus)
		}
	}
	if f.DisconnectRate > 0 {
		add("disconnect-rate=%v", f.DisconnectRate)
	}
	if f.MalformedRate > 0 {
		add("malformed-rate=%v", f.MalformedRate)
	}
	if f.StallRate > 0 && f.Stall > 0 {
		add("stall=%v@%v", f.Stall, f.StallRate)
	}
	if f.SlowFirstByteRate > 0 && f.SlowFirstByte > 0 {
		add("slow-first-byte=%v@%v", f.SlowFirstByte, f.SlowFirstByteRate)
	}
	if len(out) == 0 {
		return "none"
	}
	return strings.Join(out, " ")
}

// faultPlan is what happens to one request. Stream positions count content
// chunks from 1; a position beyond the end of the stream applies to its last
// content chunk, so a chosen fault always happens.
type faultPlan struct {
	fail         bool          // answer 500 at once
	firstByte    time.Duration // delay before the first byte
	disconnectAt int           // drop the connection instead of sending this chunk; 0 = never
	malformedAt  int           // send this chunk malformed; 0 = never
	stallAt      int           // stall before this chunk; 0 = never
	stall        time.Duration //
}

// faultDice draws fault plans.
type faultDice struct {
	f   Faults
	mu  sync.Mutex // guards rng
	rng *rand.Rand
}

func newFaultDice(f Faults, seed uint64) *faultDice {
	return &faultDice{f: f, rng: rand.New(rand.NewPCG(seed, 0xfa17))}
}

// maxFaultPosition bounds the chunk at which a stream fault strikes, so that
// faults land early in long streams, where tests and users see them quickly.
const maxFaultPosition = 8

// plan draws the faults of the next request. maxTokens bounds positions.
func (d *faultDice) plan(maxTokens int) faultPlan {
	f := d.f
	var p faultPlan
	if f == (Faults{}) {
		return p
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	hit := func(rate float64) bool { return rate > 0 && d.rng.Float64() < rate }
	pos := func() int { return 1 + d.rng.IntN(max(1, min(maxTokens, maxFaultPosition))) }
	if hit(f.ErrorRate) {
		p.fail = true
		return p
	}
	if f.SlowFirstByte > 0 && hit(f.SlowFirstByteRate) {
		p.firstByte = f.SlowFirstByte
	}
	if hit(f.DisconnectRate) {
		p.disconnectAt = pos()
	}
	if hit(f.MalformedRate) {
		p.malformedAt = pos()
	}
	if f.Stall > 0 && hit(f.StallRate) {
		p.stallAt, p.stall = pos(), f.Stall
	}
	return p
}

// overloadStatus is the status answered when the queue bound is exceeded.
func (f Faults) overloadStatus() int {
	if f.OverloadStatus == 0 {
		return http.StatusTooManyRequests
	}
	return f.OverloadStatus
}
