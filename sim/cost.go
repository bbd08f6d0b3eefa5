package sim

import (
	"math"
	"time"
)

// costModel turns the shape of one engine step into its duration with a
// roofline over the step's real work:
//
//	step = StepOverhead + seqs × SeqOverhead
//	     + max(FLOPs ÷ (peak × MFU), bytes ÷ (bandwidth × MBU))
//	     + all-reduce time (tensor parallelism only)
//
// with, per GPU of a tensor-parallel group of size TP,
//
//	FLOPs = (2 × active params × tokens
//	         + 2 × vocab × hidden × sampling sequences
//	         + 2 × layers × heads × (qk dim + v dim) × attention pairs) ÷ TP
//	bytes = (weights read + KV bytes per token × Σ context) ÷ TP
//
// where the active parameters leave out the embedding table and the LM
// head: the table is looked up, not multiplied by, and the head only turns
// the last position of each sequence that samples a token into logits.
// The weights read are every dense weight once per step (shared by the
// whole batch) and, for a mixture of experts, the experts the step's tokens
// are routed to: with E experts of which each token takes k, t tokens touch
// a fraction 1 − (1 − k/E)^t of them. Attention pairs count, for every
// token computed, the earlier tokens it attends to, and Σ context the
// tokens whose KV each sequence reads; layers with a sliding window count
// only their window. The peak is the FP8 one for FP8 weights on GPUs with
// FP8 tensor cores, the BF16 one otherwise.
//
// Tensor parallelism splits weights, heads and KV heads over the group and
// adds two all-reduces of the activations per layer:
//
//	all-reduce = 2 × layers × (latency + 2 × (TP−1)/TP × tokens × hidden × 2 bytes ÷ link bandwidth)
//
// the ring all-reduce's bandwidth term plus a fixed latency per call.
type costModel struct {
	flopsPerToken  float64 // 2 × active linear params ÷ TP
	flopsPerLogits float64 // 2 × vocab × hidden ÷ TP, per sampling sequence
	flopsAttnFull  float64 // per (query, context) pair, summed over full-attention layers, ÷ TP
	flopsAttnSlide float64 // the same over sliding-window layers
	window         int     // sliding window; 0 when no layer slides

	denseBytes  float64 // weights read every step, per GPU
	expertBytes float64 // all routed experts' weights, per GPU
	expertShare float64 // k/E: the fraction of experts one token is routed to
	kvFullBytes float64 // KV bytes per token per GPU, full-attention layers
	kvSlideByte float64 // the same, sliding-window layers

	flopRate     float64 // achieved FLOP/s per GPU, matrix multiplies
	byteRate     float64 // achieved bytes/s per GPU, weights
	attnFlopRate float64 // achieved FLOP/s per GPU, attention
	kvByteRate   float64 // achieved bytes/s per GPU, reading the KV cache
	stepOverhead float64 // seconds
	seqOverhead  float64 // seconds per sequence
	commFixed    float64 // seconds per step, tensor parallel only
	commPerToken float64 // seconds per token in the step, tensor parallel only
}

// batchShape is what one step computes.
type batchShape struct {
	seqs       int     // sequences in the step
	tokens     int     // tokens computed: 1 per decoding sequence, the chunk for a prefill
	samples    int     // sequences that sample a token at the end of the step
	pairsFull  float64 // Σ over computed tokens of the context each attends to
	pairsSlide float64 // the same, within the sliding window
	kvFull     float64 // Σ over sequences of the tokens whose KV is read or written
	kvSlide    float64 // the same, within the sliding window
}

