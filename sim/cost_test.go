package sim

import (
	"math"
	"testing"
	"time"
)

func profileOf(t testing.TB, gpu, model string, tp int) Profile {
	t.Helper()
	return Profile{GPU: mustGPU(t, gpu), Model: mustModel(t, model), TensorParallel: tp, Calibration: DefaultCalibration}
}

// byHand is a calibration with round numbers, so that expected step times
// can be computed in the tests from the formula's parts.
var byHand = Calibration{
	MFU: 0.5, MBU: 0.8, AttentionEfficiency: 2,
	StepOverhead: 250 * time.Microsecond, SeqOverhead: 50 * time.Microsecond,
}

// decodeShape is a step in which batch sequences, each with ctx tokens
// already cached, decode one token each.
func decodeShape(c *costModel, batch, ctx int) batchShape {
	var b batchShape
	for range batch {
		c.add(&b, ctx, 1, true)
	}
	return b
}

// prefillShape is a step that prefills n prompt tokens of one sequence
// from scratch, the last of its prompt when sample is set.
func prefillShape(c *costModel, n int, sample bool) batchShape {
	var b batchShape
	c.add(&b, 0, n, sample)
	return b
}

func TestStepTimeByHand(t *testing.T) {
	// Llama-3.1-8B: 8.03 B parameters, of which 128,256 × 4,096 = 0.525 B
	// in the embedding table and as many in the LM head. A decode step
	// reads everything but the table, 2 bytes each.
	const (
		h100, peak = 3.35e12, 989e12
		embed      = 128256 * 4096.0
		linear     = 8.03e9 - 2*embed
		kvToken    = 131072.0 // 2 × 32 layers × 8 KV heads × 128 × 2 bytes
		perPair    = 32 * 2 * 32 * 256.0
	)
	read := (linear + embed) * 2
	tests := []struct {
		name  string
		shape func(c *costModel) batchShape
		want  float64 // seconds, computed here from the formula's parts
	}{
		{
			// One sequence decoding after a 100-token prompt: the weights
			// at 80 % of 3.35 TB/s, then attention over the KV of 101
			// tokens, and the two overheads.
			name:  "batch 1 decode",
			shape: func(c *costModel) batchShape { return decodeShape(c, 1, 100) },
			want:  250e-6 + 50e-6 + read/(h100*0.8) + 101*kvToken/(h100*0.8),
		},
		{
			// 16 sequences at 300 tokens of context: the weights are read
			// once for all of them, the KV of each, and the per-sequence
			// overhead grows 16×.
			name:  "batch 16 decode",
			shape: func(c *costModel) batchShape { return decodeShape(c, 16, 300) },
			want:  250e-6 + 16*50e-6 + read/(h100*0.8) + 16*301*kvToken/(h100*0.8),
		},
		{
			// A 2,048-token prefill that ends its prompt is compute bound:
			// the linear layers for every token, the LM head for the last
			// one only, at 50 % of 989 TFLOP/s; then causal attention over
			// the prompt at twice that efficiency.
			name:  "2048-token prefill",
			shape: func(c *costModel) batchShape { return prefillShape(c, 2048, true) },
			want:  250e-6 + 50e-6 + (2*linear*2048+2*embed)/(peak*0.5) + perPair*(2048.0*2049/2)/(peak*0.5*2),
		},
		{
			// The same chunk in the middle of a longer prompt samples
			// nothing: no LM head.
			name:  "2048-token chunk",
			shape: func(c *costModel) batchShape { return prefillShape(c, 2048, false) },
			want:  250e-6 + 50e-6 + 2*linear*2048/(peak*0.5) + perPair*(2048.0*2049/2)/(peak*0.5*2),
		},
	}
	p := profileOf(t, "H100", "Llama-3.1-8B", 1)
	p.Calibration = byHand
	c := newCostModel(p)
	for _, tt := range tests {
		if got := c.seconds(tt.shape(c)); math.Abs(got-tt.want) > 1e-9 {
			t.Errorf("%s: %.6f ms, want %.6f ms", tt.name, got*1e3, tt.want*1e3)
		}
	}
}

func TestEmptyStepTakesNoTime(t *testing.T) {
	c := newCostModel(profileOf(t, "H100", "Llama-3.1-8B", 1))
	if d := c.duration(batchShape{}); d != 0 {
		t.Errorf("empty step lasts %v, want 0", d)
	}
}

