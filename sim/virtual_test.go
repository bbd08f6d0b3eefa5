package sim

import (
	"context"
	"errors"
	"math"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/record"
)

func TestVirtualRecordShape(t *testing.T) {
	recs, err := RunVirtual(Options{}, []VirtualRequest{{At: time.Second, PromptTokens: 200, MaxTokens: 50, IgnoreEOS: true}})
	if err != nil {
		t.Fatal(err)
	}
	r := recs[0]
	if r.Seq != 0 || r.Scheduled != int64(time.Second) || r.Sent != r.Scheduled {
		t.Errorf("seq %d scheduled %d sent %d; want 0, 1s, 1s", r.Seq, r.Scheduled, r.Sent)
	}
	if r.Status != http.StatusOK || !r.OK() || r.Finish != "length" || r.TokenSource != record.SourceUsage {
		t.Errorf("status %d error %q finish %q source %q", r.Status, r.Error, r.Finish, r.TokenSource)
	}
	if r.InputTokens != 200 || r.OutputTokens != 50 || len(r.Chunks) != 50 {
		t.Fatalf("input %d output %d chunks %d; want 200, 50, 50", r.InputTokens, r.OutputTokens, len(r.Chunks))
	}
	for i, c := range r.Chunks {
		if c.Tokens != 1 || (i > 0 && c.At <= r.Chunks[i-1].At) {
			t.Fatalf("chunk %d = %+v after %+v: want one token, strictly later", i, c, r.Chunks[max(i-1, 0)])
		}
	}
	if last, _ := r.LastToken(); r.End != last {
		t.Errorf("end %d, last token %d: want equal", r.End, last)
	}
	// The first token comes after the front end and one prefill step of
	// 200 tokens, exactly as the front end and the cost model say.
	c := newCostModel(profileOf(t, "H100", "Llama-3.1-8B", 1))
	ready := newFrontEnd(DefaultCalibration, 0).admit(time.Second, 200, false)
	want := ready + c.duration(prefillShape(c, 200, true))
	if got := time.Duration(r.Chunks[0].At); got != want {
		t.Errorf("first token at %v, want %v", got, want)
	}
	// The front end costs its latency, and at least half its mean service
	// time (the service varies by ±50 %).
	if min := time.Second + DefaultCalibration.RequestOverhead + (DefaultCalibration.FrontEndService+200*DefaultCalibration.FrontEndPerToken)/2; ready < min {
		t.Errorf("ready at %v, want at least %v", ready, min)
	}
	// Every later token is one batch-1 decode step.
	if gap := time.Duration(r.Chunks[1].At - r.Chunks[0].At); gap != c.duration(decodeShape(c, 1, 200)) {
		t.Errorf("second token after %v, want one decode step of %v", gap, c.duration(decodeShape(c, 1, 200)))
	}
}

func TestVirtualOpenLoopOrderAndIdleGaps(t *testing.T) {
	// Given out of order, with a long idle gap: records come back in the
	// order of the requests, each starting at its own At.
	reqs := []VirtualRequest{
		{At: 10 * time.Second, PromptTokens: 10, MaxTokens: 5, IgnoreEOS: true},
		{At: 0, PromptTokens: 10, MaxTokens: 5, IgnoreEOS: true},
	}
	// Without the front end's service time, whose draws vary it, two
	// identical requests on an idle engine take exactly as long.
	cal := DefaultCalibration
	cal.FrontEndService, cal.FrontEndPerToken = 0, 0
	recs, err := RunVirtual(Options{Profile: Profile{Calibration: cal}}, reqs)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range recs {
		if r.Seq != int64(i) || r.Scheduled != int64(reqs[i].At) || r.OutputTokens != 5 {
			t.Errorf("record %d: seq %d scheduled %v output %d", i, r.Seq, time.Duration(r.Scheduled), r.OutputTokens)
		}
	}
	// Same work, same latency: the idle engine starts each one afresh.
	if a, b := recs[0].End-recs[0].Scheduled, recs[1].End-recs[1].Scheduled; a != b {
		t.Errorf("e2e %v and %v for identical requests on an idle engine", time.Duration(a), time.Duration(b))
	}
}

