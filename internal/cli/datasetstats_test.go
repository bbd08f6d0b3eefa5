package cli

import (
	"encoding/json"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goodput-dev/goodput/internal/simtest"
	"github.com/goodput-dev/goodput/sim"
)

// vLLM's --plot-dataset-stats writes a PNG of the run's lengths beside its
// result file, named as vLLM names it; with --format json the line that
// says so goes to standard error, so that standard output stays one JSON
// document.
func TestPlotDatasetStatsWritesThePNG(t *testing.T) {
	_, url := simtest.Serve(t, sim.Options{Seed: 3})
	dir := t.TempDir()
	out, errOut, code := run(t, "", "bench", "--base-url", url, "--num-prompts", "6", "--random-input-len", "40",
		"--random-output-len", "8", "--plot-dataset-stats", "--save-result", "--result-dir", dir,
		"--result-filename", "res.json", "--quiet", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, errOut, out)
	}
	var doc map[string]any
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("standard output is not one JSON document: %v\n%s", err, out)
	}
	path := filepath.Join(dir, "res.dataset_stats.png")
	if !strings.Contains(errOut, "Wrote "+path) {
		t.Errorf("no word of %s on standard error:\n%s", path, errOut)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	if b := img.Bounds(); b.Dx() != 3*480 || b.Dy() != 420 {
		t.Errorf("image %v, want three panels of 480×420", b)
	}
}
