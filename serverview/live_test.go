package serverview

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/promscrape"
)

// kneeSample is the scrape at t seconds of a vLLM server that was fine for
// 10 s and then went past its knee:
//
//   - TTFT gains 10 observations a second, in (0, 20 ms] up to t = 10 and
//     in (80, 100 ms] after;
//   - waiting is 0 up to t = 10 and then t − 10; running holds 32; KV
//     usage is 0.5, rising 0.02 a second after t = 10;
//   - prompt tokens 500·t, generation tokens 1000·t, prefix-cache queries
//     100·t with 50·t hits; preemptions 0, and 2 from t = 15;
//   - 10 requests finish a second, each 0.1 s end to end without queueing
//     up to t = 10, and 1 s with 0.5 s queued after.
func kneeSample(sec int) promscrape.Sample {
	t := float64(sec)
	early, late := min(t, 10), max(t-10, 0)
	c0 := 10 * early
	cum := []float64{c0, c0, c0, c0, c0 + 10*late}
	waiting, kv, preempt := 0.0, 0.5, 0.0
	if t > 10 {
		waiting, kv = t-10, 0.5+0.02*(t-10)
	}
	if t >= 15 {
		preempt = 2
	}
	return scraped(t, promscrape.Snapshot{
		Engine: promscrape.VLLM, Models: []string{"m"},
		Gauges: map[promscrape.Gauge]float64{promscrape.Running: 32, promscrape.Waiting: waiting, promscrape.KVCacheUsage: kv},
		Counters: map[promscrape.Counter]map[string]float64{
			promscrape.PromptTokens: one(500 * t), promscrape.GenerationTokens: one(1000 * t),
			promscrape.PrefixCacheQueries: one(100 * t), promscrape.PrefixCacheHits: one(50 * t),
			promscrape.Preemptions: one(preempt),
		},
		Histograms: map[promscrape.Hist]map[string]promscrape.Histogram{
			promscrape.TTFT:  hist(ttftBounds, cum, cum[4], 0.01*c0+0.09*10*late),
			promscrape.Queue: hist([]float64{1}, []float64{10 * t}, 10*t, 5*late),
			promscrape.E2E:   hist([]float64{1}, []float64{10 * t}, 10*t, early+10*late),
		},
	})
}

// kneeMonitor is a Monitor with a 10 s window fed kneeSample(0..last).
func kneeMonitor(last int) *Monitor {
	m := NewMonitor(fixtureURL, "", 10*time.Second)
	for s := 0; s <= last; s++ {
		m.Add(kneeSample(s))
	}
	return m
}

// TestViewPastTheKnee checks every number of the live view at t = 20
// against the hand-worked values of kneeSample.
func TestViewPastTheKnee(t *testing.T) {
	v := kneeMonitor(20).View()
	if !v.At.Equal(at(20)) || v.Engine != promscrape.VLLM || !slices.Equal(v.Models, []string{"m"}) || v.Error != "" {
		t.Errorf("at %v engine %q models %v error %q", v.At, v.Engine, v.Models, v.Error)
	}
	// Scrapes t = 10..20 lie in the window [10, 20].
	if v.WindowSeconds != 10 || v.CoveredSeconds != 10 || v.Scrapes != 11 || v.FailedScrapes != 0 {
		t.Errorf("window %v s, covered %v s, %d scrapes, %d failed; want 10, 10, 11, 0", v.WindowSeconds, v.CoveredSeconds, v.Scrapes, v.FailedScrapes)
	}
	checkFloat(t, "running", v.Running, 32)
	checkFloat(t, "waiting", v.Waiting, 10)
	checkFloat(t, "kv", v.KVCacheUsage, 0.7)
	checkFloat(t, "prompt tok/s", v.PromptTokensPerSecond, 500)
	checkFloat(t, "generation tok/s", v.GenerationTokensPerSecond, 1000)
	// 100 first tokens in (80, 100 ms] over the window: p50 at rank 50 is
	// 90 ms, p99 at rank 99 is 99.8 ms.
	if v.TTFT.Observations != 100 {
		t.Errorf("ttft observations = %v, want 100", v.TTFT.Observations)
	}
	checkEstimate(t, "ttft p50", v.TTFT.P50, 0.09, 0.08, 0.1)
	checkEstimate(t, "ttft p99", v.TTFT.P99, 0.0998, 0.08, 0.1)
	if v.ITL.P50 != nil || v.ITL.P99 != nil {
		t.Errorf("itl = %+v, want none (not exported)", v.ITL)
	}
	// Two preemptions over the 10 s window; half of the prefix lookups hit.
	checkFloat(t, "preemptions/s", v.PreemptionsPerSecond, 0.2)
	checkFloat(t, "prefix hit rate", v.PrefixCacheHitRate, 0.5)
	// Over [10, 20]: 50 s queued of 100 s end to end.
	checkFloat(t, "queue share", v.QueueShare, 0.5)
	if !slices.Equal(v.NotExported, []string{"itl"}) {
		t.Errorf("not exported = %q, want [itl]", v.NotExported)
	}
	// Waiting 1..10 over t = 11..20: up by 9 over 9 s. TTFT p99 was 19.8
	// ms over [0, 10] (rank 99 of 100 in (0, 20 ms]): 99.8/19.8 = 5.04×.
	want := Status{LevelCritical, "queue has grown by 9 over 9 s while TTFT p99 rose 5×: past the knee — scale out"}
	if v.Status != want {
		t.Errorf("status = %+v\nwant     %+v", v.Status, want)
	}
}

