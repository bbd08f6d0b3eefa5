package sweepserve

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// An experiment whose runs were compressed after (gzip run=N.json
// run=N.jsonl, or gzip -k) is read as it was: each run once, its records
// plain or compressed, in run order.
func TestExperimentOfCompressedRuns(t *testing.T) {
	dir := t.TempDir()
	combo := filepath.Join(dir, "SERVE--a=1")
	if err := os.Mkdir(combo, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"summary.csv", "SERVE--a=1/run=0.json.gz", "SERVE--a=1/run=0.jsonl.gz",
		"SERVE--a=1/run=1.json", "SERVE--a=1/run=1.json.gz", "SERVE--a=1/run=1.jsonl", "SERVE--a=1/run=1.jsonl.gz",
		"SERVE--a=1/run=2.json", "SERVE--a=1/run=0.failure.json"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	combos, ok, err := ReadExperiment(dir)
	if err != nil || !ok || len(combos) != 1 {
		t.Fatalf("ReadExperiment: %+v, %v, %v", combos, ok, err)
	}
	want := []string{filepath.Join(combo, "run=0.jsonl.gz"), filepath.Join(combo, "run=1.jsonl")}
	if got := combos[0].Runs; !slices.Equal(got, want) {
		t.Errorf("runs %v, want %v (run=2 has no records)", got, want)
	}
}
