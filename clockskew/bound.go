package clockskew

import (
	"errors"
	"fmt"
	"net/http"
	"time"
)

// Bound is a range of possible clock offsets, reference − local: the true
// offset is in [Lo, Hi].
type Bound struct {
	Lo, Hi time.Duration
}

// Mid returns the middle of the range: the estimate.
func (b Bound) Mid() time.Duration { return b.Lo + (b.Hi-b.Lo)/2 }

// Half returns half the range's width: the estimate's uncertainty.
func (b Bound) Half() time.Duration { return (b.Hi - b.Lo) / 2 }

// Intersect returns the offsets both ranges allow, and false when none is:
// the samples contradict each other (the reference's clock stepped, or it
// is not one clock, as behind a load balancer).
func (b Bound) Intersect(o Bound) (Bound, bool) {
	r := Bound{Lo: max(b.Lo, o.Lo), Hi: min(b.Hi, o.Hi)}
	return r, r.Lo <= r.Hi
}

func (b Bound) String() string {
	return fmt.Sprintf("%v ± %v", b.Mid().Round(time.Microsecond), b.Half().Round(time.Microsecond))
}

// maxOffset bounds a believable offset, well inside what a time.Duration
// holds (292 years), so that the arithmetic below cannot saturate.
const maxOffset = 100 * 365 * 24 * time.Hour

// ErrNoDate is returned for a response without a usable Date header.
var ErrNoDate = errors.New("no Date header")

// FromDate returns the offsets a response allows. sent is the local time
// just before the request left, received the local time its response
// headers arrived, and date the response's Date header. The server read
// its clock at some instant between the two and truncated it to the
// second: its time S lies in [D, D+1s), S = local + offset for a local time
// in [sent, received], so offset ∈ [D − received, D + 1s − sent].
func FromDate(sent, received time.Time, date string) (Bound, error) {
	if date == "" {
		return Bound{}, ErrNoDate
	}
	d, err := http.ParseTime(date)
	if err != nil {
		return Bound{}, fmt.Errorf("Date header %q: %w", date, err)
	}
	if received.Before(sent) {
		return Bound{}, fmt.Errorf("response received (%v) before it was sent (%v)", received, sent)
	}
	// Wall-clock differences: Date carries no monotonic reading, and sent
	// and received are stripped of theirs so that all three agree.
	sent, received = sent.Round(0), received.Round(0)
	if off := d.Sub(received); off > maxOffset || off < -maxOffset {
		return Bound{}, fmt.Errorf("Date header %q is more than 100 years from this machine's clock", date)
	}
	return Bound{Lo: d.Sub(received), Hi: d.Add(time.Second).Sub(sent)}, nil
}
