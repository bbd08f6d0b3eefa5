package sweep

import (
	"errors"
	"fmt"
	"math"
	"slices"
)

// Point is one load level of a sweep with every measurement taken at it.
//
// Mean holds each number averaged over Repeats and Spread its sample
// standard deviation (zero with a single repeat). Values a repeat did not
// define (NaN) are left out of both; a number no repeat defined is NaN in
// Mean and Spread. Requests in Mean and Spread are rounded to whole
// requests. Build Points with NewPoint or Merge so that the three agree.
type Point struct {
	Load    Load
	Mean    Sample
	Spread  Sample
	Repeats []Sample
}

// NewPoint returns the Point for load measured by repeats, which must not
// be empty.
func NewPoint(load Load, repeats ...Sample) (Point, error) {
	if err := load.Validate(); err != nil {
		return Point{}, err
	}
	if len(repeats) == 0 {
		return Point{}, fmt.Errorf("point %s: no measurements", load)
	}
	p := Point{Load: load, Repeats: slices.Clone(repeats)}
	p.Mean, p.Spread = aggregate(p.Repeats)
	return p, nil
}

// Merge combines measurements of the same load into one Point, as when a
// resumed sweep adds repeats to a load measured before. A Point without
// Repeats counts as a single repeat equal to its Mean.
func Merge(points ...Point) (Point, error) {
	if len(points) == 0 {
		return Point{}, errors.New("merge: no points")
	}
	var all []Sample
	for _, p := range points {
		if !sameLoad(p.Load, points[0].Load) {
			return Point{}, fmt.Errorf("merge: %s and %s are different loads", points[0].Load, p.Load)
		}
		all = append(all, p.samples()...)
	}
	return NewPoint(points[0].Load, all...)
}

// samples returns the measurements behind p.
func (p Point) samples() []Sample {
	if len(p.Repeats) == 0 {
		return []Sample{p.Mean}
	}
	return p.Repeats
}

// aggregate computes the mean and sample standard deviation of every
// number over xs, skipping NaNs.
func aggregate(xs []Sample) (mean, spread Sample) {
	mean, spread = nanSample(), nanSample()
	for _, f := range fields {
		m, sd := meanSD(xs, func(s *Sample) float64 { return *f.ptr(s) })
		*f.ptr(&mean) = m
		*f.ptr(&spread) = sd
	}
	m, sd := meanSD(xs, func(s *Sample) float64 { return float64(s.Requests) })
	mean.Requests = int(math.Round(m))
	spread.Requests = int(math.Round(sd))
	return mean, spread
}

// meanSD returns the mean and sample standard deviation (n − 1) of the
// defined values of get over xs, with Welford's update so that large,
// close values keep their digits. The deviation is 0 for one value and
// both are NaN for none.
func meanSD(xs []Sample, get func(*Sample) float64) (mean, sd float64) {
	var n, m, m2 float64
	for i := range xs {
		v := get(&xs[i])
		if math.IsNaN(v) {
			continue
		}
		n++
		d := v - m
		m += d / n
		m2 += d * (v - m)
	}
	switch n {
	case 0:
		return math.NaN(), math.NaN()
	case 1:
		return m, 0
	}
	return m, math.Sqrt(max(0, m2/(n-1)))
}
