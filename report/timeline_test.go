package report

import (
	"math"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/promscrape"
	"github.com/goodput-dev/goodput/record"
	"github.com/goodput-dev/goodput/report/svgchart"
)

// scrapedSeries returns a vLLM-like series scraped at start+offset,
// start+offset+every, … (n scrapes): scrape k reads k+1 running, 2k
// waiting and a KV cache k % full, and 50·k·(k+1) generated tokens so far
// (100·k since scrape k−1).
func scrapedSeries(start time.Time, offset, every time.Duration, n int) *promscrape.Series {
	s := &promscrape.Series{URL: "http://127.0.0.1:8000/metrics", Interval: every, Start: start}
	for k := range n {
		at := start.Add(offset + time.Duration(k)*every)
		snap := &promscrape.Snapshot{
			At: at, Engine: promscrape.VLLM,
			Gauges: map[promscrape.Gauge]float64{
				promscrape.Running: float64(k + 1), promscrape.Waiting: float64(2 * k), promscrape.KVCacheUsage: float64(k) / 100,
			},
			Counters: map[promscrape.Counter]map[string]float64{promscrape.GenerationTokens: {"": float64(50 * k * (k + 1))}},
		}
		s.Samples = append(s.Samples, promscrape.Sample{At: at, Snapshot: snap})
	}
	s.End = s.Samples[n-1].At
	return s
}

// pathXs returns the x of every point of an SVG path of M and L commands.
func pathXs(t *testing.T, d string) []float64 {
	t.Helper()
	var xs []float64
	for _, seg := range strings.FieldsFunc(d, func(r rune) bool { return r == 'M' || r == 'L' }) {
		f := strings.Fields(seg)
		if len(f) != 2 {
			t.Fatalf("path segment %q", seg)
		}
		x, err := strconv.ParseFloat(f[0], 64)
		if err != nil {
			t.Fatal(err)
		}
		xs = append(xs, x)
	}
	return xs
}

// A gauge is a sample taken at a scrape: the timeline draws it where it
// was scraped, and a bucket holding several scrapes at their mean time,
// not at the bucket's middle where a rate over the bucket belongs.
func TestServerGaugesAtTheirScrapes(t *testing.T) {
	start := time.Date(2025, 2, 3, 4, 5, 6, 0, time.UTC)
	h := record.Header{Kind: record.KindHeader, Schema: record.SchemaVersion, Start: start}
	// 50 requests, one every 100 ms: five one-second buckets.
	recs := fixedRecords(50, 100*time.Millisecond, 0, 5, 10*time.Millisecond, func(int) time.Duration { return 20 * time.Millisecond })
	tests := []struct {
		name          string
		offset, every time.Duration
		n             int
		wantX         []float64 // seconds from the start, per bucket
		wantRunning   []float64
	}{
		// One scrape a bucket, 0.2 s into it.
		{"one per bucket", 200 * time.Millisecond, time.Second, 5, []float64{0.2, 1.2, 2.2, 3.2, 4.2}, []float64{1, 2, 3, 4, 5}},
		// Two a bucket, at 0.1 and 0.6 s into it: their mean, at 0.35 s.
		{"two per bucket", 100 * time.Millisecond, 500 * time.Millisecond, 10, []float64{0.35, 1.35, 2.35, 3.35, 4.35}, []float64{1.5, 3.5, 5.5, 7.5, 9.5}},
		// Late in the bucket: 0.9 s into it, never its middle.
		{"late", 900 * time.Millisecond, time.Second, 5, []float64{0.9, 1.9, 2.9, 3.9, 4.9}, []float64{1, 2, 3, 4, 5}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			run := build(h, recs, RunOptions{})
			run.AttachServer(scrapedSeries(start, tt.offset, tt.every, tt.n))
			tl := buildTimeline(run, maxTimePoints)
			if len(tl.starts) != len(tt.wantX) || tl.step != 1 || tl.starts[0] != 0 {
				t.Fatalf("timeline starts %v step %v, want %d one-second buckets from 0", tl.starts, tl.step, len(tt.wantX))
			}
			_, inflight, kv := serverLines(&tl, run)
			if len(inflight) != 2 || len(kv) != 1 {
				t.Fatalf("%d in-flight and %d KV lines, want running and waiting, and KV", len(inflight), len(kv))
			}
			running, waiting := inflight[0], inflight[1]
			for k := range tt.wantX {
				for _, l := range []svgchart.Line{running, waiting, kv[0]} {
					if got := l.At(k, tl.starts, tl.step); math.Abs(got-tt.wantX[k]) > 1e-9 {
						t.Errorf("%s: bucket %d drawn at %v s, want its scrapes' time %v s", l.Name, k, got, tt.wantX[k])
					}
				}
				if running.Ys[k] != tt.wantRunning[k] {
					t.Errorf("running in bucket %d = %v, want %v", k, running.Ys[k], tt.wantRunning[k])
				}
				if want := 2 * (tt.wantRunning[k] - 1); waiting.Ys[k] != want {
					t.Errorf("waiting in bucket %d = %v, want %v", k, waiting.Ys[k], want)
				}
				if want := tt.wantRunning[k] - 1; math.Abs(kv[0].Ys[k]-want) > 1e-9 {
					t.Errorf("KV cache in bucket %d = %v %%, want %v %%", k, kv[0].Ys[k], want)
				}
			}
			// The chart draws the path through those times.
			f := svgchart.TimeChart("Requests in flight", "requests", tl.starts, tl.step, []svgchart.Line{running})
			var b strings.Builder
			f.Render(&b)
			out := b.String()
			i := strings.Index(out, `<path class="line s2" d="`)
			if i < 0 {
				t.Fatalf("no running line in %s", out)
			}
			d := out[i+len(`<path class="line s2" d="`):]
			d = d[:strings.IndexByte(d, '"')]
			xs := pathXs(t, d)
			if len(xs) != len(tt.wantX) {
				t.Fatalf("path %q has %d points, want %d", d, len(xs), len(tt.wantX))
			}
			for k, x := range xs {
				if want, _ := strconv.ParseFloat(svgchart.Px(f.X.Pos(tt.wantX[k])), 64); x != want {
					t.Errorf("point %d at x=%v px, want %v px (%v s)", k, x, want, tt.wantX[k])
				}
			}
		})
	}
}

