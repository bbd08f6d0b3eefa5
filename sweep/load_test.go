package sweep

import (
	"math"
	"strings"
	"testing"
)

func TestParseLoads(t *testing.T) {
	inf := math.Inf(1)
	tests := []struct {
		name string
		mode Mode
		in   string
		want []float64
		err  string // substring of the error; empty means success
	}{
		// The --concurrency form of vllm bench sweep.
		{"concurrency list", ModeConcurrency, "1,2,4,8", []float64{1, 2, 4, 8}, ""},
		// Spaces around items are forgiven; order is kept.
		{"spaces, unsorted", ModeConcurrency, " 8, 1 ,4", []float64{8, 1, 4}, ""},
		// The largest allowed concurrency.
		{"max concurrency", ModeConcurrency, "1048576", []float64{MaxConcurrency}, ""},
		// Rates take decimals, exponents and inf.
		{"rates", ModeRate, "0.5,1e1,2.5,inf", []float64{0.5, 10, 2.5, inf}, ""},
		// INF in any case.
		{"upper inf", ModeRate, "INF", []float64{inf}, ""},
		// Sad: nothing at all.
		{"empty", ModeConcurrency, "", nil, "empty"},
		// Sad: blank item, named by position.
		{"blank item", ModeConcurrency, "1,,4", nil, "item 2: empty value"},
		// Sad: zero concurrency.
		{"zero concurrency", ModeConcurrency, "0", nil, "from 1 to"},
		// Sad: negative concurrency is not a whole number here.
		{"negative concurrency", ModeConcurrency, "-4", nil, "not a whole number"},
		// Sad: fractional concurrency.
		{"fractional concurrency", ModeConcurrency, "1.5", nil, "not a whole number"},
		// Sad: concurrency beyond the cap, and beyond int64.
		{"huge concurrency", ModeConcurrency, "1048577", nil, "from 1 to"},
		{"overflow concurrency", ModeConcurrency, "99999999999999999999999", nil, "from 1 to"},
		// Sad: inf is not a concurrency.
		{"inf concurrency", ModeConcurrency, "inf", nil, "not a whole number"},
		// Sad: zero and negative rates.
		{"zero rate", ModeRate, "0", nil, "must be positive"},
		{"negative rate", ModeRate, "1,-2", nil, "item 2: request rate -2"},
		// Sad: NaN, hex and overflowing rates.
		{"nan rate", ModeRate, "nan", nil, "not a number"},
		{"hex rate", ModeRate, "0x10", nil, "not a number"},
		{"overflow rate", ModeRate, "1e999", nil, "out of range"},
		// Sad: a repeated load is a typo, not a request for repeats.
		{"duplicate", ModeConcurrency, "1,2,1", nil, "item 3: 1 repeats item 1"},
		{"duplicate rate", ModeRate, "2.5,2.50", nil, "repeats item 1"},
		// Sad: unknown mode.
		{"bad mode", Mode("qps"), "1", nil, "unknown"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseLoads(tt.mode, tt.in)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("ParseLoads(%q) error = %v, want one containing %q", tt.in, err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("ParseLoads(%q): %v", tt.in, err)
			}
			if len(got) != len(tt.want) {
				t.Fatalf("ParseLoads(%q) = %v, want values %v", tt.in, got, tt.want)
			}
			for i, l := range got {
				if l.Mode != tt.mode || l.Value != tt.want[i] {
					t.Fatalf("ParseLoads(%q)[%d] = %v, want %s=%v", tt.in, i, l, tt.mode, tt.want[i])
				}
			}
		})
	}
}

