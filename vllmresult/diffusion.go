package vllmresult

import "math"

// Diffusion is what vLLM's client reads from a diffusion language model's
// counters over a run: the increases of its denoising steps (each canvas's
// commit step included), the canvas positions they evaluated, and the
// tokens committed to the output, summed over the server's label sets.
type Diffusion struct {
	Steps, Positions, Committed float64
}

// DiffusionFigures are vLLM's Diffusion Decoding figures of a run.
type DiffusionFigures struct {
	CommittedThroughput float64 // committed tokens per second of the run
	StepsPerCanvas      float64 // denoising steps to fill one canvas
	CommittedPerStep    float64 // committed tokens per denoising step
	// Committed, DenoisingSteps and Positions are the counts, truncated
	// as Python's int() does; DenoisingSteps leaves the commit steps out.
	Committed, DenoisingSteps, Positions int64
}

// Figures returns vLLM's figures of the decoding over a run of duration
// seconds, and false where vLLM reports none: no step or no committed
// token in the run. It also returns false for counters that leave no
// denoising step or no canvas (a server's garbled counts), which would
// divide by zero; callers print and write nothing then. A duration of
// zero or less gives a throughput of 0.
func (d *Diffusion) Figures(duration float64) (DiffusionFigures, bool) {
	if d == nil || d.Steps <= 0 || d.Committed <= 0 {
		return DiffusionFigures{}, false
	}
	blockSize := d.Positions / d.Steps // the canvas length
	canvases := d.Committed / blockSize
	denoising := d.Steps - canvases          // one commit step per canvas
	if !(denoising > 0) || !(canvases > 0) { // NaN fails too
		return DiffusionFigures{}, false
	}
	f := DiffusionFigures{
		StepsPerCanvas:   denoising / canvases,
		CommittedPerStep: d.Committed / denoising,
		Committed:        int64(d.Committed),
		DenoisingSteps:   int64(denoising),
		Positions:        int64(d.Positions),
	}
	if math.IsInf(f.StepsPerCanvas, 0) || math.IsInf(f.CommittedPerStep, 0) {
		return DiffusionFigures{}, false // counts too small to divide by
	}
	if duration > 0 {
		f.CommittedThroughput = d.Committed / duration
	}
	return f, true
}
