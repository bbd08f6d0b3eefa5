package sim

import (
	"math"
	"time"
)

// costModel turns the shape of one engine step into its duration with a
// roofline:
//
//	step = StepOverhead + seqs × SeqOverhead
//	     + max(FLOPs ÷ (peak × MFU), bytes ÷ (bandwidth × MBU))
//	     + all-reduce time (tensor parallelism only)
//
// with, per GPU of a tensor-parallel group of size TP,
//
//	FLOPs = (2 × params × tokens + 4 × layers × heads × head_dim × Σ context) ÷ TP
//	bytes = (weight bytes + KV bytes per token × Σ context) ÷ TP
//
// where Σ context counts, for every token computed in the step, the tokens it
// attends to (attention FLOPs), and for every sequence the tokens whose KV it
// reads or writes (bytes). Tensor parallelism splits weights, heads and KV
// heads over the group and adds two all-reduces of the activations per layer:
//
//	all-reduce = 2 × layers × (latency + 2 × (TP−1)/TP × tokens × hidden × dtype bytes ÷ link bandwidth)
//
// the ring all-reduce's bandwidth term plus a fixed latency per call.
type costModel struct {
	flopsPerToken   float64 // 2 × params ÷ TP
	flopsPerAttn    float64 // 4 × layers × heads × head_dim ÷ TP, per (query, context) token pair
	weightBytes     float64 // per GPU
	kvBytesPerToken float64 // per GPU
	flopRate        float64 // achieved FLOP/s per GPU
	byteRate        float64 // achieved bytes/s per GPU
	stepOverhead    float64 // seconds
	seqOverhead     float64 // seconds per sequence
	commFixed       float64 // seconds per step, tensor parallel only
	commPerToken    float64 // seconds per token in the step, tensor parallel only
}

// batchShape is what one step computes.
type batchShape struct {
	seqs      int     // sequences in the step
	tokens    int     // tokens computed: 1 per decoding sequence, the chunk for a prefill
	attnPairs float64 // Σ over computed tokens of the context each attends to
	kvTokens  float64 // Σ over sequences of the tokens whose KV is read or written
}

func newCostModel(p Profile) *costModel {
	m, g, c := p.Model, p.GPU, p.Calibration
	tp := float64(max(p.TensorParallel, 1))
	cm := &costModel{
		flopsPerToken:   2 * m.ParamsB * 1e9 / tp,
		flopsPerAttn:    4 * float64(m.Layers) * float64(m.Heads) * float64(m.HeadDim) / tp,
		weightBytes:     m.WeightBytes() / tp,
		kvBytesPerToken: kvBytesPerTokenPerGPU(m, p.TensorParallel),
		flopRate:        g.TFLOPS * 1e12 * c.MFU,
		byteRate:        g.BandwidthTBps * 1e12 * c.MBU,
		stepOverhead:    c.StepOverhead.Seconds(),
		seqOverhead:     c.SeqOverhead.Seconds(),
	}
	if tp > 1 {
		allReduces := 2 * float64(m.Layers)
		cm.commFixed = allReduces * g.AllReduceLatencyUS * 1e-6
		cm.commPerToken = allReduces * 2 * (tp - 1) / tp * float64(m.Hidden) * float64(m.DTypeBytes) / (g.LinkGBps * 1e9)
	}
	return cm
}

// kvBytesPerTokenPerGPU splits the KV heads over the tensor-parallel group.
// With fewer KV heads than GPUs each GPU keeps a replica of one head, as vLLM
// does.
func kvBytesPerTokenPerGPU(m Model, tp int) float64 {
	tp = max(tp, 1)
	heads := float64(m.KVHeads) / float64(tp)
	if m.KVHeads < tp {
		heads = 1
	}
	return 2 * float64(m.Layers) * heads * float64(m.HeadDim) * float64(m.DTypeBytes)
}

// seconds returns the step time of b in seconds.
func (c *costModel) seconds(b batchShape) float64 {
	if b.seqs == 0 {
		return 0
	}
	flops := c.flopsPerToken*float64(b.tokens) + c.flopsPerAttn*b.attnPairs
	bytes := c.weightBytes + c.kvBytesPerToken*b.kvTokens
	roof := math.Max(flops/c.flopRate, bytes/c.byteRate)
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

// add folds a sequence computing n new tokens after done computed ones into b.
func (b *batchShape) add(done, n int) {
	d, k := float64(done), float64(n)
	b.seqs++
	b.tokens += n
	b.attnPairs += k*d + k*(k+1)/2
	b.kvTokens += d + k
}