func TestVirtualClosedLoop(t *testing.T) {
	reqs := []VirtualRequest{
		{PromptTokens: 100, MaxTokens: 10, IgnoreEOS: true},
		{PromptTokens: 100, MaxTokens: 30, IgnoreEOS: true},
		{PromptTokens: 100, MaxTokens: 10, IgnoreEOS: true},
		{PromptTokens: 0, MaxTokens: 10}, // refused: frees its slot at once
		{PromptTokens: 100, MaxTokens: 10, IgnoreEOS: true},
	}
	recs, err := RunVirtualClosed(Options{}, 2, reqs)
	if err != nil {
		t.Fatal(err)
	}
	if recs[0].Scheduled != 0 || recs[1].Scheduled != 0 {
		t.Errorf("first two scheduled at %d and %d, want 0", recs[0].Scheduled, recs[1].Scheduled)
	}
	// Request 0 finishes first; its slot goes to request 2 at that moment.
	if recs[2].Scheduled != recs[0].End {
		t.Errorf("request 2 scheduled at %v, want request 0's end %v", time.Duration(recs[2].Scheduled), time.Duration(recs[0].End))
	}
	if recs[3].Status != http.StatusBadRequest || recs[3].Error != record.ErrHTTP || !strings.Contains(recs[3].Msg, "prompt is empty") {
		t.Errorf("empty prompt: status %d error %q msg %q", recs[3].Status, recs[3].Error, recs[3].Msg)
	}
	// The refusal is instant, so request 4 takes the same slot at once.
	if recs[4].Scheduled != recs[3].Scheduled || recs[4].OutputTokens != 10 {
		t.Errorf("request 4 scheduled at %v (refusal at %v), %d tokens", time.Duration(recs[4].Scheduled), time.Duration(recs[3].Scheduled), recs[4].OutputTokens)
	}
	if _, err := RunVirtualClosed(Options{}, 0, reqs); err == nil {
		t.Error("concurrency 0 accepted for a closed loop")
	}
}

func TestVirtualRefusals(t *testing.T) {
	tests := []struct {
		name string
		req  VirtualRequest
		want string
	}{
		{"empty prompt", VirtualRequest{MaxTokens: 5}, "prompt is empty"},
		{"negative max tokens", VirtualRequest{PromptTokens: 5, MaxTokens: -1}, "max_tokens must be at least 1"},
		{"over max model len", VirtualRequest{PromptTokens: 131000, MaxTokens: 100}, "maximum context length is 131072 tokens"},
		{"prompt alone too long", VirtualRequest{PromptTokens: 200000}, "your request has 200000 input tokens"},
		{"min above max", VirtualRequest{PromptTokens: 5, MaxTokens: 3, MinTokens: 4}, "min_tokens must be less than or equal to max_tokens=3"},
		{"negative min", VirtualRequest{PromptTokens: 5, MinTokens: -1}, "min_tokens must be greater than or equal to 0"},
		// Llama-3.1-8B, the default model, has 128,256 ids: 99,999 is one.
		{"token id out of vocabulary", VirtualRequest{Prompt: []int{99999, 128256}},
			"token id 128256 at position 1 is out of vocabulary (valid ids are 0 to 128255)"},
	}
	for _, tt := range tests {
		recs, err := RunVirtual(Options{}, []VirtualRequest{tt.req})
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if r := recs[0]; r.OK() || r.Status != 400 || !strings.Contains(r.Msg, tt.want) || r.End != r.Sent {
			t.Errorf("%s: status %d msg %q; want 400 with %q", tt.name, r.Status, r.Msg, tt.want)
		}
	}
}