// TestViewOverTime reads the same server at several moments and checks the
// status follows it: healthy before the knee, growing queue after.
func TestViewOverTime(t *testing.T) {
	tests := []struct {
		last  int
		level Level
		text  string
	}{
		// One scrape: no rates or percentiles yet, the gauges already.
		{0, LevelOK, "healthy: nothing waiting, KV 50 %"},
		// Before the knee.
		{10, LevelOK, "healthy: nothing waiting, KV 50 %"},
		// Two requests waiting over two scrapes: too few to call a trend.
		// Over [2, 12] requests queued 10 s of 28 s end to end.
		{12, LevelWarn, "at capacity: 2 waiting (36 % of latency queued), KV 54 %"},
		// Three scrapes of a rising queue, with preemptions yet to come.
		{13, LevelCritical, "queue has grown by 2 over 2 s while TTFT p99 rose 5×: past the knee — scale out"},
	}
	for _, tt := range tests {
		v := kneeMonitor(tt.last).View()
		if v.Status.Level != tt.level || v.Status.Text != tt.text {
			t.Errorf("t = %d: status %s %q\nwant           %s %q", tt.last, v.Status.Level, v.Status.Text, tt.level, tt.text)
		}
	}
	first := kneeMonitor(0).View()
	if first.GenerationTokensPerSecond != nil || first.TTFT.P50 != nil || first.PreemptionsPerSecond != nil {
		t.Errorf("one scrape gave rates or percentiles: %+v", first)
	}
}

// TestViewFailures checks the view of a server whose latest scrape failed,
// and of one never reached.
func TestViewFailures(t *testing.T) {
	m := kneeMonitor(10)
	m.Add(failed(11, promscrape.FailTimeout, "scrape http://127.0.0.1:8000/metrics: no complete response within 5s"))
	v := m.View()
	since := at(11).Local().Format("15:04:05")
	want := Status{LevelCritical, "unreachable since " + since + ": scrape http://127.0.0.1:8000/metrics: no complete response within 5s"}
	if v.Status != want || v.Error == "" {
		t.Errorf("status = %+v, error %q; want %+v", v.Status, v.Error, want)
	}
	// Still down three seconds later: since the first failure, not the
	// latest, and never the last good status.
	m.Add(failed(14, promscrape.FailDown, "scrape http://127.0.0.1:8000/metrics: connection refused"))
	want = Status{LevelCritical, "unreachable since " + since + " (3 s): scrape http://127.0.0.1:8000/metrics: connection refused"}
	if v := m.View(); v.Status != want {
		t.Errorf("status = %+v, want %+v", v.Status, want)
	}
	// The last good scrape's gauges are still shown, and the failure counted.
	checkFloat(t, "running", v.Running, 32)
	if v.FailedScrapes != 1 {
		t.Errorf("failed scrapes = %d, want 1", v.FailedScrapes)
	}
	// Back: judged again from its metrics.
	m.Add(kneeSample(15))
	if v := m.View(); strings.HasPrefix(v.Status.Text, "unreachable") {
		t.Errorf("after a good scrape: status %+v", v.Status)
	}

	// A model filter the server does not know: say so, not "no metrics".
	wrong := NewMonitor(fixtureURL, "other", time.Second)
	wrong.Add(kneeSample(0))
	if v := wrong.View(); v.Status.Text != `no metrics: model "other" is not in the server's metrics (it reports m)` {
		t.Errorf("wrong model: status %+v", v.Status)
	}
	right := NewMonitor(fixtureURL, "m", time.Second)
	right.Add(kneeSample(0))
	if v := right.View(); v.Status.Level != LevelOK {
		t.Errorf("right model: status %+v", v.Status)
	}

	empty := NewMonitor(fixtureURL, "m", 0).View()
	if empty.Status.Level != LevelUnknown || empty.WindowSeconds != 30 || empty.Model != "m" {
		t.Errorf("empty monitor view = %+v, want unknown status, 30 s default window, model m", empty)
	}
	down := NewMonitor(fixtureURL, "", time.Second)
	down.Add(failed(0, promscrape.FailDown, "scrape http://127.0.0.1:8000/metrics: server down"))
	if v := down.View(); v.Status.Level != LevelUnknown || v.Running != nil || !strings.Contains(v.Status.Text, "server down") ||
		v.Scrapes != 1 || v.FailedScrapes != 1 {
		t.Errorf("never-reached view = %+v; want its one scrape counted as failed", v)
	}
}

