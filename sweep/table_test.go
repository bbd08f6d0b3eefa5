package sweep

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files")

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs from the golden file:\n got:\n%s\nwant:\n%s", name, got, want)
	}
}

func TestWriteTable(t *testing.T) {
	ps := server(t, serverLoads())
	// Repeats at 16 show their spread; 64 passes again after 32 failed.
	ps[4], _ = Merge(ps[4], Point{Load: ps[4].Load, Mean: synth(8.2, 2, 0.97)})
	ps[7].Mean.Attainment = 0.95
	ps[7].Mean.ErrorRate = 0.03 // 30 of its 1,000 requests failed
	ps[7], _ = NewPoint(ps[7].Load, ps[7].Mean)
	s, err := Analyze(ps, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := WriteTable(&b, s); err != nil {
		t.Fatal(err)
	}
	golden(t, "table.golden", b.String())
	for _, want := range []string{"op,peak", "knee,curve", "stray", "810 ±14", "30 (3 %)"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("table lacks %q", want)
		}
	}
}