func TestVirtualBadPlans(t *testing.T) {
	if _, err := RunVirtual(Options{}, []VirtualRequest{{At: -time.Second, PromptTokens: 1}}); err == nil || !strings.Contains(err.Error(), "arrival -1s is negative") {
		t.Errorf("negative arrival: %v", err)
	}
	if _, err := RunVirtual(Options{MaxNumSeqs: -1}, nil); err == nil {
		t.Error("invalid options accepted")
	}
	recs, err := RunVirtual(Options{}, nil)
	if err != nil || len(recs) != 0 {
		t.Errorf("empty plan: %v, %v", recs, err)
	}
	err = StreamVirtual(context.Background(), Options{}, VirtualPlan{Concurrency: -1}, nil)
	if err == nil {
		t.Error("negative concurrency accepted")
	}
}

func TestVirtualStopsOnEmitErrorAndCancel(t *testing.T) {
	stop := errors.New("enough")
	n := 0
	err := StreamVirtual(context.Background(), Options{}, VirtualPlan{Requests: shortChat(20, 1), Concurrency: 4},
		func(*record.Record) error {
			if n++; n == 3 {
				return stop
			}
			return nil
		})
	if !errors.Is(err, stop) || n != 3 {
		t.Errorf("emit error: got %v after %d records, want %v after 3", err, n, stop)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err = StreamVirtual(ctx, Options{}, VirtualPlan{Requests: shortChat(20, 1), Concurrency: 4}, func(*record.Record) error { return nil })
	if !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled run returned %v", err)
	}
}

func TestVirtualIsDeterministic(t *testing.T) {
	reqs := shareGPTLike(300, 20, 3)
	for i := range reqs {
		reqs[i].IgnoreEOS = i%2 == 0 // half the lengths are drawn
	}
	a, err := RunVirtual(Options{Seed: 7}, reqs)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := RunVirtual(Options{Seed: 7}, reqs)
	if !reflect.DeepEqual(a, b) {
		t.Error("two runs with the same seed differ")
	}
	c, _ := RunVirtual(Options{Seed: 8}, reqs)
	if reflect.DeepEqual(a, c) {
		t.Error("a different seed changed nothing")
	}
}

func TestVirtualOutputLengthDistribution(t *testing.T) {
	reqs := make([]VirtualRequest, 4000)
	for i := range reqs {
		reqs[i] = VirtualRequest{At: time.Duration(i) * time.Second, PromptTokens: 8, MaxTokens: 100000}
	}
	recs, err := RunVirtual(Options{OutputLenMean: 100}, reqs)
	if err != nil {
		t.Fatal(err)
	}
	sum, stops := 0, 0
	for _, r := range recs {
		sum += r.OutputTokens
		if r.Finish == "stop" {
			stops++
		}
	}
	// Geometric with mean 100: the sample mean of 4,000 is within 5 % with
	// overwhelming probability (standard error ≈ 1.6 %).
	if mean := float64(sum) / 4000; math.Abs(mean-100) > 5 || stops != 4000 {
		t.Errorf("mean output %.1f tokens, %d of 4000 stopped naturally; want about 100, all", mean, stops)
	}
}

// TestReferencePoints checks one request's decode and first token against
// the reference points for Llama-3.1-8B bf16 on one H100 with short chat
// prompts (concurrency 1: TPOT 6.48 ms, TTFT 14 ms). Before the cost model
// was refitted under load the simulator gave 6.51 ms per token there; it
// must stay within 5 % of that. The points under load are in the
// calibration report (package calibration).
func TestReferencePoints(t *testing.T) {
	c1, err := RunVirtualClosed(Options{}, 1, shortChat(20, 1))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name      string
		got, want float64
		tolerance float64 // relative
	}{
		{"concurrency 1 TPOT (ms)", percentile(tpots(c1), 50), 6.51, 0.05},
		{"concurrency 1 TTFT (ms)", percentile(ttfts(c1), 50), 14, 0.30},
	}
	for _, tt := range tests {
		if math.Abs(tt.got-tt.want)/tt.want > tt.tolerance {
			t.Errorf("%s = %.2f, want %.2f ± %.0f %%", tt.name, tt.got, tt.want, tt.tolerance*100)
		} else {
			t.Logf("%s = %.2f (reference %.2f)", tt.name, tt.got, tt.want)
		}
	}
}

