package cli

import (
	"database/sql"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/goodput-dev/goodput/history"
)

// TestHistoryBenchListTrend records two bench runs of the built-in
// simulator, then lists, shows and trends them. (Checks are judged on
// virtual-time sweeps below, whose numbers do not depend on how busy the
// machine is.)
func TestHistoryBenchListTrend(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "history.db")
	for i, format := range []string{"text", "json"} {
		stdout, stderr, code := run(t, "", "bench", "--num-prompts", "40", "--max-concurrency", "8",
			"--random-input-len", "256", "--random-output-len", "24", "--ignore-eos", "--goodput", "ttft:500", "tpot:50",
			"--result-dir", filepath.Join(dir, "runs"), "--run-name", "run"+string(rune('1'+i)), "--history", db,
			"--label", "branch=main", "--quiet", "--no-server-metrics", "--format", format)
		if code != ExitOK {
			t.Fatalf("bench %d: exit %d: %s", i+1, code, stderr)
		}
		said := stdout
		if format == "json" {
			// Standard output stays one JSON document; the note goes
			// to standard error.
			said = stderr
			if !json.Valid([]byte(stdout)) {
				t.Errorf("bench --format json --history: standard output is not JSON:\n%s", stdout)
			}
		}
		if want := "Recorded run " + string(rune('1'+i)) + " in " + db; !strings.Contains(said, want) {
			t.Fatalf("bench %d: no %q in\n%s", i+1, want, said)
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
	if len(runs) != 2 || runs[0].Name != "run2" || runs[1].Name != "run1" {
		t.Fatalf("list: %d runs %+v, want run2, run1", len(runs), runs)
	}
	for _, r := range runs {
		if r.Metrics["requests"] != 40 || r.Target.Model != "Llama-3.1-8B" || !strings.HasPrefix(r.Target.Description, "built-in simulator") ||
			r.Key != runs[0].Key || !filepath.IsAbs(r.Records) || !strings.HasPrefix(r.Tool, "goodput ") {
			t.Errorf("run %d: requests %v, target %+v, key %s (want %s), records %q, tool %q", r.ID, r.Metrics["requests"], r.Target, r.Key, runs[0].Key, r.Records, r.Tool)
		}
		if _, err := os.Stat(r.Records); err != nil {
			t.Errorf("run %d: records: %v", r.ID, err)
		}
	}
	if stdout, _, _ := run(t, "", "history", "list", "--history", db, "--label", "branch=dev"); strings.Count(stdout, "\n") != 1 {
		t.Errorf("a label no run has listed runs:\n%s", stdout)
	}
	if stdout, _, _ := run(t, "", "history", "list", "--history", db, "--target", "Llama-3.1-8B"); strings.Count(stdout, "\n") != 3 {
		t.Errorf("the model as --target did not list both runs:\n%s", stdout)
	}

	stdout, _, code = run(t, "", "history", "show", "1", "--history", db)
	if code != ExitOK || !strings.Contains(stdout, "Name:             run1") || !strings.Contains(stdout, "ttft_p99") || !strings.Contains(stdout, "branch=main") {
		t.Errorf("show 1: exit %d\n%s", code, stdout)
	}

	if _, stderr, code := run(t, "", "history", "trend", "bogus", "--history", db); code != ExitUsage || !strings.Contains(stderr, `no run of this kind has the metric "bogus"`) {
		t.Errorf("trend of no such metric: exit %d: %s", code, stderr)
	}
	stdout, stderr, code = run(t, "", "history", "trend", "tpot_p50", "--history", db)
	if code != ExitOK || strings.Count(stdout, " ms") != 2 || !strings.Contains(stdout, "tpot_p50 across 2 comparable runs") {
		t.Errorf("trend: exit %d: %s\n%s", code, stderr, stdout)
	}
	page := filepath.Join(dir, "trend.html")
	if _, stderr, code = run(t, "", "history", "trend", "tpot_p50", "--history", db, "--html", page); code != ExitOK {
		t.Fatalf("trend --html: exit %d: %s", code, stderr)
	}
	if b, err := os.ReadFile(page); err != nil || strings.Count(string(b), "<circle") != 2 {
		t.Errorf("trend page: %v, %d points", err, strings.Count(string(b), "<circle"))
	}
}

// TestHistorySweepCheck records three virtual-time sweeps, two on an H100
// and the last on an A100, and checks their points: the second H100 sweep
// measured exactly what the first did, no regression; the A100's point is
// slower in every latency, a regression (exit 3).
func TestHistorySweepCheck(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "h.db")
	for i, gpu := range []string{"H100", "H100", "A100"} {
		stdout, stderr, code := run(t, "", "sweep", "--virtual", "--sim-gpu", gpu, "--concurrency", "1,4,16", "--num-prompts", "48", "--min-rounds", "0",
			"--random-input-len", "128", "--random-output-len", "32", "--ignore-eos", "--slo", "ttft<=200ms",
			"--result-dir", filepath.Join(dir, "s"+string(rune('0'+i))), "--history", db, "--quiet", "--no-early-stop")
		if code != ExitOK {
			t.Fatalf("sweep %d: exit %d: %s", i, code, stderr)
		}
		if !strings.Contains(stdout, "with 3 points in "+db) {
			t.Fatalf("sweep %d:\n%s", i, stdout)
		}
	}
	stdout, _, code := run(t, "", "history", "list", "--history", db, "--kind", "point", "--format", "json")
	var points []jsonRun
	if err := json.Unmarshal([]byte(stdout), &points); code != ExitOK || err != nil || len(points) != 9 {
		t.Fatalf("points: exit %d, %v, %d points\n%s", code, err, len(points), stdout)
	}
	if points[0].Sweep == 0 || points[0].Labels["point"] == "" {
		t.Errorf("a point lacks its sweep or its point label: %+v", points[0])
	}
	stdout, stderr, code := run(t, "", "history", "trend", "operating_request_throughput", "--history", db, "--kind", "sweep")
	if code != ExitOK || !strings.Contains(stdout, "across 3 comparable runs") {
		t.Errorf("sweep trend: exit %d: %s\n%s", code, stderr, stdout)
	}

	// The second sweep's c4 against the first's: the same numbers. Points
	// are listed newest first: the A100's, then the H100s'.
	var c4 []jsonRun
	for _, p := range points {
		if p.Labels["point"] == "c4" {
			c4 = append(c4, p)
		}
	}
	if len(c4) != 3 {
		t.Fatalf("%d c4 points, want 3", len(c4))
	}
	stdout, stderr, code = run(t, "", "history", "check", strconv.FormatInt(c4[1].ID, 10), "--history", db)
	if code != ExitOK || !strings.Contains(stdout, "Verdict: no regression") || !strings.Contains(stdout, "against the last 1 comparable runs") {
		t.Errorf("check of the second H100 c4: exit %d: %s\n%s", code, stderr, stdout)
	}
	// With no tolerance, the same numbers are still no regression, and
	// the tolerance reads 0 %.
	stdout, stderr, code = run(t, "", "history", "check", strconv.FormatInt(c4[1].ID, 10), "--history", db, "--tolerance", "0")
	if code != ExitOK || !strings.Contains(stdout, "comparable runs ("+strconv.FormatInt(c4[2].ID, 10)+"), tolerance 0 %\n") || !strings.Contains(stdout, "Verdict: no regression") {
		t.Errorf("check --tolerance 0: exit %d: %s\n%s", code, stderr, stdout)
	}
	// The latest c4, on an A100, against both.
	stdout, stderr, code = run(t, "", "history", "check", "--history", db, "--label", "point=c4", "--format", "json")
	if code != ExitGateFail {
		t.Fatalf("check of the A100 c4: exit %d, want %d: %s\n%s", code, ExitGateFail, stderr, stdout)
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
	for _, k := range []string{"ttft_p50", "ttft_p99", "tpot_p50", "tpot_p99", "e2e_p99", "output_throughput"} {
		if !regressed[k] {
			t.Errorf("A100 c4: %s not a regression: %+v", k, c)
		}
	}
	if c.Run != c4[0].ID || len(c.Baselines) != 2 || !strings.Contains(stderr, "regressed in") {
		t.Errorf("check of the A100 c4: %+v\nstderr: %s", c, stderr)
	}
}

func TestHistoryUsage(t *testing.T) {
	db := filepath.Join(t.TempDir(), "h.db")
	s, err := history.Open(t.Context(), db) // an empty store
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	missing := filepath.Join(t.TempDir(), "typo.db")
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
		// a store that does not exist is not read as an empty one (nor
		// created by reading it)
		{"missing store", []string{"history", "list", "--history", missing}, ExitTool, "history " + missing + ": no such file"},
		{"directory as store", []string{"history", "list", "--history", filepath.Dir(missing)}, ExitTool, "is a directory"},
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
	if _, err := os.Stat(missing); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("reading %s created it: %v", missing, err)
	}
}

