package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/bench"
	"github.com/goodput-dev/goodput/internal/human"
	"github.com/goodput-dev/goodput/internal/simtest"
	"github.com/goodput-dev/goodput/promscrape"
	"github.com/goodput-dev/goodput/serverview"
	"github.com/goodput-dev/goodput/sim"
	"github.com/goodput-dev/goodput/sweep"
	"github.com/goodput-dev/goodput/sweeprun"
)

// serverTable returns the cells of the sweep page's server-by-load table,
// a row per load, keyed by column heading.
func serverTable(t *testing.T, doc *node) []map[string]string {
	t.Helper()
	sec := doc.byID("server")
	if sec == nil {
		t.Fatal("the sweep page has no server section")
	}
	tables := sec.find("table", "server-load")
	if len(tables) != 1 {
		t.Fatalf("%d server tables, want 1", len(tables))
	}
	var head []string
	for _, th := range tables[0].find("th", "") {
		head = append(head, th.allText())
	}
	var rows []map[string]string
	for _, tr := range tables[0].find("tbody", "")[0].find("tr", "") {
		row := map[string]string{}
		for i, td := range tr.find("td", "") {
			row[head[i]] = td.allText()
		}
		rows = append(rows, row)
	}
	return rows
}

// readBenchSummary reads a point's summary file as bench wrote it.
func readBenchSummary(t *testing.T, path string) bench.SummaryFile {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var s bench.SummaryFile
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	return s
}

