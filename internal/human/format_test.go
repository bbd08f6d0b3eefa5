package human

import (
	"math"
	"testing"
)

func TestNumber(t *testing.T) {
	tests := []struct {
		in   float64
		want string
	}{
		{1310, "1,310"},                          // thousands separator
		{1234567.4, "1,234,567"},                 // several groups, rounded
		{-4200, "-4,200"},                        // sign before the groups
		{999.6, "1,000"},                         // rounding carries into a new group
		{100, "100"},                             // three digits, no separator
		{52.34, "52.3"},                          // tens keep one decimal
		{5.2, "5.20"},                            // units keep two
		{0.5234, "0.523"},                        // below one: three significant digits
		{0.5, "0.500"},                           // trailing zeros kept
		{0.0999, "0.0999"},                       // two leading zeros
		{0.000123, "0.000123"},                   // tiny
		{1.5e-12, "1.5e-12"},                     // too tiny for fixed notation
		{999999999999999, "999,999,999,999,999"}, // still exact
		{1e30, "1e+30"},                          // beyond float64's integer digits
		{-1.2345e18, "-1.23e+18"},
		{0, "0.00"},          // zero
		{math.NaN(), "n/a"},  // undefined
		{math.Inf(1), "inf"}, // unbounded
		{math.Inf(-1), "-inf"},
	}
	for _, tt := range tests {
		if got := Number(tt.in); got != tt.want {
			t.Errorf("Number(%v) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestCount(t *testing.T) {
	for in, want := range map[float64]string{1: "1", 1024: "1,024", 1048576: "1,048,576", 2.6: "3", math.NaN(): "n/a"} {
		if got := Count(in); got != want {
			t.Errorf("Count(%v) = %q, want %q", in, got, want)
		}
	}
}

func TestSeconds(t *testing.T) {
	tests := []struct {
		in   float64
		want string
	}{
		{0.42, "420 ms"},
		{0.0382, "38.2 ms"},
		{0.0065, "6.50 ms"},
		{0.00085, "850 µs"},
		{4.2, "4.20 s"},
		{125, "125 s"},
		{3600, "3,600 s"},
		{0.99971, "1.00 s"}, // rounds up into seconds, not "1,000 ms"
		{0, "0 s"},
		{math.NaN(), "n/a"},
	}
	for _, tt := range tests {
		if got := Seconds(tt.in); got != tt.want {
			t.Errorf("Seconds(%v) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestPercentAndFactor(t *testing.T) {
	pct := []struct {
		in   float64
		want string
	}{
		{0.03, "3 %"},
		{0.026, "2.6 %"},
		{0.964, "96 %"},
		{1, "100 %"},
		{0.995, "99.5 %"},  // short of all: never rounded up to 100
		{0.9999, "99.9 %"}, // truncated, not rounded
		{0.994, "99 %"},
		{0, "0 %"},
		{-0.0001, "0 %"},
		{12.5, "1,250 %"},
		{math.NaN(), "n/a"},
	}
	for _, tt := range pct {
		if got := Percent(tt.in); got != tt.want {
			t.Errorf("Percent(%v) = %q, want %q", tt.in, got, tt.want)
		}
	}
	fac := []struct {
		in   float64
		want string
	}{
		{4.06, "4.1×"},
		{1, "1.0×"},
		{12.4, "12×"},
		{2500, "2,500×"},
		{math.Inf(1), "n/a"},
	}
	for _, tt := range fac {
		if got := Factor(tt.in); got != tt.want {
			t.Errorf("Factor(%v) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestThousands(t *testing.T) {
	tests := []struct {
		in, want string
	}{
		{"", ""},                       // empty stays empty
		{"7", "7"},                     // one digit
		{"999", "999"},                 // three digits, no separator
		{"1000", "1,000"},              // the first separator
		{"1234567", "1,234,567"},       // several groups
		{"1234.50", "1,234.50"},        // the fraction is left alone
		{"0.0001234", "0.0001234"},     // so are its digits, however many
		{"-1234567.5", "-1,234,567.5"}, // the sign stays in front
		{"-100", "-100"},               // no separator after a bare sign
		{"1.5e+12", "1.5e+12"},         // exponent forms pass through
		{"12345E6", "12345E6"},         // in either case
		{"9223372036854775807", "9,223,372,036,854,775,807"}, // int64's largest
	}
	for _, tt := range tests {
		if got := Thousands(tt.in); got != tt.want {
			t.Errorf("Thousands(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestBrief(t *testing.T) {
	tests := []struct {
		in   float64
		want string
	}{
		{0.012345, "0.0123"}, // three significant digits
		{1.5, "1.5"},         // trailing zeros dropped
		{2, "2"},             // and the point with them
		{-0.25, "-0.25"},     // the sign kept
		{123.4, "123"},       // whole from 100 up
		{12345.6, "12346"},   // never in exponent form, no separator
		{0, "0"},
		{math.NaN(), "n/a"},
		{math.Inf(-1), "n/a"},
	}
	for _, tt := range tests {
		if got := Brief(tt.in); got != tt.want {
			t.Errorf("Brief(%v) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
