package capacity

import (
	"strings"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/internal/human"
)

func TestExplain(t *testing.T) {
	tests := []struct {
		name          string
		in            Input
		summary, want string
	}{
		// The worked example of TestComputeTokensAndCost, every step shown.
		{"full", Input{MaxNumSeqs: 64, Latency: 4 * time.Second, PeakQPS: 100, Headroom: 0.2,
			OutputTokensPerRequest: 250, GPUHourCost: 2.5, GPUsPerReplica: 2},
			"8 replicas (16 GPUs) for 100 req/s at peak with 20 % headroom: 32,000 output tok/s of capacity, " +
				"$40.00 an hour, $0.444 per million output tokens at the peak.",
			`Per-replica throughput (Little's Law: L = λ × W, so λ = L ÷ W)
  λ = 64 requests in flight (max-num-seqs) ÷ 4.00 s mean latency = 16.0 req/s per replica
Replicas
  demand = 100 req/s peak × (1 + 20 % headroom) = 120 req/s
  replicas = ⌈120 req/s ÷ 16.0 req/s⌉ = ⌈7.50⌉ = 8
  at the peak each replica serves 100 req/s ÷ 8 = 12.5 req/s, 78 % of its 16.0 req/s
Output tokens
  per replica = 16.0 req/s × 250 tokens per request = 4,000 tok/s
  fleet capacity = 8 × 4,000 tok/s = 32,000 tok/s
  at the peak the fleet emits 100 req/s × 250 tokens = 25,000 tok/s
Cost
  per replica-hour = 2 GPUs × $2.50 per GPU-hour = $5.00
  per million output tokens at the operating point = $5.00 ÷ (4,000 tok/s × 3,600 s) × 1,000,000 = $0.347
  fleet per hour = 8 × $5.00 = $40.00
  per million output tokens at the peak = $40.00 ÷ (25,000 tok/s × 3,600 s) × 1,000,000 = $0.444
`},
		// Given QPS with Little's Law as a check (64 ÷ 4.2 s = 15.24, 1.6 %
		// above 15); a measured token rate; no peak; another currency.
		{"check, no peak", Input{PerReplicaQPS: 15, MaxNumSeqs: 64, Latency: 4200 * time.Millisecond,
			OutputTokensPerRequest: 200, GPUHourCost: 2, Currency: "€", Source: "the sweep",
			Measured: Measured{QPS: true, Concurrency: true, OutputTokensPerSecond: 3000, RequestsPerSecond: 15}},
			"One replica sustains 15.0 req/s (3,000 output tok/s) at €0.185 per million output tokens; give --peak-qps to size a fleet.",
			`Per-replica throughput (Little's Law: L = λ × W, so λ = L ÷ W)
  from the sweep
  λ = 64 requests in flight (the measured concurrency) ÷ 4.20 s measured mean latency = 15.2 req/s per replica
  per-replica throughput, as measured: 15.0 req/s
  Little's Law check: 15.2 req/s against 15.0 req/s measured, 1.6 % apart (a large gap means the measurement was not in steady state)
Output tokens
  tokens per request, as measured: 3,000 tok/s ÷ 15.0 req/s = 200
  per replica = 15.0 req/s × 200 tokens per request = 3,000 tok/s
Cost
  per replica-hour = 1 GPU × €2.00 per GPU-hour = €2.00
  per million output tokens at the operating point = €2.00 ÷ (3,000 tok/s × 3,600 s) × 1,000,000 = €0.185
`},
		// Beside a sweep's measured rate, a concurrency and latency given by
		// flags are labelled as given, and a gap is not blamed on the
		// measurement: 64 ÷ 2 s = 32 against 11.7 measured is 174 % apart.
		{"given concurrency beside a measured rate", Input{PerReplicaQPS: 11.694, MaxNumSeqs: 64, Latency: 2 * time.Second,
			Source: "the sweep", Measured: Measured{QPS: true}},
			"One replica sustains 11.7 req/s; give --peak-qps to size a fleet.",
			`Per-replica throughput (Little's Law: L = λ × W, so λ = L ÷ W)
  from the sweep
  λ = 64 requests in flight (max-num-seqs, as given) ÷ 2.00 s mean latency, as given = 32.0 req/s per replica
  per-replica throughput, as measured: 11.7 req/s
  Little's Law check: 32.0 req/s against 11.7 req/s measured, 174 % apart (a large gap means they do not describe the same load)
`},
		// A replica's token rate given by a flag.
		{"given token rate", Input{PerReplicaQPS: 15, ReplicaTokensPerSecond: 3000},
			"One replica sustains 15.0 req/s (3,000 output tok/s); give --peak-qps to size a fleet.",
			`Per-replica throughput (Little's Law: L = λ × W, so λ = L ÷ W)
  per-replica throughput, as given: 15.0 req/s
Output tokens
  per replica, as given: 3,000 tok/s, so 3,000 tok/s ÷ 15.0 req/s = 200 tokens per request
`},
		// The bare minimum: a rate and a peak; one replica suffices.
		{"minimal", Input{PerReplicaQPS: 2.5, PeakQPS: 2},
			"1 replica (1 GPU) for 2.00 req/s at peak.",
			`Per-replica throughput (Little's Law: L = λ × W, so λ = L ÷ W)
  per-replica throughput, as given: 2.50 req/s
Replicas
  demand = 2.00 req/s peak (no headroom)
  replicas = ⌈2.00 req/s ÷ 2.50 req/s⌉ = ⌈0.800⌉ = 1
  at the peak each replica serves 2.00 req/s ÷ 1 = 2.00 req/s, 80 % of its 2.50 req/s
`},
		// A cost but no token counts: no per-token figure, and a hint.
		{"cost without tokens", Input{PerReplicaQPS: 10, PeakQPS: 25, GPUHourCost: 1.2},
			"3 replicas (3 GPUs) for 25.0 req/s at peak: $3.60 an hour.",
			`Per-replica throughput (Little's Law: L = λ × W, so λ = L ÷ W)
  per-replica throughput, as given: 10.0 req/s
Replicas
  demand = 25.0 req/s peak (no headroom)
  replicas = ⌈25.0 req/s ÷ 10.0 req/s⌉ = ⌈2.50⌉ = 3
  at the peak each replica serves 25.0 req/s ÷ 3 = 8.33 req/s, 83 % of its 10.0 req/s
Cost
  per replica-hour = 1 GPU × $1.20 per GPU-hour = $1.20
  fleet per hour = 3 × $1.20 = $3.60
  no cost per token: give --output-tokens or --output-throughput
`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := Compute(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			if got := p.Summary(); got != tt.summary {
				t.Errorf("Summary:\n got %s\nwant %s", got, tt.summary)
			}
			if got := p.Explain(); got != tt.want {
				t.Errorf("Explain:\n%s\nwant:\n%s", got, tt.want)
			}
		})
	}
}

