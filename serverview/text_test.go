package serverview

import (
	"slices"
	"testing"
)

// What a server does not export is one line per reason, naming each
// quantity in the order it was found missing.
func TestMissingIsGroupedByReason(t *testing.T) {
	got := groupMissing([]string{
		"server ttft: not exported by the server",
		"client e2e p99: not computed (add 99 to --metric-percentiles)",
		"server itl: not exported by the server",
		"the server's /metrics answered 404",
		"preemptions: not exported by the server",
	})
	want := []string{
		"server ttft, server itl, preemptions: not exported by the server",
		"client e2e p99: not computed (add 99 to --metric-percentiles)",
		"the server's /metrics answered 404",
	}
	if !slices.Equal(got, want) {
		t.Errorf("grouped\n%q\nwant\n%q", got, want)
	}
	if got := groupMissing(nil); len(got) != 0 {
		t.Errorf("nothing missing: %q", got)
	}
}