// TestConcurrencySweepHasAKnee sweeps closed-loop concurrency: throughput
// must rise and then saturate while TTFT and TPOT keep climbing.
func TestConcurrencySweepHasAKnee(t *testing.T) {
	levels := []int{1, 4, 16, 64, 256, 1024}
	var thr, ttft, tpot []float64
	for _, c := range levels {
		recs, err := RunVirtualClosed(Options{MaxNumSeqs: 256}, c, shortChat(3*c+20, uint64(c)))
		if err != nil {
			t.Fatal(err)
		}
		thr = append(thr, throughput(recs))
		ttft = append(ttft, percentile(ttfts(recs), 50))
		tpot = append(tpot, percentile(tpots(recs), 50))
		t.Logf("concurrency %4d: %6.0f tok/s, TTFT p50 %8.1f ms, TPOT p50 %5.1f ms", c, thr[len(thr)-1], ttft[len(ttft)-1], tpot[len(tpot)-1])
	}
	for i := 1; i < len(levels); i++ {
		if ttft[i] <= ttft[i-1] || tpot[i] < tpot[i-1] {
			t.Errorf("concurrency %d → %d: TTFT %.1f → %.1f ms, TPOT %.1f → %.1f ms; want both climbing",
				levels[i-1], levels[i], ttft[i-1], ttft[i], tpot[i-1], tpot[i])
		}
	}
	// Below the knee, 4× the load buys nearly 4× the throughput…
	if gain := thr[1] / thr[0]; gain < 3 {
		t.Errorf("throughput gain from concurrency 1 to 4 = %.2f×, want ≥ 3×", gain)
	}
	// …past it, 4× the load buys almost nothing: 1,024 requests cannot all
	// run (max_num_seqs 256), so they queue, and TTFT explodes.
	if gain := thr[5] / thr[4]; gain > 1.05 {
		t.Errorf("throughput gain from concurrency 256 to 1024 = %.2f×, want ≤ 1.05× (saturated)", gain)
	}
	if ttft[5] < 10*ttft[4] {
		t.Errorf("TTFT at concurrency 1024 = %.0f ms, want ≥ 10× the %.0f ms at 256 (queueing)", ttft[5], ttft[4])
	}
}

func TestVirtualPreemptionUnderMemoryPressure(t *testing.T) {
	// Llama-3.1-8B on an L4 at 0.75 utilization leaves 1,651 blocks
	// (26k tokens) for 64 sequences growing to about 1,700 tokens each.
	opts := Options{Profile: Profile{GPU: mustGPU(t, "L4"), Model: mustModel(t, "Llama-3.1-8B")}, GPUMemoryUtilization: 0.75}
	reqs := make([]VirtualRequest, 64)
	for i := range reqs {
		reqs[i] = VirtualRequest{PromptTokens: 200, MaxTokens: 1500, IgnoreEOS: true}
	}
	recs, err := RunVirtual(opts, reqs)
	if err != nil {
		t.Fatal(err)
	}
	gaps := 0
	for _, r := range recs {
		if r.OutputTokens != 1500 {
			t.Fatalf("request %d produced %d tokens, want 1500 despite preemption", r.Seq, r.OutputTokens)
		}
		// A preempted request's stream pauses while it waits and
		// recomputes: look for a gap of many steps between tokens.
		for i := 1; i < len(r.Chunks); i++ {
			if r.Chunks[i].At-r.Chunks[i-1].At > int64(time.Second) {
				gaps++
				break
			}
		}
	}
	if gaps == 0 {
		t.Error("no request paused: KV exhaustion did not preempt")
	}
}