// A line without times of its own is drawn at its buckets' middles.
func TestLineAtBucketMiddle(t *testing.T) {
	starts := []float64{0, 2, 4}
	l := svgchart.Line{Ys: []float64{1, 2, 3}, Xs: []float64{0.5, math.NaN()}}
	for i, want := range []float64{0.5, 3, 5} {
		if got := l.At(i, starts, 2); got != want {
			t.Errorf("value %d at %v, want %v", i, got, want)
		}
	}
}

// A server rate is the increase between two scrapes, stamped with the
// later: it is bucketed by the middle of the interval it measured, so a
// rate over one scrape interval lands in the bucket it describes, not the
// next one.
func TestServerRateInTheBucketItMeasured(t *testing.T) {
	start := time.Date(2025, 2, 3, 4, 5, 6, 0, time.UTC)
	h := record.Header{Kind: record.KindHeader, Schema: record.SchemaVersion, Start: start}
	recs := fixedRecords(50, 100*time.Millisecond, 0, 5, 10*time.Millisecond, func(int) time.Duration { return 20 * time.Millisecond })
	tests := []struct {
		name          string
		offset, every time.Duration
		n             int
		want          []float64 // generated tok/s per one-second bucket
	}{
		// Scrapes 0.2 s into each second: the rate from k−0.8 s to k+0.2 s
		// is 100·k tok/s and centred in bucket k−1.
		{"one per bucket", 200 * time.Millisecond, time.Second, 6, []float64{100, 200, 300, 400, 500}},
		// Scrapes 0.9 s into each second: the rate from k−0.1 s to k+0.9 s
		// is centred at k+0.4 s, in bucket k; none is centred in bucket 0.
		{"late", 900 * time.Millisecond, time.Second, 5, []float64{math.NaN(), 100, 200, 300, 400}},
		// Every half second, 0.1 s into each: two rates centred in each
		// bucket, 200·k and 200·(k+1) tok/s for the k-th half second.
		{"two per bucket", 100 * time.Millisecond, 500 * time.Millisecond, 11, []float64{300, 700, 1100, 1500, 1900}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			run := build(h, recs, RunOptions{})
			run.AttachServer(scrapedSeries(start, tt.offset, tt.every, tt.n))
			tl := buildTimeline(run, maxTimePoints)
			out, _, _ := serverLines(&tl, run)
			if len(out) != 1 || len(out[0].Ys) != len(tt.want) {
				t.Fatalf("server output lines %+v, want one of %d buckets", out, len(tt.want))
			}
			for k, want := range tt.want {
				got := out[0].Ys[k]
				if math.IsNaN(want) != math.IsNaN(got) || !math.IsNaN(want) && math.Abs(got-want) > 1e-6 {
					t.Errorf("bucket %d: %v tok/s, want %v", k, got, want)
				}
				if x := out[0].At(k, tl.starts, tl.step); x != tl.starts[k]+0.5 {
					t.Errorf("bucket %d drawn at %v s, want its middle", k, x)
				}
			}
		})
	}
}
