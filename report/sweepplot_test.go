package report

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// writeSummaries lays out a sweep's results as goodput sweep serve does:
// a summary.json (a list of runs) per combination folder.
func writeSummaries(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, text := range files {
		p := filepath.Join(dir, name, "summary.json")
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// Runs are grouped as vllm bench sweep plot groups them: a figure per
// --fig-by value, a curve per --curve-by value, the runs that share an x
// value drawn as their mean with their range; filters and bins apply
// first.
func TestSweepPlotGroupsAndAverages(t *testing.T) {
	dir := writeSummaries(t, map[string]string{
		"SERVE--max_num_seqs=8-BENCH--max_concurrency=4": `[
			{"max_num_seqs": 8, "max_concurrency": 4, "input": 128, "p99_ttft_ms": 10, "run_number": 0},
			{"max_num_seqs": 8, "max_concurrency": 4, "input": 128, "p99_ttft_ms": 14, "run_number": 1}]`,
		"SERVE--max_num_seqs=8-BENCH--max_concurrency=16": `[
			{"max_num_seqs": 8, "max_concurrency": 16, "input": 128, "p99_ttft_ms": 90, "run_number": 0}]`,
		"SERVE--max_num_seqs=32-BENCH--max_concurrency=16": `[
			{"max_num_seqs": 32, "max_concurrency": 16, "input": 128, "p99_ttft_ms": 30, "run_number": 0},
			{"max_num_seqs": 32, "max_concurrency": 2000, "input": 128, "p99_ttft_ms": 900, "run_number": 0}]`,
		"other-input": `[{"max_num_seqs": 8, "max_concurrency": 4, "input": 512, "p99_ttft_ms": 50, "run_number": 0}]`,
	})
	figs, err := SweepPlot(dir, PlotOptions{VarX: "max_concurrency", VarY: "p99_ttft_ms", FigBy: []string{"input"}, CurveBy: []string{"max_num_seqs"},
		Filters: []PlotFilter{{"max_concurrency", "<", "1000"}}})
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]*PlotFigure{}
	for _, f := range figs {
		byName[f.Name] = f
	}
	f := byName["FIGURE-input=128"]
	if len(figs) != 2 || f == nil || byName["FIGURE-input=512"] == nil || f.Runs != 4 {
		t.Fatalf("figures %v", figs)
	}
	curves := map[string][]plotPoint{}
	var order []string
	for _, c := range f.Cells[0][0].curves {
		curves[c.label] = c.pts
		order = append(order, c.label)
	}
	if !slices.Equal(order, []string{"max_num_seqs=8", "max_num_seqs=32"}) {
		t.Errorf("curves in the order %v, want by value: 8 before 32", order)
	}
	if got := curves["max_num_seqs=8"]; len(got) != 2 || got[0] != (plotPoint{4, 12, 10, 14, 2}) || got[1] != (plotPoint{16, 90, 90, 90, 1}) {
		t.Errorf("max_num_seqs=8: %+v, want the two runs at 4 as their mean 12 (10 to 14), then 90 at 16", got)
	}
	if got := curves["max_num_seqs=32"]; len(got) != 1 || got[0].x != 16 {
		t.Errorf("max_num_seqs=32: %+v: the run at 2000 should be filtered out", got)
	}
	var b strings.Builder
	if err := WritePlotHTML(&b, f, HTMLOptions{}); err != nil {
		t.Fatal(err)
	}
	parsePage(t, []byte(b.String())) // well-formed, as every page
	for _, want := range []string{"goodput sweep plot: p99_ttft_ms against max_concurrency (input=128)", "max_num_seqs=8", "max_concurrency 4: p99_ttft_ms 12 (mean of 2, 10 to 14)"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("page lacks %q", want)
		}
	}
	// Bins round down before runs are averaged.
	figs, err = SweepPlot(dir, PlotOptions{VarX: "max_concurrency", VarY: "p99_ttft_ms", Bins: []PlotBin{{"max_concurrency", 10}}, Filters: []PlotFilter{{"input", "==", "128"}}})
	if err != nil {
		t.Fatal(err)
	}
	pts := figs[0].Cells[0][0].curves[0].pts
	if len(pts) != 3 || pts[0].x != 0 || pts[1].x != 10 || pts[1].n != 2 || pts[1].y != 60 {
		t.Errorf("binned by 10: %+v", pts)
	}
}

