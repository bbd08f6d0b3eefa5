package sweep

import (
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"

	"github.com/goodput-dev/goodput/internal/human"
)

// WriteTable writes s for a terminal: one row per load with throughput,
// goodput, attainment, failed requests, latency percentiles, the Little's Law check and the
// client's lag, a column marking the operating point (op), the knees
// (knee by power, curve by curvature) and the goodput peak (peak), and the
// verdict below. A throughput measured more than once shows its spread
// (±1 standard deviation).
func WriteTable(w io.Writer, s Summary) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	header := []string{"load", "reps", "req/s", "out tok/s", "goodput", "attain", "failed",
		"ttft p50", "ttft p99", "tpot p50", "tpot p99", "e2e mean", "e2e p99", "L", "λ·W̄", "lag p99", "notes"}
	fmt.Fprintln(tw, strings.Join(header, "\t")+"\t")
	for i, p := range s.Points {
		m, sd := p.Mean, p.Spread
		withSpread := func(v, d float64) string {
			if len(p.samples()) > 1 && usable(d) {
				return human.Number(v) + " ±" + human.Number(d)
			}
			return human.Number(v)
		}
		row := []string{
			p.Load.Short(),
			fmt.Sprint(len(p.samples())),
			human.Number(m.RequestThroughput),
			withSpread(m.OutputThroughput, sd.OutputThroughput),
			withSpread(m.Goodput, sd.Goodput),
			human.Percent(m.Attainment),
			failed(m),
			human.Seconds(m.TTFT.P50),
			human.Seconds(m.TTFT.P99),
			human.Seconds(m.TPOT.P50),
			human.Seconds(m.TPOT.P99),
			human.Seconds(m.E2E.Mean),
			human.Seconds(m.E2E.P99),
			human.Number(m.LittleL),
			human.Number(m.LittleLambdaW),
			human.Seconds(m.ClientLagP99),
			notes(s, i),
		}
		fmt.Fprintln(tw, strings.Join(row, "\t")+"\t")
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintln(w, "\n"+s.Verdict)
	return err
}

// failed is a point's failed requests: a count, the mean over repeats,
// with its share when there are any ("3 (2.5 %)").
func failed(m Sample) string {
	if math.IsNaN(m.ErrorRate) {
		return "-"
	}
	n := math.Round(m.ErrorRate * float64(m.Requests))
	if n == 0 && m.ErrorRate > 0 {
		n = 1 // some repeat failed some: never shown as none
	}
	if n == 0 {
		return "0"
	}
	return fmt.Sprintf("%.0f (%s)", n, human.Percent(m.ErrorRate))
}

// Marks lists what point i of s was chosen as, in the words of the
// terminal table: "op", "knee", "curve", "peak", "stray" and "short" (a rate
// the server did not deliver: see Point.Delivery). Reports use the same
// words so that a table and a chart of one sweep read alike.
func (s Summary) Marks(i int) []string {
	var ms []string
	if s.Operating.Found && s.Operating.Index == i {
		ms = append(ms, "op")
	}
	if s.Power.Found && s.Power.Index == i {
		ms = append(ms, "knee")
	}
	if s.Curvature.Found && s.Curvature.Index == i {
		ms = append(ms, "curve")
	}
	if s.GoodputPeak.Found && s.GoodputPeak.Index == i {
		ms = append(ms, "peak")
	}
	for _, l := range s.Operating.Strays {
		if sameLoad(l, s.Points[i].Load) {
			ms = append(ms, "stray")
		}
	}
	if s.Points[i].short() {
		ms = append(ms, "short")
	}
	return ms
}

// notes is point i's cell of the table's notes column.
func notes(s Summary, i int) string {
	ms := s.Marks(i)
	if len(ms) == 0 {
		return "-"
	}
	return strings.Join(ms, ",")
}