func TestDecodeStepGrowsWithBatchAndContext(t *testing.T) {
	p := profileOf(t, "H100", "Llama-3.1-8B", 1)
	p.Calibration = byHand
	c := newCostModel(p)
	// Batch: at a fixed context, every extra sequence costs more.
	prev := time.Duration(0)
	for _, batch := range []int{1, 2, 4, 8, 16, 32, 64, 128, 256} {
		d := c.duration(decodeShape(c, batch, 512))
		if d <= prev {
			t.Errorf("decode step at batch %d = %v, not above batch %d's %v", batch, d, batch/2, prev)
		}
		prev = d
	}
	// Context: at a fixed batch, longer contexts read more KV. Memory
	// bound, so 64 sequences going from 1k to 8k tokens of context add
	// 64 × 7k × 128 KiB ÷ (0.8 × 3.35 TB/s) ≈ 22 ms.
	short, long := c.duration(decodeShape(c, 64, 1024)), c.duration(decodeShape(c, 64, 8192))
	wantGap := 64 * 7168 * 131072 / (0.8 * 3.35e12)
	if gap := (long - short).Seconds(); math.Abs(gap-wantGap) > 1e-6 {
		t.Errorf("context 1k → 8k at batch 64 adds %.3f ms, want %.3f ms", gap*1e3, wantGap*1e3)
	}
}

func TestRooflineCrossesOverToCompute(t *testing.T) {
	// Decoding is memory bound at small batches: the compute term is far
	// below the memory term. A large prefill is compute bound.
	c := newCostModel(profileOf(t, "H100", "Llama-3.1-8B", 1))
	for _, tt := range []struct {
		name        string
		shape       batchShape
		computeWins bool
	}{
		{"decode batch 1", decodeShape(c, 1, 1000), false},
		{"decode batch 64", decodeShape(c, 64, 1000), false},
		{"prefill 8192", prefillShape(c, 8192, true), true},
	} {
		compute := (c.flopsPerToken*float64(tt.shape.tokens) + c.flopsPerLogits*float64(tt.shape.samples)) / c.flopRate
		memory := c.denseBytes / c.byteRate
		if (compute > memory) != tt.computeWins {
			t.Errorf("%s: compute %.2f ms vs memory %.2f ms, want compute bound = %v",
				tt.name, compute*1e3, memory*1e3, tt.computeWins)
		}
	}
}

func TestEmbeddingTableIsNotComputed(t *testing.T) {
	// A model with a vocabulary of 128k costs the same per prompt token as
	// one whose parameters are all in its layers, less the table and head:
	// a prefill chunk that samples nothing does no LM head work.
	m := mustModel(t, "Llama-3.1-8B")
	flat := m
	flat.VocabSize = 0
	flat.ParamsB = m.ParamsB - 2*float64(m.VocabSize*m.Hidden)/1e9
	a := newCostModel(Profile{GPU: mustGPU(t, "H100"), Model: m, Calibration: byHand})
	b := newCostModel(Profile{GPU: mustGPU(t, "H100"), Model: flat, Calibration: byHand})
	if math.Abs(a.flopsPerToken-b.flopsPerToken) > 1 {
		t.Errorf("FLOPs per prompt token %v with the vocabulary, %v without; want equal", a.flopsPerToken, b.flopsPerToken)
	}
	if want := 2 * 128256 * 4096.0; a.flopsPerLogits != want {
		t.Errorf("LM head FLOPs per sampling sequence %v, want %v", a.flopsPerLogits, want)
	}
}

