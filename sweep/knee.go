package sweep

import (
	"fmt"
	"math"
)

// Pick is a point that an analysis chose, or the reason it chose none.
type Pick struct {
	Found bool
	Index int     // into the sorted points; -1 when not found
	Load  Load    // the chosen load; zero when not found
	Score float64 // what was maximised (power, bend, goodput); NaN when not found
	// Note says why nothing was found, or qualifies what was ("every load
	// met the target"). Empty when there is nothing to add.
	Note string
}

func none(format string, args ...any) Pick {
	return Pick{Index: -1, Score: math.NaN(), Note: fmt.Sprintf(format, args...)}
}

func pick(points []Point, i int, score float64) Pick {
	return Pick{Found: true, Index: i, Load: points[i].Load, Score: score}
}

// usable reports whether v can enter an argmax.
func usable(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// PowerKnee returns the load that maximises Kleinrock's power, throughput ÷
// latency, with the statistics o names (see Options). points must be sorted
// by load (SortPoints). Ties go to the lower load, which delivers the same
// power for less. A maximum at the highest load is not a knee: power was
// still rising, so the sweep stopped short of it, and the Pick says so.
func PowerKnee(points []Point, o Options) Pick {
	o = o.withDefaults()
	best, bestScore, valid := -1, math.Inf(-1), 0
	for i, p := range points {
		thr, lat := o.Throughput.Of(p.Mean), o.Latency.Of(p.Mean)
		if !usable(thr) || !usable(lat) || lat <= 0 || thr < 0 {
			continue
		}
		valid++
		if power := thr / lat; power > bestScore {
			best, bestScore = i, power
		}
	}
	switch {
	case valid < 2:
		return none("needs at least 2 loads with %s and a positive %s; have %d", o.Throughput.Label(), o.Latency.Label(), valid)
	case bestScore <= 0:
		return none("no load delivered any %s", o.Throughput.Label())
	case best == len(points)-1:
		return none("power (%s ÷ %s) was still rising at the highest load, %s: the sweep stopped short of the knee",
			o.Throughput.Label(), o.Latency.Label(), points[best].Load.Short())
	}
	return pick(points, best, bestScore)
}

// CurvatureKnee returns the Kneedle knee of latency against throughput:
// both axes are normalised to [0, 1] over the sweep, and the knee is the
// load whose point lies farthest below the diagonal (the largest
// normalised throughput minus normalised latency), which on a curve that
// turns upwards is where it turns hardest. points must be sorted by load.
//
// It finds no knee, and says why, when fewer than three loads have both
// numbers, when throughput or latency is the same at every load, when the
// farthest point is the first or the last (the curve does not turn inside
// the sweep), or when it lies less than o.MinBend below the diagonal (a
// straight line, or a curve that bends the other way).
func CurvatureKnee(points []Point, o Options) Pick {
	o = o.withDefaults()
	type xy struct {
		i    int
		x, y float64
	}
	var pts []xy
	for i, p := range points {
		x, y := o.Throughput.Of(p.Mean), o.Latency.Of(p.Mean)
		if usable(x) && usable(y) {
			pts = append(pts, xy{i, x, y})
		}
	}
	if len(pts) < 3 {
		return none("needs at least 3 loads with %s and %s; have %d", o.Throughput.Label(), o.Latency.Label(), len(pts))
	}
	xlo, xhi, ylo, yhi := pts[0].x, pts[0].x, pts[0].y, pts[0].y
	for _, p := range pts[1:] {
		xlo, xhi = min(xlo, p.x), max(xhi, p.x)
		ylo, yhi = min(ylo, p.y), max(yhi, p.y)
	}
	if flat(xlo, xhi) {
		return none("%s is the same at every load", o.Throughput.Label())
	}
	if flat(ylo, yhi) {
		return none("%s is the same at every load: the sweep never loaded the server", o.Latency.Label())
	}
	best, bestD := 0, math.Inf(-1)
	for k, p := range pts {
		d := (p.x-xlo)/(xhi-xlo) - (p.y-ylo)/(yhi-ylo)
		if d > bestD {
			best, bestD = k, d
		}
	}
	switch {
	case bestD < o.MinBend:
		return none("the curve does not bend: its farthest point lies %.3f below the diagonal, under the %.3g that makes a knee", bestD, o.MinBend)
	case best == len(pts)-1:
		return none("the curve has not turned by the highest load, %s: %s is still rising at little cost in %s",
			points[pts[best].i].Load.Short(), o.Throughput.Label(), o.Latency.Label())
	case best == 0:
		return none("the curve does not turn upwards inside the sweep: its farthest point is the lowest load")
	}
	return pick(points, pts[best].i, bestD)
}

// flat reports whether lo and hi are equal to within rounding, relative to
// their size.
func flat(lo, hi float64) bool {
	return hi-lo <= 1e-12*max(math.Abs(lo), math.Abs(hi))
}

// GoodputPeak returns the load with the highest goodput. points must be
// sorted by load; ties go to the lower load. It finds none when no load
// delivered any goodput.
func GoodputPeak(points []Point) Pick {
	best, bestG := -1, 0.0
	for i, p := range points {
		if g := p.Mean.Goodput; usable(g) && g > bestG {
			best, bestG = i, g
		}
	}
	if best < 0 {
		return none("no load delivered goodput: no request met the SLO")
	}
	return pick(points, best, bestG)
}