// Keys and expressions that cannot be drawn are named.
func TestSweepPlotErrors(t *testing.T) {
	dir := writeSummaries(t, map[string]string{"a": `[{"max_concurrency": 4, "p99_e2el_ms": 10, "request_throughput": 2}]`})
	if _, err := SweepPlot(dir, PlotOptions{VarX: "max_concurency"}); err == nil ||
		!strings.Contains(err.Error(), `--var-x "max_concurency" is no key of the results under `+dir+`; they have: max_concurrency, p99_e2el_ms, request_throughput`) {
		t.Errorf("a misspelt key: %v", err)
	}
	if figs, err := SweepPlot(dir, PlotOptions{}); err != nil || figs[0].Runs != 1 {
		t.Errorf("vLLM's default axes, request_throughput and p99_e2el_ms: %v", err)
	}
	other := writeSummaries(t, map[string]string{"x": `{"total": 5}`})
	if _, err := SweepPlot(other, PlotOptions{}); err == nil || !strings.Contains(err.Error(), filepath.Join(other, "x", "summary.json")+": not the summary.json of a sweep over server settings") {
		t.Errorf("another tool's summary.json: %v", err)
	}
	noTput := writeSummaries(t, map[string]string{"y": `[{"max_concurrency": 4, "run_number": 2}]`})
	if _, err := SweepPareto(noTput, ParetoOptions{}); err == nil || !strings.Contains(err.Error(), filepath.Join(noTput, "y", "summary.json")+": a run has no output_throughput (run_number 2)") {
		t.Errorf("a run without output_throughput: %v", err)
	}
	empty := t.TempDir()
	if _, err := SweepPlot(empty, PlotOptions{}); err == nil || !strings.Contains(err.Error(), "no summary.json of a sweep over server settings") {
		t.Errorf("an empty folder: %v", err)
	}
	for _, bad := range []string{"max_concurrency", "=<5", "a~b"} {
		if _, err := ParsePlotFilters(bad); err == nil || !strings.Contains(err.Error(), "want key, an operator") {
			t.Errorf("ParsePlotFilters(%q): %v", bad, err)
		}
	}
	for _, bad := range []string{"x", "x%0", "x%-1", "%5"} {
		if _, err := ParsePlotBins(bad); err == nil {
			t.Errorf("ParsePlotBins(%q) accepted", bad)
		}
	}
	if fs, err := ParsePlotFilters("max_concurrency<=1000, backend=='vllm'"); err != nil || len(fs) != 2 || fs[0] != (PlotFilter{"max_concurrency", "<=", "1000"}) || fs[1] != (PlotFilter{"backend", "==", "vllm"}) {
		t.Errorf("ParsePlotFilters: %v %v", fs, err)
	}
}

// Each run is placed by output tokens/s per user and per GPU, GPUs from
// the parallel sizes when no key names them, and the frontier holds the
// runs no other beats on both.
func TestSweepParetoFrontier(t *testing.T) {
	dir := writeSummaries(t, map[string]string{
		"a": `[
			{"max_concurrency": 1, "tensor_parallel_size": 2, "output_throughput": 100},
			{"max_concurrency": 8, "tensor_parallel_size": 2, "output_throughput": 600},
			{"max_concurrency": 8, "tensor_parallel_size": 2, "pipeline_parallel_size": 2, "output_throughput": 600},
			{"max_concurrency": 64, "tensor_parallel_size": 2, "output_throughput": 1600},
			{"max_concurrent_requests": 4, "output_throughput": 40},
			{"output_throughput": 10}]`,
	})
	p, err := SweepPareto(dir, ParetoOptions{LabelBy: []string{"max_concurrency", "gpu_count"}})
	if err != nil {
		t.Fatal(err)
	}
	want := []ParetoPoint{
		{PerUser: 100, PerGPU: 50, Users: 1, GPUs: 2, Label: "max_concurrency=1, gpu_count=2", Frontier: true},
		{PerUser: 75, PerGPU: 300, Users: 8, GPUs: 2, Label: "max_concurrency=8, gpu_count=2", Frontier: true},
		{PerUser: 75, PerGPU: 150, Users: 8, GPUs: 4, Label: "max_concurrency=8, gpu_count=4"},
		{PerUser: 25, PerGPU: 800, Users: 64, GPUs: 2, Label: "max_concurrency=64, gpu_count=2", Frontier: true},
		{PerUser: 10, PerGPU: 40, Users: 4, GPUs: 1, Label: "gpu_count=1"},
	}
	if p.Skipped != 1 || len(p.Points) != len(want) {
		t.Fatalf("%d points, %d skipped: %+v", len(p.Points), p.Skipped, p.Points)
	}
	for i, w := range want {
		if p.Points[i] != w {
			t.Errorf("point %d: %+v, want %+v", i, p.Points[i], w)
		}
	}
	var b strings.Builder
	if err := WriteParetoHTML(&b, p, HTMLOptions{}); err != nil {
		t.Fatal(err)
	}
	parsePage(t, []byte(b.String()))
	if !strings.Contains(b.String(), "5 runs · 3 on the frontier · 1 without a user count left out") ||
		!strings.Contains(b.String(), "25 tok/s/user, 800 tok/s/GPU (64 users, 2 GPUs): max_concurrency=64, gpu_count=2") {
		t.Errorf("page:\n%s", b.String())
	}
}
