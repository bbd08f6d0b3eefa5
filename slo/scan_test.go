package slo

import (
	"errors"
	"math"
	"testing"
	"time"
)

func TestExactDuration(t *testing.T) {
	tests := []struct {
		whole, frac string
		unit        time.Duration
		want        time.Duration
		wantErr     error // nil: success; errRangeOrFine: any error
	}{
		{"500", "", time.Millisecond, 500 * time.Millisecond, nil},
		{"1", "5", time.Second, 1500 * time.Millisecond, nil},
		{"0", "000001", time.Millisecond, time.Nanosecond, nil},      // a millionth of a ms is 1 ns
		{"1", "5000000000", time.Minute, 90 * time.Second, nil},      // trailing zeros do not count as precision
		{"0", "0000000001", time.Minute, 6 * time.Nanosecond, nil},   // 1e-10 min = 6 ns exactly
		{"007", "", time.Second, 7 * time.Second, nil},               // leading zeros
		{"9223372036", "854775807", time.Second, math.MaxInt64, nil}, // the largest Duration
		{"0", "5", time.Nanosecond, 0, errFiner},                     // half a nanosecond
		{"1", "0000001", time.Millisecond, 0, errFiner},              // 1.0000001 ms = 1000000.1 ns
		{"9223372036", "854775808", time.Second, 0, ErrRange},        // one past the largest
		{"153722867", "3", time.Minute, 0, ErrRange},                 // minutes overflow
		{"100000000000000000000", "", time.Nanosecond, 0, ErrRange},  // 21 digits
		{"18446744073709551616", "", time.Nanosecond, 0, ErrRange},   // 2⁶⁴
	}
	for _, tt := range tests {
		got, err := exactDuration(tt.whole, tt.frac, tt.unit)
		switch {
		case tt.wantErr == nil && (err != nil || got != tt.want):
			t.Errorf("exactDuration(%s.%s × %v) = %v, %v; want %v", tt.whole, tt.frac, tt.unit, got, err, tt.want)
		case tt.wantErr == ErrRange && !errors.Is(err, ErrRange):
			t.Errorf("exactDuration(%s.%s × %v) error = %v, want ErrRange", tt.whole, tt.frac, tt.unit, err)
		case tt.wantErr == errFiner && (err == nil || err.Error() != "finer than a nanosecond"):
			t.Errorf("exactDuration(%s.%s × %v) error = %v, want finer than a nanosecond", tt.whole, tt.frac, tt.unit, err)
		}
	}
}

// errFiner stands for the "finer than a nanosecond" error in tables.
var errFiner = errors.New("finer")

func TestFormatDuration(t *testing.T) {
	tests := []struct {
		d    time.Duration
		want string
	}{
		{0, "0s"},
		{1, "1ns"},
		{999, "999ns"},
		{time.Microsecond, "1us"},
		{1500 * time.Nanosecond, "1.5us"},
		{50 * time.Millisecond, "50ms"},
		{1234567, "1.234567ms"},
		{500 * time.Millisecond, "500ms"},
		{1500 * time.Millisecond, "1.5s"},
		{time.Second + time.Nanosecond, "1.000000001s"},
		{90 * time.Second, "90s"}, // not a whole minute
		{10 * time.Minute, "10m"}, // whole minutes
		{2 * time.Hour, "120m"},   // no hours unit to read back
		{math.MaxInt64, "9223372036.854775807s"},
	}
	for _, tt := range tests {
		if got := formatDuration(tt.d); got != tt.want {
			t.Errorf("formatDuration(%d) = %q, want %q", int64(tt.d), got, tt.want)
		}
		sc := newScanner("slo", tt.want)
		back, err := sc.duration()
		if err != nil || back != tt.d || !sc.eof() {
			t.Errorf("%q reads back as %v, %v", tt.want, back, err)
		}
	}
}

func TestSyntaxErrorUnwraps(t *testing.T) {
	_, err := ParseConditions("ttft<=5xx")
	var se *SyntaxError
	if !errors.As(err, &se) || se.Column != 8 || se.Kind != "slo" {
		t.Fatalf("error %v is not a SyntaxError at column 8", err)
	}
	if !errors.Is(err, ErrUnknownUnit) {
		t.Errorf("error %v does not wrap ErrUnknownUnit", err)
	}
}
