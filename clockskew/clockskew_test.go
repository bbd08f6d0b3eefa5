package clockskew

import (
	"context"
	"errors"
	"io"
	"net/http"
	"runtime"
	"strings"
	"testing"
	"time"
)

var t0 = time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)

func TestFromDate(t *testing.T) {
	ms := time.Millisecond
	cases := []struct {
		name           string
		sent, received time.Time
		date           string
		lo, hi         time.Duration
		err            string
	}{
		// Clocks agree, 10 ms round trip: the server's second is 10:00:00.
		{"agree", t0.Add(200 * ms), t0.Add(210 * ms), "Sun, 29 Nov 2026 10:00:00 GMT", -210 * ms, 800 * ms, ""},
		// The server is 2 s ahead: the range moves by 2 s.
		{"server ahead", t0.Add(200 * ms), t0.Add(210 * ms), "Sun, 29 Nov 2026 10:00:02 GMT", 1790 * ms, 2800 * ms, ""},
		// The server is behind.
		{"server behind", t0.Add(200 * ms), t0.Add(210 * ms), "Sun, 29 Nov 2026 09:59:55 GMT", -5210 * ms, -4200 * ms, ""},
		// A long round trip widens the range by as much.
		{"slow", t0, t0.Add(time.Second), "Sun, 29 Nov 2026 10:00:00 GMT", -time.Second, time.Second, ""},
		// No header: nothing to learn.
		{"no date", t0, t0, "", 0, 0, "no Date header"},
		// A header that is not an HTTP date.
		{"garbage", t0, t0, "yesterday", 0, 0, `Date header "yesterday"`},
		// A date centuries away is no clock reading.
		{"centuries", t0, t0, "Fri, 31 Dec 9999 23:59:59 GMT", 0, 0, "more than 100 years"},
		// A response before its request is a broken clock, not a sample.
		{"backwards", t0.Add(ms), t0, "Sun, 29 Nov 2026 10:00:00 GMT", 0, 0, "before it was sent"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b, err := FromDate(c.sent, c.received, c.date)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("err = %v, want %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if b.Lo != c.lo || b.Hi != c.hi {
				t.Errorf("bound = [%v, %v], want [%v, %v]", b.Lo, b.Hi, c.lo, c.hi)
			}
		})
	}
}

func TestBoundIntersect(t *testing.T) {
	a := Bound{Lo: -10, Hi: 10}
	if got, ok := a.Intersect(Bound{Lo: 5, Hi: 20}); !ok || got != (Bound{Lo: 5, Hi: 10}) {
		t.Errorf("overlap: %v %v", got, ok)
	}
	if got, ok := a.Intersect(Bound{Lo: 10, Hi: 20}); !ok || got != (Bound{Lo: 10, Hi: 10}) {
		t.Errorf("touching: %v %v", got, ok)
	}
	if _, ok := a.Intersect(Bound{Lo: 11, Hi: 20}); ok {
		t.Error("disjoint ranges intersect")
	}
	if b := (Bound{Lo: -3 * time.Millisecond, Hi: 5 * time.Millisecond}); b.Mid() != time.Millisecond || b.Half() != 4*time.Millisecond {
		t.Errorf("mid, half = %v, %v", b.Mid(), b.Half())
	}
}

// fakeNet is a local clock and a server whose clock is off by offset,
// answering after a round trip of rtt: the server reads its clock halfway.
type fakeNet struct {
	now     time.Time
	rtt     time.Duration
	offsets []time.Duration // server clock − local; several alternate (servers behind one address)
	noDate  bool
	calls   int
}

func (f *fakeNet) RoundTrip(r *http.Request) (*http.Response, error) {
	f.now = f.now.Add(f.rtt / 2)
	server := f.now.Add(f.offsets[f.calls%len(f.offsets)])
	f.calls++
	f.now = f.now.Add(f.rtt - f.rtt/2)
	h := http.Header{}
	if !f.noDate {
		h.Set("Date", server.UTC().Format(http.TimeFormat))
	}
	return &http.Response{StatusCode: 200, Header: h, Body: io.NopCloser(strings.NewReader("ok")), Request: r}, nil
}

func (f *fakeNet) prober() *Prober {
	return &Prober{
		Client: &http.Client{Transport: f},
		URL:    "http://server/health",
		Now:    func() time.Time { return f.now },
		Sleep: func(_ context.Context, d time.Duration) error {
			if d > 0 {
				f.now = f.now.Add(d)
			}
			return nil
		},
	}
}

