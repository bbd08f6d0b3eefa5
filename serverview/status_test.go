package serverview

import (
	"testing"
	"time"

	"github.com/goodput-dev/goodput/promscrape"
)

func f(v float64) *float64 { return &v }

func TestAssess(t *testing.T) {
	vllm := promscrape.VLLM
	down0 := time.Date(2026, 11, 30, 9, 15, 2, 0, time.UTC)
	tests := []struct {
		name  string
		in    Signals
		level Level
		text  string
	}{
		// A failed scrape that is not a refusal or a timeout says nothing
		// about the server: unknown, with why.
		{"scrape failed", Signals{Err: "scrape http://h/metrics: http 500", ErrKind: promscrape.FailStatus, Engine: vllm, Running: f(3), Seen: true},
			LevelUnknown, "no metrics: scrape http://h/metrics: http 500"},
		// A server seen before that refuses: unreachable since its first
		// refusal, never its last good status.
		{"unreachable", Signals{Err: "scrape http://h/metrics: connection refused", ErrKind: promscrape.FailDown,
			DownSince: down0, At: down0.Add(12 * time.Second), Seen: true, Engine: vllm, Running: f(3)},
			LevelCritical, "unreachable since " + down0.Local().Format("15:04:05") + " (12 s): scrape http://h/metrics: connection refused"},
		// Never seen: unknown, though the words are the same.
		{"never reached", Signals{Err: "scrape http://h/metrics: timeout", ErrKind: promscrape.FailTimeout, DownSince: down0, At: down0},
			LevelUnknown, "unreachable since " + down0.Local().Format("15:04:05") + ": scrape http://h/metrics: timeout"},
		// Metrics, but none a known engine exports.
		{"unknown engine", Signals{Running: f(3)},
			LevelUnknown, "no known engine metrics (vllm:, sglang:, tgi_, llamacpp:) at this URL"},
		// Engine known but none of the three gauges the status reads.
		{"no gauges", Signals{Engine: vllm},
			LevelUnknown, "the server exports no running, waiting or KV cache metric"},
		// The example: the queue grew by 40 over 30 s while TTFT
		// p99 tripled.
		{"past the knee", Signals{Engine: vllm, Running: f(256), Waiting: f(48), KVCacheUsage: f(0.8),
			QueueFor: 30 * time.Second, QueueRise: 40, TTFTP99: f(0.9), TTFTP99Before: f(0.3)},
			LevelCritical, "queue has grown by 40 over 30 s while TTFT p99 rose 3×: past the knee — scale out"},
		// Growing queue, TTFT p99 up only 1.2×: the rise is not named.
		{"growing, ttft flat", Signals{Engine: vllm, Running: f(256), Waiting: f(12),
			QueueFor: 4500 * time.Millisecond, QueueRise: 9, TTFTP99: f(0.36), TTFTP99Before: f(0.3)},
			LevelCritical, "queue has grown by 9 over 4.5 s: past the knee — scale out"},
		// Growing queue with no earlier TTFT to compare with.
		{"growing, no earlier ttft", Signals{Engine: vllm, Waiting: f(5), QueueFor: 3 * time.Second, QueueRise: 4, TTFTP99: f(1)},
			LevelCritical, "queue has grown by 4 over 3 s: past the knee — scale out"},
		// Earlier TTFT p99 zero: no ratio can be drawn (no division by zero).
		{"growing, earlier ttft zero", Signals{Engine: vllm, Waiting: f(5), QueueFor: 3 * time.Second, QueueRise: 4, TTFTP99: f(1), TTFTP99Before: f(0)},
			LevelCritical, "queue has grown by 4 over 3 s: past the knee — scale out"},
		// A closed loop of 32 against one slot fills the queue to 31 as
		// its requests arrive: a rise, but one its bound holds, so the
		// server is queueing at capacity, not past its knee.
		{"rise within the client's bound", Signals{Engine: promscrape.LlamaCpp, Running: f(1), Waiting: f(28), QueueFor: 5 * time.Second, QueueRise: 20, ClientTTFTP99: f(4), Bound: 32},
			LevelWarn, "queueing: 28 waiting for 1 running, TTFT p99 4 s: requests wait for a free slot — at capacity"},
		// The server holds more than the bounded client sent: others'
		// requests grow the queue, and it is past the knee.
		{"rise beyond the client's bound", Signals{Engine: promscrape.LlamaCpp, Running: f(1), Waiting: f(40), QueueFor: 5 * time.Second, QueueRise: 20, ClientTTFTP99: f(4), Bound: 32},
			LevelCritical, "queue has grown by 20 over 5 s: past the knee — scale out"},
		// A rise of 1.9 requests is below MinQueueRise: scheduling noise, so
		// the queue is steady and the server at capacity.
		{"rise below minimum", Signals{Engine: vllm, Running: f(8), Waiting: f(3), KVCacheUsage: f(0.5), QueueFor: 30 * time.Second, QueueRise: 1.9},
			LevelWarn, "at capacity: 3 waiting, queue steady, KV 50 %"},
		// A long queue that rose by 10 (under a quarter of 48) is steady,
		// but six times the batch waits: queueing.
		{"rise below share", Signals{Engine: vllm, Running: f(8), Waiting: f(48), QueueFor: 30 * time.Second, QueueRise: 10},
			LevelWarn, "queueing: 48 waiting for 8 running: requests wait for a free slot — at capacity"},
		// A shrinking queue (negative rise) is not growing.
		{"queue draining", Signals{Engine: vllm, Running: f(8), Waiting: f(12), KVCacheUsage: f(0.61), QueueFor: 30 * time.Second, QueueRise: -15},
			LevelWarn, "at capacity: 12 waiting, queue steady, KV 61 %"},
		// The simulator's overload seen once as "healthy: 917 waiting,
		// briefly": the requests that finished had queued little, the
		// 917 waiting had not finished, and TTFT p99 was 29 s.
		{"queueing despite a low share", Signals{Engine: vllm, Running: f(256), Waiting: f(917), QueueShare: f(0.02), TTFTP99: f(29)},
			LevelWarn, "queueing: 917 waiting for 256 running, TTFT p99 29 s: requests wait for a free slot — at capacity"},
		// And when that queue grows, it is past the knee.
		{"growing queue despite a low share", Signals{Engine: vllm, Running: f(256), Waiting: f(917), QueueShare: f(0.02), TTFTP99: f(29),
			QueueFor: 20 * time.Second, QueueRise: 600},
			LevelCritical, "queue has grown by 600 over 20 s: past the knee — scale out"},
		// llama.cpp under overload (one slot, 32 requests): no TTFT
		// histogram, the client's TTFT p99 confirms it.
		{"llama.cpp queueing", Signals{Engine: promscrape.LlamaCpp, Running: f(1), Waiting: f(29.1), ClientTTFTP99: f(3.02)},
			LevelWarn, "queueing: 29.1 waiting for 1 running, TTFT p99 3 s: requests wait for a free slot — at capacity"},
		// Twice the batch waits but TTFT p99 is fast: passing through.
		// (No span of the queue was seen: nothing says it is steady.)
		{"waiting, ttft fast", Signals{Engine: vllm, Running: f(1), Waiting: f(3), TTFTP99: f(0.2)},
			LevelWarn, "at capacity: 3 waiting"},
		// A rise with no time span cannot be a trend, nor can its absence.
		{"rise without span", Signals{Engine: vllm, Waiting: f(20), QueueRise: 15},
			LevelWarn, "at capacity: 20 waiting"},
		{"waiting, seen over a span", Signals{Engine: vllm, Running: f(1), Waiting: f(3), TTFTP99: f(0.2), QueueFor: 10 * time.Second},
			LevelWarn, "at capacity: 3 waiting, queue steady"},
		// Growing, and requests spend a third of their latency queued.
		{"growing, queue share high", Signals{Engine: vllm, Running: f(256), Waiting: f(48), QueueShare: f(0.35),
			QueueFor: 30 * time.Second, QueueRise: 40},
			LevelCritical, "queue has grown by 40 over 30 s: past the knee — scale out"},
		// A "growth" of a few requests that each wait a step: noise on a
		// healthy server, which the queue share exposes.
		{"growing, queue share low", Signals{Engine: vllm, Running: f(64), Waiting: f(4), KVCacheUsage: f(0.4), QueueShare: f(0.03),
			QueueFor: 2 * time.Second, QueueRise: 3},
			LevelOK, "healthy: 4 waiting, briefly (3 % of latency queued), KV 40 %"},
		// Requests arriving faster than steps: a mean of 1.3 waiting, for
		// 1 % of their latency.
		{"waiting briefly", Signals{Engine: vllm, Running: f(28), Waiting: f(1.3), KVCacheUsage: f(0.002), QueueShare: f(0.01)},
			LevelOK, "healthy: 1.3 waiting, briefly (1 % of latency queued), KV 0 %"},
		// Exactly QueueShareLow is no longer brief.
		{"queue share at threshold", Signals{Engine: vllm, Running: f(16), Waiting: f(16), QueueShare: f(0.1)},
			LevelWarn, "at capacity: 16 waiting (10 % of latency queued)"},
		// Requests waiting spend a third of their time in the queue.
		{"at capacity with share", Signals{Engine: vllm, Running: f(16), Waiting: f(28), KVCacheUsage: f(0.63), QueueShare: f(0.35)},
			LevelWarn, "at capacity: 28 waiting (35 % of latency queued), KV 63 %"},
		// Preemptions come before the KV threshold: they already happen.
		{"preempting", Signals{Engine: vllm, Running: f(200), Waiting: f(0), KVCacheUsage: f(0.97), PreemptionsPerSecond: f(1.234)},
			LevelWarn, "preempting 1.23 requests/s with KV 97 %: KV cache exhausted — lower max-num-seqs or add KV memory"},
		// Preemptions with no KV gauge.
		{"preempting, kv unknown", Signals{Engine: vllm, Running: f(200), Waiting: f(0), PreemptionsPerSecond: f(12.4)},
			LevelWarn, "preempting 12 requests/s: KV cache exhausted — lower max-num-seqs or add KV memory"},
		// KV exactly at the threshold counts as above it.
		{"kv at 90 %", Signals{Engine: vllm, Running: f(64), Waiting: f(0), KVCacheUsage: f(0.9), PreemptionsPerSecond: f(0)},
			LevelWarn, "KV cache above 90 % (90 %): preemptions likely"},
		// KV just under the threshold, nothing waiting: healthy.
		{"kv just under", Signals{Engine: vllm, Running: f(64), Waiting: f(0), KVCacheUsage: f(0.899)},
			LevelOK, "healthy: nothing waiting, KV 90 %"},
		// An example of a healthy server.
		{"healthy", Signals{Engine: vllm, Running: f(32), Waiting: f(0), KVCacheUsage: f(0.42)},
			LevelOK, "healthy: nothing waiting, KV 42 %"},
		// A run's mean waiting under half a request rounds to nothing waiting.
		{"mean waiting under half", Signals{Engine: vllm, Running: f(30.2), Waiting: f(0.4), KVCacheUsage: f(0.1)},
			LevelOK, "healthy: nothing waiting, KV 10 %"},
		// A run's mean of 2.5 waiting is at capacity, printed to a tenth.
		{"mean waiting fractional", Signals{Engine: vllm, Running: f(8), Waiting: f(2.5)},
			LevelWarn, "at capacity: 2.5 waiting"},
		// Nothing at all: idle.
		{"idle", Signals{Engine: vllm, Running: f(0), Waiting: f(0), KVCacheUsage: f(0)},
			LevelOK, "idle: nothing running or waiting, KV 0 %"},
		// An engine without a waiting gauge cannot say nothing waits.
		{"waiting not exported", Signals{Engine: promscrape.LlamaCpp, Running: f(4)},
			LevelOK, "serving: 4 running (waiting not exported)"},
		// Only KV exported: no claim about the queue.
		{"only kv", Signals{Engine: promscrape.SGLang, KVCacheUsage: f(0.3)},
			LevelOK, "serving (running and waiting not exported), KV 30 %"},
		// One preemption in a ten-minute run still shows.
		{"rare preemption", Signals{Engine: vllm, Running: f(30), Waiting: f(0), PreemptionsPerSecond: f(1.0 / 600)},
			LevelWarn, "preempting 0.0017 requests/s: KV cache exhausted — lower max-num-seqs or add KV memory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Assess(tt.in)
			if got.Level != tt.level || got.Text != tt.text {
				t.Errorf("Assess = %s %q\nwant       %s %q", got.Level, got.Text, tt.level, tt.text)
			}
		})
	}
}

func TestSecondsAndRatio(t *testing.T) {
	tests := []struct {
		d    time.Duration
		want string
	}{
		{0, "0 s"},                        // zero
		{400 * time.Millisecond, "0.4 s"}, // under a second, to a tenth
		{3 * time.Second, "3 s"},          // whole: no ".0"
		{9949 * time.Millisecond, "9.9 s"},
		{29600 * time.Millisecond, "30 s"}, // from ten up, whole seconds
	}
	for _, tt := range tests {
		if got := seconds(tt.d); got != tt.want {
			t.Errorf("seconds(%v) = %q, want %q", tt.d, got, tt.want)
		}
	}
	for r, want := range map[float64]string{3: "3", 2.96: "3", 2.54: "2.5", 1.5: "1.5"} {
		if got := ratio(r); got != want {
			t.Errorf("ratio(%v) = %q, want %q", r, got, want)
		}
	}
}
