package vllmresult

import (
	"math"
	"strings"
	"testing"
	"time"
)

// A diffusion run of 10 s whose server ran 1200 steps over 38400 canvas
// positions (canvases of 32) and committed 6400 tokens filled 200
// canvases in 1000 denoising steps, the 200 commit steps left out: 640
// tokens a second, 5 steps a canvas, 6.4 tokens a step. The keys follow
// the spec_decode ones, written as Python's json writes them.
func TestBuildDiffusionKeys(t *testing.T) {
	run := Run{Date: time.Now(), Backend: "vllm", ModelID: "m", RequestRate: math.Inf(1), Burstiness: 1, Duration: 10,
		Metrics: []string{"ttft"}, Percentiles: []float64{99},
		SpecDecode: &SpecDecode{Drafts: 10, DraftTokens: 30, Accepted: 20},
		Diffusion:  &Diffusion{Steps: 1200, Positions: 38400, Committed: 6400}}
	o := Build(run, requests())
	want := `"spec_decode_per_position_acceptance_rates": [], ` +
		`"diffusion_committed_throughput": 640.0, "diffusion_steps_per_canvas": 5.0, "diffusion_committed_per_step": 6.4, ` +
		`"diffusion_committed_tokens": 6400, "diffusion_denoising_steps": 1000, "diffusion_canvas_positions": 38400, `
	if got := string(Encode(o)); !strings.Contains(got, want) {
		t.Errorf("file lacks\n%s\n%s", want, got)
	}
}

// Python's int() truncates: canvases of 30 positions make 6400 committed
// tokens 213.33 canvases, and 1000 steps 786.67 denoising steps, 3.6875
// a canvas, 8.1356 tokens each.
func TestDiffusionFiguresTruncate(t *testing.T) {
	f, ok := (&Diffusion{Steps: 1000, Positions: 30000, Committed: 6400}).Figures(8)
	if !ok || f.Committed != 6400 || f.DenoisingSteps != 786 || f.Positions != 30000 || f.CommittedThroughput != 800 ||
		math.Abs(f.StepsPerCanvas-3.6875) > 1e-12 || math.Abs(f.CommittedPerStep-6400/(1000-6400.0/30)) > 1e-12 {
		t.Errorf("Figures = %+v, %v", f, ok)
	}
}

// vLLM reports no diffusion where the run advanced no step or committed no
// token, and goodput none where the counts leave no denoising step or no
// canvas to divide by: no key at all, never a 0, Inf or NaN.
func TestBuildWithoutDiffusion(t *testing.T) {
	for _, tc := range []struct {
		name string
		d    *Diffusion
	}{
		{"counters not read", nil},
		{"no step", &Diffusion{Steps: 0, Positions: 38400, Committed: 6400}},
		{"no token committed", &Diffusion{Steps: 1200, Positions: 38400, Committed: 0}},
		{"steps fell", &Diffusion{Steps: -5, Positions: 38400, Committed: 6400}},
		// Garbled counters: no position makes canvases of length 0.
		{"no position", &Diffusion{Steps: 1200, Positions: 0, Committed: 6400}},
		{"positions fell", &Diffusion{Steps: 1200, Positions: -38400, Committed: 6400}},
		// Canvases of one position: 6400 canvases, more than the steps.
		{"more canvases than steps", &Diffusion{Steps: 1200, Positions: 1200, Committed: 6400}},
		// Exactly one step per canvas: each was a commit, none denoised.
		{"commit steps only", &Diffusion{Steps: 200, Positions: 6400, Committed: 6400}},
		{"NaN", &Diffusion{Steps: 1200, Positions: math.NaN(), Committed: 6400}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			run := Run{Date: time.Now(), Backend: "vllm", ModelID: "m", RequestRate: 1, Duration: 10,
				Metrics: []string{"ttft"}, Percentiles: []float64{99}, Diffusion: tc.d}
			for _, m := range Build(run, requests()) {
				if strings.HasPrefix(m.Key, "diffusion_") {
					t.Errorf("%s = %v", m.Key, m.Value)
				}
			}
			if f, ok := tc.d.Figures(10); ok {
				t.Errorf("Figures = %+v", f)
			}
		})
	}
	// A run of no duration has no throughput, and its other figures.
	f, ok := (&Diffusion{Steps: 1200, Positions: 38400, Committed: 6400}).Figures(0)
	if !ok || f.CommittedThroughput != 0 || f.StepsPerCanvas != 5 || f.DenoisingSteps != 1000 {
		t.Errorf("zero duration: %+v, %v", f, ok)
	}
}