// A sweep across the simulator's batch limit: each point's summary holds
// the server's account from its /metrics, and the sweep page sets it
// beside the client's numbers, load by load, as the summaries have them;
// past the limit the server's queue fills.
func TestSweepPageShowsTheServer(t *testing.T) {
	// At most 4 sequences run at once: past 4 concurrent requests the
	// rest wait in the server's queue.
	_, url := simtest.Serve(t, sim.Options{Seed: 5, MaxNumSeqs: 4})
	cfg := bench.DefaultConfig()
	cfg.BaseURL = url
	cfg.Arrival.NumPrompts = 24
	cfg.Workload.Random.InputLen = 32
	cfg.Workload.Random.OutputLen = 24
	cfg.Workload.Request.IgnoreEOS = true
	cfg.ScrapeInterval = 50 * time.Millisecond // several scrapes per point
	dir := t.TempDir()
	r, err := sweeprun.New(sweeprun.Config{Bench: cfg, Dir: dir, MinRounds: 2})
	if err != nil {
		t.Fatal(err)
	}
	loads := []sweep.Load{sweep.Concurrency(2), sweep.Concurrency(16)}
	if _, err := r.Run(t.Context(), sweep.Plan{Mode: sweep.ModeConcurrency, Loads: loads}); err != nil {
		t.Fatal(err)
	}
	s, err := LoadSweep(filepath.Join(dir, sweeprun.SweepJSON))
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := WriteSweepHTML(&b, s, HTMLOptions{}); err != nil {
		t.Fatal(err)
	}
	doc := parsePage(t, b.Bytes())
	checkSelfContained(t, doc)
	rows := serverTable(t, doc)
	if len(rows) != len(loads) {
		t.Fatalf("%d rows in the server table, want one per load (%d)", len(rows), len(loads))
	}
	waiting := map[string]float64{}
	for i, l := range loads {
		name := sweeprun.Measurement{Load: l, Repeat: 1}.Name()
		sf := readBenchSummary(t, filepath.Join(dir, name+".summary.json"))
		c := sf.Server
		if c == nil || c.Running == nil || c.Waiting == nil || c.KVCacheUsage == nil || c.Preemptions == nil || c.TTFT.ServerMean == nil || c.TTFT.P99 == nil || c.TTFT.P99.Server == nil {
			t.Fatalf("%s: the summary lacks the server's account: %+v", name, c)
		}
		pt := s.Summary.Points[i]
		if pt.Load != l {
			t.Fatalf("point %d is %v, want %v", i, pt.Load, l)
		}
		// The client's numbers are the sweep's, which are the summary's.
		if got, want := pt.Mean.TTFT.Mean, sf.Result.Latency.TTFT.Mean; math.Abs(got-want) > 1e-12 {
			t.Fatalf("%s: the sweep's TTFT mean %v, the summary's %v", name, got, want)
		}
		phase := map[promscrape.Hist]float64{}
		for _, ph := range c.Phases {
			phase[ph.Name] = ph.Mean
		}
		e := c.TTFT.P99.Server
		row := rows[i]
		for col, want := range map[string]string{
			"load":                        l.Short(),
			"in flight L (client)":        human.Brief(sf.Result.LittlesLaw.InFlight),
			"running (server mean)":       human.Brief(c.Running.Mean),
			"waiting (server mean)":       human.Brief(c.Waiting.Mean),
			"KV cache (server peak)":      percent(c.KVCacheUsage.Peak),
			"preemptions (server)":        human.Brief(c.Preemptions.Count),
			"TTFT mean (client)":          seconds(sf.Result.Latency.TTFT.Mean),
			"TTFT mean (server, exact)":   seconds(*c.TTFT.ServerMean),
			"TTFT p99 (client)":           seconds(pt.Mean.TTFT.P99),
			"TTFT p99 (server, estimate)": fmt.Sprintf("≈ %s (bucket %s–%s)", seconds(e.Value), seconds(e.Lower), seconds(e.Upper)),
			"queue mean (server)":         seconds(phase[promscrape.Queue]),
			"prefill mean (server)":       seconds(phase[promscrape.Prefill]),
			"decode mean (server)":        seconds(phase[promscrape.Decode]),
			"server data":                 fmt.Sprintf("vllm, %d scrapes", c.Scrapes),
		} {
			if row[col] != want {
				t.Errorf("%s, %s: %q, want %q (the summary's)", name, col, row[col], want)
			}
		}
		waiting[name] = c.Waiting.Mean
	}
	// Below the limit next to nothing waits; at four times it most
	// requests do.
	if waiting["c2"] > 0.5 || waiting["c16"] < 4 {
		t.Errorf("mean waiting %v at c2, %v at c16: want the queue to fill past the limit", waiting["c2"], waiting["c16"])
	}
	// The charts over load: the client's requests in flight beside the
	// server's running and waiting, a point per load on each.
	f := figure(t, doc, "Requests in the server against load")
	for _, class := range []string{"s0", "s2", "s3"} {
		if n := len(f.find("circle", class)); n != len(loads) {
			t.Errorf("requests chart: %d points of %s, want %d", n, class, len(loads))
		}
	}
	pts := f.find("circle", "s3")
	if len(pts) == 2 && !strings.Contains(pts[1].allText(), "waiting (server, mean) "+human.Brief(waiting["c16"])) {
		t.Errorf("the waiting point at c16 says %q", pts[1].allText())
	}
	figure(t, doc, "TTFT and queue time against load (means)")
	figure(t, doc, "KV cache usage against load (peak)")
}

// sweepOf returns a sweep over concurrency 1, 2, 4 and 8 of simpleSweep's
// shape with the servers given.
func sweepOf(t *testing.T, servers map[string][]MeasuredServer) *Sweep {
	t.Helper()
	sum := simpleSweep(t)
	sum.Points = sum.Points[:4]
	return &Sweep{Name: "s", Summary: sum, Servers: servers}
}

