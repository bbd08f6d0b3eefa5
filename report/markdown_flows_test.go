package report

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/goodput-dev/goodput/record"
)

// runMarkdown renders run as the Markdown report.
func runMarkdown(t *testing.T, run *Run) string {
	t.Helper()
	var b bytes.Buffer
	if err := WriteRunMarkdown(&b, run); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// mdRows returns the body rows of the Markdown table whose first heading
// is first, each as its cells' text; nil when there is no such table.
func mdRows(t *testing.T, out, first string) [][]string {
	t.Helper()
	lines := strings.Split(out, "\n")
	for i, l := range lines {
		if !strings.HasPrefix(l, "| "+first+" |") {
			continue
		}
		if i+1 >= len(lines) || !strings.HasPrefix(lines[i+1], "|--") && !strings.HasPrefix(lines[i+1], "|:-") {
			t.Fatalf("table %q has no separator line:\n%s", first, out)
		}
		var rows [][]string
		for _, r := range lines[i+2:] {
			if !strings.HasPrefix(r, "|") {
				break
			}
			cells := strings.Split(strings.TrimSuffix(strings.TrimPrefix(r, "| "), " |"), " | ")
			rows = append(rows, cells)
		}
		return rows
	}
	return nil
}

// mdFigure returns the value of the row named key in the figures table
// of a section.
func mdFigure(t *testing.T, section, key string) string {
	t.Helper()
	for _, r := range mdRows(t, section, "figure") {
		if r[0] == key {
			return r[1]
		}
	}
	t.Fatalf("no figure %q in:\n%s", key, section)
	return ""
}

// mdSection returns the part of out under the heading "### title", up to
// the next heading of that level; "" when there is none.
func mdSection(out, title string) string {
	_, after, ok := strings.Cut(out, "\n### "+title+"\n")
	if !ok {
		return ""
	}
	if i := strings.Index(after, "\n### "); i >= 0 {
		return after[:i+1]
	}
	return after
}

// TestRunMarkdownShowsSessions: the sessions worked example in the
// Markdown report, with the figures the example works out by hand, the
// terminal summary prints and the run page shows.
func TestRunMarkdownShowsSessions(t *testing.T) {
	run := exampleRun(t, "sessions_worked_example.txt", true, nil)
	out := runMarkdown(t, run)
	sec := mdSection(out, "Sessions")
	if sec == "" {
		t.Fatalf("no sessions section:\n%s", out)
	}
	// 1 of 3 sessions good: 7 tokens over W = 1.20 s is 5.83 tok/s.
	if want := "\n3 sessions of 7 turns: 1 of 3 good (every turn met the SLO ttft<=500ms,tpot<=50ms), session goodput 5.83 tok/s (attainment 33.3 %), against a request goodput of 12.50 tok/s.\n"; !strings.Contains(sec, want) {
		t.Errorf("no verdict %q in:\n%s", want, sec)
	}
	for _, tc := range sessionFigures {
		got := mdFigure(t, sec, tc.label)
		if got != tc.want {
			t.Errorf("%s: %q, want %q", tc.label, got, tc.want)
		}
		if tc.summary != "" {
			if s := summaryValue(t, run, tc.summary); s != got {
				t.Errorf("%s: Markdown %q, the summary %q", tc.label, got, s)
			}
		}
	}
	// Durations 0.98, 1.00 and 1.02 s.
	spans := mdRows(t, sec, "session duration (s)")
	if want := []string{"session duration", "3", "1.00", "1.00", "1.02", "1.02", "1.02"}; len(spans) != 1 || !slices.Equal(spans[0], want) {
		t.Fatalf("duration rows %q, want %q", spans, want)
	}
	for col, key := range map[int]string{2: "Mean", 3: "Median", 4: "P90", 5: "P99"} {
		if s := summaryValue(t, run, key+" session duration (s):"); spans[0][col] != s {
			t.Errorf("%s session duration: Markdown %s, summary %s", key, spans[0][col], s)
		}
	}
	// TTFT by turn, in ms: turn 1 of A, B, C is 200, 600, 100; turn 2 is
	// 100, 60, 70; turn 3 is C's 120 alone.
	turns := mdRows(t, sec, "turn")
	want := [][]string{
		{"1", "3", "300.00", "200.00", "592.00"},
		{"2", "3", "76.67", "70.00", "99.40"},
		{"3", "1", "120.00", "120.00", "120.00"},
	}
	if !slices.EqualFunc(turns, want, slices.Equal) {
		t.Fatalf("turn rows %q, want %q", turns, want)
	}
	for _, w := range want {
		if line := summaryValue(t, run, "  Turn "+w[0]+" ("+w[1]+"):"); line != w[2]+" / "+w[3]+" / "+w[4] {
			t.Errorf("turn %s: summary %q, Markdown %q", w[0], line, w[2:])
		}
	}
	// The page's tables hold the same cells.
	doc := runPage(t, run)
	for head, class := range map[string]string{"figure": "flows", "session duration (s)": "spans", "turn": "turns"} {
		if page, md := tableRows(t, doc, "sessions", class), mdRows(t, sec, head); !slices.EqualFunc(page, md, slices.Equal) {
			t.Errorf("%s: page %q, Markdown %q", class, page, md)
		}
	}
	if mdSection(out, "Agent tasks") != "" || mdSection(out, "Endpoints") != "" {
		t.Errorf("a run of sessions shows tasks or endpoints:\n%s", out)
	}
}

// TestRunMarkdownShowsTasksAndEndpoints: the tasks worked example spread
// over two endpoints.
func TestRunMarkdownShowsTasksAndEndpoints(t *testing.T) {
	run := exampleRun(t, "tasks_worked_example.txt", true, func(r *record.Record) {
		r.Endpoint = map[string]string{"T1": "http://a", "T2": "http://b", "T3": "http://b"}[r.Task]
	})
	out := runMarkdown(t, run)
	if mdSection(out, "Sessions") != "" {
		t.Errorf("agent calls shown as sessions:\n%s", out)
	}
	sec := mdSection(out, "Agent tasks")
	// T1 and T3 good: 15 tokens over 1.07 s.
	if want := "\n3 tasks of 7 calls: 2 of 3 good (every call met the SLO ttft<=500ms,tpot<=50ms), task goodput 14.02 tok/s (attainment 66.7 %), against a request goodput of 16.82 tok/s.\n"; !strings.Contains(sec, want) {
		t.Errorf("no verdict %q in:\n%s", want, out)
	}
	for _, tc := range []struct{ md, summary, want string }{
		{"good tasks (every call good)", "Good tasks (every request good):", "2 of 3 (66.67%)"},
		{"task goodput (tok/s)", "Task goodput (tok/s):", "14.02"},
	} {
		if got, s := mdFigure(t, sec, tc.md), summaryValue(t, run, tc.summary); got != tc.want || got != s {
			t.Errorf("%s: Markdown %q, summary %q, want %q", tc.md, got, s, tc.want)
		}
	}
	// Completion 0.14, 0.96 and 1.07 s: mean 0.72.
	spans := mdRows(t, sec, "task completion (s)")
	if want := []string{"task completion", "3", "0.72", "0.96", "1.05", "1.07", "1.07"}; len(spans) != 1 || !slices.Equal(spans[0], want) {
		t.Fatalf("completion rows %q, want %q", spans, want)
	}
	if s := summaryValue(t, run, "Median task completion (s):"); spans[0][3] != s {
		t.Errorf("median completion: Markdown %s, summary %s", spans[0][3], s)
	}
	// a: T1's four calls; b: T2 and T3, T2's plan late (TTFT 0.6 s).
	eps := mdRows(t, mdSection(out, "Endpoints"), "endpoint")
	if len(eps) != 2 || eps[0][0] != "http://a" || eps[0][1] != "4" || eps[1][0] != "http://b" || eps[1][1] != "3" {
		t.Fatalf("endpoint rows %q", eps)
	}
	for i, e := range run.Result.Endpoints {
		line := summaryValue(t, run, e.Endpoint+":")
		want := eps[i][1] + " requests, " + eps[i][2] + " failed; " + eps[i][3] + " req/s, " + eps[i][4] + " tok/s, goodput " + eps[i][5] + " tok/s"
		if !strings.HasPrefix(line, want) {
			t.Errorf("%s: summary %q, Markdown %q", e.Endpoint, line, want)
		}
	}
	// b's TTFTs are 600, 50 and 100 ms.
	if eps[1][7] != "100.00" || eps[1][8] != "590.00" {
		t.Errorf("b's TTFT p50 and p99: %q, want 100.00 and 590.00", eps[1])
	}
	doc := runPage(t, run)
	if page := tableRows(t, doc, "endpoints", "endpoints"); !slices.EqualFunc(page, eps, slices.Equal) {
		t.Errorf("endpoints: page %q, Markdown %q", page, eps)
	}
}

// TestRunMarkdownWithoutFlows: a run of plain requests has no section of
// sessions, tasks or endpoints; sessions without an SLO are counted but
// not judged; a long session lists its first turns and says how many
// more there are.
func TestRunMarkdownWithoutFlows(t *testing.T) {
	out := runMarkdown(t, richRun(t))
	for _, title := range []string{"Sessions", "Agent tasks", "Endpoints"} {
		if strings.Contains(out, "### "+title) {
			t.Errorf("a run of plain requests has a %s section", title)
		}
	}

	sec := mdSection(runMarkdown(t, exampleRun(t, "sessions_worked_example.txt", false, nil)), "Sessions")
	if !strings.Contains(sec, "\n3 sessions of 7 turns. No SLO was given, so no session is judged") {
		t.Errorf("verdict without an SLO:\n%s", sec)
	}
	for _, r := range mdRows(t, sec, "figure") {
		if strings.Contains(r[0], "good") {
			t.Errorf("a goodput row without an SLO: %q", r)
		}
	}

	// 40 sessions of 20 turns: 16 turns listed, 4 left to the JSON.
	h, recs := sessionsRecords(t, 20, 0, func(int) int { return 0 })
	sec = mdSection(runMarkdown(t, build(h, recs, RunOptions{})), "Sessions")
	if turns := mdRows(t, sec, "turn"); len(turns) != maxTurnLines || turns[15][0] != "16" || turns[15][1] != "40" {
		t.Errorf("%d turn rows, last %q", len(turns), turns[len(turns)-1])
	}
	if !strings.Contains(sec, "\n4 more turns are in the JSON summary.\n") {
		t.Errorf("no count of the turns left out:\n%s", sec)
	}
}
