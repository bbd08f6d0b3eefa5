package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestHistoryBenchListTrendCheck records three bench runs of the built-in
// simulator, the third on a slower GPU, then lists, shows, trends and
// checks them: the second run is no regression, the third is (exit 3).
func TestHistoryBenchListTrendCheck(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "history.db")
	for i, gpu := range []string{"H100", "H100", "A100"} {
		stdout, stderr, code := run(t, "", "bench", "--sim-gpu", gpu, "--num-prompts", "40", "--max-concurrency", "8",
			"--random-input-len", "256", "--random-output-len", "24", "--ignore-eos", "--goodput", "ttft:500", "tpot:50",
			"--result-dir", filepath.Join(dir, "runs"), "--run-name", "run"+string(rune('1'+i)), "--history", db,
			"--label", "branch=main", "--quiet", "--no-server-metrics")
		if code != ExitOK {
			t.Fatalf("bench %d: exit %d: %s", i+1, code, stderr)
		}
		if want := "Recorded run " + string(rune('1'+i)) + " in " + db; !strings.Contains(stdout, want) {
			t.Fatalf("bench %d: no %q in\n%s", i+1, want, stdout)
		}
	}

	stdout, stderr, code := run(t, "", "history", "list", "--history", db, "--format", "json", "--label", "branch=main")
	if code != ExitOK {
		t.Fatalf("list: exit %d: %s", code, stderr)
	}
	var runs []jsonRun
	if err := json.Unmarshal([]byte(stdout), &runs); err != nil {
		t.Fatalf("list json: %v\n%s", err, stdout)
	}
	if len(runs) != 3 || runs[0].Name != "run3" || runs[2].Name != "run1" {
		t.Fatalf("list: %d runs %+v, want run3, run2, run1", len(runs), runs)
	}
	for _, r := range runs {
		if r.Metrics["requests"] != 40 || r.Target.Model != "Llama-3.1-8B" || !strings.HasPrefix(r.Target.Description, "built-in simulator") ||
			r.Key != runs[0].Key || !filepath.IsAbs(r.Records) {
			t.Errorf("run %d: requests %v, target %+v, key %s (want %s), records %q", r.ID, r.Metrics["requests"], r.Target, r.Key, runs[0].Key, r.Records)
		}
		if _, err := os.Stat(r.Records); err != nil {
			t.Errorf("run %d: records: %v", r.ID, err)
		}
	}
	if stdout, _, _ := run(t, "", "history", "list", "--history", db, "--label", "branch=dev"); strings.Count(stdout, "\n") != 1 {
		t.Errorf("a label no run has listed runs:\n%s", stdout)
	}

	stdout, _, code = run(t, "", "history", "show", "1", "--history", db)
	if code != ExitOK || !strings.Contains(stdout, "Name:             run1") || !strings.Contains(stdout, "ttft_p99") || !strings.Contains(stdout, "branch=main") {
		t.Errorf("show 1: exit %d\n%s", code, stdout)
	}

	stdout, stderr, code = run(t, "", "history", "trend", "tpot_p50", "--history", db)
	if code != ExitOK || strings.Count(stdout, " ms") != 3 || !strings.Contains(stdout, "tpot_p50 across 3 comparable runs") {
		t.Errorf("trend: exit %d: %s\n%s", code, stderr, stdout)
	}
	page := filepath.Join(dir, "trend.html")
	if _, stderr, code = run(t, "", "history", "trend", "tpot_p50", "--history", db, "--html", page); code != ExitOK {
		t.Fatalf("trend --html: exit %d: %s", code, stderr)
	}
	if b, err := os.ReadFile(page); err != nil || strings.Count(string(b), "<circle") != 3 {
		t.Errorf("trend page: %v, %d points", err, strings.Count(string(b), "<circle"))
	}

	// The second run against the first: the same GPU, no regression.
	stdout, stderr, code = run(t, "", "history", "check", "2", "--history", db)
	if code != ExitOK || !strings.Contains(stdout, "Verdict: no regression") {
		t.Errorf("check 2: exit %d: %s\n%s", code, stderr, stdout)
	}
	// The latest, on an A100, against both: slower in every latency.
	stdout, stderr, code = run(t, "", "history", "check", "--history", db, "--format", "json")
	if code != ExitGateFail {
		t.Fatalf("check latest: exit %d, want %d: %s\n%s", code, ExitGateFail, stderr, stdout)
	}
	var c struct {
		Run       int64   `json:"run"`
		Baselines []int64 `json:"baselines"`
		Regressed bool    `json:"regressed"`
		Findings  []struct {
			Metric    string `json:"metric"`
			Regressed bool   `json:"regressed"`
		} `json:"findings"`
	}
	if err := json.Unmarshal([]byte(stdout), &c); err != nil {
		t.Fatalf("check json: %v\n%s", err, stdout)
	}
	regressed := map[string]bool{}
	for _, f := range c.Findings {
		regressed[f.Metric] = f.Regressed
	}
	if c.Run != 3 || len(c.Baselines) != 2 || !regressed["tpot_p50"] || !regressed["ttft_p99"] || !strings.Contains(stderr, "run 3 regressed in") {
		t.Errorf("check latest: %+v\nstderr: %s", c, stderr)
	}
}

