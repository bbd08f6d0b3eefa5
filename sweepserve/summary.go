package sweepserve

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/goodput-dev/goodput/metrics"
)

// writeCSV writes summary.csv: a row per measured run of every
// combination, with the columns of all of them in the order they first
// appear, after an unnamed index column, as vLLM writes it (with pandas).
// Numbers are written as the results hold them, strings bare, booleans
// True and False, lists and objects as JSON; a column a run lacks is empty.
func writeCSV(path string, res *Result) error {
	var runs []Object
	for _, c := range res.Combinations {
		runs = append(runs, c.Runs...)
	}
	var cols []string
	seen := map[string]bool{}
	for _, o := range runs {
		for _, f := range o {
			if !seen[f.Key] {
				seen[f.Key] = true
				cols = append(cols, f.Key)
			}
		}
	}
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	_ = w.Write(append([]string{""}, cols...))
	for i, o := range runs {
		row := []string{strconv.Itoa(i)}
		for _, k := range cols {
			v, ok := o.Get(k)
			cell := ""
			if ok && strings.TrimSpace(string(v)) != "null" {
				cell = valueText(v)
			}
			row = append(row, cell)
		}
		_ = w.Write(row)
	}
	w.Flush()
	if err := w.Error(); err != nil {
		return err
	}
	return os.WriteFile(path, b.Bytes(), 0o644)
}

// runLine is one run's figures in a line.
func runLine(o Object) string {
	var parts []string
	add := func(key, format string) {
		if x, ok := o.Number(key); ok {
			parts = append(parts, fmt.Sprintf(format, x))
		}
	}
	if v, ok := o.Get("operating_point_load"); ok {
		if p, ok := o.Number("peak_goodput"); ok {
			return fmt.Sprintf("operating point %s, %s", valueText(v), fmt.Sprintf("peak goodput %.1f tok/s", p))
		}
		return "operating point " + valueText(v)
	}
	add("completed", "%.0f completed")
	add("failed", "%.0f failed")
	add("request_throughput", "%.2f req/s")
	add("output_throughput", "%.1f output tok/s")
	add("median_ttft_ms", "TTFT p50 %.1f ms")
	add("p99_ttft_ms", "p99 %.1f ms")
	add("median_tpot_ms", "TPOT p50 %.2f ms")
	if len(parts) == 0 {
		return "done"
	}
	return strings.Join(parts, ", ")
}

// column is a figure of the results table: a key of vLLM's result, its
// heading and how it is written.
type column struct {
	key, head, format string
}

// sweepColumns are the figures of a sweep whose benchmark was a goodput
// sweep: each run's findings across loads.
var sweepColumns = []column{
	{"operating_point", "op. load", "%g"},
	{"operating_point_output_throughput", "op. out tok/s", "%.1f"},
	{"operating_point_p99_ttft_ms", "op. TTFT p99 ms", "%.1f"},
	{"operating_point_p99_tpot_ms", "op. TPOT p99 ms", "%.2f"},
	{"peak_goodput", "peak goodput tok/s", "%.1f"},
	{"power_knee", "knee load", "%g"},
}

var tableColumns = []column{
	{"request_throughput", "req/s", "%.2f"},
	{"output_throughput", "out tok/s", "%.1f"},
	{"median_ttft_ms", "TTFT p50 ms", "%.1f"},
	{"p99_ttft_ms", "TTFT p99 ms", "%.1f"},
	{"median_tpot_ms", "TPOT p50 ms", "%.2f"},
	{"median_e2el_ms", "E2E p50 ms", "%.0f"},
}

// spreadWarn is the run-to-run spread of output throughput above which
// the table says the runs disagree.
const spreadWarn = 0.10