// A load whose summary holds no server data, or that has no summary,
// shows as such: n/a in every server column and the reason, never a
// zero; the charts leave it out.
func TestSweepPageLoadsWithoutServerData(t *testing.T) {
	noEngine := &serverview.Comparison{Engine: promscrape.Unknown, Missing: []string{"no known engine metrics (vllm:, sglang:, tgi_, llamacpp:) at the server"}}
	s := sweepOf(t, map[string][]MeasuredServer{
		sweep.Concurrency(1).String(): {{Summary: "c1.summary.json", Repeat: 1, Server: comparison(1)}},
		sweep.Concurrency(2).String(): {{Summary: "c2.summary.json", Repeat: 1, Server: noEngine}},
		// concurrency 4: no summary at all
		sweep.Concurrency(8).String(): {{Summary: "c8.summary.json", Repeat: 1, Server: comparison(2)}},
	})
	var b bytes.Buffer
	if err := WriteSweepHTML(&b, s, HTMLOptions{}); err != nil {
		t.Fatal(err)
	}
	doc := parsePage(t, b.Bytes())
	rows := serverTable(t, doc)
	if len(rows) != 4 {
		t.Fatalf("%d rows, want 4", len(rows))
	}
	for i, why := range map[int]string{
		1: "no server data: no known engine metrics (vllm:, sglang:, tgi_, llamacpp:) at the server",
		2: "no server data: no summary file of this load beside the sweep file",
	} {
		for col, v := range rows[i] {
			switch col {
			case "load", "in flight L (client)", "TTFT mean (client)", "TTFT p99 (client)":
				if v == "n/a" {
					t.Errorf("row %d: the client's %s is missing", i, col)
				}
			case "server data":
				if v != why {
					t.Errorf("row %d says %q, want %q", i, v, why)
				}
			default:
				if v != "n/a" {
					t.Errorf("row %d, %s: %q, want n/a", i, col, v)
				}
			}
		}
	}
	// The loads with data, as their accounts have them.
	for i, want := range map[int]map[string]string{
		0: {"running (server mean)": "4", "waiting (server mean)": "2", "KV cache (server peak)": "20.0 %", "preemptions (server)": "3",
			"TTFT mean (server, exact)": "100 ms", "TTFT p99 (server, estimate)": "≈ 200 ms (bucket 100 ms–250 ms)",
			"queue mean (server)": "50 ms", "prefill mean (server)": "30 ms", "decode mean (server)": "400 ms", "server data": "vllm, 10 scrapes"},
		3: {"running (server mean)": "8", "waiting (server mean)": "4", "KV cache (server peak)": "40.0 %", "preemptions (server)": "6",
			"TTFT mean (server, exact)": "200 ms", "TTFT p99 (server, estimate)": "≈ 400 ms (bucket 200 ms–500 ms)",
			"queue mean (server)": "100 ms", "prefill mean (server)": "60 ms", "decode mean (server)": "800 ms"},
	} {
		for col, v := range want {
			if rows[i][col] != v {
				t.Errorf("row %d, %s: %q, want %q", i, col, rows[i][col], v)
			}
		}
	}
	// Two loads have server data: the server's curves have two points,
	// the client's four.
	f := figure(t, doc, "Requests in the server against load")
	for class, want := range map[string]int{"s0": 4, "s2": 2, "s3": 2} {
		if n := len(f.find("circle", class)); n != want {
			t.Errorf("%d points of %s, want %d", n, class, want)
		}
	}
	// Nor is a line drawn through the loads without data: the running
	// line breaks there.
	if paths := f.find("path", "s2"); len(paths) != 1 {
		t.Errorf("%d running lines, want 1", len(paths))
	} else if d := paths[0].attrs["d"]; strings.Count(d, "M") != 2 || strings.Contains(d, "L") {
		t.Errorf("running line %q: want it broken between c1 and c8", d)
	}
}