func TestParseLoad(t *testing.T) {
	tests := []struct {
		in   string
		want Load
		err  string
	}{
		// Canonical forms, as String writes them.
		{"concurrency=16", Concurrency(16), ""},
		{"request_rate=2.5", Rate(2.5), ""},
		{"request_rate=inf", Rate(math.Inf(1)), ""},
		// Short spellings.
		{"c=4", Concurrency(4), ""},
		{"rate=0.25", Rate(0.25), ""},
		{"request-rate=1", Rate(1), ""},
		// Sad: no '='.
		{"16", Load{}, "want mode=value"},
		// Sad: unknown mode.
		{"qps=3", Load{}, "unknown mode"},
		// Sad: bad value, with the whole input named.
		{"concurrency=0", Load{}, `load "concurrency=0"`},
		{"rate=", Load{}, "empty value"},
	}
	for _, tt := range tests {
		got, err := ParseLoad(tt.in)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("ParseLoad(%q) error = %v, want one containing %q", tt.in, err, tt.err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("ParseLoad(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
		}
	}
}

func TestLoadValidate(t *testing.T) {
	tests := []struct {
		name string
		l    Load
		err  string
	}{
		{"concurrency", Concurrency(8), ""},
		{"rate", Rate(0.1), ""},
		{"inf rate", Rate(math.Inf(1)), ""},
		// Sad paths: zero value, unknown mode, out-of-range values.
		{"zero value", Load{}, "no mode"},
		{"unknown mode", Load{Mode: "qps", Value: 1}, "unknown"},
		{"zero concurrency", Concurrency(0), "whole number"},
		{"fractional concurrency", Load{ModeConcurrency, 2.5}, "whole number"},
		{"nan concurrency", Load{ModeConcurrency, math.NaN()}, "whole number"},
		{"inf concurrency", Load{ModeConcurrency, math.Inf(1)}, "whole number"},
		{"zero rate", Rate(0), "positive"},
		{"negative rate", Rate(-1), "positive"},
		{"nan rate", Rate(math.NaN()), "positive"},
		{"negative inf rate", Rate(math.Inf(-1)), "positive"},
	}
	for _, tt := range tests {
		err := tt.l.Validate()
		if (tt.err == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tt.err)) {
			t.Errorf("%s: Validate() = %v, want error containing %q", tt.name, err, tt.err)
		}
	}
}

func TestLoadText(t *testing.T) {
	tests := []struct {
		l                   Load
		text, short, phrase string
	}{
		{Concurrency(1), "concurrency=1", "1", "1 concurrent request"},
		{Concurrency(1024), "concurrency=1024", "1024", "1,024 concurrent requests"},
		{Rate(2.5), "request_rate=2.5", "2.50 req/s", "an offered 2.50 req/s"},
		{Rate(1500), "request_rate=1500", "1,500 req/s", "an offered 1,500 req/s"},
		{Rate(math.Inf(1)), "request_rate=inf", "inf req/s", "an unbounded request rate"},
	}
	for _, tt := range tests {
		if got := tt.l.String(); got != tt.text {
			t.Errorf("String() = %q, want %q", got, tt.text)
		}
		if got := tt.l.Short(); got != tt.short {
			t.Errorf("%s: Short() = %q, want %q", tt.text, got, tt.short)
		}
		if got := tt.l.Phrase(); got != tt.phrase {
			t.Errorf("%s: Phrase() = %q, want %q", tt.text, got, tt.phrase)
		}
		b, err := tt.l.MarshalText()
		if err != nil {
			t.Fatalf("%s: MarshalText: %v", tt.text, err)
		}
		var back Load
		if err := back.UnmarshalText(b); err != nil || back != tt.l {
			t.Errorf("%s: round trip = %v, %v", tt.text, back, err)
		}
	}
	if _, err := (Load{}).MarshalText(); err == nil {
		t.Error("MarshalText of the zero Load succeeded; a sweep file must never hold one")
	}
}

// FuzzParseLoads checks that any flag value either parses into valid,
// distinct loads that print and parse back, or fails with an error; never
// a panic.
func FuzzParseLoads(f *testing.F) {
	for _, s := range []string{"1,2,4,8", "0.5,inf", "1e3", "", ",", "1,1", "-1", "nan", "0x1p3", "1e999", " 3 ", "١"} {
		f.Add(s, true)
		f.Add(s, false)
	}
	f.Fuzz(func(t *testing.T, s string, conc bool) {
		mode := ModeRate
		if conc {
			mode = ModeConcurrency
		}
		ls, err := ParseLoads(mode, s)
		if err != nil {
			return
		}
		for i, l := range ls {
			if err := l.Validate(); err != nil {
				t.Fatalf("ParseLoads(%q)[%d] = %v, invalid: %v", s, i, l, err)
			}
			back, err := ParseLoad(l.String())
			if err != nil || !sameLoad(back, l) {
				t.Fatalf("ParseLoad(%q) = %v, %v; want %v", l.String(), back, err, l)
			}
		}
	})
}

// FuzzParseLoad checks the single-load parser the same way.
func FuzzParseLoad(f *testing.F) {
	for _, s := range []string{"concurrency=16", "request_rate=inf", "c=1", "rate=1e-3", "=", "x=1", "rate=-0", "c=01"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		l, err := ParseLoad(s)
		if err != nil {
			return
		}
		if err := l.Validate(); err != nil {
			t.Fatalf("ParseLoad(%q) = %v, invalid: %v", s, l, err)
		}
	})
}
