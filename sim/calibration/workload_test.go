package calibration

import (
	"math"
	"net/http"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/record"
)

func TestPlanShareGPTLengths(t *testing.T) {
	p := Point{ID: "x", Input: Lengths{Mean: 206, ShareGPT: true}, Output: Lengths{Mean: 202, ShareGPT: true},
		Load: Load{Rate: 8, Requests: 2000}}
	plan := p.Plan()
	var in, out float64
	var maxTotal int
	for _, r := range plan.Requests {
		if len(r.Prompt) < shareGPTMinLen || len(r.Prompt) > shareGPTMaxInput || r.MaxTokens < shareGPTMinLen || !r.IgnoreEOS {
			t.Fatalf("request %+v outside vllm bench serve's ShareGPT limits", r)
		}
		maxTotal = max(maxTotal, len(r.Prompt)+r.MaxTokens)
		in += float64(len(r.Prompt))
		out += float64(r.MaxTokens)
	}
	n := float64(len(plan.Requests))
	// The means are hit to within rounding, whatever the clipping.
	if math.Abs(in/n-206) > 0.5 || math.Abs(out/n-202) > 0.5 || maxTotal > shareGPTMaxTotal {
		t.Errorf("means %.1f and %.1f, longest %d; want 206, 202 and at most %d", in/n, out/n, maxTotal, shareGPTMaxTotal)
	}
	// Poisson arrivals at 8/s: 2,000 requests span about 250 s.
	last := plan.Requests[len(plan.Requests)-1].At
	if span := last.Seconds(); math.Abs(span-250) > 25 {
		t.Errorf("arrivals span %.0f s, want about 250", span)
	}
	// Answers cut short by the model's end of sequence have a shorter tail
	// than the dataset's own lengths (ignore_eos).
	full := p
	full.Output.Full = true
	longest := func(pl Point) int {
		m := 0
		for _, r := range pl.Plan().Requests {
			m = max(m, r.MaxTokens)
		}
		return m
	}
	if a, b := longest(p), longest(full); a >= b {
		t.Errorf("longest answer %d ending at EOS, %d with ignore_eos; want the first shorter", a, b)
	}
}

func TestPlanSharesTheDatasetAcrossLoads(t *testing.T) {
	// The same dataset sent at two rates: the same prompts, other arrivals.
	a := Point{ID: "q1", Input: Lengths{Min: 10, Max: 90}, Output: Lengths{Min: 5, Max: 9}, Load: Load{Rate: 1, Requests: 50}}
	b := a
	b.ID, b.Load.Rate = "q8", 8
	pa, pb := a.Plan(), b.Plan()
	for i := range pa.Requests {
		ra, rb := pa.Requests[i], pb.Requests[i]
		if len(ra.Prompt) != len(rb.Prompt) || ra.Prompt[0] != rb.Prompt[0] || ra.MaxTokens != rb.MaxTokens {
			t.Fatalf("request %d differs between the two loads", i)
		}
		if len(ra.Prompt) < 10 || len(ra.Prompt) > 90 || ra.MaxTokens < 5 || ra.MaxTokens > 9 {
			t.Fatalf("request %d lengths %d, %d outside the ranges", i, len(ra.Prompt), ra.MaxTokens)
		}
	}
	if pa.Requests[10].At == pb.Requests[10].At {
		t.Error("the same arrival times at two rates")
	}
	// A closed loop carries its concurrency; an all-at-once load sends
	// every request at time zero.
	c := a
	c.Load = Load{Concurrency: 4, Requests: 50}
	if pl := c.Plan(); pl.Concurrency != 4 || pl.Requests[49].At != 0 {
		t.Errorf("closed loop plan: concurrency %d, last arrival %v", pl.Concurrency, pl.Requests[49].At)
	}
}

func TestMeasureAsVLLMBenchServe(t *testing.T) {
	ms := int64(time.Millisecond)
	rec := func(seq, sent int64, chunks ...int64) record.Record {
		r := record.Record{Seq: seq, Scheduled: sent * ms, Sent: sent * ms, Status: http.StatusOK, OutputTokens: len(chunks)}
		for _, c := range chunks {
			r.Chunks = append(r.Chunks, record.Chunk{At: c * ms, Tokens: 1})
		}
		r.End = r.Chunks[len(r.Chunks)-1].At
		return r
	}
	recs := []record.Record{
		rec(0, 0, 10, 20, 30),      // TTFT 10, TPOT 10
		rec(1, 100, 130, 170, 210), // TTFT 30, TPOT 40
		rec(2, 150, 200),           // TTFT 50, one token: no TPOT
	}
	got, err := measure(recs, Metrics{TTFTStat: Stat{}, TPOTStat: Stat{Median: true}})
	if err != nil {
		t.Fatal(err)
	}
	// 7 tokens from the first send (0) to the last end (210 ms).
	if math.Abs(got.OutputTokS-7/0.21) > 1e-9 || math.Abs(got.TTFT-30) > 1e-9 || math.Abs(got.TPOT-25) > 1e-9 {
		t.Errorf("measured %+v; want 33.3 tok/s, mean TTFT 30 ms, median TPOT 25 ms", got)
	}
	// An offline latency figure: mean end-to-end over 128 tokens.
	got, _ = measure(recs, Metrics{TPOTStat: Stat{PerTokens: 128}})
	if want := (30.0 + 110 + 50) / 3 / 128; math.Abs(got.TPOT-want) > 1e-9 {
		t.Errorf("e2e/128 = %v, want %v", got.TPOT, want)
	}
	// A failed request is a failed calibration, not a number.
	bad := recs[0]
	bad.Error, bad.Msg = record.ErrHTTP, "refused"
	if _, err := measure([]record.Record{bad}, Metrics{}); err == nil {
		t.Error("a failed request was measured")
	}
}
