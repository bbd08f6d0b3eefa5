package capacity

import (
	"math"
	"strings"
	"testing"
	"time"
)

func near(a, b float64) bool {
	if math.IsNaN(a) || math.IsNaN(b) {
		return math.IsNaN(a) && math.IsNaN(b)
	}
	return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b))
}

func TestComputeReplicas(t *testing.T) {
	tests := []struct {
		name     string
		in       Input
		qps      float64 // per-replica QPS
		demand   float64
		replicas int
		util     float64
	}{
		// The seed's example: 64 slots ÷ 4 s = 16 QPS per replica; 100 QPS
		// at peak needs ⌈6.25⌉ = 7 replicas, each then at 100/112 = 89 %.
		{"64 slots over 4 s", Input{MaxNumSeqs: 64, Latency: 4 * time.Second, PeakQPS: 100},
			16, 100, 7, 100.0 / 112},
		// 20 % headroom: ⌈100 × 1.2 ÷ 16⌉ = ⌈7.5⌉ = 8, each at 100/128 = 78 %.
		{"20 % headroom", Input{MaxNumSeqs: 64, Latency: 4 * time.Second, PeakQPS: 100, Headroom: 0.2},
			16, 120, 8, 100.0 / 128},
		// 50 × 1.1 ÷ 5 is 11.000000000000002 in floating point: exactly
		// 11 replicas, not 12.
		{"exact multiple", Input{PerReplicaQPS: 5, PeakQPS: 50, Headroom: 0.1}, 5, 55, 11, 50.0 / 55},
		// A peak below one replica's rate still needs one replica.
		{"tiny peak", Input{PerReplicaQPS: 16, PeakQPS: 1e-12}, 16, 1e-12, 1, 1e-12 / 16},
		// Given QPS wins over Little's Law; both are kept.
		{"given QPS", Input{PerReplicaQPS: 15, MaxNumSeqs: 64, Latency: 4200 * time.Millisecond, PeakQPS: 100},
			15, 100, 7, 100.0 / 105},
		// No peak: one replica's figures only.
		{"no peak", Input{MaxNumSeqs: 8, Latency: 500 * time.Millisecond}, 16, math.NaN(), 0, math.NaN()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := Compute(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			if !near(p.PerReplicaQPS, tt.qps) || !near(p.DemandQPS, tt.demand) || p.Replicas != tt.replicas || !near(p.Utilisation, tt.util) {
				t.Errorf("got %v QPS, demand %v, %d replicas at %v; want %v, %v, %d at %v",
					p.PerReplicaQPS, p.DemandQPS, p.Replicas, p.Utilisation, tt.qps, tt.demand, tt.replicas, tt.util)
			}
		})
	}
}

