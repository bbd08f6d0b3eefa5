package cli

import (
	"strings"
	"testing"
)

// mooncake40 is the first 40 rows of Mooncake's conversation trace (see
// trace/testdata/README.md for its source and licence).
const mooncake40 = "../../trace/testdata/mooncake_conversation_first40.jsonl"

func TestBenchTraceDryRun(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want []string
	}{
		{"whole trace by default, even on the simulator", nil, []string{
			"Load: open loop: replay of trace " + mooncake40 + " at its own speed\n",
			"schedule: 40 requests from 0s to 12s",
			"Workload: mooncake trace " + mooncake40 + ": 40 rows over 12s",
			"output enforced with max_tokens and ignore_eos",
		}},
		{"a speed-up", []string{"--trace-speedup", "4"}, []string{"at 4× its speed", "40 requests from 0s to 3s"}},
		// 40 rows over 12 s are 3.25 req/s; 13 req/s is 4 times faster.
		{"a rate", []string{"--request-rate", "13"}, []string{"at a mean of 13 req/s (4× its speed)", "40 requests from 0s to 3s"}},
		{"the first rows", []string{"--num-prompts", "10"}, []string{"stops after 10 requests", "schedule: 10 requests from 0s to 0s", "10 rows over 0s"}},
		{"a window", []string{"--trace-start", "3s", "--trace-duration", "3s"}, []string{"schedule: 19 requests from 0s to 2.999s", "19 rows from 3s for 3s over 2.999s"}},
		{"a cap in flight", []string{"--max-concurrency", "4"}, []string{"at most 4 in flight"}},
	}
	for _, tt := range tests {
		args := append([]string{"bench", "--dry-run", "--dataset-name", "trace", "--dataset-path", mooncake40}, tt.args...)
		out, errOut, code := run(t, "", args...)
		if code != ExitOK {
			t.Fatalf("%s: exit %d: %s", tt.name, code, errOut)
		}
		for _, w := range tt.want {
			if !strings.Contains(out, w) {
				t.Errorf("%s: output lacks %q:\n%s", tt.name, w, out)
			}
		}
	}
}

func TestBenchTraceUsageErrors(t *testing.T) {
	trace := []string{"bench", "--dataset-name", "trace", "--dataset-path", mooncake40}
	tests := []struct {
		args []string
		want string
	}{
		{append(trace, "--trace-speedup", "2", "--request-rate", "5"), "--trace-speedup and --request-rate both set a replay's speed"},
		{append(trace, "--trace-speedup", "-2"), "--trace-speedup must be a positive finite factor"},
		{append(trace, "--trace-format", "parquet"), `--trace-format "parquet" is unknown`},
		{append(trace, "--burstiness", "0.5"), "--arrival and --burstiness do not apply to a replay"},
		{append(trace, "--trace-length-scale", "-1"), "--trace-length-scale must be in (0, 1000]"},
		// Zero is no default in disguise.
		{append(trace, "--trace-speedup", "0"), "--trace-speedup 0: must be positive"},
		{append(trace, "--trace-length-scale", "0"), "--trace-length-scale 0: must be positive"},
		{append(trace, "--trace-block-size", "0"), "--trace-block-size 0: must be positive"},
		{[]string{"bench", "--dataset-name", "trace"}, "--dataset-name trace needs --dataset-path"},
		{[]string{"bench", "--dataset-name", "trace", "--dataset-path", "no-such.jsonl"}, "--dataset-path: stat no-such.jsonl"},
		{[]string{"bench", "--trace-speedup", "3"}, "--trace-speedup applies only to a replay"},
	}
	for _, tc := range tests {
		_, errOut, code := run(t, "", tc.args...)
		if code != ExitUsage || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, %q; want 2 and %q", tc.args, code, errOut, tc.want)
		}
	}
}

// TestBenchTraceOnTheSimulator replays the 40 rows 20 times faster, their
// lengths scaled by 1/16, on the built-in simulator: every row is sent and
// answered with its own output length, and the summary sets the trace's
// theoretical hit rate beside the server's.
func TestBenchTraceOnTheSimulator(t *testing.T) {
	out, errOut, code := run(t, "", "bench", "--quiet", "--dataset-name", "trace", "--dataset-path", mooncake40,
		"--trace-speedup", "20", "--trace-length-scale", "0.0625", "--scrape-interval", "100ms")
	if code != ExitOK {
		t.Fatalf("exit %d: %s\n%s", code, errOut, out)
	}
	// 14,962 output tokens over the 40 rows, each scaled by 1/16 and
	// rounded half away from zero: 939.
	for _, want := range []string{"Successful requests:                     40", "Total generated tokens:                  939",
		"Prefix cache hit rate:", "Trace's theoretical hit rate:            "} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

func TestBenchServeGenDryRun(t *testing.T) {
	out, errOut, code := run(t, "", "bench", "--dry-run", "--dataset-name", "servegen",
		"--dataset-path", "../../servegen/testdata/small/chunk-0-trace.csv", "--num-prompts", "50", "--trace-speedup", "10")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{
		"Load: open loop: replay of the arrivals ServeGen's rate windows give in ../../servegen/testdata/small/chunk-0-trace.csv at 10× its speed",
		"stops after 50 requests", "schedule: 50 requests",
		"Workload: servegen ../../servegen/testdata/small/chunk-0-trace.csv: 1 client", "50 arrivals",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

func TestBenchSystemPrompts(t *testing.T) {
	out, errOut, code := run(t, "", "bench", "--dry-run", "--system-prompts", "50", "--system-prompt-len", "100", "--num-prompts", "10")
	if code != ExitOK || !strings.Contains(out, "behind one of 50 system prompts of 100 tokens chosen with Zipf popularity 1") {
		t.Errorf("exit %d: %s%s", code, out, errOut)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"bench", "--system-prompt-len", "100"}, "--system-prompt-len shapes the system prompts of --system-prompts N: give it too"},
		{[]string{"bench", "--system-prompt-zipf", "2"}, "--system-prompt-zipf shapes the system prompts"},
		{[]string{"bench", "--system-prompts", "5", "--system-prompt-zipf", "-1"}, "--system-prompt-zipf must be in [0, 10]"},
		{[]string{"bench", "--system-prompts", "5", "--dataset-name", "trace", "--dataset-path", mooncake40}, "a trace's prompts and their shared blocks are the trace's own"},
		{[]string{"sweep", "--system-prompt-len", "100", "--concurrency", "1"}, "--system-prompt-len shapes the system prompts"},
	} {
		_, errOut, code := run(t, "", tc.args...)
		if code != ExitUsage || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, %q; want 2 and %q", tc.args, code, errOut, tc.want)
		}
	}
}