// A sweep without any server data says so once, without a table or
// charts of nothing.
func TestSweepPageWithoutServerData(t *testing.T) {
	tests := []struct {
		name    string
		clock   string
		servers map[string][]MeasuredServer
		want    string
	}{
		{"no summaries", "wall", nil, "No measurement's summary file lies beside the sweep file, so there is no account of the server to show."},
		{"not scraped", "wall", map[string][]MeasuredServer{
			sweep.Concurrency(1).String(): {{Repeat: 1}}, sweep.Concurrency(2).String(): {{Repeat: 1}},
			sweep.Concurrency(4).String(): {{Repeat: 1}}, sweep.Concurrency(8).String(): {{Repeat: 1}},
		}, "The server exported no metrics, or they were not scraped (--no-server-metrics): no measurement's summary holds its own account."},
		{"no engine metrics", "wall", map[string][]MeasuredServer{
			sweep.Concurrency(1).String(): {{Repeat: 1, Server: &serverview.Comparison{Missing: []string{"no known engine metrics (vllm:, sglang:, tgi_, llamacpp:) at the server"}}}},
		}, "The server exported no metrics: no measurement's summary holds its own account (no known engine metrics (vllm:, sglang:, tgi_, llamacpp:) at the server)."},
		// llama.cpp exports its gauges but no TTFT histogram, and runs
		// shorter than the scrape interval catch no gauge: the engine did
		// export metrics, just none of what the section shows.
		{"an engine, none of what is shown", "wall", map[string][]MeasuredServer{
			sweep.Concurrency(1).String(): {{Repeat: 1, Server: &serverview.Comparison{Engine: promscrape.LlamaCpp,
				Missing: []string{"server ttft: not exported by the server", "server itl: not exported by the server", "running: not measured in the window (see notes)"},
				Notes:   []string{"no successful scrape inside the window: no gauge values"}}}},
		}, "The server's metrics (llamacpp) hold none of what this section shows at any load: server ttft: not exported by the server; running: not measured in the window (see notes); no successful scrape inside the window: no gauge values."},
		{"virtual time", "virtual", nil, "This sweep ran in virtual time: the simulator's engine ran without a server, so there are no server metrics to show."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := sweepOf(t, tt.servers)
			s.Context.Clock = tt.clock
			var b bytes.Buffer
			if err := WriteSweepHTML(&b, s, HTMLOptions{}); err != nil {
				t.Fatal(err)
			}
			sec := parsePage(t, b.Bytes()).byID("server")
			if sec == nil {
				t.Fatal("no server section")
			}
			if got := strings.TrimPrefix(sec.allText(), "Server across load"); got != tt.want {
				t.Errorf("the section says %q, want %q", got, tt.want)
			}
			if n := len(sec.find("table", "")) + len(sec.find("figure", "")); n != 0 {
				t.Errorf("%d tables and charts of no data", n)
			}
		})
	}
}

// The repeats of a load each have the server's account: a number is the
// mean over those that have it, as the client's are, a peak the highest,
// and the p99 estimate lies within the widest of their buckets.
func TestServerAtAveragesRepeats(t *testing.T) {
	pt := sweep.Point{Load: sweep.Concurrency(4), Repeats: make([]sweep.Sample, 3)}
	noGauges := comparison(3)
	noGauges.Running, noGauges.Waiting, noGauges.KVCacheUsage = nil, nil, nil
	tests := []struct {
		name string
		ms   []MeasuredServer
		want serverPoint
		p99  string
		from string
	}{
		{
			// Two of three measurements scraped, one of them without gauges.
			name: "two of three",
			ms:   []MeasuredServer{{Repeat: 1, Server: comparison(1)}, {Repeat: 2}, {Repeat: 3, Server: noGauges}},
			want: serverPoint{measured: 3, with: 2, engine: promscrape.VLLM, scrapes: 20,
				ttftMean: 0.2, queueMean: 0.1, prefillMean: 0.06, decodeMean: 0.8,
				ttftP99: 0.4, ttftLo: 0.1, ttftHi: 0.75,
				running: 4, waiting: 2, kvPeak: 0.2, preemptions: 6},
			p99:  "≈ 400 ms (mean of 2; buckets 100 ms–750 ms)",
			from: "vllm, 2 of 3 measurements, 20 scrapes",
		},
		{
			// A p99 above the highest bucket is no number, only a bound.
			name: "overflow",
			ms: []MeasuredServer{{Repeat: 1, Server: func() *serverview.Comparison {
				c := comparison(1)
				c.TTFT.P99.Server = &promscrape.Estimate{Q: 0.99, Value: 640, Lower: 640, Upper: 640, Overflow: true}
				return c
			}()}},
			want: serverPoint{measured: 3, with: 1, engine: promscrape.VLLM, scrapes: 10,
				ttftMean: 0.1, queueMean: 0.05, prefillMean: 0.03, decodeMean: 0.4,
				ttftP99: 640, ttftLo: 640, ttftHi: 640, over: true,
				running: 4, waiting: 2, kvPeak: 0.2, preemptions: 3},
			p99:  "above 640 s",
			from: "vllm, 1 of 3 measurements, 10 scrapes",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := serverAt(pt, tt.ms)
			close := func(a, b float64) bool { return math.Abs(a-b) < 1e-12 }
			if got.measured != tt.want.measured || got.with != tt.want.with || got.engine != tt.want.engine || got.scrapes != tt.want.scrapes || got.over != tt.want.over {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
			for _, f := range []struct {
				name      string
				got, want float64
			}{
				{"ttft mean", got.ttftMean, tt.want.ttftMean}, {"queue", got.queueMean, tt.want.queueMean},
				{"prefill", got.prefillMean, tt.want.prefillMean}, {"decode", got.decodeMean, tt.want.decodeMean},
				{"p99", got.ttftP99, tt.want.ttftP99}, {"p99 lower", got.ttftLo, tt.want.ttftLo}, {"p99 upper", got.ttftHi, tt.want.ttftHi},
				{"running", got.running, tt.want.running}, {"waiting", got.waiting, tt.want.waiting},
				{"KV peak", got.kvPeak, tt.want.kvPeak}, {"preemptions", got.preemptions, tt.want.preemptions},
			} {
				if !close(f.got, f.want) {
					t.Errorf("%s = %v, want %v", f.name, f.got, f.want)
				}
			}
			if s := got.p99Text(); s != tt.p99 {
				t.Errorf("p99 reads %q, want %q", s, tt.p99)
			}
			if s := got.source(); s != tt.from {
				t.Errorf("source reads %q, want %q", s, tt.from)
			}
		})
	}
	// Nothing at all: every number NaN, none a zero.
	none := serverAt(pt, nil)
	for _, v := range []float64{none.ttftMean, none.queueMean, none.ttftP99, none.running, none.waiting, none.kvPeak, none.preemptions} {
		if !math.IsNaN(v) {
			t.Errorf("a load without server data has the number %v", v)
		}
	}
}

