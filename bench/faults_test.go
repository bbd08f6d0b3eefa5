package bench

import (
	"strings"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/metrics"
	"github.com/goodput-dev/goodput/record"
	"github.com/goodput-dev/goodput/sim"
	"github.com/goodput-dev/goodput/transport"
)

// faultCase is a simulator fault and what it must make of the records.
type faultCase struct {
	name    string
	faults  []string
	timeout time.Duration
	conc    int
	want    record.ErrorKind // every failure must be of this kind
	check   func(t *testing.T, res *metrics.Result)
}

// Every fault the simulator can inject, sent through the real load
// generator on each of its transports, must land in the records as the
// right kind of failure, and never stop the run.
func TestSimulatorFaultsBecomeRecords(t *testing.T) {
	tests := []faultCase{
		{name: "server errors", faults: []string{"error-rate=0.5"}, want: record.ErrHTTP},
		{name: "overload answers 429", faults: []string{"overload=1"}, conc: 24, want: record.ErrRateLimited},
		{name: "overload answers 503", faults: []string{"overload=1", "overload-status=503"}, conc: 24, want: record.ErrUnavailable},
		{name: "mid-stream disconnects", faults: []string{"disconnect-rate=0.5"}, want: record.ErrReset},
		{name: "malformed chunks", faults: []string{"malformed-rate=0.5"}, want: record.ErrMalformed},
		{name: "stalls past the timeout", faults: []string{"stall=5s@0.5"}, timeout: 1500 * time.Millisecond, want: record.ErrTimeout},
		{name: "slow first byte", faults: []string{"slow-first-byte=300ms"}, want: record.ErrNone,
			check: func(t *testing.T, res *metrics.Result) {
				if res.Latency.TTFT.Min < 0.3 {
					t.Errorf("TTFT min %.3f s, want ≥ 0.3 s with a 300 ms slow first byte", res.Latency.TTFT.Min)
				}
			}},
	}
	for _, kind := range transport.Kinds() {
		for _, tc := range tests {
			t.Run(strings.ReplaceAll(string(kind), "/", "")+"/"+tc.name, func(t *testing.T) {
				t.Parallel()
				testFault(t, kind, tc)
			})
		}
	}
}

// testFault runs tc's faults through transport kind.
func testFault(t *testing.T, kind transport.Kind, tc faultCase) {
	opts := sim.Options{Seed: 11}
	for _, f := range tc.faults {
		if err := opts.Faults.ParseFault(f); err != nil {
			t.Fatal(err)
		}
	}
	cfg := smallConfig(t, startSim(t, opts))
	cfg.Transport = kind
	cfg.Warmups = 0
	cfg.Arrival.NumPrompts = 24
	cfg.Arrival.MaxConcurrency = 6
	if tc.conc > 0 {
		cfg.Arrival.MaxConcurrency = 0 // open loop, all at once: the queue overflows
	}
	if tc.timeout > 0 {
		cfg.RequestTimeout = tc.timeout
	}
	out, err := Run(t.Context(), cfg, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	recs, _, tr := readRecords(t, out.RecordsPath)
	if len(recs) != 24 || tr == nil || tr.Interrupted {
		t.Fatalf("%d records, trailer %+v", len(recs), tr)
	}
	failed := 0
	for _, r := range recs {
		if r.OK() {
			continue
		}
		failed++
		if r.Error != tc.want || r.Msg == "" {
			t.Errorf("seq %d: %q %q, want kind %q", r.Seq, r.Error, r.Msg, tc.want)
		}
	}
	if tc.want != record.ErrNone && (failed == 0 || out.Result.Counts.Errors[string(tc.want)] != int64(failed)) {
		t.Errorf("%d failures, summary errors %v", failed, out.Result.Counts.Errors)
	}
	if tc.want == record.ErrNone && failed != 0 {
		t.Errorf("%d failures", failed)
	}
	if tc.check != nil {
		tc.check(t, out.Result)
	}
}