func TestFormat(t *testing.T) {
	for in, want := range map[float64]string{16: "16.0", 15.238: "15.2", 4000: "4,000", 0.347: "0.347", 0.05: "0.0500", 0: "0.00", 1234567: "1,234,567"} {
		if got := human.Number(in); got != want {
			t.Errorf("human.Number(%v) = %q, want %q", in, got, want)
		}
	}
	for in, want := range map[float64]string{40: "$40.00", 1234.5: "$1,234.50", 0.3472: "$0.347", 0.0004: "$0.000400"} {
		if got := formatMoney("", in); got != want {
			t.Errorf("formatMoney(%v) = %q, want %q", in, got, want)
		}
	}
	if got := seconds(0.85); got != "850 ms" {
		t.Errorf("seconds(0.85) = %q", got)
	}
}

// The quotient under the ceiling is written with the digits that show why
// the replicas are what they are: 100.01 ÷ 10 = 10.001 needs 11, which
// "⌈10.0⌉ = 11" would seem to contradict, and 1,000.5 ÷ 3 = 333.5 needs
// 334, which "⌈334⌉" hides; a quotient that is a whole number up to the
// float noise of the products before it (80 × 1.2 ÷ 16) reads as one.
func TestReplicaQuotient(t *testing.T) {
	for _, tt := range []struct {
		in       Input
		replicas int
		want     string
	}{
		{Input{PerReplicaQPS: 10, PeakQPS: 100.01}, 11, "⌈10.001⌉ = 11"},
		{Input{PerReplicaQPS: 3, PeakQPS: 1000.5}, 334, "⌈333.5⌉ = 334"},
		{Input{PerReplicaQPS: 10, PeakQPS: 100.4}, 11, "⌈10.04⌉ = 11"},
		{Input{PerReplicaQPS: 16, PeakQPS: 80, Headroom: 0.2}, 6, "⌈6.00⌉ = 6"},
		{Input{PerReplicaQPS: 2.5, PeakQPS: 2}, 1, "⌈0.800⌉ = 1"},
		{Input{PerReplicaQPS: 16, PeakQPS: 120}, 8, "⌈7.50⌉ = 8"},
		{Input{PerReplicaQPS: 1, PeakQPS: 1000.2}, 1001, "⌈1,000.2⌉ = 1,001"},
	} {
		p, err := Compute(tt.in)
		if err != nil {
			t.Fatal(err)
		}
		if p.Replicas != tt.replicas || !strings.Contains(p.Explain(), tt.want) {
			t.Errorf("%+v: %d replicas, want %d; Explain lacks %q:\n%s", tt.in, p.Replicas, tt.replicas, tt.want, p.Explain())
		}
	}
}
