package sweep

import (
	"math"

	"github.com/goodput-dev/goodput/internal/human"
)

// Operating is the operating point: the highest load that still meets the
// SLO attainment target, found as OperatingPoint describes.
type Operating struct {
	Pick
	Target float64 // the attainment target applied
	// FirstFailure is the lowest load that missed the target; zero when
	// every load met it.
	FirstFailure Load
	// Strays are loads above FirstFailure that met the target anyway. They
	// are not taken as the operating point: see OperatingPoint.
	Strays []Load
	// Short are the rate loads that met the target but whose server
	// finished well below the offered rate (Point.Delivery); they count
	// as failing.
	Short []Load
}

// attainmentSlack absorbs rounding in attainments averaged over repeats, so
// that 0.9 measured three times still meets a 0.9 target.
const attainmentSlack = 1e-12

// OperatingPoint returns the highest load such that it and every lower load
// meet the attainment target (0 < target ≤ 1; zero means DefaultTarget).
// points must be sorted by load.
//
// Every lower load must pass too because attainment falls with load on any
// server that queues: a pass above a failure is noise (a lucky repeat, a
// burst that happened to miss), and a capacity plan built on it would
// promise what the server delivered only once. Such loads are listed in
// Strays so that a report can show them. A load whose attainment is
// unknown (NaN) fails, and so does a rate load its server did not deliver
// (Point.Delivery): attainment measured while requests piled up faster than
// they ended says nothing about the load, and in a longer run it falls.
func OperatingPoint(points []Point, target float64) Operating {
	if target == 0 {
		target = DefaultTarget
	}
	op := Operating{Pick: none("no points"), Target: target}
	failed := false
	for i, p := range points {
		a := p.Mean.Attainment
		meets := !math.IsNaN(a) && a >= target-attainmentSlack
		if meets && p.short() {
			meets = false
			op.Short = append(op.Short, p.Load)
		}
		switch {
		case meets && !failed:
			op.Pick = pick(points, i, a)
		case meets:
			op.Strays = append(op.Strays, p.Load)
		case !failed:
			failed = true
			op.FirstFailure = p.Load
		}
	}
	switch {
	case len(points) == 0:
	case !op.Found && points[0].short():
		op.Note = "the lowest load, " + points[0].Load.Short() + ", was not delivered: " + shortfall(points[0])
	case !op.Found:
		op.Note = "the lowest load, " + points[0].Load.Short() + ", reached only " + human.Percent(points[0].Mean.Attainment)
	case !failed:
		op.Note = "every load met the target: the limit lies above the highest load measured"
	case len(op.Strays) > 0:
		op.Note = "loads above the first failure met the target again (" + joinShort(op.Strays) +
			"); taken as noise, not capacity"
	}
	if len(op.Short) > 1 || len(op.Short) == 1 && (op.Found || !points[0].short()) {
		those := "those loads count"
		if len(op.Short) == 1 {
			those = "that load counts"
		}
		n := "the server did not keep pace with the offered rate at " + joinShort(op.Short) +
			", so " + those + " as failing although the attainment met the target"
		if op.Note != "" {
			n = op.Note + "; " + n
		}
		op.Note = n
	}
	return op
}

// shortfall is "it finished 25.6 req/s of the 68 offered (38 %)".
func shortfall(p Point) string {
	d, _ := p.Delivery()
	return "it finished " + human.Number(d.Finished) + " req/s of the " + human.Number(d.Offered) +
		" offered (" + human.Percent(d.Share()) + ")"
}

// joinShort lists loads as "32, 64" (or "8 req/s, 16 req/s").
func joinShort(ls []Load) string {
	s := ""
	for i, l := range ls {
		if i > 0 {
			s += ", "
		}
		s += l.Short()
	}
	return s
}
