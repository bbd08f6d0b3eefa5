package session

import (
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

func TestParseThink(t *testing.T) {
	tests := []struct {
		in   string
		want Think
		err  string // "" when valid
	}{
		// a Go duration is a fixed think time
		{"2s", Think{Kind: ThinkFixed, Mean: 2 * time.Second}, ""},
		// a bare number is seconds
		{"1.5", Think{Kind: ThinkFixed, Mean: 1500 * time.Millisecond}, ""},
		// zero: no think time at all
		{"0", Think{Kind: ThinkFixed}, ""},
		// exponential, either spelling, any case
		{"exp:500ms", Think{Kind: ThinkExponential, Mean: 500 * time.Millisecond}, ""},
		{"Exponential:3", Think{Kind: ThinkExponential, Mean: 3 * time.Second}, ""},
		// uniform between two bounds, equal bounds allowed
		{"uniform:1s-5s", Think{Kind: ThinkUniform, Lo: time.Second, Hi: 5 * time.Second}, ""},
		{"uniform:2s-2s", Think{Kind: ThinkUniform, Lo: 2 * time.Second, Hi: 2 * time.Second}, ""},
		// sad paths: negative, reversed, missing bound, unknown kind, junk, overflow, NaN
		{"-1s", Think{}, "outside"},
		{"uniform:5s-1s", Think{}, "below"},
		{"uniform:5s", Think{}, "LO-HI"},
		{"normal:2s", Think{}, "want a duration"},
		{"soon", Think{}, "not a duration"},
		{"100h", Think{}, "outside"},
		{"9999999h", Think{}, "not a duration"},
		{"1e300", Think{}, "outside"},
		{"NaN", Think{}, "not a duration"},
		{"", Think{}, "not a duration"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseThink(tt.in)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Errorf("err = %v, want one saying %q", err, tt.err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("ParseThink(%q) = %+v, %v; want %+v", tt.in, got, err, tt.want)
			}
			back, err := ParseThink(got.String())
			if err != nil || back != got {
				t.Errorf("String %q reads back as %+v, %v", got.String(), back, err)
			}
		})
	}
}

func TestThinkDraw(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const n = 200_000
	// Fixed: always the value.
	if d := (Think{Kind: ThinkFixed, Mean: time.Second}).Draw(rng); d != time.Second {
		t.Errorf("fixed drew %v", d)
	}
	// Uniform: within the bounds, both reached in a long run.
	u := Think{Kind: ThinkUniform, Lo: 10, Hi: 12}
	seen := map[time.Duration]bool{}
	for range 1000 {
		d := u.Draw(rng)
		if d < 10 || d > 12 {
			t.Fatalf("uniform drew %v outside [10, 12] ns", d)
		}
		seen[d] = true
	}
	if len(seen) != 3 {
		t.Errorf("uniform [10, 12] ns drew only %v", seen)
	}
	// Exponential: the sample mean of 200,000 draws is within 1% of the
	// mean (the standard error is 0.22%), and about 36.8% exceed it.
	e := Think{Kind: ThinkExponential, Mean: 2 * time.Second}
	var sum time.Duration
	above := 0
	for range n {
		d := e.Draw(rng)
		sum += d
		if d > e.Mean {
			above++
		}
	}
	if mean := sum / n; mean < 1980*time.Millisecond || mean > 2020*time.Millisecond {
		t.Errorf("exponential sample mean %v, want 2s ± 1%%", mean)
	}
	if share := float64(above) / n; share < 0.36 || share > 0.375 {
		t.Errorf("%.3f of draws exceed the mean, want e⁻¹ ≈ 0.368", share)
	}
}

func TestParseSpan(t *testing.T) {
	tests := []struct {
		in   string
		want Span
		err  bool
	}{
		{"4", Span{4, 4}, false},       // a fixed count
		{"2-6", Span{2, 6}, false},     // a range
		{" 3 - 3 ", Span{3, 3}, false}, // spaces and equal bounds
		{"0", Span{}, true},            // no turn at all
		{"-2", Span{}, true},           // negative
		{"6-2", Span{}, true},          // reversed
		{"two", Span{}, true},          // not a number
		{"2-", Span{}, true},           // half a range
	}
	for _, tt := range tests {
		got, err := ParseSpan(tt.in)
		if (err != nil) != tt.err || (!tt.err && got != tt.want) {
			t.Errorf("ParseSpan(%q) = %v, %v; want %v, error %v", tt.in, got, err, tt.want, tt.err)
		}
	}
}

func TestMeanWaitKeepsTheDigitsOfItsRange(t *testing.T) {
	for _, tt := range []struct {
		sum  time.Duration
		n    int
		want time.Duration
	}{
		{2500 * time.Microsecond, 1, 2500 * time.Microsecond}, // not 3 ms
		{3 * time.Second, 2, 1500 * time.Millisecond},
		{1234567 * time.Microsecond, 1, 1235 * time.Millisecond}, // long: to the millisecond
	} {
		if got := meanWait(tt.sum, tt.n); got != tt.want {
			t.Errorf("meanWait(%v, %d) = %v, want %v", tt.sum, tt.n, got, tt.want)
		}
	}
}
