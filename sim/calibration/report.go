package calibration

import (
	"fmt"
	"io"
	"math"
	"slices"
	"text/tabwriter"

	"github.com/goodput-dev/goodput/sim"
)

// Metric names, in the order reports list them.
const (
	MetricThroughput = "output tok/s"
	MetricTTFT       = "TTFT ms"
	MetricTPOT       = "TPOT ms"
)

// Metric names every compared metric.
var Metric = []string{MetricThroughput, MetricTTFT, MetricTPOT}

// Row is one published figure compared with the simulator's.
type Row struct {
	Point     Point
	Metric    string
	Published float64
	Simulated float64
	Err       float64 // (simulated − published) ÷ published
	Reason    string  // why a large error is expected, from the reasons given to Check
}

// Summary is the error of one metric over every point that publishes it.
type Summary struct {
	Metric string
	Points int
	Median float64 // of the absolute errors
	Worst  Row
}

// Report is the comparison of every point.
type Report struct {
	Rows      []Row
	Summaries []Summary
}

// Check simulates every point on the simulator base describes and compares
// the results with the published figures. reasons maps "id metric" (for
// example "dev_h100_c64 TPOT ms") or an id alone to why that figure is
// expected to be far off; it is carried into the report's rows.
func Check(points []Point, base sim.Options, reasons map[string]string) (Report, error) {
	var rep Report
	for _, p := range points {
		got, err := Simulate(p, base)
		if err != nil {
			return Report{}, err
		}
		for _, m := range Metric {
			pub, sim := p.Published.get(m), got.get(m)
			if pub == 0 {
				continue
			}
			r := Row{Point: p, Metric: m, Published: pub, Simulated: sim, Err: (sim - pub) / pub}
			if why, ok := reasons[p.ID+" "+m]; ok {
				r.Reason = why
			} else {
				r.Reason = reasons[p.ID]
			}
			rep.Rows = append(rep.Rows, r)
		}
	}
	for _, m := range Metric {
		var errs []float64
		var worst Row
		for _, r := range rep.Rows {
			if r.Metric != m {
				continue
			}
			errs = append(errs, math.Abs(r.Err))
			if math.Abs(r.Err) > math.Abs(worst.Err) {
				worst = r
			}
		}
		if len(errs) == 0 {
			continue
		}
		slices.Sort(errs)
		med := errs[len(errs)/2]
		if len(errs)%2 == 0 {
			med = (errs[len(errs)/2-1] + errs[len(errs)/2]) / 2
		}
		rep.Summaries = append(rep.Summaries, Summary{Metric: m, Points: len(errs), Median: med, Worst: worst})
	}
	return rep, nil
}

func (m Metrics) get(name string) float64 {
	switch name {
	case MetricThroughput:
		return m.OutputTokS
	case MetricTTFT:
		return m.TTFT
	case MetricTPOT:
		return m.TPOT
	}
	return 0
}

// Write prints the report: a line per compared figure, then the median and
// worst absolute error per metric.
func (rep Report) Write(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "point\tmetric\tstat\tpublished\tsimulated\terror\t")
	for _, r := range rep.Rows {
		stat := ""
		switch r.Metric {
		case MetricTTFT:
			stat = r.Point.Published.TTFTStat.String()
		case MetricTPOT:
			stat = r.Point.Published.TPOTStat.String()
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%+.1f %%\t\n", r.Point.ID, r.Metric, stat, figure(r.Published), figure(r.Simulated), 100*r.Err)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w)
	tw = tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "metric\tpoints\tmedian |error|\tworst\t")
	for _, s := range rep.Summaries {
		fmt.Fprintf(tw, "%s\t%d\t%.1f %%\t%+.1f %% (%s)\t\n", s.Metric, s.Points, 100*s.Median, 100*s.Worst.Err, s.Worst.Point.ID)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	var noted bool
	for _, r := range rep.Rows {
		if r.Reason == "" || math.Abs(r.Err) <= 0.5 {
			continue
		}
		if !noted {
			fmt.Fprintln(w, "\nfigures off by more than 50 %, and why:")
			noted = true
		}
		fmt.Fprintf(w, "  %s %s (%+.0f %%): %s\n", r.Point.ID, r.Metric, 100*r.Err, r.Reason)
	}
	return nil
}

func figure(v float64) string {
	switch {
	case v >= 1000:
		return fmt.Sprintf("%.0f", v)
	case v >= 10:
		return fmt.Sprintf("%.1f", v)
	}
	return fmt.Sprintf("%.2f", v)
}

// Shortfalls lists how rep misses the calibration's goals: a metric whose
// median absolute error is above maxMedian, and every figure off by more
// than maxErr without a reason. It is empty when rep meets them.
func (rep Report) Shortfalls(maxMedian, maxErr float64) []string {
	var out []string
	for _, s := range rep.Summaries {
		if s.Median > maxMedian {
			out = append(out, fmt.Sprintf("%s: median absolute error %.1f %% over %d points, above %.0f %%", s.Metric, 100*s.Median, s.Points, 100*maxMedian))
		}
	}
	for _, r := range rep.Rows {
		if math.Abs(r.Err) > maxErr && r.Reason == "" {
			out = append(out, fmt.Sprintf("%s %s: %+.0f %% off, beyond %.0f %%, and no reason given", r.Point.ID, r.Metric, 100*r.Err, 100*maxErr))
		}
	}
	return out
}