// Probing finds the offset to about the round trip, whatever it is, in
// about ten samples.
func TestProbeFindsTheOffset(t *testing.T) {
	cases := []struct {
		name   string
		offset time.Duration
		rtt    time.Duration
	}{
		// Clocks that agree.
		{"agree", 0, 2 * time.Millisecond},
		// A server 2.3456 s ahead.
		{"ahead", 2345600 * time.Microsecond, 2 * time.Millisecond},
		// A server 777.1 ms behind.
		{"behind", -777100 * time.Microsecond, 2 * time.Millisecond},
		// A slow network: the precision is the round trip's.
		{"slow network", 123 * time.Millisecond, 40 * time.Millisecond},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := &fakeNet{now: t0.Add(123456789), rtt: c.rtt, offsets: []time.Duration{c.offset}}
			est, err := f.prober().Probe(context.Background(), time.Time{}, 12, time.Millisecond)
			if err != nil {
				t.Fatal(err)
			}
			if c.offset < est.Lo || c.offset > est.Hi {
				t.Errorf("true offset %v outside the estimate [%v, %v]", c.offset, est.Lo, est.Hi)
			}
			if limit := c.rtt + time.Millisecond; est.Half() > limit {
				t.Errorf("uncertainty %v after %d samples, want ≤ %v", est.Half(), est.Samples, limit)
			}
			if est.Samples < 2 || est.Samples > 12 || est.Reference != "http://server/health" {
				t.Errorf("samples %d, reference %q", est.Samples, est.Reference)
			}
		})
	}
}

// A deadline bounds the probing: no sample ends after it, and the first
// is taken even when the deadline leaves room for no other.
func TestProbeKeepsItsDeadline(t *testing.T) {
	for _, room := range []time.Duration{0, 500 * time.Millisecond, 2500 * time.Millisecond} {
		f := &fakeNet{now: t0.Add(100 * time.Millisecond), rtt: 2 * time.Millisecond, offsets: []time.Duration{300 * time.Millisecond}}
		deadline := f.now.Add(room)
		est, err := f.prober().Probe(context.Background(), deadline, 12, time.Millisecond)
		if err != nil {
			t.Fatal(err)
		}
		if est.Samples < 1 || (room > 0 && f.now.After(deadline)) {
			t.Errorf("room %v: %d samples, clock %v past the deadline", room, est.Samples, f.now.Sub(deadline))
		}
		if room == 0 && est.Samples != 1 {
			t.Errorf("no room: %d samples, want 1", est.Samples)
		}
		if room == 2500*time.Millisecond && est.Samples < 3 {
			t.Errorf("2.5 s of room gave only %d samples", est.Samples)
		}
	}
}

// Two clocks behind one address contradict each other: the estimate says
// so by its width instead of settling on either.
func TestProbeWidensOnContradiction(t *testing.T) {
	f := &fakeNet{now: t0.Add(400 * time.Millisecond), rtt: 2 * time.Millisecond, offsets: []time.Duration{0, 3 * time.Second}}
	est, err := f.prober().Probe(context.Background(), time.Time{}, 12, time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	if est.Lo > 0 || est.Hi < 3*time.Second || est.Samples != 2 {
		t.Errorf("estimate [%v, %v] from %d samples: want both clocks inside, after 2", est.Lo, est.Hi, est.Samples)
	}
}

// A server without Date headers gives no estimate, and says why.
func TestProbeWithoutDate(t *testing.T) {
	f := &fakeNet{now: t0, rtt: time.Millisecond, offsets: []time.Duration{0}, noDate: true}
	_, err := f.prober().Probe(context.Background(), time.Time{}, 5, time.Millisecond)
	if !errors.Is(err, ErrNoDate) || !strings.Contains(err.Error(), "http://server/health") {
		t.Errorf("err = %v", err)
	}
}

// Probing stops when its context ends, keeping what it measured.
func TestProbeStopsWhenCancelled(t *testing.T) {
	f := &fakeNet{now: t0, rtt: time.Millisecond, offsets: []time.Duration{0}}
	p := f.prober()
	ctx, cancel := context.WithCancel(context.Background())
	p.Sleep = func(ctx context.Context, d time.Duration) error { cancel(); return ctx.Err() }
	est, err := p.Probe(ctx, time.Time{}, 10, time.Millisecond)
	if err != nil || est.Samples != 1 {
		t.Errorf("est %+v, err %v", est, err)
	}
}

// On Linux the kernel's status can be read without privilege.
func TestNTP(t *testing.T) {
	s, ok := NTP()
	if runtime.GOOS != "linux" {
		if ok {
			t.Error("status read off Linux")
		}
		return
	}
	if !ok || s.EstError < 0 || s.MaxError < 0 {
		t.Errorf("NTP() = %+v, %v", s, ok)
	}
}

func FuzzFromDate(f *testing.F) {
	f.Add("Sun, 29 Nov 2026 10:00:00 GMT", int64(5_000_000))
	f.Add("Sunday, 29-Nov-26 10:00:00 GMT", int64(0))
	f.Add("Sun Nov 29 10:00:00 2026", int64(-1))
	f.Add("", int64(1))
	f.Add("Fri, 31 Dec 9999 23:59:59 GMT", int64(1<<62))
	f.Fuzz(func(t *testing.T, date string, rtt int64) {
		b, err := FromDate(t0, t0.Add(time.Duration(rtt)), date)
		if err != nil {
			return
		}
		if rtt < 0 {
			t.Fatalf("accepted a negative round trip: %v", b)
		}
		if b.Hi-b.Lo != time.Second+time.Duration(rtt) {
			t.Fatalf("width %v, want 1 s + %v", b.Hi-b.Lo, time.Duration(rtt))
		}
	})
}
