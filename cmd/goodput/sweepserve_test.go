package main

import (
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/goodput-dev/goodput/record"
	"github.com/goodput-dev/goodput/runfile"
)

// sweepServeSetup links the test binary as goodput in a temporary folder
// (so the sweep takes it for the simulator), picks a free port and writes
// the server parameters; it returns the folder, the link and the port.
func sweepServeSetup(t *testing.T, params string) (work, self, port string) {
	t.Helper()
	work = t.TempDir()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	self = filepath.Join(work, "goodput")
	if err := os.Symlink(exe, self); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port = strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	ln.Close()
	if err := os.WriteFile(filepath.Join(work, "serve.json"), []byte(params), 0o644); err != nil {
		t.Fatal(err)
	}
	return work, self, port
}

// With goodput sweep as the benchmark, each server setting gets a load
// sweep and the results say how far each carries the SLO: two sequences
// at a time keep TTFT within 150 ms at 2 concurrent requests but not at
// 16, where they queue; sixteen carry 16.
func TestSweepServeFindsEachSettingsOperatingPoint(t *testing.T) {
	work, self, port := sweepServeSetup(t, `[{"max_num_seqs": 2}, {"max_num_seqs": 16}]`)
	cmd := goodput("sweep", "serve", "--serve-cmd", self+" sim --seed 1 --port "+port, "--serve-params", filepath.Join(work, "serve.json"),
		"--bench-cmd", "goodput sweep --concurrency 2,16 --num-prompts 48 --random-input-len 32 --random-output-len 16 --slo ttft<=150ms --quiet",
		"--num-runs", "1", "-o", work, "-e", "exp")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	for n, want := range map[string]float64{"2": 2, "16": 16} {
		b, err := os.ReadFile(filepath.Join(work, "exp", "SERVE--max_num_seqs="+n, "run=0.json"))
		if err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		var res struct {
			Op     float64 `json:"operating_point"`
			Points int     `json:"points"`
		}
		if err := json.Unmarshal(b, &res); err != nil {
			t.Fatal(err)
		}
		if res.Op != want || res.Points != 2 {
			t.Errorf("max_num_seqs=%s: operating point %v of %d points, want %v of 2\n%s", n, res.Op, res.Points, want, b)
		}
	}
	if !strings.Contains(string(out), "op. load") {
		t.Errorf("no table of operating points:\n%s", out)
	}
}

