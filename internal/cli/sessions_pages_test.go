package cli

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/goodput-dev/goodput/internal/simtest"
	"github.com/goodput-dev/goodput/sim"
)

// TestSessionsOnThePages: a multi-turn run over two servers, with an SLO.
// The page bench --report writes, the one goodput report writes from the
// records and the Markdown report show the summary's session figures and
// the endpoints; goodput compare sets the sessions of two runs side by
// side, and gates on them.
func TestSessionsOnThePages(t *testing.T) {
	_, a := simtest.Serve(t, sim.Options{Seed: 1})
	_, b := simtest.Serve(t, sim.Options{Seed: 2})
	dir := t.TempDir()
	page := filepath.Join(dir, "bench.html")
	// Round-robin, so that both servers serve: six sessions hashed to
	// two endpoints would all land on one now and then.
	out, errOut, code := run(t, "", "bench", "--base-url", a, "--base-url", b, "--balance", "round-robin", "--multi-turn", "--session-turns", "3",
		"--think-time", "10ms", "--num-prompts", "6", "--max-concurrency", "3", "--random-input-len", "32",
		"--random-output-len", "4", "--ignore-eos", "--goodput", "ttft:2000", "tpot:500",
		"--result-dir", dir, "--run-name", "s", "--report", page, "--quiet")
	if code != 0 {
		t.Fatalf("bench: exit %d\n%s\n%s", code, errOut, out)
	}
	records := filepath.Join(dir, "s.jsonl")
	again := filepath.Join(dir, "report.html")
	if _, errOut, code := run(t, "", "report", records, "-o", again); code != 0 {
		t.Fatalf("report: exit %d\n%s", code, errOut)
	}
	// The figure cells, as the page writes a row of its sessions table.
	cell := func(key, value string) string { return `<td class="l">` + key + `</td><td class="">` + value + `</td>` }
	turn1 := strings.Fields(summaryField(out, "  Turn 1 (6):"))
	if len(turn1) != 5 {
		t.Fatalf("the summary's turn 1 line: %q\n%s", turn1, out)
	}
	for _, path := range []string{page, again} {
		html := string(mustRead(t, path))
		for _, want := range []string{
			cell("sessions", "6"),
			cell("turns", "18 (3.00 per session)"),
			cell("good sessions (every turn good)", summaryField(out, "Good sessions (every request good):")),
			cell("session goodput (tok/s)", summaryField(out, "Session goodput (tok/s):")),
			// turn 1: 6 measured, mean / median / p99 as the summary has them
			`<td class="l">1</td><td class="">6</td><td class="">` + turn1[0] + `</td><td class="">` + turn1[2] + `</td><td class="">` + turn1[4] + `</td>`,
			"<figcaption>TTFT by turn</figcaption>",
			`<section id="endpoints">`, `<td class="l">` + a + `</td>`, `<td class="l">` + b + `</td>`,
		} {
			if !strings.Contains(html, want) {
				t.Errorf("%s lacks %q", filepath.Base(path), want)
			}
		}
	}
	// The Markdown report has the same figures.
	md, errOut, code := run(t, "", "report", records, "--format", "markdown")
	if code != 0 {
		t.Fatalf("report --format markdown: exit %d\n%s", code, errOut)
	}
	for _, want := range []string{
		"### Sessions\n", "| sessions | 6 |", "| turns | 18 (3.00 per session) |",
		"| good sessions (every turn good) | " + summaryField(out, "Good sessions (every request good):") + " |",
		"| session goodput (tok/s) | " + summaryField(out, "Session goodput (tok/s):") + " |",
		"| 1 | 6 | " + turn1[0] + " | " + turn1[2] + " | " + turn1[4] + " |",
		"### Endpoints\n", "| " + a + " |", "| " + b + " |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("the Markdown report lacks %q:\n%s", want, md)
		}
	}
	cmp, errOut, code := run(t, "", "compare", records, records)
	if code != 0 {
		t.Fatalf("compare: exit %d\n%s", code, errOut)
	}
	for _, want := range []string{"session goodput (tok/s)", "session duration p99 (ms)", "resample whole sessions"} {
		if !strings.Contains(cmp, want) {
			t.Errorf("compare lacks %q:\n%s", want, cmp)
		}
	}

	// Gates on the sessions: the run against itself passes every one,
	// its differences zero; a run without sessions fails, saying why.
	cmp, errOut, code = run(t, "", "compare", records, records, "--gate", "regression(session_goodput) <= 5%",
		"--gate", "regression(p99 session_duration) <= 0%", "--gate", "session_attainment>=0")
	if code != ExitOK {
		t.Fatalf("compare with session gates: exit %d\n%s\n%s", code, errOut, cmp)
	}
	for _, want := range []string{
		"B: session_attainment>=0: measured ",
		"B against A: regression(session_goodput)<=5%: ",
		"B against A: regression(p99(session_duration))<=0%: ",
		"[+0.00, +0.00] ms, noise; within the noise, counted as no change: pass", "PASS: all 3 gates passed.",
	} {
		if !strings.Contains(cmp, want) {
			t.Errorf("compare with session gates lacks %q:\n%s", want, cmp)
		}
	}
	h, recs := simRun(t, "H100-SXM", 50, 5, 1)
	plain := writeRunFiles(t, dir, "plain", h, recs, "")
	cmp, errOut, code = run(t, "", "compare", records, plain, "--gate", "regression(session_goodput) <= 5%")
	if code != ExitGateFail || !strings.Contains(errOut, "1 of 1 gates failed") {
		t.Errorf("a session gate on a run without sessions: exit %d, want %d\n%s", code, ExitGateFail, errOut)
	}
	if want := "B against A: regression(session_goodput)<=5%: fail: session_goodput reads a run's sessions and this run has none"; !strings.Contains(cmp, want) {
		t.Errorf("compare lacks %q:\n%s", want, cmp)
	}
}
