package report

import (
	"math"

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

// gauge averages a server quantity's points into the timeline's buckets;
// times are placed relative to epoch (the run header's start), and scale
// multiplies each value (100 for a fraction shown in percent).
func (t *timeline) gauge(pts []promscrape.Point, run *Run, scale float64) []float64 {
	n := len(t.starts)
	out := nanSlice(n)
	cnt := make([]int, n)
	for _, p := range pts {
		k := t.bucket(p.At.Sub(run.Header.Start).Seconds())
		if k < 0 {
			continue
		}
		if cnt[k] == 0 {
			out[k] = 0
		}
		out[k] += p.Value * scale
		cnt[k]++
	}
	for k := range n {
		if cnt[k] > 0 {
			out[k] /= float64(cnt[k])
		}
	}
	return out
}

func nanSlice(n int) []float64 {
	s := make([]float64, n)
	for i := range s {
		s[i] = math.NaN()
	}
	return s
}
