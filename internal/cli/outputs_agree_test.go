package cli

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/goodput-dev/goodput/internal/simtest"
	"github.com/goodput-dev/goodput/sim"
)

// summaryField returns the value printed after label in a text summary
// ("Mean TTFT (ms):  17.78" gives "17.78"); "" when the line is absent.
func summaryField(out, label string) string {
	for _, l := range strings.Split(out, "\n") {
		if v, ok := strings.CutPrefix(l, label); ok {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// ms2 prints seconds as the summaries print milliseconds.
func ms2(seconds float64) string { return fmt.Sprintf("%.2f", 1e3*seconds) }

// linearPercentile is NumPy's default percentile of sorted values.
func linearPercentile(sorted []float64, p float64) float64 {
	k := (float64(len(sorted)) - 1) * p / 100
	f := math.Floor(k)
	c := math.Min(f+1, float64(len(sorted)-1))
	return sorted[int(f)] + (sorted[int(c)]-sorted[int(f)])*(k-f)
}

// One run, every output: the terminal summary, the JSON summary, vLLM's
// result file, the HTML report, export's rows and analyze (text and JSON)
// give the same figures for it, each as that output defines them (TTFT
// from the scheduled time in goodput's outputs and under
// *_ttft_from_scheduled_ms in vLLM's file, from the send under vLLM's own
// keys).
func TestRunFiguresAgreeAcrossOutputs(t *testing.T) {
	_, url := simtest.Serve(t, sim.Options{Seed: 21})
	dir := t.TempDir()
	html := filepath.Join(dir, "run.html")
	term, stderr, code := run(t, "", "bench", "--base-url", url, "--num-prompts", "24", "--request-rate", "40",
		"--max-concurrency", "4", "--random-input-len", "64", "--random-output-len", "16", "--ignore-eos", "--seed", "5",
		"--percentile-metrics", "ttft,tpot,itl,e2el,client_queue_time,e2el_including_client_queue",
		"--metric-percentiles", "50,90,99", "--goodput", "ttft:500", "tpot:50",
		"--save-result", "--save-detailed", "--result-dir", dir, "--run-name", "run", "--report", html, "--quiet")
	if code != ExitOK {
		t.Fatalf("bench: exit %d\n%s", code, stderr)
	}
	records := filepath.Join(dir, "run.jsonl")

	// The terminal summary is the reference.
	want := map[string]string{}
	for _, label := range []string{"Successful requests:", "Total generated tokens:", "Output token throughput (tok/s):",
		"Mean TTFT (ms):", "Median TTFT (ms):", "P99 TTFT (ms):", "Mean TPOT (ms):", "Median TPOT (ms):", "P99 TPOT (ms):",
		"Mean ITL (ms):", "P99 ITL (ms):", "Mean E2EL (ms):", "P99 E2EL (ms):", "SLO attainment:", "Mean TTFT from send (ms):"} {
		want[label] = summaryField(term, label)
		if want[label] == "" {
			t.Fatalf("the summary has no %q line:\n%s", label, term)
		}
	}
	if want["Successful requests:"] != "24" {
		t.Fatalf("%s requests succeeded, want 24:\n%s", want["Successful requests:"], term)
	}
	check := func(output, label, got string) {
		t.Helper()
		if got != want[label] {
			t.Errorf("%s: %s %s, the terminal summary %s", output, label, got, want[label])
		}
	}

	// analyze, in text: the same lines.
	out, stderr, code := run(t, "", "analyze", records, "--metric-percentiles", "50,90,99", "--goodput", "ttft:500", "tpot:50")
	if code != ExitOK {
		t.Fatalf("analyze: exit %d: %s", code, stderr)
	}
	for label := range want {
		check("analyze", label, summaryField(out, label))
	}

	// The JSON summary written beside the records, and analyze --format
	// json, in seconds.
	type dist struct {
		Mean, Median float64
		Percentiles  []struct{ P, Value float64 }
	}
	type result struct {
		Counts     struct{ Completed int64 }
		Tokens     struct{ Output int64 }
		Throughput struct {
			OutputTokensPerSecond float64 `json:"output_tokens_per_second"`
		}
		Goodput struct{ Attainment float64 }
		Latency map[string]dist
	}
	p99 := func(d dist) float64 {
		for _, p := range d.Percentiles {
			if p.P == 99 {
				return p.Value
			}
		}
		t.Fatalf("no p99 in %+v", d)
		return 0
	}
	checkResult := func(output string, r result) {
		check(output, "Successful requests:", strconv.FormatInt(r.Counts.Completed, 10))
		check(output, "Total generated tokens:", strconv.FormatInt(r.Tokens.Output, 10))
		check(output, "Output token throughput (tok/s):", fmt.Sprintf("%.2f", r.Throughput.OutputTokensPerSecond))
		check(output, "Mean TTFT (ms):", ms2(r.Latency["ttft"].Mean))
		check(output, "Median TTFT (ms):", ms2(r.Latency["ttft"].Median))
		check(output, "P99 TTFT (ms):", ms2(p99(r.Latency["ttft"])))
		check(output, "Median TPOT (ms):", ms2(r.Latency["tpot"].Median))
		check(output, "P99 ITL (ms):", ms2(p99(r.Latency["itl"])))
		check(output, "Mean E2EL (ms):", ms2(r.Latency["e2e"].Mean))
		check(output, "Mean TTFT from send (ms):", ms2(r.Latency["ttft_sent"].Mean))
		if !strings.HasPrefix(want["SLO attainment:"], fmt.Sprintf("%.2f%%", 100*r.Goodput.Attainment)) {
			t.Errorf("%s: attainment %v, the terminal summary %s", output, r.Goodput.Attainment, want["SLO attainment:"])
		}
	}
	var sum struct{ Result result }
	if err := json.Unmarshal(mustRead(t, filepath.Join(dir, "run.summary.json")), &sum); err != nil {
		t.Fatal(err)
	}
	checkResult("summary.json", sum.Result)
	out, stderr, code = run(t, "", "analyze", records, "--metric-percentiles", "50,90,99", "--goodput", "ttft:500", "tpot:50", "--format", "json")
	if code != ExitOK {
		t.Fatalf("analyze --format json: exit %d: %s", code, stderr)
	}
	var aj result
	if err := json.Unmarshal([]byte(out), &aj); err != nil {
		t.Fatal(err)
	}
	checkResult("analyze --format json", aj)

	// vLLM's result file: goodput's TTFT under its own keys, vLLM's
	// send-time TTFT under vLLM's; e2e from the scheduled time is vLLM's
	// e2el including the client queue.
	matches, _ := filepath.Glob(filepath.Join(dir, "openai-40.0qps-concurrency4-*.json"))
	if len(matches) != 1 {
		t.Fatalf("vLLM's file: %v", matches)
	}
	var v map[string]any
	if err := json.Unmarshal(mustRead(t, matches[0]), &v); err != nil {
		t.Fatal(err)
	}
	num := func(key string) float64 {
		f, ok := v[key].(float64)
		if !ok {
			t.Fatalf("vLLM's file: %s = %v", key, v[key])
		}
		return f
	}
	check("vLLM's file", "Successful requests:", fmt.Sprint(num("completed")))
	check("vLLM's file", "Total generated tokens:", fmt.Sprint(num("total_output_tokens")))
	check("vLLM's file", "Output token throughput (tok/s):", fmt.Sprintf("%.2f", num("output_throughput")))
	check("vLLM's file", "Mean TTFT (ms):", fmt.Sprintf("%.2f", num("mean_ttft_from_scheduled_ms")))
	check("vLLM's file", "P99 TTFT (ms):", fmt.Sprintf("%.2f", num("p99_ttft_from_scheduled_ms")))
	check("vLLM's file", "Mean TTFT from send (ms):", fmt.Sprintf("%.2f", num("mean_ttft_ms")))
	check("vLLM's file", "Median TPOT (ms):", fmt.Sprintf("%.2f", num("median_tpot_ms")))
	check("vLLM's file", "Mean E2EL (ms):", fmt.Sprintf("%.2f", num("mean_e2el_including_client_queue_ms")))

	// The HTML report: its latency table and its attainment card.
	page := string(mustRead(t, html))
	for _, m := range []struct{ metric, mean, p99 string }{
		{"ttft", "Mean TTFT (ms):", "P99 TTFT (ms):"},
		{"tpot", "Mean TPOT (ms):", "P99 TPOT (ms):"},
		{"e2e", "Mean E2EL (ms):", "P99 E2EL (ms):"},
	} {
		row := regexp.MustCompile(`<tr><td class="l">` + m.metric + `</td><td class="">(\d+)</td><td class="">([0-9.]+)</td><td class="">[0-9.]+</td><td class="">[0-9.]+</td><td class="">([0-9.]+)</td>`).FindStringSubmatch(page)
		if row == nil {
			t.Fatalf("the report has no %s row", m.metric)
		}
		check("the report", "Successful requests:", row[1])
		check("the report", m.mean, row[2])
		check("the report", m.p99, row[3])
	}
	att, err := strconv.ParseFloat(strings.TrimSuffix(strings.Fields(want["SLO attainment:"])[0], "%"), 64)
	if err != nil {
		t.Fatal(err)
	}
	if card := fmt.Sprintf("attainment %.1f %%", att); !strings.Contains(page, card) {
		t.Errorf("the report has no %q card, for the terminal summary's %s", card, want["SLO attainment:"])
	}

	// export's rows, summarised here as the summary defines it.
	out, stderr, code = run(t, "", "export", records, "--slo", "ttft<=500ms,tpot<=50ms")
	if code != ExitOK {
		t.Fatalf("export: exit %d: %s", code, stderr)
	}
	rows, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := map[string]int{}
	for i, name := range rows[0] {
		col[name] = i
	}
	var ttft, e2e []float64
	var tokens, good int
	for _, r := range rows[1:] {
		if r[col["outcome"]] != "ok" {
			continue
		}
		f := func(name string) float64 {
			x, err := strconv.ParseFloat(r[col[name]], 64)
			if err != nil {
				t.Fatalf("%s %q: %v", name, r[col[name]], err)
			}
			return x
		}
		ttft, e2e = append(ttft, f("ttft_ms")), append(e2e, f("e2e_ms"))
		tokens += int(f("output_tokens"))
		if r[col["good"]] == "true" {
			good++
		}
	}
	slices.Sort(ttft)
	mean := func(xs []float64) float64 {
		s := 0.0
		for _, x := range xs {
			s += x
		}
		return s / float64(len(xs))
	}
	check("export", "Successful requests:", strconv.Itoa(len(ttft)))
	check("export", "Total generated tokens:", strconv.Itoa(tokens))
	check("export", "Mean TTFT (ms):", fmt.Sprintf("%.2f", mean(ttft)))
	check("export", "P99 TTFT (ms):", fmt.Sprintf("%.2f", linearPercentile(ttft, 99)))
	check("export", "Mean E2EL (ms):", fmt.Sprintf("%.2f", mean(e2e)))
	if w := fmt.Sprintf("(%d of 24 requests)", good); !strings.HasSuffix(want["SLO attainment:"], w) {
		t.Errorf("export: %d good rows, the terminal summary %s", good, want["SLO attainment:"])
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
