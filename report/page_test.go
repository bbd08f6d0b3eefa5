package report

import (
	"math"
	"strings"
	"testing"
)

func TestNumberFormats(t *testing.T) {
	tests := []struct {
		got, want string
	}{
		{seconds(0.0123), "12.3 ms"},
		{seconds(2.5), "2.5 s"},
		{seconds(math.NaN()), "n/a"},
		{ms(0.0123456), "12.35"},
		{percent(0.9234), "92.3 %"},
		{signedPercent(0.1), "+10.0 %"},
		{signedPercent(-0.05), "-5.0 %"},
		{signedPercent(math.NaN()), "n/a"},
	}
	for i, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("case %d: got %q, want %q", i, tt.got, tt.want)
		}
	}
}

func TestEscaping(t *testing.T) {
	// Text from records (error messages, labels) reaches the page escaped.
	if got := esc(`<script>"&'`); got != "&lt;script&gt;&#34;&amp;&#39;" {
		t.Errorf("esc = %q", got)
	}
	// JSON embedded in the page cannot close its script element.
	if got := string(safeJSON([]byte(`{"m":"</script><b>&"}`))); strings.ContainsAny(got, "<>&") {
		t.Errorf("safeJSON left markup: %s", got)
	}
}