// A load two endpoints served says so where its server data came from,
// and shows the fleet's TTFT p99 when the endpoints' buckets match: read
// from their histograms summed (helpers_test.go: 750 ms, in the bucket
// 500 ms–1 s), not from either endpoint's own p99 (227.5 ms and 937.5 ms).
func TestServerSourceNamesAFleet(t *testing.T) {
	pt, err := sweep.NewPoint(sweep.Concurrency(4), sweep.Sample{Requests: 10, Attainment: 1})
	if err != nil {
		t.Fatal(err)
	}
	// The slow endpoint on another engine version: its buckets are not
	// the fast one's.
	elsewhere := promscrape.Histogram{Bounds: []float64{0.05, 0.1, 0.2, 0.5, 1}, Counts: []float64{0, 10, 25, 46, 50}, Count: 50, Sum: 17.5}
	tests := []struct {
		name      string
		endpoints []*serverview.Comparison
		p99       string
	}{
		{"same buckets", []*serverview.Comparison{withTTFT(t, comparison(1), fastTTFT), withTTFT(t, comparison(2), slowTTFT)},
			"≈ 750 ms (bucket 500 ms–1 s)"},
		// No fleet p99 (the fleet's Missing says why), but the mean still
		// adds up.
		{"buckets differ", []*serverview.Comparison{withTTFT(t, comparison(1), fastTTFT), withTTFT(t, comparison(2), elsewhere)},
			"n/a"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sp := serverAt(pt, []MeasuredServer{{Repeat: 1, Server: serverview.Fleet(tt.endpoints)}})
			if got, want := sp.source(), "vllm over 2 endpoints, 20 scrapes"; got != want {
				t.Errorf("source %q, want %q", got, want)
			}
			if got := sp.p99Text(); got != tt.p99 {
				t.Errorf("TTFT p99 (server, estimate) reads %q, want %q", got, tt.p99)
			}
			// 28 s over 200 first tokens.
			if math.Abs(sp.ttftMean-0.14) > 1e-12 {
				t.Errorf("TTFT mean %v, want 0.14 s", sp.ttftMean)
			}
		})
	}
}
