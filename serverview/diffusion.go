package serverview

import (
	"fmt"

	"github.com/goodput-dev/goodput/promscrape"
)

// Diffusion is a diffusion language model's account of the window, from
// the counters vLLM's bench serve reads for its Diffusion Decoding block.
type Diffusion struct {
	Steps           float64 `json:"steps"`            // denoising steps run, commit steps included
	CanvasPositions float64 `json:"canvas_positions"` // canvas positions those steps evaluated
	CommittedTokens float64 `json:"committed_tokens"` // tokens committed to the output
	// BlockSize is CanvasPositions ÷ Steps: the length of a canvas.
	BlockSize float64 `json:"block_size"`
	// DenoisingSteps is Steps less one commit step per canvas filled
	// (CommittedTokens ÷ BlockSize canvases).
	DenoisingSteps   float64 `json:"denoising_steps"`
	StepsPerCanvas   float64 `json:"steps_per_canvas"`   // DenoisingSteps per canvas filled
	CommittedPerStep float64 `json:"committed_per_step"` // CommittedTokens ÷ DenoisingSteps
}

// DiffusionOf returns the window's diffusion decoding, or nil when the
// server ran no step or committed no token in it (or serves no diffusion
// model), as vLLM's client reports none then, or when its counts leave no
// denoising step or no canvas (see diffusionNote).
func DiffusionOf(w promscrape.Window) *Diffusion {
	steps, committed := w.Counters[promscrape.DiffusionSteps], w.Counters[promscrape.DiffusionCommitted]
	if steps <= 0 || committed <= 0 {
		return nil
	}
	positions := w.Counters[promscrape.DiffusionPositions]
	block := positions / steps
	canvases := committed / block
	denoising := steps - canvases
	if !(denoising > 0) || !(canvases > 0) {
		return nil
	}
	return &Diffusion{Steps: steps, CanvasPositions: positions, CommittedTokens: committed, BlockSize: block,
		DenoisingSteps: denoising, StepsPerCanvas: denoising / canvases, CommittedPerStep: committed / denoising}
}

// String says the decoding in one line: the steps a canvas took, the
// tokens a step committed and the canvas length.
func (d *Diffusion) String() string {
	return fmt.Sprintf("%.2f denoising steps per canvas of %.0f positions, %.2f tokens committed per step (%.0f tokens)",
		d.StepsPerCanvas, d.BlockSize, d.CommittedPerStep, d.CommittedTokens)
}

// diffusionNote says why a window whose server ran steps and committed
// tokens has no Diffusion: its counts leave no denoising step or no
// canvas; "" otherwise.
func diffusionNote(w promscrape.Window) string {
	steps, committed := w.Counters[promscrape.DiffusionSteps], w.Counters[promscrape.DiffusionCommitted]
	if steps <= 0 || committed <= 0 || DiffusionOf(w) != nil {
		return ""
	}
	return fmt.Sprintf("diffusion decoding not shown: the server counted %.0f steps over %.0f canvas positions for %.0f committed tokens, which leaves no denoising step",
		steps, w.Counters[promscrape.DiffusionPositions], committed)
}
