package capacity

import (
	"strings"
	"testing"
)

func TestParseHeadroom(t *testing.T) {
	tests := []struct {
		in   string
		want float64
		err  string
	}{
		{"0.2", 0.2, ""},    // a fraction
		{"20%", 0.2, ""},    // a percentage
		{" 20 % ", 0.2, ""}, // with spaces
		{"0", 0, ""},        // none
		{"150%", 1.5, ""},   // more than the peak again
		{"10", 10, ""},      // the most allowed as a fraction
		{"1000%", 10, ""},   // the same as a percentage
		// Sad paths.
		{"", 0, "not a number"},
		{"%", 0, "not a number"},
		{"-0.1", 0, `headroom "-0.1": negative`},
		{"-50%", 0, `headroom "-50%": negative`},
		{"+0.2", 0, "in plain digits"},
		{"20", 0, "did you mean 20%?"},
		{"1e1", 0, `headroom "1e1": write it in plain digits, without an exponent`},
		{"1e308", 0, `headroom "1e308": write it in plain digits, without an exponent`},
		{"1e999", 0, `headroom "1e999": write it in plain digits`},
		{"nan", 0, `headroom "nan": not a finite number`},
		{"inf", 0, `headroom "inf": not a finite number`},
		{"lots", 0, `headroom "lots": not a number`},
		{"0.2.1", 0, "not a number"},
		{"20%%", 0, "not a number"},
		{"1500%", 0, "more than 1000 %"},
		{strings.Repeat("9", 400), 0, "out of range"},
	}
	for _, tt := range tests {
		got, err := ParseHeadroom(tt.in)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("ParseHeadroom(%q) error = %v, want one containing %q", tt.in, err, tt.err)
			}
			continue
		}
		if err != nil || !near(got, tt.want) {
			t.Errorf("ParseHeadroom(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
		}
	}
}

// FuzzParseHeadroom checks that whatever parses is a headroom Compute
// accepts.
func FuzzParseHeadroom(f *testing.F) {
	for _, s := range []string{"0.2", "20%", " 5 % ", "", "%", "-1", "1e3", "٣", "9999999999999999999999%"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		h, err := ParseHeadroom(s)
		if err != nil {
			return
		}
		if h < 0 || h > MaxHeadroom {
			t.Fatalf("ParseHeadroom(%q) = %v, outside [0, %v]", s, h, MaxHeadroom)
		}
		if _, err := Compute(Input{PerReplicaQPS: 1, PeakQPS: 1, Headroom: h}); err != nil {
			t.Fatalf("Compute rejected headroom %v from %q: %v", h, s, err)
		}
	})
}