// TestHistorySweep records a virtual-time sweep: one sweep run with a
// point run per load, and trends the operating point.
func TestHistorySweep(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "h.db")
	for i := range 2 {
		stdout, stderr, code := run(t, "", "sweep", "--virtual", "--concurrency", "1,4,16", "--num-prompts", "48", "--min-rounds", "0",
			"--random-input-len", "128", "--random-output-len", "32", "--ignore-eos", "--slo", "ttft<=200ms",
			"--result-dir", filepath.Join(dir, "s"+string(rune('0'+i))), "--history", db, "--quiet")
		if code != ExitOK {
			t.Fatalf("sweep %d: exit %d: %s", i, code, stderr)
		}
		if !strings.Contains(stdout, "with 3 points in "+db) {
			t.Fatalf("sweep %d:\n%s", i, stdout)
		}
	}
	stdout, _, code := run(t, "", "history", "list", "--history", db, "--kind", "point", "--format", "json")
	var points []jsonRun
	if err := json.Unmarshal([]byte(stdout), &points); code != ExitOK || err != nil || len(points) != 6 {
		t.Fatalf("points: exit %d, %v, %d points\n%s", code, err, len(points), stdout)
	}
	if points[0].Sweep == 0 || points[0].Labels["point"] == "" {
		t.Errorf("a point lacks its sweep or its point label: %+v", points[0])
	}
	stdout, stderr, code := run(t, "", "history", "trend", "operating_request_throughput", "--history", db, "--kind", "sweep")
	if code != ExitOK || !strings.Contains(stdout, "across 2 comparable runs") {
		t.Errorf("sweep trend: exit %d: %s\n%s", code, stderr, stdout)
	}
	// A point's trend holds that load's points of both sweeps.
	stdout, stderr, code = run(t, "", "history", "trend", "ttft_p99", "--history", db, "--label", "point=c4")
	if code != ExitOK || !strings.Contains(stdout, "across 2 comparable runs") {
		t.Errorf("point trend: exit %d: %s\n%s", code, stderr, stdout)
	}
}

func TestHistoryUsage(t *testing.T) {
	db := filepath.Join(t.TempDir(), "h.db")
	for _, tc := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"no store", []string{"history", "list"}, ExitUsage, "no history: give --history"},
		{"bad format", []string{"history", "list", "--history", db, "--format", "xml"}, ExitUsage, "--format"},
		{"bad kind", []string{"history", "list", "--history", db, "--kind", "job"}, ExitUsage, "--kind"},
		{"bad label", []string{"history", "list", "--history", db, "--label", "nokey"}, ExitUsage, "--label"},
		{"bad run id", []string{"history", "show", "x", "--history", db}, ExitUsage, "want a run id"},
		{"missing run", []string{"history", "show", "7", "--history", db}, ExitTool, "no such run"},
		{"empty store", []string{"history", "check", "--history", db}, ExitTool, "no recorded run matches"},
		{"bad tolerance", []string{"history", "check", "--history", db, "--tolerance", "-5%"}, ExitUsage, "--tolerance"},
		{"zero baselines", []string{"history", "check", "--history", db, "--baselines", "0"}, ExitUsage, "--baselines"},
		{"a metric that cannot regress", []string{"history", "check", "--history", db, "--metric", "requests"}, ExitUsage, "cannot regress"},
		{"trend needs a metric", []string{"history", "trend", "--history", db}, ExitUsage, "accepts 1 arg"},
		{"an unreachable store before a run", []string{"bench", "--history", "postgres://u@127.0.0.1:1/x?connect_timeout=1", "--num-prompts", "1"}, ExitTool, "--history"},
		{"linger without listen", []string{"bench", "--metrics-linger", "1s", "--num-prompts", "1"}, ExitUsage, "--metrics-linger needs --metrics-listen"},
		{"push to no URL", []string{"bench", "--metrics-push", "gateway:9091", "--num-prompts", "1"}, ExitUsage, "--metrics-push"},
		{"export from virtual time", []string{"sweep", "--virtual", "--metrics-listen", "127.0.0.1:0"}, ExitUsage, "virtual-time sweep sends no requests"},
	} {
		_, stderr, code := run(t, "", tc.args...)
		if code != tc.code || !strings.Contains(stderr, tc.want) {
			t.Errorf("%s: exit %d, want %d with %q: %s", tc.name, code, tc.code, tc.want, stderr)
		}
	}
}
