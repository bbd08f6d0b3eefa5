package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// compareRuns writes a baseline, a rerun of its schedule, and the same
// schedule on a slower GPU, and returns their record files.
func compareRuns(t *testing.T) (base, rerun, slower string) {
	t.Helper()
	dir := t.TempDir()
	h, recs := simRun(t, "H100-SXM", 300, 5, 1)
	base = writeRunFiles(t, dir, "base", h, recs, "")
	h, recs = simRun(t, "H100-SXM", 300, 5, 2)
	rerun = writeRunFiles(t, dir, "rerun", h, recs, "")
	h, recs = simRun(t, "A100-80GB", 300, 5, 1)
	slower = writeRunFiles(t, dir, "slower", h, recs, "")
	return base, rerun, slower
}

func TestCompare(t *testing.T) {
	base, rerun, slower := compareRuns(t)
	t.Run("a rerun is noise", func(t *testing.T) {
		stdout, stderr, code := run(t, "", "compare", base, rerun, "--gate", "regression(p99 ttft) <= 10%")
		if code != ExitOK {
			t.Fatalf("exit %d: %s\n%s", code, stderr, stdout)
		}
		if n := strings.Count(stdout, " noise\n"); n != 8 {
			t.Errorf("%d of 8 latency rows called noise:\n%s", n, stdout)
		}
		if !strings.Contains(stdout, "PASS: the gate passed.") || strings.Contains(stdout, "Comparability warnings") {
			t.Errorf("output:\n%s", stdout)
		}
	})
	t.Run("a slower GPU is worse and fails the gate", func(t *testing.T) {
		stdout, stderr, code := run(t, "", "compare", base, slower, "--gate", "regression(p99 ttft) <= 10%", "--gate", "p99(ttft)<=10s")
		if code != ExitGateFail {
			t.Fatalf("exit %d, want %d: %s", code, ExitGateFail, stderr)
		}
		if n := strings.Count(stdout, " worse\n"); n != 8 {
			t.Errorf("%d of 8 latency rows called worse:\n%s", n, stdout)
		}
		if !strings.Contains(stdout, "B: p99(ttft)<=10s: measured") || !strings.Contains(stdout, "FAIL: 1 of 2 gates failed.") ||
			!strings.Contains(stderr, "compare: 1 of 2 gates failed") {
			t.Errorf("stdout:\n%s\nstderr: %s", stdout, stderr)
		}
	})
	t.Run("three runs in markdown", func(t *testing.T) {
		out := filepath.Join(t.TempDir(), "cmp.md")
		_, stderr, code := run(t, "", "compare", base, rerun, slower, "--format", "markdown", "-o", out, "--resamples", "200", "--seed", "3")
		if code != ExitOK {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		b, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		md := string(b)
		if !strings.Contains(md, "| metric | A | B | C | B Δ |") || !strings.Contains(md, "(200 resamples, seed 3)") {
			t.Errorf("markdown:\n%s", md)
		}
	})
	t.Run("a page, from the output's extension", func(t *testing.T) {
		out := filepath.Join(t.TempDir(), "cmp.html")
		stdout, stderr, code := run(t, "", "compare", base, slower, "-o", out, "--resamples", "200", "--point-estimate",
			"--gate", "regression(p99 ttft) <= 10%")
		if code != ExitGateFail {
			t.Fatalf("exit %d, want %d: %s", code, ExitGateFail, stderr)
		}
		b, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		page := string(b)
		for _, want := range []string{"<!DOCTYPE html>", "<title>goodput compare: base vs slower</title>", "Latency differences against A",
			"judged on point estimates (--point-estimate)", "FAIL: the gate failed."} {
			if !strings.Contains(page, want) {
				t.Errorf("page lacks %q", want)
			}
		}
		if stdout != "Wrote "+out+"\n" {
			t.Errorf("stdout %q", stdout)
		}
	})
	t.Run("an SLO and an attainment gate", func(t *testing.T) {
		stdout, stderr, code := run(t, "", "compare", base, rerun, "--slo", "ttft<=50ms", "--gate", "regression(attainment)<=50%")
		if code != ExitOK || !strings.Contains(stdout, "SLO attainment") {
			t.Errorf("exit %d: %s\n%s", code, stderr, stdout)
		}
	})
}

func TestCompareUsage(t *testing.T) {
	base, rerun, _ := compareRuns(t)
	sweepDir := writeSweepDir(t)
	tests := []struct {
		name string
		args []string
		code int
		err  string
	}{
		{"one run", []string{"compare", base}, ExitUsage, "give a baseline and at least one run"},
		{"bad regression gate", []string{"compare", base, rerun, "--gate", "regression(p99 latency)<=10%"}, ExitUsage, "--gate: regression gate"},
		{"bad plain gate", []string{"compare", base, rerun, "--gate", "p99(ttft)"}, ExitUsage, "--gate"},
		{"too few resamples", []string{"compare", base, rerun, "--resamples", "5"}, ExitUsage, "resamples 5"},
		{"confidence out of range", []string{"compare", base, rerun, "--confidence", "1.5"}, ExitUsage, "confidence 1.5"},
		{"unknown format", []string{"compare", base, rerun, "--format", "json"}, ExitUsage, `--format "json"`},
		{"a sweep", []string{"compare", base, sweepDir}, ExitUsage, "is a sweep"},
		{"missing run", []string{"compare", base, base + ".nope"}, ExitTool, "no such file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, stderr, code := run(t, "", tt.args...)
			if code != tt.code || !strings.Contains(stderr, tt.err) {
				t.Errorf("exit %d stderr %q, want %d and %q", code, stderr, tt.code, tt.err)
			}
		})
	}
}
