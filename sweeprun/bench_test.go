package sweeprun

import (
	"path/filepath"
	"strconv"
	"testing"

	"github.com/goodput-dev/goodput/bench"
	"github.com/goodput-dev/goodput/sim"
	"github.com/goodput-dev/goodput/sweep"
)

// BenchmarkVirtualSweep times a what-if sweep in virtual time: 10
// concurrencies (1 to 512) of 20,000 requests each, `vllm bench serve`'s
// default random workload (1,024 prompt tokens, up to 128 output tokens),
// Llama-3.1-8B on an H100. One iteration is one whole sweep, prompts
// generated from scratch. "summaries" keeps only the numbers, as a library
// caller would; "records" also writes every record and summary to disk, as
// `goodput sweep --virtual` does.
func BenchmarkVirtualSweep(b *testing.B) {
	const requests = 20_000
	loads := concurrencies(1, 2, 4, 8, 16, 32, 64, 128, 256, 512)
	for _, files := range []bool{false, true} {
		name := "summaries"
		if files {
			name = "records"
		}
		b.Run(name, func(b *testing.B) {
			cfg := Config{Bench: bench.DefaultConfig(), Virtual: &sim.Options{}}
			cfg.Bench.Arrival.NumPrompts = requests
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				if files {
					cfg.Dir = filepath.Join(b.TempDir(), strconv.Itoa(i))
					i++
				}
				r, err := New(cfg)
				if err != nil {
					b.Fatal(err)
				}
				out, err := r.Run(b.Context(), sweep.Plan{Mode: sweep.ModeConcurrency, Loads: loads})
				if err != nil {
					b.Fatal(err)
				}
				if len(out.Summary.Points) != len(loads) || out.Summary.Points[0].Mean.Requests != requests {
					b.Fatalf("%d points of %d requests", len(out.Summary.Points), out.Summary.Points[0].Mean.Requests)
				}
			}
			b.ReportMetric(float64(len(loads)*requests), "requests/op")
		})
	}
}