// WriteTable prints the sweep's results: a row per combination with the
// median of its runs for each figure, and how far its runs' output
// throughputs spread ((max − min) ÷ median), so that a setting that looks
// better by less than its own noise is seen as such.
func WriteTable(w io.Writer, res *Result) {
	for _, c := range res.Combinations {
		if c.SLA != nil {
			writeSLATable(w, res)
			return
		}
	}
	type row struct {
		label string
		cells []string
	}
	columns, spreadKey := tableColumns, "output_throughput"
	goodput := false
	for _, c := range res.Combinations {
		for _, o := range c.Runs {
			if _, ok := o.Get("operating_point"); ok {
				columns, spreadKey = sweepColumns, "operating_point_output_throughput"
			}
			if _, ok := o.Number("request_goodput"); ok {
				goodput = true
			}
		}
	}
	// With an SLO (vLLM's --goodput), the requests per second that met
	// it come after the requests per second.
	if goodput && spreadKey == "output_throughput" {
		columns = slices.Insert(slices.Clone(columns), 1, column{"request_goodput", "goodput req/s", "%.2f"})
	}
	var rows []row
	noisy := 0
	for _, c := range res.Combinations {
		r := row{label: comboLabel(c)}
		r.cells = append(r.cells, fmt.Sprintf("%d", len(c.Runs)))
		for _, col := range columns {
			if m, ok := median(c.Runs, col.key); ok {
				r.cells = append(r.cells, fmt.Sprintf(col.format, m))
			} else {
				r.cells = append(r.cells, "–")
			}
		}
		spread := "–"
		if s, ok := spreadOf(c.Runs, spreadKey); ok {
			spread = fmt.Sprintf("%.1f %%", 100*s)
			if s > spreadWarn {
				spread += " !"
				noisy++
			}
		}
		r.cells = append(r.cells, spread)
		if c.Failed > 0 {
			r.cells[0] += fmt.Sprintf(" (%d failed)", c.Failed)
		}
		rows = append(rows, r)
	}
	if len(rows) == 0 {
		fmt.Fprintln(w, "No run finished.")
		return
	}
	heads := []string{"runs"}
	for _, col := range columns {
		heads = append(heads, col.head)
	}
	heads = append(heads, "spread")
	width := len("combination")
	for _, r := range rows {
		width = max(width, len([]rune(r.label)))
	}
	widths := make([]int, len(heads))
	for i, h := range heads {
		widths[i] = len(h)
		for _, r := range rows {
			widths[i] = max(widths[i], len([]rune(r.cells[i])))
		}
	}
	line := func(label string, cells []string) {
		fmt.Fprintf(w, "%-*s", width, label)
		for i, c := range cells {
			fmt.Fprintf(w, "  %*s", widths[i], c)
		}
		fmt.Fprintln(w)
	}
	line("combination", heads)
	for _, r := range rows {
		line(r.label, r.cells)
	}
	if spreadKey == "output_throughput" {
		fmt.Fprintln(w, "Each figure is the median of the runs; spread is (max − min) ÷ median of their output throughput.")
	} else {
		fmt.Fprintln(w, "Each figure is the median of the runs' findings: the operating point (op.) is the highest load that met the SLO target; spread is (max − min) ÷ median of its output throughput.")
	}
	if noisy > 0 {
		fmt.Fprintf(w, "! %d combination(s) spread by more than %.0f %% between runs: differences smaller than that are noise; give more --num-runs or longer runs.\n", noisy, 100*spreadWarn)
	}
}

func values(runs []Object, key string) []float64 {
	var xs []float64
	for _, o := range runs {
		if x, ok := o.Number(key); ok && !math.IsNaN(x) && !math.IsInf(x, 0) {
			xs = append(xs, x)
		}
	}
	return xs
}

func median(runs []Object, key string) (float64, bool) {
	xs := values(runs, key)
	if len(xs) == 0 {
		return 0, false
	}
	slices.Sort(xs)
	return metrics.Percentile(xs, 50, metrics.Linear), true
}

// spreadOf is (max − min) ÷ median of key over at least two runs.
func spreadOf(runs []Object, key string) (float64, bool) {
	xs := values(runs, key)
	m, ok := median(runs, key)
	if len(xs) < 2 || !ok || m <= 0 {
		return 0, false
	}
	return (slices.Max(xs) - slices.Min(xs)) / m, true
}

// writeSLATable prints what each SLA search found: the highest load that
// met the SLA, the lowest that missed it, how many loads were measured,
// and the figures at the highest passing load (medians of its runs).
func writeSLATable(w io.Writer, res *Result) {
	heads := []string{"combination", "SLA", "highest met", "missed at", "loads", "out tok/s", "TTFT p99 ms", "E2E p99 ms"}
	var rows [][]string
	variable := ""
	for _, c := range res.Combinations {
		o := c.SLA
		if o == nil {
			continue
		}
		variable = o.Variable
		cell := func(runs []Object, key, format string) string {
			if m, ok := median(runs, key); ok {
				return fmt.Sprintf(format, m)
			}
			return "–"
		}
		best, failing := "none", "–"
		if o.Best > 0 {
			best = strconv.FormatFloat(o.Best, 'f', -1, 64)
		}
		if o.Failing > 0 {
			failing = strconv.FormatFloat(o.Failing, 'f', -1, 64)
		}
		if c.Failed > 0 {
			failing += " (failed)"
		}
		rows = append(rows, []string{comboLabel(c), o.SLA.Text(", "), best, failing, strconv.Itoa(len(o.Tried)),
			cell(o.BestRuns, "output_throughput", "%.1f"), cell(o.BestRuns, "p99_ttft_ms", "%.1f"), cell(o.BestRuns, "p99_e2el_ms", "%.0f")})
	}
	widths := make([]int, len(heads))
	for i, h := range heads {
		widths[i] = len([]rune(h))
		for _, r := range rows {
			widths[i] = max(widths[i], len([]rune(r[i])))
		}
	}
	line := func(cells []string) {
		for i, c := range cells {
			pad := strings.Repeat(" ", widths[i]-len([]rune(c)))
			if i < 2 {
				fmt.Fprint(w, c+pad+"  ")
			} else {
				fmt.Fprint(w, pad+c+"  ")
			}
		}
		fmt.Fprintln(w)
	}
	line(heads)
	for _, r := range rows {
		line(r)
	}
	fmt.Fprintf(w, "highest met: the highest %s measured whose runs met the SLA (by their mean); the figures are at that load.\n", variable)
}