func TestComputeLittleCheck(t *testing.T) {
	p, err := Compute(Input{PerReplicaQPS: 15, MaxNumSeqs: 64, Latency: 4200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	// 64 ÷ 4.2 s = 15.238 req/s.
	if !near(p.LittleQPS, 64/4.2) || p.PerReplicaQPS != 15 {
		t.Errorf("Little %v, used %v; want 15.238 and 15", p.LittleQPS, p.PerReplicaQPS)
	}
	p, _ = Compute(Input{PerReplicaQPS: 15})
	if !math.IsNaN(p.LittleQPS) {
		t.Errorf("Little QPS without max-num-seqs = %v, want NaN", p.LittleQPS)
	}
}

func TestComputeTokensAndCost(t *testing.T) {
	// By hand: 16 QPS × 250 tokens = 4,000 tok/s per replica. Two GPUs at
	// $2.50 make $5.00 a replica-hour, and a replica makes 4,000 × 3,600 =
	// 14.4 M tokens an hour: $5 ÷ 14.4 = $0.34722 per million. With 20 %
	// headroom the fleet is 8 replicas, $40.00 an hour, 32,000 tok/s of
	// capacity; at the 100 QPS peak it emits 25,000 tok/s = 90 M an hour:
	// $40 ÷ 90 = $0.44444 per million.
	in := Input{MaxNumSeqs: 64, Latency: 4 * time.Second, PeakQPS: 100, Headroom: 0.2,
		OutputTokensPerRequest: 250, GPUHourCost: 2.5, GPUsPerReplica: 2}
	p, err := Compute(in)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name      string
		got, want float64
	}{
		{"tokens per request", p.TokensPerRequest, 250},
		{"replica tok/s", p.ReplicaTokensPerSecond, 4000},
		{"fleet tok/s", p.FleetTokensPerSecond, 32000},
		{"peak tok/s", p.PeakTokensPerSecond, 25000},
		{"replica-hour", p.ReplicaHourCost, 5},
		{"fleet-hour", p.FleetHourCost, 40},
		{"per million", p.CostPerMillion, 5.0 / 14.4},
		{"per million at peak", p.PeakCostPerMillion, 40.0 / 90},
	}
	for _, tt := range tests {
		if !near(tt.got, tt.want) {
			t.Errorf("%s = %v, want %v", tt.name, tt.got, tt.want)
		}
	}

	// A replica's token rate gives the tokens per request: 3,000 tok/s at
	// 15 QPS is 200 tokens a request; one GPU at $2 gives $2 ÷ (3,000 ×
	// 3,600) × 1e6 = $0.18519 per million.
	p, err = Compute(Input{PerReplicaQPS: 15, ReplicaTokensPerSecond: 3000, GPUHourCost: 2})
	if err != nil {
		t.Fatal(err)
	}
	if !near(p.TokensPerRequest, 200) || p.GPUsPerReplica != 1 {
		t.Errorf("measured tokens: %v per request, %d GPUs, %v per million", p.TokensPerRequest, p.GPUsPerReplica, p.CostPerMillion)
	}
	if !near(p.CostPerMillion, 0.1851851851851852) {
		t.Errorf("per million = %v, want 0.185185", p.CostPerMillion)
	}

	// A cost without token counts: hourly figures only.
	p, _ = Compute(Input{PerReplicaQPS: 15, PeakQPS: 30, GPUHourCost: 2})
	if p.ReplicaHourCost != 2 || p.FleetHourCost != 4 || !math.IsNaN(p.CostPerMillion) || !math.IsNaN(p.PeakCostPerMillion) {
		t.Errorf("cost without tokens: %+v", p)
	}
}

func TestComputeErrors(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	tests := []struct {
		name string
		in   Input
		err  string
	}{
		{"nothing", Input{PeakQPS: 10}, "no per-replica throughput"},
		{"zero latency", Input{MaxNumSeqs: 64}, "--max-num-seqs 64 needs --latency"},
		{"negative latency", Input{MaxNumSeqs: 64, Latency: -time.Second}, "--latency -1s: must be positive"},
		{"latency alone", Input{Latency: time.Second}, "--latency 1s needs --max-num-seqs"},
		{"negative slots", Input{MaxNumSeqs: -1, Latency: time.Second}, "--max-num-seqs -1"},
		{"nan QPS", Input{PerReplicaQPS: nan}, "--per-replica-qps NaN"},
		{"inf QPS", Input{PerReplicaQPS: inf}, "--per-replica-qps +Inf"},
		{"negative QPS", Input{PerReplicaQPS: -2}, "--per-replica-qps -2"},
		{"nan peak", Input{PerReplicaQPS: 1, PeakQPS: nan}, "--peak-qps NaN"},
		{"negative peak", Input{PerReplicaQPS: 1, PeakQPS: -5}, "--peak-qps -5: must be positive"},
		{"negative headroom", Input{PerReplicaQPS: 1, Headroom: -0.1}, "--headroom -0.1"},
		{"nan cost", Input{PerReplicaQPS: 1, GPUHourCost: nan}, "--gpu-hour-cost NaN"},
		// A price past any GPU's, or costs past any budget: never
		// $+Inf an hour, nor an amount of hundreds of digits.
		{"a price past any GPU's", Input{PerReplicaQPS: 15, PeakQPS: 100, OutputTokensPerRequest: 1, GPUHourCost: 1e308},
			"--gpu-hour-cost 1e+308: more than 1e+09, which no GPU costs an hour in any currency"},
		{"costs past any budget", Input{PerReplicaQPS: 15, PeakQPS: 100, OutputTokensPerRequest: 1e-300, GPUHourCost: 3},
			"--gpu-hour-cost 3: a cost it gives, 5.56e+301, passes any budget (1e+15): check the price and the token figures"},
		{"negative GPUs", Input{PerReplicaQPS: 1, GPUsPerReplica: -1}, "--gpus-per-replica -1"},
		{"negative tokens", Input{PerReplicaQPS: 1, OutputTokensPerRequest: -1}, "--output-tokens -1"},
		{"nan token rate", Input{PerReplicaQPS: 1, ReplicaTokensPerSecond: nan}, "--output-throughput NaN"},
		// Both token figures: one would silently lose.
		{"tokens twice", Input{PerReplicaQPS: 15, OutputTokensPerRequest: 250, ReplicaTokensPerSecond: 3000},
			"--output-tokens 250 and --output-throughput 3000: give one"},
		// Rates no replica reaches, refused as a sweep file holding them
		// is (sweep.MaxRequestThroughput, sweep.MaxTokenThroughput), never
		// printed as "64,000,000,000 req/s per replica" or "1e+301 output
		// tok/s of capacity". A latency typed in the wrong unit is the
		// usual cause.
		{"a rate past any replica's", Input{PerReplicaQPS: 1e12, PeakQPS: 1}, "--per-replica-qps 1e+12: above 1e7 req/s"},
		{"a latency too short for any replica", Input{MaxNumSeqs: 64, Latency: time.Nanosecond, PeakQPS: 1},
			"--max-num-seqs 64 ÷ --latency 1ns = 6.4e+10 req/s per replica: above 1e7 req/s"},
		{"tokens past any replica's", Input{PerReplicaQPS: 10, OutputTokensPerRequest: 1e300, PeakQPS: 10},
			"--output-tokens 1e+300: 1e+301 tok/s per replica, above 1e9 tok/s"},
		{"a token rate past any replica's", Input{PerReplicaQPS: 10, ReplicaTokensPerSecond: 1e300, PeakQPS: 10},
			"--output-throughput 1e+300: above 1e9 tok/s"},
		// More replicas than any fleet.
		{"overflow", Input{PerReplicaQPS: 1e-300, PeakQPS: 1e300}, "more than 1073741824 replicas"},
	}
	for _, tt := range tests {
		if _, err := Compute(tt.in); err == nil || !strings.Contains(err.Error(), tt.err) {
			t.Errorf("%s: error = %v, want one containing %q", tt.name, err, tt.err)
		}
	}
	// Every problem at once.
	err := Input{PerReplicaQPS: -1, PeakQPS: -1}.Validate()
	if err == nil || !strings.Contains(err.Error(), "--per-replica-qps") || !strings.Contains(err.Error(), "--peak-qps") {
		t.Errorf("two problems reported as %v", err)
	}
}
