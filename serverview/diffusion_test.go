package serverview

import (
	"bytes"
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/goodput-dev/goodput/promscrape"
)

// The window's diffusion counters give vLLM's figures: 1200 steps over
// 38400 positions are canvases of 32, so 6400 committed tokens filled 200
// canvases in 1000 denoising steps (the 200 commit steps left out): 5
// steps a canvas, 6.4 tokens a step.
func TestDiffusion(t *testing.T) {
	w := promscrape.Window{Counters: map[promscrape.Counter]float64{
		promscrape.DiffusionSteps: 1200, promscrape.DiffusionPositions: 38400, promscrape.DiffusionCommitted: 6400}}
	got := DiffusionOf(w)
	want := &Diffusion{Steps: 1200, CanvasPositions: 38400, CommittedTokens: 6400, BlockSize: 32,
		DenoisingSteps: 1000, StepsPerCanvas: 5, CommittedPerStep: 6.4}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("DiffusionOf = %+v\nwant %+v", got, want)
	}
	if s, want := got.String(), "5.00 denoising steps per canvas of 32 positions, 6.40 tokens committed per step (6400 tokens)"; s != want {
		t.Errorf("String() = %q, want %q", s, want)
	}
	if n := diffusionNote(w); n != "" {
		t.Errorf("note %q", n)
	}
	// No token committed in the window: nothing to report, as vLLM
	// reports nothing then; nor without the counters.
	w.Counters[promscrape.DiffusionCommitted] = 0
	if d := DiffusionOf(w); d != nil || diffusionNote(w) != "" {
		t.Errorf("without committed tokens: %+v %q", d, diffusionNote(w))
	}
	if d := DiffusionOf(promscrape.Window{}); d != nil {
		t.Errorf("without the counters: %+v", d)
	}
	// Canvases of one position would be 6400 canvases in 1200 steps: no
	// figure to show, and a note says why.
	w.Counters[promscrape.DiffusionCommitted], w.Counters[promscrape.DiffusionPositions] = 6400, 1200
	if d := DiffusionOf(w); d != nil {
		t.Errorf("6400 canvases in 1200 steps: %+v", d)
	}
	if n, want := diffusionNote(w), "diffusion decoding not shown: the server counted 1200 steps over 1200 canvas positions for 6400 committed tokens, which leaves no denoising step"; n != want {
		t.Errorf("note %q, want %q", n, want)
	}
	// No position at all: canvases of length 0.
	w.Counters[promscrape.DiffusionPositions] = 0
	if d := DiffusionOf(w); d != nil || diffusionNote(w) == "" {
		t.Errorf("no position: %+v %q", d, diffusionNote(w))
	}
}

// A comparison over a diffusion server's window carries its decoding, in
// the JSON as "diffusion" and in the terminal block as one line; one over
// garbled counts carries a note instead.
func TestCompareDiffusion(t *testing.T) {
	s := runSeries()
	counts := func(steps, positions, committed float64) map[promscrape.Counter]map[string]float64 {
		return map[promscrape.Counter]map[string]float64{promscrape.DiffusionSteps: one(steps),
			promscrape.DiffusionPositions: one(positions), promscrape.DiffusionCommitted: one(committed)}
	}
	first, last := s.Samples[0].Snapshot, s.Samples[len(s.Samples)-1].Snapshot
	for c, v := range counts(300, 9600, 1000) {
		first.Counters[c] = v
	}
	for c, v := range counts(1500, 48000, 7400) {
		last.Counters[c] = v
	}
	c, err := Compare(s, at(0.5), at(9.5), runResult())
	if err != nil {
		t.Fatal(err)
	}
	if d := c.Diffusion; d == nil || d.Steps != 1200 || d.CanvasPositions != 38400 || d.CommittedTokens != 6400 || d.StepsPerCanvas != 5 {
		t.Fatalf("Diffusion = %+v, want 1200 steps over 38400 positions, 6400 committed, 5 a canvas", d)
	}
	b, err := json.Marshal(c)
	if err != nil || !strings.Contains(string(b), `"diffusion":{"steps":1200,"canvas_positions":38400,"committed_tokens":6400,"block_size":32,"denoising_steps":1000,"steps_per_canvas":5,"committed_per_step":6.4}`) {
		t.Errorf("JSON %v: %s", err, b)
	}
	var buf bytes.Buffer
	if err := Text(&buf, c); err != nil {
		t.Fatal(err)
	}
	if want := "Diffusion decoding:                      5.00 denoising steps per canvas of 32 positions, 6.40 tokens committed per step (6400 tokens)\n"; !strings.Contains(buf.String(), want) {
		t.Errorf("text lacks %q:\n%s", want, buf.String())
	}
	// Canvases of one position: 6400 canvases in 1200 steps.
	for c, v := range counts(1500, 10800, 7400) {
		last.Counters[c] = v
	}
	c, err = Compare(s, at(0.5), at(9.5), runResult())
	if err != nil {
		t.Fatal(err)
	}
	if c.Diffusion != nil || !slices.ContainsFunc(c.Notes, func(n string) bool { return strings.HasPrefix(n, "diffusion decoding not shown:") }) {
		t.Errorf("garbled counts: %+v, notes %q", c.Diffusion, c.Notes)
	}
}
