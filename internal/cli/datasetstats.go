package cli

import (
	"errors"
	"fmt"
	"io"

	"github.com/goodput-dev/goodput/atomicfile"
	"github.com/goodput-dev/goodput/record"
	"github.com/goodput-dev/goodput/report/pngchart"
	"github.com/goodput-dev/goodput/runfile"
)

// writeDatasetStats draws, for --plot-dataset-stats, the prompt, output and
// total tokens of the run's completed requests (warm-up left out) as three
// histograms in a PNG at out, as vLLM's client draws its dataset's.
func writeDatasetStats(env *Env, records, out string) error {
	f, err := runfile.Open(records, nil)
	if err != nil {
		return fmt.Errorf("--plot-dataset-stats: %w", err)
	}
	defer f.Close()
	var in, gen, total []float64
	_, err = record.ReadBatches(f, func(rs []record.Record) error {
		for i := range rs {
			if r := &rs[i]; r.OK() && !r.Warmup {
				in, gen = append(in, float64(r.InputTokens)), append(gen, float64(r.OutputTokens))
				total = append(total, float64(r.InputTokens+r.OutputTokens))
			}
		}
		return nil
	})
	if err != nil && !errors.Is(err, runfile.ErrNoRecords) {
		return fmt.Errorf("--plot-dataset-stats: %w", err)
	}
	title := fmt.Sprintf("Dataset statistics: %d completed requests", len(in))
	err = atomicfile.Write(out, func(w io.Writer) error {
		return pngchart.Histograms(w, title, []pngchart.Panel{
			{Title: "Prompt tokens", XLabel: "prompt tokens per request", Values: in},
			{Title: "Output tokens", XLabel: "output tokens per request", Values: gen},
			{Title: "Total tokens", XLabel: "prompt and output tokens per request", Values: total},
		})
	})
	if err != nil {
		return fmt.Errorf("--plot-dataset-stats: %w", err)
	}
	fmt.Fprintf(env.Stdout, "Wrote %s\n", out)
	return nil
}
