package human

import (
	"errors"
	"math"
	"strconv"
	"strings"
	"testing"
)

func TestIsPlainDecimal(t *testing.T) {
	tests := []struct {
		in   string
		want bool
	}{
		{"20", true},     // digits
		{"0.2", true},    // one point
		{".5", true},     // no integer part
		{"5.", true},     // no fraction
		{"007", true},    // leading zeros are still digits
		{"", false},      // empty
		{".", false},     // a point without a digit
		{"1.2.3", false}, // two points
		{"-1", false},    // a sign
		{"+1", false},    // either sign
		{"1e2", false},   // an exponent
		{"inf", false},   // infinity
		{"NaN", false},   // not a number
		{"0x1p3", false}, // hexadecimal float
		{"1_000", false}, // digit separators
		{"1,5", false},   // a comma for a point
		{" 1", false},    // spaces are the caller's to trim
		{"20%", false},   // a percent sign is the caller's to strip
		{"١٢", false},    // digits of other scripts
	}
	for _, tt := range tests {
		if got := IsPlainDecimal(tt.in); got != tt.want {
			t.Errorf("IsPlainDecimal(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

// FuzzIsPlainDecimal checks the promise callers rely on: whatever it
// accepts, strconv.ParseFloat reads as a finite, non-negative number or
// rejects only as out of range.
func FuzzIsPlainDecimal(f *testing.F) {
	for _, s := range []string{"20", "0.2", ".5", "5.", "", ".", "1.2.3", "-1", "1e2", "inf", "0x1p3", "1_0", strings.Repeat("9", 400)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !IsPlainDecimal(s) {
			return
		}
		v, err := strconv.ParseFloat(s, 64)
		if err != nil && !errors.Is(err, strconv.ErrRange) {
			t.Fatalf("IsPlainDecimal(%q) but ParseFloat: %v", s, err)
		}
		if err == nil && (v < 0 || math.IsNaN(v) || math.IsInf(v, 0)) {
			t.Fatalf("IsPlainDecimal(%q) but ParseFloat = %v", s, v)
		}
	})
}