func TestMixtureOfExpertsReadsTheExpertsItUses(t *testing.T) {
	p := profileOf(t, "H100", "Qwen3-30B-A3B", 1)
	p.Calibration = byHand
	c := newCostModel(p)
	// One token is routed to 8 of 128 experts per layer: it reads 1/16 of
	// the expert weights; 64 tokens touch 1 − (15/16)^64 = 98.4 % of them.
	one, many := decodeShape(c, 1, 0), decodeShape(c, 64, 0)
	expertTime := func(b batchShape) float64 {
		return c.expertBytes * (1 - math.Pow(1-c.expertShare, float64(b.tokens))) / c.byteRate
	}
	if got := expertTime(one) / (c.expertBytes / c.byteRate); math.Abs(got-1.0/16) > 1e-12 {
		t.Errorf("one token reads %.4f of the experts, want 1/16", got)
	}
	if got := expertTime(many) / (c.expertBytes / c.byteRate); math.Abs(got-(1-math.Pow(15.0/16, 64))) > 1e-12 {
		t.Errorf("64 tokens read %.4f of the experts, want %.4f", got, 1-math.Pow(15.0/16, 64))
	}
	// Its compute follows the 3.35 B active parameters, not the 30.5 B.
	if want := 2 * (3.35e9 - 2*151936*2048.0); math.Abs(c.flopsPerToken-want) > 1 {
		t.Errorf("FLOPs per token %v, want %v", c.flopsPerToken, want)
	}
	// A batch-1 decode of the MoE is far quicker than of a dense model of
	// the same total size.
	dense := newCostModel(Profile{GPU: mustGPU(t, "H100"), Model: mustModel(t, "Qwen3-32B"), Calibration: byHand})
	if moe, d := c.seconds(one), dense.seconds(decodeShape(dense, 1, 0)); moe > d/3 {
		t.Errorf("batch-1 decode: MoE %.2f ms, dense 32B %.2f ms; want the MoE below a third", moe*1e3, d*1e3)
	}
}

func TestFP8WeightsAndKVCache(t *testing.T) {
	bf16 := profileOf(t, "H100", "Llama-3.1-8B", 1)
	fp8 := bf16
	fp8.Model.WeightDType = "fp8"
	a, b := newCostModel(bf16), newCostModel(fp8)
	// Half the bytes (the LM head stays in 16 bits), the FP8 peak (1,979
	// TFLOP/s against 989 on an H100); the KV cache keeps its 16 bits
	// unless told otherwise.
	if b.denseBytes >= 0.6*a.denseBytes || b.flopRate != a.flopRate*1979/989 || b.kvFullBytes != a.kvFullBytes {
		t.Errorf("fp8: bytes %v (bf16 %v), FLOP/s %v (bf16 %v), KV %v (bf16 %v)",
			b.denseBytes, a.denseBytes, b.flopRate, a.flopRate, b.kvFullBytes, a.kvFullBytes)
	}
	kv := bf16
	kv.KVCacheDType = "fp8"
	if c := newCostModel(kv); c.kvFullBytes != a.kvFullBytes/2 {
		t.Errorf("fp8 KV cache: %v bytes per token, want half of %v", c.kvFullBytes, a.kvFullBytes)
	}
	// An A100 has no FP8 tensor cores: FP8 weights read half the bytes but
	// compute at the BF16 peak.
	ampere := fp8
	ampere.GPU = mustGPU(t, "A100")
	if c, d := newCostModel(ampere), newCostModel(Profile{GPU: mustGPU(t, "A100"), Model: bf16.Model, Calibration: DefaultCalibration}); c.flopRate != d.flopRate {
		t.Errorf("fp8 on an A100 computes at %v FLOP/s, want the BF16 %v", c.flopRate, d.flopRate)
	}
}

func TestSlidingWindowCapsAttention(t *testing.T) {
	p := profileOf(t, "H100", "gpt-oss-20b", 1)
	c := newCostModel(p)
	// Half the layers attend to at most 128 tokens: at a context of 10,000
	// they read 128 tokens of KV per sequence, the other half 10,001.
	var b batchShape
	c.add(&b, 10000, 1, true)
	if b.kvFull != 10001 || b.kvSlide != 128 || b.pairsFull != 10001 || b.pairsSlide != 128 {
		t.Errorf("shape %+v: want 10001 full and 128 windowed tokens", b)
	}
	// A chunk that starts inside the window: positions 101 … 200 attend to
	// 101 … 128 tokens, then 128 each.
	b = batchShape{}
	c.add(&b, 100, 100, false)
	want := 0.0
	for pos := 101; pos <= 200; pos++ {
		want += math.Min(float64(pos), 128)
	}
	if b.pairsSlide != want {
		t.Errorf("windowed pairs %v, want %v", b.pairsSlide, want)
	}
}

