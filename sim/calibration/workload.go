package calibration

import (
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"time"

	"github.com/goodput-dev/goodput/sim"
)

// ShareGPT's length limits in vllm bench serve: prompts of 4 to 1,024
// tokens, answers of at least 4, prompt and answer together at most 2,048.
const (
	shareGPTMinLen   = 4
	shareGPTMaxInput = 1024
	shareGPTMaxTotal = 2048
)

// Prompt token ids are drawn uniformly from wordIDs ids from firstWordID
// on, all within the simulator's vocabulary: two prompts share no block.
const (
	firstWordID = 1000
	wordIDs     = 20000
)

// Spreads of the log-normal lengths drawn for a dataset known by its mean
// (σ of the logarithm). ShareGPT's prompts are more skewed than its
// answers: in vllm bench serve's sample, the median prompt is a little over
// half the mean and the median answer about two thirds of it. Answers that
// end at the model's own end of sequence are the shorter of the model's
// answer and the dataset's, which trims the long tail.
var (
	sigmaInput     = 1.0
	sigmaOutput    = 0.7
	sigmaOutputEOS = 0.6
)

// Plan builds the point's workload: its requests, with exact output lengths
// (ignore_eos), and for a closed loop the concurrency. The prompts and
// lengths are seeded by the workload's description and size, so that
// points which sent the same dataset (as vllm bench serve samples it with
// its default seed) get the same requests; arrival times are seeded by the
// point's id.
func (p Point) Plan() sim.VirtualPlan {
	seed := hash(fmt.Sprintf("%+v|%+v|%d", p.Input, p.Output, p.Load.Requests))
	n := p.Load.Requests
	in := draw(p.Input, n, sigmaInput, rand.New(rand.NewPCG(seed, 1)), true)
	sigmaOut := sigmaOutputEOS
	if p.Output.Full {
		sigmaOut = sigmaOutput
	}
	out := draw(p.Output, n, sigmaOut, rand.New(rand.NewPCG(seed, 2)), false)
	if p.Input.ShareGPT || p.Output.ShareGPT {
		for i := range n {
			in[i] = min(max(in[i], shareGPTMinLen), shareGPTMaxInput)
			out[i] = min(max(out[i], shareGPTMinLen), shareGPTMaxTotal-in[i])
		}
	}
	reqs := make([]sim.VirtualRequest, n)
	arrivals := rand.New(rand.NewPCG(hash(p.ID), 3))
	words := rand.New(rand.NewPCG(seed, 4))
	var at float64
	for i := range reqs {
		// Prompts go as token ids, as vllm bench serve's random prompts
		// do, so that the prefix cache keeps what a preempted request had
		// computed, as it does on a real server.
		prompt := make([]int, in[i])
		for j := range prompt {
			prompt[j] = firstWordID + words.IntN(wordIDs)
		}
		reqs[i] = sim.VirtualRequest{Prompt: prompt, MaxTokens: out[i], IgnoreEOS: true, Chat: p.Chat}
		if p.Load.Rate > 0 {
			at += arrivals.ExpFloat64() / p.Load.Rate
			reqs[i].At = time.Duration(at * 1e9)
		}
	}
	return sim.VirtualPlan{Requests: reqs, Concurrency: p.Load.Concurrency}
}

func hash(s string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(s))
	return h.Sum64()
}

// draw returns n lengths as l describes them. Log-normal lengths are scaled
// so that their mean, after rounding and the ShareGPT limits, is l.Mean.
// input says the lengths are prompts', to which ShareGPT's prompt cap
// applies.
func draw(l Lengths, n int, sigma float64, rng *rand.Rand, input bool) []int {
	out := make([]int, n)
	if l.Mean == 0 {
		for i := range out {
			out[i] = l.Min + rng.IntN(l.Max-l.Min+1)
		}
		return out
	}
	z := make([]float64, n)
	for i := range z {
		z[i] = rng.NormFloat64()
	}
	hi := math.MaxInt32
	if l.ShareGPT {
		hi = shareGPTMaxTotal - shareGPTMinLen
		if input {
			hi = shareGPTMaxInput
		}
	}
	lengths := func(mu float64) float64 {
		sum := 0
		for i, zi := range z {
			out[i] = min(max(int(math.Round(math.Exp(mu+sigma*zi))), shareGPTMinLen), hi)
			sum += out[i]
		}
		return float64(sum) / float64(n)
	}
	// The clipped mean grows with mu: bisect for the one that hits l.Mean.
	lo, up := math.Log(l.Mean)-3*sigma-2, math.Log(l.Mean)+2
	for range 60 {
		mid := (lo + up) / 2
		if lengths(mid) < l.Mean {
			lo = mid
		} else {
			up = mid
		}
	}
	lengths(up)
	return out
}