// TestHistoryReadsNoOtherFile: every command that reads a history, given
// a path that holds none, says so, naming the path, and leaves the file
// byte for byte as it was; none turns an empty file into a store.
func TestHistoryReadsNoOtherFile(t *testing.T) {
	dir := t.TempDir()
	file := func(name, body string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	empty := file("touched.db", "")
	text := file("notes.txt", "hello\nworld\n")
	records := file("run.jsonl", `{"type":"header","tool":"goodput"}`+"\n")
	missing := filepath.Join(dir, "typo.db")
	notHistory := " is not a goodput history database: it is not a SQLite file"
	for _, tc := range []struct {
		name, path, want string
	}{
		{"an empty file", empty, "goodput: history " + empty + " is empty: no run is recorded in it (bench --history and sweep --history record runs there)"},
		{"a text file", text, "goodput: history " + text + notHistory},
		{"a record file given by mistake", records, "goodput: history " + records + notHistory},
		{"a directory", dir, "goodput: history " + dir + " is a directory: give the SQLite file in it"},
		{"a path that does not exist", missing, "goodput: history " + missing + ": no such file (bench --history and sweep --history record runs there)"},
	} {
		for _, cmd := range [][]string{{"list"}, {"show"}, {"trend", "ttft_p99"}, {"check"}} {
			var before []byte
			if tc.path != dir && tc.path != missing {
				before = readFile(t, tc.path)
			}
			args := append(append([]string{"history"}, cmd...), "--history", tc.path)
			_, stderr, code := run(t, "", args...)
			if code != ExitTool || stderr != tc.want+"\n" {
				t.Errorf("%s: history %s: exit %d, want %d with\n%s\ngot\n%s", tc.name, cmd[0], code, ExitTool, tc.want, stderr)
			}
			if before != nil && string(readFile(t, tc.path)) != string(before) {
				t.Errorf("%s: history %s changed the file", tc.name, cmd[0])
			}
		}
	}
	if _, err := os.Stat(missing); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("reading %s created it: %v", missing, err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil || len(entries) != 3 {
		t.Errorf("the directory holds %d entries (%v), want the 3 files and nothing beside them", len(entries), err)
	}
}

// TestHistoryRecordsInAnEmptyFileOnly: bench --history and history add
// make an empty file the store, as a user who touched it expects, but
// refuse a file that holds something else before measuring anything, and
// leave it as it was.
func TestHistoryRecordsInAnEmptyFileOnly(t *testing.T) {
	dir := t.TempDir()
	runs := filepath.Join(dir, "runs")
	bench := func(name, store string) (string, string, int) {
		return run(t, "", "bench", "--num-prompts", "4", "--max-concurrency", "2", "--random-input-len", "64",
			"--random-output-len", "8", "--result-dir", runs, "--run-name", name, "--quiet", "--no-server-metrics",
			"--history", store)
	}
	touched := filepath.Join(dir, "touched.db")
	if err := os.WriteFile(touched, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code := bench("first", touched)
	if code != ExitOK || !strings.Contains(stdout, "Recorded run 1 in "+touched) {
		t.Fatalf("bench into an empty file: exit %d: %s\n%s", code, stderr, stdout)
	}
	stdout, stderr, code = run(t, "", "history", "list", "--history", touched, "--format", "json")
	if code != ExitOK || !strings.Contains(stdout, `"name": "first"`) {
		t.Errorf("list of the file bench recorded in: exit %d: %s\n%s", code, stderr, stdout)
	}

	records := filepath.Join(runs, "first.jsonl")
	text := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(text, []byte("hello\nworld\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, store := range []string{text, records} {
		before := readFile(t, store)
		want := "history " + store + " is not a goodput history database: it is not a SQLite file"
		_, stderr, code := bench("second", store)
		if code != ExitTool || !strings.Contains(stderr, "goodput: --history: "+want+"\n") {
			t.Errorf("bench --history %s: exit %d, want %d with %q:\n%s", store, code, ExitTool, want, stderr)
		}
		_, stderr, code = run(t, "", "history", "add", "--history", store, records)
		if code != ExitTool || stderr != "goodput: "+want+"\n" {
			t.Errorf("history add --history %s: exit %d, want %d with %q:\n%s", store, code, ExitTool, want, stderr)
		}
		if string(readFile(t, store)) != string(before) {
			t.Errorf("%s changed", store)
		}
	}
	if _, err := os.Stat(filepath.Join(runs, "second.jsonl")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("bench measured before it refused the store: %v", err)
	}
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestHistoryFromEnvironment: $GOODPUT_HISTORY names the store when no
// --history does, for history's commands and for recording.
func TestHistoryFromEnvironment(t *testing.T) {
	db := filepath.Join(t.TempDir(), "env.db")
	runEnv := func(args ...string) (string, string, int) {
		var out, errb strings.Builder
		env := &Env{Stdout: &out, Stderr: &errb, Stdin: strings.NewReader(""),
			Getenv: func(k string) string {
				if k == "GOODPUT_HISTORY" {
					return db
				}
				return ""
			}}
		root := NewRoot(env)
		root.SetArgs(args)
		err := root.ExecuteContext(t.Context())
		return out.String(), errb.String(), Code(err)
	}
	stdout, stderr, code := runEnv("sweep", "--virtual", "--concurrency", "1,2", "--num-prompts", "8", "--min-rounds", "0",
		"--random-input-len", "64", "--random-output-len", "8", "--result-dir", filepath.Join(t.TempDir(), "s"), "--quiet")
	if code != ExitOK || !strings.Contains(stdout, "Recorded sweep 1 with 2 points in "+db) {
		t.Fatalf("sweep: exit %d: %s\n%s", code, stderr, stdout)
	}
	stdout, stderr, code = runEnv("history", "list")
	if code != ExitOK || strings.Count(stdout, "\n") != 4 { // heading, the sweep and its 2 points
		t.Errorf("list: exit %d: %s\n%s", code, stderr, stdout)
	}
}

// TestHistoryAddRecordsARunLater: a run whose recording failed (here a
// store that refuses new runs, as a locked or unreachable one would) is
// not lost: bench writes its summary and names the command that records it
// later, and history add then stores the numbers the run printed. A run
// given again is not stored twice; one measured without --history is
// stored from its records alone.
func TestHistoryAddRecordsARunLater(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "h.db")
	s, err := history.Open(t.Context(), db)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	raw, err := sql.Open("sqlite", db)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	if _, err := raw.Exec(`CREATE TRIGGER refuse BEFORE INSERT ON runs BEGIN SELECT RAISE(ABORT, 'the store refuses runs'); END`); err != nil {
		t.Fatal(err)
	}
	runs := filepath.Join(dir, "runs")
	bench := func(name string, more ...string) (string, string, int) {
		return run(t, "", append([]string{"bench", "--num-prompts", "12", "--max-concurrency", "4", "--random-input-len", "64",
			"--random-output-len", "8", "--result-dir", runs, "--run-name", name, "--quiet", "--no-server-metrics", "--format", "json"}, more...)...)
	}
	stdout, stderr, code := bench("lost", "--history", db)
	summary := filepath.Join(runs, "lost.summary.json")
	hint := "the run is not lost: record it later with goodput history add --history " + db + " " + summary
	if code != ExitTool || !strings.Contains(stderr, "the store refuses runs") || !strings.Contains(stderr, hint) {
		t.Fatalf("bench with a store that refuses: exit %d, want 1 with %q:\n%s", code, hint, stderr)
	}
	var printed struct {
		Result struct {
			Latency struct {
				TTFT struct{ Max float64 } `json:"ttft"`
			} `json:"latency"`
		} `json:"result"`
	}
	_ = json.Unmarshal([]byte(stdout), &printed)
	ttftMax := printed.Result.Latency.TTFT.Max
	if _, err := raw.Exec(`DROP TRIGGER refuse`); err != nil {
		t.Fatal(err)
	}

	_, stderr, code = run(t, "", "history", "add", "--history", db, summary)
	if code != ExitOK {
		t.Fatalf("history add: exit %d: %s", code, stderr)
	}
	stdout, stderr, code = run(t, "", "history", "show", "--history", db, "--format", "json")
	var shown jsonRun
	if code != ExitOK || json.Unmarshal([]byte(stdout), &shown) != nil {
		t.Fatalf("show: exit %d: %s\n%s", code, stderr, stdout)
	}
	if shown.Name != "lost" || shown.Metrics["requests"] != 12 || shown.Metrics["attainment"] <= 0 ||
		shown.Metrics["ttft_max"] != ttftMax || ttftMax <= 0 {
		t.Errorf("the run added later: name %q, metrics %v; want lost, 12 requests, TTFT max %v as printed", shown.Name, shown.Metrics, ttftMax)
	}
	if stdout, _, code := run(t, "", "history", "add", "--history", db, filepath.Join(runs, "lost.jsonl")); code != ExitOK || !strings.Contains(stdout, "recorded before, as run 1") {
		t.Errorf("adding it again: exit %d\n%s", code, stdout)
	}

	// Measured without --history or --save-result: from the records,
	// with bench's default SLO, the numbers bench would have stored.
	other := filepath.Join(dir, "other.db")
	if _, stderr, code := bench("plain", "--history", other); code != ExitOK {
		t.Fatalf("bench: exit %d: %s", code, stderr)
	}
	if _, stderr, code := run(t, "", "history", "add", "--history", db, runs+"/plain.jsonl"); code != ExitOK {
		t.Fatalf("history add of records: exit %d: %s", code, stderr)
	}
	metricsOf := func(db string) map[string]float64 {
		stdout, stderr, _ := run(t, "", "history", "show", "--history", db, "--format", "json")
		var r jsonRun
		if err := json.Unmarshal([]byte(stdout), &r); err != nil {
			t.Fatalf("show %s: %v: %s", db, err, stderr)
		}
		return r.Metrics
	}
	if got, want := metricsOf(db), metricsOf(other); !reflect.DeepEqual(got, want) || want["goodput"] <= 0 {
		t.Errorf("added from its records: %v\nrecorded by bench: %v", got, want)
	}

	if _, stderr, code := run(t, "", "history", "add", "--history", db, "--label", "a=b", summary); code != ExitUsage || !strings.Contains(stderr, "--label") {
		t.Errorf("add --label: exit %d: %s", code, stderr)
	}
}

// The help of history names every subcommand, add included, and the
// check example labels the bench run with --record-label: bench's --label
// is vLLM's result-file prefix and turns on its mode.
func TestHistoryHelp(t *testing.T) {
	stdout, _, code := run(t, "", "--help")
	if code != ExitOK || !strings.Contains(stdout, "history     List, show, trend and check the runs bench and sweep recorded with --history; add runs measured earlier\n") {
		t.Errorf("goodput --help: exit %d, does not tell of history add:\n%s", code, stdout)
	}
	stdout, _, code = run(t, "", "history", "--help")
	if code != ExitOK || !strings.Contains(stdout, "add records a bench run measured earlier") ||
		!strings.Contains(stdout, "goodput history add --history runs.db") {
		t.Errorf("history --help: exit %d, does not tell of add:\n%s", code, stdout)
	}
	stdout, _, code = run(t, "", "history", "check", "--help")
	if code != ExitOK || !strings.Contains(stdout, "--history runs.db \\\n      --record-label branch=$BRANCH && goodput history check") || strings.Contains(stdout, "      --label branch") {
		t.Errorf("history check --help: exit %d, example:\n%s", code, stdout)
	}
}

// history add reads a run's files, whose path the history keeps: standard
// input, a valid run or none, is refused with what to give instead.
func TestHistoryAddRefusesStdin(t *testing.T) {
	content := runHeader + goodRecord + runTrailer
	db := filepath.Join(t.TempDir(), "h.db")
	const want = "goodput: -: history add reads a run's files, which the history refers to later: give the record file's path (save standard input to a file first)\n"
	for name, stdin := range map[string]string{"a run": content, "nothing": ""} {
		if _, stderr, code := run(t, stdin, "history", "add", "--history", db, "-"); code != ExitUsage || stderr != want {
			t.Errorf("history add - with %s on stdin: exit %d, %q; want %d and %q", name, code, stderr, ExitUsage, want)
		}
	}
	// /dev/stdin, a file when the shell redirects one to it, names none
	// later.
	if _, stderr, code := run(t, content, "history", "add", "--history", db, "/dev/stdin"); code != ExitUsage || !strings.HasPrefix(stderr, "goodput: /dev/stdin: history add reads a run's files") {
		t.Errorf("history add /dev/stdin: exit %d, %q; want %d and a refusal", code, stderr, ExitUsage)
	}
}

// A byte-identical copy of a recorded run under another path is not stored
// a second time: it would count the run twice in every baseline. The
// message names the run already recorded.
func TestHistoryAddSkipsACopyOfARecordedRun(t *testing.T) {
	content := runHeader + goodRecord + runTrailer
	dir := writeFiles(t, map[string]string{"run.jsonl": content, "copy.jsonl": content})
	db := filepath.Join(dir, "h.db")
	if _, stderr, code := run(t, "", "history", "add", "--history", db, filepath.Join(dir, "run.jsonl")); code != ExitOK {
		t.Fatalf("history add: exit %d: %s", code, stderr)
	}
	stdout, stderr, code := run(t, "", "history", "add", "--history", db, filepath.Join(dir, "copy.jsonl"))
	wantOut := filepath.Join(dir, "copy.jsonl") + ": not recorded: it holds the run that goodput test began at 2026-11-29T08:00:00Z, recorded already as run 1 in " + db +
		" from " + filepath.Join(dir, "run.jsonl") + " (a copy of its records counts the run twice in every baseline)\n"
	if code != ExitOK || stdout != wantOut {
		t.Errorf("history add of a copy: exit %d, %q %s\nwant %q", code, stdout, stderr, wantOut)
	}
	s, err := history.OpenExisting(t.Context(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if runs, err := s.List(t.Context(), history.Filter{}); err != nil || len(runs) != 1 {
		t.Errorf("stored %d runs (%v), want the one", len(runs), err)
	}
}