func TestTensorParallelism(t *testing.T) {
	tp1 := newCostModel(profileOf(t, "H100", "Llama-3.1-70B", 1))
	tp4 := newCostModel(profileOf(t, "H100", "Llama-3.1-70B", 4))
	if got, want := tp4.denseBytes, tp1.denseBytes/4; math.Abs(got-want) > 1 {
		t.Errorf("TP 4 weights per GPU = %v, want a quarter of %v", got, tp1.denseBytes)
	}
	// Two all-reduces per layer, 6 µs each on NVLink: 160 × 6 µs.
	if got, want := tp4.commFixed, 2*80*6e-6; math.Abs(got-want) > 1e-12 {
		t.Errorf("TP 4 fixed all-reduce cost = %v s, want %v s", got, want)
	}
	// Ring all-reduce moves 2 (TP−1)/TP of the activations: per token
	// 160 × 1.5 × 8192 × 2 bytes at 450 GB/s.
	if got, want := tp4.commPerToken, 160*1.5*8192*2/450e9; math.Abs(got-want) > 1e-15 {
		t.Errorf("TP 4 all-reduce cost per token = %v s, want %v s", got, want)
	}
	if tp1.commFixed != 0 || tp1.commPerToken != 0 {
		t.Errorf("TP 1 has all-reduce costs %v, %v; want none", tp1.commFixed, tp1.commPerToken)
	}
	// Splitting the weights over 4 GPUs makes a batch-1 decode faster,
	// though not 4× faster: the all-reduces and overheads remain.
	one, four := tp1.seconds(decodeShape(tp1, 1, 500)), tp4.seconds(decodeShape(tp4, 1, 500))
	if !(four < one/2 && four > one/4) {
		t.Errorf("70B decode: TP 1 %.2f ms, TP 4 %.2f ms; want TP 4 between a quarter and a half", one*1e3, four*1e3)
	}
	// Over PCIe the all-reduces cost far more than over NVLink.
	pcie := profileOf(t, "L40S", "Llama-3.1-70B", 4)
	if c := newCostModel(pcie); c.commPerToken < 10*tp4.commPerToken {
		t.Errorf("all-reduce per token over PCIe %v s, NVLink %v s: want PCIe ≥ 10× slower", c.commPerToken, tp4.commPerToken)
	}
}

func TestKVHeadsReplicateBeyondTheirCount(t *testing.T) {
	qwen := mustModel(t, "Qwen2.5-0.5B") // 2 KV heads
	tests := []struct {
		tp   int
		want float64
	}{
		{1, 2 * 2 * 64}, // both heads on one GPU
		{2, 2 * 1 * 64}, // one head each
		{4, 2 * 1 * 64}, // more GPUs than heads: each keeps a replica of one
	}
	for _, tt := range tests {
		if got := kvElemsPerTokenLayerPerGPU(qwen, tt.tp); got != tt.want {
			t.Errorf("TP %d: %v KV elements per token and layer per GPU, want %v", tt.tp, got, tt.want)
		}
	}
	// An MLA latent is kept whole on every GPU: 512 + 64 elements.
	ds := mustModel(t, "DeepSeek-V3")
	if got := kvElemsPerTokenLayerPerGPU(ds, 8); got != 576 {
		t.Errorf("DeepSeek-V3 at TP 8: %v KV elements per token and layer per GPU, want 576", got)
	}
}

func TestEveryLayerSliding(t *testing.T) {
	// Mistral-7B v0.1's shape: a 4,096-token window in every layer. The
	// KV cache still sizes and the window caps attention.
	m := mustModel(t, "Mistral-7B")
	m.SlidingWindow = 4096
	info, err := Resolve(Options{Profile: Profile{Model: m}})
	if err != nil {
		t.Fatal(err)
	}
	full, _ := Resolve(Options{Profile: Profile{Model: mustModel(t, "Mistral-7B")}})
	if info.KVBlocks != full.KVBlocks {
		t.Errorf("%d KV blocks with every layer sliding, %d without; want the same", info.KVBlocks, full.KVBlocks)
	}
	c := newCostModel(info.Profile)
	var b batchShape
	c.add(&b, 10000, 1, true)
	if b.kvSlide != 4096 || c.kvFullBytes != 0 || c.kvSlideByte == 0 {
		t.Errorf("shape %+v, full %v, sliding %v bytes per token: want the window's 4096 tokens read", b, c.kvFullBytes, c.kvSlideByte)
	}
}
