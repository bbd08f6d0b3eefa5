package report

import (
	"math"
	"time"

	"github.com/goodput-dev/goodput/promscrape"
)

// maxTimePoints bounds the buckets a time chart draws. A long run's series
// is averaged into wider buckets, so a report stays small and quick to open
// however long the run was.
const maxTimePoints = 400

// timeline is a run's series reduced to at most maxTimePoints buckets of
// step seconds, each value a per-bucket average (rates per second).
type timeline struct {
	starts []float64
	step   float64

	output      []float64 // output tokens per second
	inFlight    []float64 // time-average of requests in flight
	completions []float64 // per second
	errors      []float64 // per second
	lagMean     []float64 // seconds; NaN where no request was scheduled
	lagMax      []float64
}

// buildTimeline reduces run's series (and its client lag) to at most max
// buckets.
func buildTimeline(run *Run, maxPoints int) timeline {
	s := run.Result.Series
	n := len(s.Points)
	if n == 0 || s.Step <= 0 {
		return timeline{}
	}
	g := (n + maxPoints - 1) / maxPoints
	t := timeline{step: float64(g) * s.Step}
	for i := 0; i < n; i += g {
		pts := s.Points[i:min(i+g, n)]
		// Each point's rates are over the part of its bucket in the window
		// (the step, but at the window's ends): merged points weigh by it.
		var out, inf, secs float64
		var comp, errs int64
		for _, p := range pts {
			sec := p.Seconds
			if sec <= 0 { // a summary written before points had it
				sec = s.Step
			}
			out += p.OutputTokensPerSecond * sec
			inf += p.InFlight * sec
			secs += sec
			comp += p.Completions
			errs += p.Errors
		}
		t.starts = append(t.starts, pts[0].Start)
		t.output = append(t.output, out/secs)
		t.inFlight = append(t.inFlight, inf/secs)
		t.completions = append(t.completions, float64(comp)/secs)
		t.errors = append(t.errors, float64(errs)/secs)
	}
	t.lagMean, t.lagMax = t.regroupLag(run.Lag)
	return t
}

// bucket returns the index of the bucket holding time x (seconds from the
// run epoch), or -1 outside the timeline.
func (t *timeline) bucket(x float64) int {
	if len(t.starts) == 0 || t.step <= 0 {
		return -1
	}
	k := int(math.Floor((x - t.starts[0]) / t.step))
	if k < 0 || k >= len(t.starts) {
		return -1
	}
	return k
}

// regroupLag places the lag buckets (aligned to the epoch, perhaps at
// another step) into the timeline's buckets by their start times.
func (t *timeline) regroupLag(l LagSeries) (mean, mx []float64) {
	n := len(t.starts)
	mean, mx = nanSlice(n), nanSlice(n)
	cnt := make([]int64, n)
	sum := make([]float64, n)
	for i, st := range l.Starts {
		if l.Count[i] == 0 {
			continue
		}
		k := t.bucket(st + l.Step/2)
		if k < 0 {
			continue
		}
		cnt[k] += l.Count[i]
		sum[k] += l.Mean[i] * float64(l.Count[i])
		if math.IsNaN(mx[k]) || l.Max[i] > mx[k] {
			mx[k] = l.Max[i]
		}
	}
	for k := range n {
		if cnt[k] > 0 {
			mean[k] = sum[k] / float64(cnt[k])
		}
	}
	return mean, mx
}

// gauge averages a gauge's samples into the timeline's buckets; epoch is
// the run header's start, and scale multiplies each value (100 for a
// fraction shown in percent). A gauge is read at an instant, its scrape, so
// each bucket's average is placed at the mean time of the scrapes it
// averages (xs, seconds from epoch): a bucket with one scrape draws it
// where it was taken, not at the bucket's middle as a rate over the bucket
// is drawn.
func (t *timeline) gauge(pts []promscrape.Point, epoch time.Time, scale float64) (ys, xs []float64) {
	ats := make([]float64, len(pts))
	for i, p := range pts {
		ats[i] = p.At.Sub(epoch).Seconds()
	}
	return t.average(pts, ats, scale)
}

// rate averages a counter's rates (Series.Rate) into the timeline's
// buckets; from is the counter's first scrape, the one before the first
// rate, and epoch and scale are gauge's. A rate is the increase between two
// scrapes, stamped with the later: it describes the interval between them,
// so it is bucketed by the interval's middle, half an interval before its
// stamp (else a rate over the scrape interval would land a bucket late),
// and drawn at its bucket's middle, like the client's rates.
func (t *timeline) rate(pts []promscrape.Point, from, epoch time.Time, scale float64) []float64 {
	ats := make([]float64, len(pts))
	prev := from
	for i, p := range pts {
		ats[i] = (prev.Sub(epoch).Seconds() + p.At.Sub(epoch).Seconds()) / 2
		prev = p.At
	}
	ys, _ := t.average(pts, ats, scale)
	return ys
}

// firstScrape returns the time of s's first successful scrape that had
// counter c: the baseline of its first rate.
func firstScrape(s *promscrape.Series, c promscrape.Counter) time.Time {
	for _, smp := range s.Samples {
		if sn := smp.Snapshot; sn != nil {
			if _, ok := sn.Counters[c]; ok {
				return sn.At
			}
		}
	}
	return time.Time{}
}

// average averages pts into the timeline's buckets, each point by its time
// ats[i] (seconds from the run epoch), and returns the buckets' averages
// and the mean time of the points each averages; both are NaN for a bucket
// that holds none.
func (t *timeline) average(pts []promscrape.Point, ats []float64, scale float64) (ys, xs []float64) {
	n := len(t.starts)
	ys, xs = nanSlice(n), nanSlice(n)
	cnt := make([]int, n)
	sum := make([]float64, n)
	at := make([]float64, n)
	for i, p := range pts {
		k := t.bucket(ats[i])
		if k < 0 {
			continue
		}
		sum[k] += p.Value * scale
		at[k] += ats[i]
		cnt[k]++
	}
	for k := range n {
		if cnt[k] > 0 {
			ys[k] = sum[k] / float64(cnt[k])
			xs[k] = at[k] / float64(cnt[k])
		}
	}
	return ys, xs
}

func nanSlice(n int) []float64 {
	s := make([]float64, n)
	for i := range s {
		s[i] = math.NaN()
	}
	return s
}
