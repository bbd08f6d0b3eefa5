package clockskew

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"time"
)

// Estimate is what Probe found.
type Estimate struct {
	Bound
	Samples   int    // responses that bounded the offset
	Reference string // the URL read
}

// Prober measures the offset of a server's clock by its Date headers.
// Build one with its Client and URL; Now and Sleep default to the real
// clock and exist for tests.
type Prober struct {
	Client *http.Client
	// URL is fetched with GET; a cheap endpoint such as /health suits. Any
	// status will do, as long as the response has a Date header.
	URL string
	// Now returns the local wall-clock time; nil means time.Now.
	Now func() time.Time
	// Sleep waits for d or until ctx is done; nil means a timer.
	Sleep func(ctx context.Context, d time.Duration) error
}

// minLead is how far ahead of now a probe is planned: time enough for the
// plan to be carried out before its send time.
const minLead = 20 * time.Millisecond

// Probe samples the server's clock until the offset is known to within
// precision, until maxSamples were taken, or until the next sample could
// not end by deadline (zero: no deadline), whichever comes first. The
// first sample is taken at once; each further one waits for the moment, at
// most a second away, when its round trip straddles the turn of the
// server's second. Probe fails only when no sample could be taken; later
// failures end it with what was measured.
func (p *Prober) Probe(ctx context.Context, deadline time.Time, maxSamples int, precision time.Duration) (Estimate, error) {
	est := Estimate{Reference: p.URL}
	b, rtt, err := p.sample(ctx)
	if err != nil {
		return est, err
	}
	est.Bound, est.Samples = b, 1
	for est.Samples < maxSamples && est.Half() > precision {
		now := p.now()
		// The server's clock reads now+Mid now; plan the send so that, at
		// the middle of the round trip, the estimate puts the server on the
		// next whole second at least minLead ahead.
		serverNow := now.Add(est.Mid())
		turn := serverNow.Add(minLead + rtt/2).Truncate(time.Second).Add(time.Second)
		send := turn.Add(-est.Mid() - rtt/2)
		if !deadline.IsZero() && send.Add(2*rtt+minLead).After(deadline) {
			break
		}
		if err := p.sleep(ctx, send.Sub(now)); err != nil {
			break
		}
		nb, nrtt, err := p.sample(ctx)
		if err != nil {
			break
		}
		merged, ok := est.Intersect(nb)
		if !ok {
			// The samples disagree: keep the wider knowledge honest by
			// taking the range both allow together.
			est.Bound = Bound{Lo: min(est.Lo, nb.Lo), Hi: max(est.Hi, nb.Hi)}
			est.Samples++
			break
		}
		est.Bound, est.Samples = merged, est.Samples+1
		rtt = (rtt + nrtt) / 2
	}
	return est, nil
}

// sample takes one response and returns the offsets it allows and its
// round trip.
func (p *Prober) sample(ctx context.Context) (Bound, time.Duration, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, p.URL, nil)
	if err != nil {
		return Bound{}, 0, fmt.Errorf("%s: %w", p.URL, err)
	}
	sent := p.now()
	resp, err := p.Client.Do(req)
	received := p.now()
	if err != nil {
		return Bound{}, 0, fmt.Errorf("%s: %w", p.URL, err)
	}
	io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
	resp.Body.Close()
	b, err := FromDate(sent, received, resp.Header.Get("Date"))
	if err != nil {
		return Bound{}, 0, fmt.Errorf("%s: %w", p.URL, err)
	}
	return b, received.Round(0).Sub(sent.Round(0)), nil
}

func (p *Prober) now() time.Time {
	if p.Now != nil {
		return p.Now()
	}
	return time.Now()
}

func (p *Prober) sleep(ctx context.Context, d time.Duration) error {
	if p.Sleep != nil {
		return p.Sleep(ctx, d)
	}
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