func newCostModel(p Profile) *costModel {
	m, g, c := p.Model, p.GPU, p.Calibration
	tp := float64(max(p.TensorParallel, 1))
	embed := m.embedParams()
	stored := m.storedEmbedParams()
	headBytes := embed * m.kvElemBytes() // the head stays in 16 bits in quantized checkpoints
	if m.VocabSize == 0 {
		headBytes = 0
	}
	experts := m.ExpertParamsB * 1e9
	qk, v := float64(m.HeadDim), float64(m.HeadDim)
	if m.VHeadDim > 0 {
		v = float64(m.VHeadDim)
	}
	full := float64(m.fullLayers())
	slide := float64(m.Layers) - full
	perPair := 2 * float64(m.Heads) * (qk + v) / tp
	kvPerLayer := kvElemsPerTokenLayerPerGPU(m, p.TensorParallel) * p.kvElemBytes()
	cm := &costModel{
		flopsPerToken:  2 * (m.activeParams() - stored) / tp,
		flopsPerLogits: 2 * embed / tp,
		flopsAttnFull:  full * perPair,
		flopsAttnSlide: slide * perPair,
		denseBytes:     ((m.ParamsB*1e9-experts-stored)*m.weightBytesPer() + headBytes) / tp,
		expertBytes:    experts * m.expertBytesPer() / tp,
		kvFullBytes:    full * kvPerLayer,
		kvSlideByte:    slide * kvPerLayer,
		byteRate:       g.BandwidthTBps * 1e12 * p.mbu(),
		stepOverhead:   c.StepOverhead.Seconds(),
		seqOverhead:    c.SeqOverhead.Seconds(),
	}
	if slide > 0 {
		cm.window = m.SlidingWindow
	}
	if m.Experts > 0 && m.ExpertsPerToken > 0 {
		cm.expertShare = math.Min(1, float64(m.ExpertsPerToken)/float64(m.Experts))
	}
	peak := g.TFLOPS
	if fp8Compute(m.WeightDType, g) {
		peak = g.FP8TFLOPS
	}
	cm.flopRate = peak * 1e12 * p.mfu()
	attn := c.AttentionEfficiency
	if attn == 0 {
		attn = 1
	}
	cm.attnFlopRate = g.TFLOPS * 1e12 * p.mfu() * attn
	cm.kvByteRate = cm.byteRate
	if tp > 1 {
		allReduces := 2 * float64(m.Layers)
		cm.commFixed = allReduces * g.AllReduceLatencyUS * 1e-6
		cm.commPerToken = allReduces * 2 * (tp - 1) / tp * float64(m.Hidden) * 2 / (g.LinkGBps * 1e9)
	}
	return cm
}

// kvElemsPerTokenLayerPerGPU splits the KV heads over the tensor-parallel
// group. With fewer KV heads than GPUs each GPU keeps a replica of one
// head, as vLLM does; an MLA latent is kept whole on every GPU.
func kvElemsPerTokenLayerPerGPU(m Model, tp int) float64 {
	tp = max(tp, 1)
	if m.KVLoRARank > 0 {
		return m.kvElemsPerTokenLayer()
	}
	heads := float64(m.KVHeads) / float64(tp)
	if m.KVHeads < tp {
		heads = 1
	}
	return 2 * heads * float64(m.HeadDim)
}

// kvBytesPerTokenPerGPU is the KV cache one token takes on each GPU, in
// the layers that keep every token; when every layer slides, in all of
// them (the block table grows with the context all the same).
func kvBytesPerTokenPerGPU(p Profile) float64 {
	layers := p.Model.fullLayers()
	if layers == 0 {
		layers = p.Model.Layers
	}
	return float64(layers) * kvElemsPerTokenLayerPerGPU(p.Model, p.TensorParallel) * p.kvElemBytes()
}

// seconds returns the step time of b in seconds.
func (c *costModel) seconds(b batchShape) float64 {
	if b.seqs == 0 {
		return 0
	}
	flops := c.flopsPerToken*float64(b.tokens) + c.flopsPerLogits*float64(b.samples)
	bytes := c.denseBytes
	if c.expertBytes > 0 {
		bytes += c.expertBytes * (1 - math.Pow(1-c.expertShare, float64(b.tokens)))
	}
	attnFlops := c.flopsAttnFull*b.pairsFull + c.flopsAttnSlide*b.pairsSlide
	kvBytes := c.kvFullBytes*b.kvFull + c.kvSlideByte*b.kvSlide
	// The matrix multiplies and attention run one after the other in each
	// layer, each bound by its own compute or memory.
	roof := math.Max(flops/c.flopRate, bytes/c.byteRate) + math.Max(attnFlops/c.attnFlopRate, kvBytes/c.kvByteRate)
	comm := 0.0
	if c.commFixed > 0 {
		comm = c.commFixed + c.commPerToken*float64(b.tokens)
	}
	return c.stepOverhead + c.seqOverhead*float64(b.seqs) + roof + comm
}

// duration returns the step time of b, rounded to the nanosecond and never
// below 1 ns for a non-empty step, so that time always advances.
func (c *costModel) duration(b batchShape) time.Duration {
	if b.seqs == 0 {
		return 0
	}
	return max(time.Duration(math.Round(c.seconds(b)*1e9)), 1)
}

// add folds into b a sequence computing n new tokens after done computed
// ones; sample says whether it samples a token at the step's end.
func (c *costModel) add(b *batchShape, done, n int, sample bool) {
	d, k := float64(done), float64(n)
	b.seqs++
	b.tokens += n
	if sample {
		b.samples++
	}
	pairs := k*d + k*(k+1)/2
	b.pairsFull += pairs
	b.kvFull += d + k
	if c.window == 0 {
		return
	}
	// Positions done+1 … done+n attend to min(position, window) tokens.
	w := float64(c.window)
	within := math.Max(0, math.Min(k, w-d)) // positions still inside the window
	b.pairsSlide += within*d + within*(within+1)/2 + (k-within)*w
	b.kvSlide += math.Min(d+k, w)
}
