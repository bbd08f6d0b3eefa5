package sim

import (
	"math"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/goodput-dev/goodput/record"
)

// percentile interpolates linearly between closest ranks (NumPy's default).
func percentile(xs []float64, p float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	r := p / 100 * float64(len(s)-1)
	lo := int(math.Floor(r))
	hi := min(lo+1, len(s)-1)
	return s[lo] + (s[hi]-s[lo])*(r-float64(lo))
}

// ttfts returns each successful record's TTFT in milliseconds.
func ttfts(recs []record.Record) []float64 {
	var out []float64
	for _, r := range recs {
		if c1, ok := r.FirstToken(); ok {
			out = append(out, float64(c1-r.Scheduled)/1e6)
		}
	}
	return out
}

// tpots returns each record's TPOT in milliseconds, for records with at
// least two tokens.
func tpots(recs []record.Record) []float64 {
	var out []float64
	for _, r := range recs {
		if r.OutputTokens < 2 {
			continue
		}
		c1, _ := r.FirstToken()
		ck, _ := r.LastToken()
		out = append(out, float64(ck-c1)/1e6/float64(r.OutputTokens-1))
	}
	return out
}

// throughput is output tokens per second over the window from the first
// scheduled time to the last end.
func throughput(recs []record.Record) float64 {
	first, last := int64(math.MaxInt64), int64(0)
	tokens := 0
	for _, r := range recs {
		first = min(first, r.Scheduled)
		last = max(last, r.End)
		tokens += r.OutputTokens
	}
	return float64(tokens) / (float64(last-first) / 1e9)
}

// shortChat is the workload of the reference points: short chat prompts
// (128–384 tokens) and answers of 192–320 tokens, run with ignore_eos like
// vllm bench serve's random dataset.
func shortChat(n int, seed uint64) []VirtualRequest {
	rng := rand.New(rand.NewPCG(seed, 11))
	reqs := make([]VirtualRequest, n)
	for i := range reqs {
		reqs[i] = VirtualRequest{PromptTokens: 128 + rng.IntN(257), MaxTokens: 192 + rng.IntN(129), IgnoreEOS: true}
	}
	return reqs
}

// shareGPTLike is a ShareGPT-shaped workload: log-normal prompt and answer
// lengths with means of about 200 and 250 tokens, Poisson arrivals at rate
// requests per second.
func shareGPTLike(n int, rate float64, seed uint64) []VirtualRequest {
	rng := rand.New(rand.NewPCG(seed, 7))
	reqs := make([]VirtualRequest, n)
	var at float64
	for i := range reqs {
		at += rng.ExpFloat64() / rate
		in := int(math.Exp(5.0 + 0.8*rng.NormFloat64()))
		out := int(math.Exp(5.3 + 0.7*rng.NormFloat64()))
		reqs[i] = VirtualRequest{
			At:           time.Duration(at * 1e9),
			PromptTokens: min(max(in, 4), 4000),
			MaxTokens:    min(max(out, 1), 2000),
			IgnoreEOS:    true,
		}
	}
	return reqs
}
