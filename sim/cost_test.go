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

// decodeShape is a step in which batch sequences, each with ctx tokens
// already cached, decode one token each.
func decodeShape(batch, ctx int) batchShape {
	var b batchShape
	for range batch {
		b.add(ctx, 1)
	}
	return b
}

func TestStepTimeByHand(t *testing.T) {
	h100, l8b := 3.35e12, 8.03e9
	tests := []struct {
		name  string
		shape batchShape
		want  float64 // seconds, computed here from the formula's parts
	}{
		{
			// One sequence decoding its first output token after a 100-token
			// prompt: reading 16.06 GB of weights at 80 % of 3.35 TB/s, plus
			// the KV of 101 tokens, plus 0.25 + 0.25 ms of overhead.
			name:  "batch 1 decode",
			shape: decodeShape(1, 100),
			want:  0.25e-3 + 0.25e-3 + (2*l8b+101*131072)/(h100*0.8),
		},
		{
			// 16 sequences at 300 tokens of context: the weights are read
			// once for all of them; the per-sequence overhead grows 16×.
			name:  "batch 16 decode",
			shape: decodeShape(16, 300),
			want:  0.25e-3 + 16*0.25e-3 + (2*l8b+16*301*131072)/(h100*0.8),
		},
		{
			// A 2,048-token prefill is compute bound: linear layers plus
			// causal attention over the prompt, at 50 % of 989 TFLOP/s.
			name:  "2048-token prefill",
			shape: func() batchShape { var b batchShape; b.add(0, 2048); return b }(),
			want:  0.25e-3 + 0.25e-3 + (2*l8b*2048+4*32*32*128*(2048.0*2049/2))/(989e12*0.5),
		},
	}
	c := newCostModel(profileOf(t, "H100", "Llama-3.1-8B", 1))
	for _, tt := range tests {
		if got := c.seconds(tt.shape); math.Abs(got-tt.want) > 1e-9 {
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
	c := newCostModel(profileOf(t, "H100", "Llama-3.1-8B", 1))
	// Batch: at a fixed context, every extra sequence costs more.
	prev := time.Duration(0)
	for _, batch := range []int{1, 2, 4, 8, 16, 32, 64, 128, 256} {
		d := c.duration(decodeShape(batch, 512))
		if d <= prev {
			t.Errorf("decode step at batch %d = %v, not above batch %d's %v", batch, d, batch/2, prev)
		}
		prev = d
	}
	// Context: at a fixed batch, longer contexts read more KV. Memory
	// bound, so 64 sequences going from 1k to 8k tokens of context add
	// 64 × 7k × 128 KiB ÷ (0.8 × 3.35 TB/s) ≈ 22 ms.
	short, long := c.duration(decodeShape(64, 1024)), c.duration(decodeShape(64, 8192))
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
		{"decode batch 1", decodeShape(1, 1000), false},
		{"decode batch 64", decodeShape(64, 1000), false},
		{"prefill 8192", func() batchShape { var b batchShape; b.add(0, 8192); return b }(), true},
	} {
		compute := (c.flopsPerToken*float64(tt.shape.tokens) + c.flopsPerAttn*tt.shape.attnPairs) / c.flopRate
		memory := (c.weightBytes + c.kvBytesPerToken*tt.shape.kvTokens) / c.byteRate
		if (compute > memory) != tt.computeWins {
			t.Errorf("%s: compute %.2f ms vs memory %.2f ms, want compute bound = %v",
				tt.name, compute*1e3, memory*1e3, tt.computeWins)
		}
	}
}

func TestTensorParallelism(t *testing.T) {
	tp1 := newCostModel(profileOf(t, "H100", "Llama-3.1-70B", 1))
	tp4 := newCostModel(profileOf(t, "H100", "Llama-3.1-70B", 4))
	if got, want := tp4.weightBytes, tp1.weightBytes/4; got != want {
		t.Errorf("TP 4 weights per GPU = %v, want a quarter of %v", got, tp1.weightBytes)
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
	one, four := tp1.seconds(decodeShape(1, 500)), tp4.seconds(decodeShape(1, 500))
	if !(four < one/2 && four > one/4) {
		t.Errorf("70B decode: TP 1 %.2f ms, TP 4 %.2f ms; want TP 4 between a quarter and a half", one*1e3, four*1e3)
	}
}

func TestKVHeadsReplicateBeyondTheirCount(t *testing.T) {
	qwen := mustModel(t, "Qwen2.5-0.5B") // 2 KV heads
	tests := []struct {
		tp   int
		want float64
	}{
		{1, 2 * 24 * 2 * 64 * 2}, // both heads on one GPU
		{2, 2 * 24 * 1 * 64 * 2}, // one head each
		{4, 2 * 24 * 1 * 64 * 2}, // more GPUs than heads: each keeps a replica of one
	}
	for _, tt := range tests {
		if got := kvBytesPerTokenPerGPU(qwen, tt.tp); got != tt.want {
			t.Errorf("TP %d: %v KV bytes per token per GPU, want %v", tt.tp, got, tt.want)
		}
	}
}