// goodput sweep serve, run as a vLLM user would with vllm bench serve's
// command line, restarts the simulator with each --max-num-seqs and
// measures it with goodput bench: one sequence at a time makes eight
// concurrent requests queue, so its median TTFT is many times that of
// eight at a time, and each run leaves vLLM's result with its parameters
// and goodput's records of every request.
func TestSweepServeRestartsTheServerPerSetting(t *testing.T) {
	work, self, port := sweepServeSetup(t, `[{"max_num_seqs": 1}, {"max_num_seqs": 8}]`)
	params := filepath.Join(work, "serve.json")
	cmd := goodput("sweep", "serve", "--serve-cmd", self+" sim --seed 1 --port "+port, "--serve-params", params,
		"--bench-cmd", "vllm bench serve --model Llama-3.1-8B --dataset-name random --random-input-len 32 --random-output-len 32 --num-prompts 16 --max-concurrency 8",
		"--num-runs", "1", "-o", work, "-e", "exp")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	ttft := map[string]float64{}
	for _, n := range []string{"1", "8"} {
		dir := filepath.Join(work, "exp", "SERVE--max_num_seqs="+n)
		b, err := os.ReadFile(filepath.Join(dir, "run=0.json"))
		if err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		var res struct {
			Completed  int     `json:"completed"`
			MedianTTFT float64 `json:"median_ttft_ms"`
			RunNumber  *int    `json:"run_number"`
			MaxNumSeqs int     `json:"max_num_seqs"`
		}
		if err := json.Unmarshal(b, &res); err != nil {
			t.Fatal(err)
		}
		if res.Completed != 16 || res.RunNumber == nil || *res.RunNumber != 0 || strconv.Itoa(res.MaxNumSeqs) != n {
			t.Errorf("max_num_seqs=%s: %+v", n, res)
		}
		ttft[n] = res.MedianTTFT
		f, err := runfile.Open(filepath.Join(dir, "run=0.jsonl"), nil)
		if err != nil {
			t.Fatal(err)
		}
		count := 0
		for {
			var r record.Record
			if f.Next(&r) != nil {
				break
			}
			count++
		}
		f.Close()
		if count != 16 {
			t.Errorf("max_num_seqs=%s: %d records, want 16", n, count)
		}
	}
	if ttft["1"] < 5*ttft["8"] {
		t.Errorf("median TTFT %.1f ms with one sequence at a time, %.1f ms with eight: the setting did not reach the server", ttft["1"], ttft["8"])
	}
	csv, err := os.ReadFile(filepath.Join(work, "exp", "summary.csv"))
	if err != nil || strings.Count(string(csv), "\n") != 3 {
		t.Errorf("summary.csv: %v\n%s", err, csv)
	}
	for _, want := range []string{"serve max_num_seqs=1 ", "serve max_num_seqs=8 ", "Saved in " + filepath.Join(work, "exp")} {
		if !strings.Contains(string(out), want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	// The experiment folder compares as its settings' first runs, and a
	// report on it says to compare.
	exp := filepath.Join(work, "exp")
	cmp, err := goodput("compare", exp).CombinedOutput()
	if err != nil || !strings.Contains(string(cmp), "comparing the first run of each of its 2 settings") ||
		!strings.Contains(string(cmp), "B  "+filepath.Join(exp, "SERVE--max_num_seqs=8", "run=0.jsonl")+", 16 requests") {
		t.Errorf("compare %s: %v\n%s", exp, err, cmp)
	}
	// vllm bench sweep plot's command line draws the two settings.
	plot, err := goodput("sweep", "plot", exp, "--var-x", "max_num_seqs", "--var-y", "median_ttft_ms").CombinedOutput()
	if err != nil || !strings.Contains(string(plot), "Wrote "+filepath.Join(exp, "FIGURE.html")+" (2 runs, 1 × 1 panels)") {
		t.Errorf("sweep plot %s: %v\n%s", exp, err, plot)
	}
	pareto, err := goodput("sweep", "plot_pareto", exp).CombinedOutput()
	if err != nil || !strings.Contains(string(pareto), "Wrote "+filepath.Join(exp, "pareto", "PARETO.html")+" (2 runs, ") {
		t.Errorf("sweep plot_pareto %s: %v\n%s", exp, err, pareto)
	}
	rep, err := goodput("report", exp).CombinedOutput()
	if err == nil || !strings.Contains(string(rep), "is a sweep over server settings (goodput sweep serve, 2 settings): goodput compare "+exp) {
		t.Errorf("report %s: %v\n%s", exp, err, rep)
	}
	t.Logf("median TTFT: %.1f ms (max_num_seqs 1), %.1f ms (8)", ttft["1"], ttft["8"])
}

// goodput sweep serve_sla, as vLLM's, finds the highest concurrency whose
// p99 TTFT meets the bound: with four sequences at a time, four concurrent
// requests never queue and 32 queue in eight waves, so the answer lies
// between, with the next load up failing.
func TestSweepServeSLAFindsTheHighestConcurrency(t *testing.T) {
	work, self, port := sweepServeSetup(t, `[{"max_num_seqs": 4}]`)
	sla := filepath.Join(work, "sla.json")
	if err := os.WriteFile(sla, []byte(`[{"p99_ttft_ms": "<=150"}]`), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := goodput("sweep", "serve_sla", "--serve-cmd", self+" sim --seed 1 --port "+port, "--serve-params", filepath.Join(work, "serve.json"),
		"--bench-cmd", "vllm bench serve --random-input-len 32 --random-output-len 16 --num-prompts 32",
		"--sla-params", sla, "--sla-variable", "max_concurrency", "--num-runs", "1", "-o", work, "-e", "exp")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	var best, failing int
	for _, line := range strings.Split(string(out), "\n") {
		if f := strings.Fields(line); len(f) >= 5 && f[0] == "serve" && f[2] == "p99_ttft_ms<=150.00" {
			best, _ = strconv.Atoi(f[3])
			failing, _ = strconv.Atoi(f[4])
		}
	}
	if best < 4 || best >= 32 || failing != best+1 {
		t.Errorf("highest concurrency meeting p99 TTFT ≤ 150 ms: %d, missed at %d; want 4 ≤ it < 32, missed at the next\n%s", best, failing, out)
	}
	if _, err := os.Stat(filepath.Join(work, "exp", "SERVE--max_num_seqs=4", "max_concurrency="+strconv.Itoa(best), "run=0.jsonl")); err != nil {
		t.Errorf("the passing load's records: %v", err)
	}
	t.Logf("highest concurrency meeting the SLA: %d", best)
}
