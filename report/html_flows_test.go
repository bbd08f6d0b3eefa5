package report

import (
	"bytes"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/internal/workedexample"
	"github.com/goodput-dev/goodput/record"
)

// exampleRun builds a Run from one of the hand-worked examples in
// metrics/testdata, with the seeds' SLO when slo is set, each record
// edited first by edit when it is not nil.
func exampleRun(t *testing.T, name string, slo bool, edit func(*record.Record)) *Run {
	t.Helper()
	ex, err := workedexample.Read("../metrics/testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	var recs []record.Record
	for _, r := range ex.Records() {
		if edit != nil {
			edit(r)
		}
		recs = append(recs, *r)
	}
	o := RunOptions{}
	if slo {
		o.SLO = mustSLO(t, "ttft<=500ms,tpot<=50ms")
	}
	return build(record.Header{}, recs, o)
}

// runPage renders run and parses the page, checking it stays offline.
func runPage(t *testing.T, run *Run) *node {
	t.Helper()
	var b bytes.Buffer
	if err := WriteRunHTML(&b, run, HTMLOptions{}); err != nil {
		t.Fatal(err)
	}
	doc := parsePage(t, b.Bytes())
	checkSelfContained(t, doc)
	return doc
}

// summaryValue returns what the terminal summary of run writes after
// key: the figure the page must repeat.
func summaryValue(t *testing.T, run *Run, key string) string {
	t.Helper()
	var b bytes.Buffer
	if err := Text(&b, run.Result, TextOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(b.String(), "\n") {
		if v, ok := strings.CutPrefix(line, key); ok {
			return strings.TrimSpace(v)
		}
	}
	t.Fatalf("the summary has no line %q:\n%s", key, b.String())
	return ""
}

// tableRows returns the cells' text of every body row of the table of
// class in section id.
func tableRows(t *testing.T, doc *node, id, class string) [][]string {
	t.Helper()
	sec := doc.byID(id)
	if sec == nil {
		t.Fatalf("no section %q", id)
	}
	tables := sec.find("table", class)
	if len(tables) != 1 {
		t.Fatalf("section %q has %d tables of class %q", id, len(tables), class)
	}
	var out [][]string
	for _, tr := range tables[0].find("tr", "") {
		var cells []string
		for _, td := range tr.find("td", "") {
			cells = append(cells, td.allText())
		}
		if cells != nil {
			out = append(out, cells)
		}
	}
	return out
}

// figureOf returns the value of the row named key in a figures table.
func figureOf(t *testing.T, rows [][]string, key string) string {
	t.Helper()
	for _, r := range rows {
		if r[0] == key {
			return r[1]
		}
	}
	t.Fatalf("no row %q in %q", key, rows)
	return ""
}

// TestRunPageShowsSessions: the sessions worked example on the page, with
// the figures the example works out by hand and the terminal summary
// prints (the same code computes both).
func TestRunPageShowsSessions(t *testing.T) {
	run := exampleRun(t, "sessions_worked_example.txt", true, nil)
	doc := runPage(t, run)
	sec := doc.byID("sessions")
	if sec == nil {
		t.Fatal("no sessions section")
	}
	lead := sec.find("p", "lead")
	// 1 of 3 sessions good: 7 tokens over W = 1.20 s is 5.83 tok/s, where
	// request goodput counts 15 tokens, 12.50 tok/s.
	want := "3 sessions of 7 turns: 1 of 3 good (every turn met the SLO ttft<=500ms,tpot<=50ms), session goodput 5.83 tok/s (attainment 33.3 %), against a request goodput of 12.50 tok/s."
	if len(lead) != 1 || lead[0].text != want {
		t.Errorf("verdict %v, want %q", lead, want)
	}
	figs := tableRows(t, doc, "sessions", "flows")
	for _, tc := range sessionFigures {
		got := figureOf(t, figs, tc.label)
		if got != tc.want {
			t.Errorf("%s: page shows %q, want %q", tc.label, got, tc.want)
		}
		if tc.summary != "" {
			if s := summaryValue(t, run, tc.summary); s != got {
				t.Errorf("%s: page shows %q, the summary %q", tc.label, got, s)
			}
		}
	}
	// Durations 0.98, 1.00 and 1.02 s: the worked example's p50 and max.
	spans := tableRows(t, doc, "sessions", "spans")
	if want := []string{"session duration", "3", "1.00", "1.00", "1.02", "1.02", "1.02"}; len(spans) != 1 || !slices.Equal(spans[0], want) {
		t.Errorf("duration row %q, want %q", spans, want)
	}
	for _, k := range []string{"Median", "P90", "P99"} {
		if got, s := spans[0][map[string]int{"Median": 3, "P90": 4, "P99": 5}[k]], summaryValue(t, run, k+" session duration (s):"); got != s {
			t.Errorf("%s session duration: page %s, summary %s", k, got, s)
		}
	}
	// TTFT by turn, in ms: turn 1 of A, B, C is 200, 600, 100; turn 2 is
	// 100, 60, 70; turn 3 is C's 120 alone. The summary's lines agree.
	turns := tableRows(t, doc, "sessions", "turns")
	wantTurns := [][]string{
		{"1", "3", "300.00", "200.00", "592.00"},
		{"2", "3", "76.67", "70.00", "99.40"},
		{"3", "1", "120.00", "120.00", "120.00"},
	}
	if len(turns) != 3 {
		t.Fatalf("turn rows %q", turns)
	}
	for i, w := range wantTurns {
		if !slices.Equal(turns[i], w) {
			t.Errorf("turn %d: %q, want %q", i+1, turns[i], w)
		}
		line := summaryValue(t, run, "  Turn "+w[0]+" ("+w[1]+"):")
		if want := w[2] + " / " + w[3] + " / " + w[4]; line != want {
			t.Errorf("turn %s: summary %q, page %q", w[0], line, want)
		}
	}
	// The chart: p50 and p99 over turns 1 to 3, a tick per turn and none
	// between, the SLO's TTFT bound as a line.
	f := figure(t, doc, "TTFT by turn")
	if n := len(f.find("path", "line")); n != 2 {
		t.Errorf("%d curves, want p50 and p99", n)
	}
	pts := f.find("circle", "point")
	if len(pts) != 6 || pts[1].kids[0].text != "turn 2: p50 70.00 ms over 3 turns" {
		t.Errorf("%d points, second %v", len(pts), pts[1].kids)
	}
	var ticks []string
	for _, g := range f.find("g", "axis") {
		for _, tx := range g.find("text", "") {
			if tx.attrs["class"] == "" && tx.attrs["text-anchor"] == "middle" {
				ticks = append(ticks, tx.text)
			}
		}
	}
	if !slices.Equal(ticks, []string{"1", "2", "3"}) {
		t.Errorf("turn ticks %q", ticks)
	}
	if got := markerLabels(f, "slo"); !slices.Equal(got, []string{"SLO 500 ms"}) {
		t.Errorf("SLO lines %q", got)
	}
	// The card beside the run's own.
	if !strings.Contains(doc.find("div", "cards")[0].allText(), "Session goodput5.83 tok/s1 of 3 sessions good") {
		t.Errorf("cards: %s", doc.find("div", "cards")[0].allText())
	}
	if doc.byID("tasks") != nil || doc.byID("endpoints") != nil {
		t.Error("a run of sessions shows tasks or endpoints")
	}
}

// TestRunPageShowsTasksAndEndpoints: the tasks worked example, first as
// it is, then spread over two endpoints.
func TestRunPageShowsTasksAndEndpoints(t *testing.T) {
	run := exampleRun(t, "tasks_worked_example.txt", true, func(r *record.Record) {
		r.Endpoint = map[string]string{"T1": "http://a", "T2": "http://b", "T3": "http://b"}[r.Task]
	})
	doc := runPage(t, run)
	if doc.byID("sessions") != nil {
		t.Error("agent calls shown as sessions")
	}
	lead := doc.byID("tasks").find("p", "lead")
	// T1 and T3 good: 15 tokens over 1.07 s.
	if want := "3 tasks of 7 calls: 2 of 3 good (every call met the SLO ttft<=500ms,tpot<=50ms), task goodput 14.02 tok/s (attainment 66.7 %), against a request goodput of 16.82 tok/s."; len(lead) != 1 || lead[0].text != want {
		t.Errorf("verdict %v, want %q", lead, want)
	}
	figs := tableRows(t, doc, "tasks", "flows")
	if got, s := figureOf(t, figs, "task goodput (tok/s)"), summaryValue(t, run, "Task goodput (tok/s):"); got != "14.02" || got != s {
		t.Errorf("task goodput: page %q, summary %q, want 14.02", got, s)
	}
	// Completion 0.14, 0.96 and 1.07 s.
	spans := tableRows(t, doc, "tasks", "spans")
	if len(spans) != 1 || spans[0][3] != "0.96" || spans[0][len(spans[0])-1] != "1.07" || spans[0][3] != summaryValue(t, run, "Median task completion (s):") {
		t.Errorf("completion row %q", spans)
	}
	// a: T1's four calls, all good, 12 tokens over 0–1.07 s; b: T2 and
	// T3, five calls, T2's plan late (TTFT 0.6 s).
	eps := tableRows(t, doc, "endpoints", "endpoints")
	if len(eps) != 2 || eps[0][0] != "http://a" || eps[0][1] != "4" || eps[1][0] != "http://b" || eps[1][1] != "3" {
		t.Fatalf("endpoint rows %q", eps)
	}
	for i, e := range run.Result.Endpoints {
		line := summaryValue(t, run, e.Endpoint+":")
		want := eps[i][1] + " requests, " + eps[i][2] + " failed; " + eps[i][3] + " req/s, " + eps[i][4] + " tok/s, goodput " + eps[i][5] + " tok/s"
		if !strings.HasPrefix(line, want) {
			t.Errorf("%s: summary %q, page %q", e.Endpoint, line, want)
		}
	}
	// b's TTFTs are 600, 50 and 100 ms.
	if eps[1][7] != "100.00" || eps[1][8] != "590.00" {
		t.Errorf("b's TTFT p50 and p99: %q, want 100.00 and 590.00", eps[1])
	}
}

// TestRunPageWithoutFlows: a run of plain requests shows no section, card
// or chart of sessions, tasks or endpoints; sessions without an SLO are
// counted but not judged.
func TestRunPageWithoutFlows(t *testing.T) {
	doc := runPage(t, richRun(t))
	for _, id := range []string{"sessions", "tasks", "endpoints"} {
		if doc.byID(id) != nil {
			t.Errorf("a run of plain requests has a %s section", id)
		}
	}
	if txt := doc.find("div", "cards")[0].allText(); strings.Contains(txt, "Session") || strings.Contains(txt, "Task") {
		t.Errorf("cards: %s", txt)
	}

	doc = runPage(t, exampleRun(t, "sessions_worked_example.txt", false, nil))
	lead := doc.byID("sessions").find("p", "lead")
	if len(lead) != 1 || !strings.HasPrefix(lead[0].text, "3 sessions of 7 turns. No SLO was given, so no session is judged") {
		t.Errorf("verdict without an SLO: %v", lead)
	}
	for _, r := range tableRows(t, doc, "sessions", "flows") {
		if strings.Contains(r[0], "good") {
			t.Errorf("a goodput row without an SLO: %q", r)
		}
	}
	if n := len(figure(t, doc, "TTFT by turn").find("g", "slo")); n != 0 {
		t.Errorf("%d SLO lines without an SLO", n)
	}
}

// sessionsRun is a run of 40 four-turn sessions over two endpoints, with
// an SLO (see sessionsRecords).
func sessionsRun(t testing.TB) *Run {
	t.Helper()
	h, recs := sessionsRecords(t, 4, 0, func(i int) int { return (i * 7) % 45 })
	return build(h, recs, RunOptions{SLO: mustSLO(t, "ttft<=100ms,tpot<=20ms")})
}

// sessionsRecords are 40 sessions of turns turns over two endpoints:
// session i starts at i × 150 ms, and each turn goes out 200 ms after the
// previous one ended. Turn k's TTFT is 20 + 10·k + offset(i) ms, plus
// slower (a history the server did not cache, a session's own luck, a
// slower server); each reply is 10 tokens 15 ms apart.
func sessionsRecords(t testing.TB, turns int, slower time.Duration, offset func(i int) int) (record.Header, []record.Record) {
	t.Helper()
	var recs []record.Record
	for i := range 40 {
		at := int64(i) * 150e6
		for k := 1; k <= turns; k++ {
			first := at + int64(20+10*k+offset(i))*1e6 + int64(slower)
			r := record.Record{Seq: int64(len(recs)), Scheduled: at, Sent: at, InputTokens: 300 * k, OutputTokens: 10,
				TokenSource: record.SourceUsage, Status: 200, Finish: "length",
				Session: "s" + strconv.Itoa(i), Turn: k, Endpoint: []string{"http://127.0.0.1:8001", "http://127.0.0.1:8002"}[i%2]}
			for j := range 10 {
				r.Chunks = append(r.Chunks, record.Chunk{At: first + int64(j)*15e6, Tokens: 1})
			}
			r.End = r.Chunks[9].At
			recs = append(recs, r)
			at = r.End + 200e6
		}
	}
	h, err := record.NewHeader("goodput test", map[string]any{"multi_turn": true, "max_concurrency": 8})
	if err != nil {
		t.Fatal(err)
	}
	h.Start = time.Date(2025, 4, 5, 6, 7, 8, 0, time.UTC)
	return h, recs
}