// TestMonitorTrim checks that a long watch keeps only about two windows of
// scrapes, and that trimming does not change what the view reads.
func TestMonitorTrim(t *testing.T) {
	m := kneeMonitor(100)
	// Two 10 s windows at one scrape a second, plus the anchor at or
	// before the horizon: t = 80..100.
	if n := len(m.series.Samples); n != 21 {
		t.Errorf("kept %d samples, want 21", n)
	}
	if first := m.series.Samples[0].At; !first.Equal(at(80)) {
		t.Errorf("oldest kept scrape at %v, want t = 80", first)
	}
	full := &Monitor{window: 10 * time.Second, series: promscrape.Series{URL: fixtureURL}}
	for s := 0; s <= 100; s++ {
		full.series.Samples = append(full.series.Samples, kneeSample(s)) // untrimmed
	}
	a, b := m.View(), full.View()
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	if !bytes.Equal(ja, jb) {
		t.Errorf("trimmed view differs:\n%s\n%s", ja, jb)
	}
}

// TestViewJSON pins the keys `goodput watch --format json` prints, with
// null for what the server does not give.
func TestViewJSON(t *testing.T) {
	b, err := json.Marshal(kneeMonitor(20).View())
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	for k, want := range map[string]any{
		"running": 32.0, "waiting": 10.0, "prompt_tokens_per_second": 500.0, "generation_tokens_per_second": 1000.0,
		"preemptions_per_second": 0.2, "prefix_cache_hit_rate": 0.5, "queue_share": 0.5, "window_seconds": 10.0, "engine": "vllm", "url": fixtureURL,
	} {
		if got, ok := m[k]; !ok || (got != want && !near(toF(got), toF(want))) {
			t.Errorf("%s = %v, want %v", k, got, want)
		}
	}
	itl := m["itl"].(map[string]any)
	if v, ok := itl["p50"]; !ok || v != nil {
		t.Errorf("itl.p50 = %v (present %v), want null", v, ok)
	}
	if s := m["status"].(map[string]any); s["level"] != "critical" || !strings.HasPrefix(s["text"].(string), "queue has grown") {
		t.Errorf("status = %v", s)
	}
}

func toF(v any) float64 {
	f, _ := v.(float64)
	return f
}

// TestViewTextAndRow compares the terminal block and the plain row of the
// view at t = 20 with their golden files.
func TestViewTextAndRow(t *testing.T) {
	v := kneeMonitor(20).View()
	v.At = v.At.In(time.UTC)
	var buf bytes.Buffer
	if err := ViewText(&buf, v); err != nil {
		t.Fatal(err)
	}
	buf.WriteString(ViewHeader() + "\n" + ViewRow(v) + "\n")
	golden(t, "view.golden", buf.Bytes())
	// Every cell of the row sits under its heading: the row and the
	// heading have the same width up to the status.
	head, row := ViewHeader(), ViewRow(v)
	if !strings.HasSuffix(head, " status") || len(row) < len(head)-len("status") ||
		row[len(head)-len(" status")] != ' ' {
		t.Errorf("row does not line up with the heading:\n%s\n%s", head, row)
	}
}
