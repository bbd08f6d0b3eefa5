package history

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
)

// listColumns are the metrics WriteList shows for a bench run or a point,
// and sweepColumns for a sweep.
var (
	listColumns  = []string{"requests", "output_throughput", "goodput", "ttft_p99", "tpot_p99"}
	sweepColumns = []string{"points", "operating_load", "operating_request_throughput", "goodput_peak"}
)

// WriteList writes runs as a table, one line each.
func WriteList(w io.Writer, runs []Run) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tSTARTED\tKIND\tNAME\tTARGET\tSERVER\tREQUESTS\tOUTPUT TOK/S\tGOODPUT\tTTFT P99\tTPOT P99\tLABELS")
	for _, r := range runs {
		cols := listColumns
		if r.Kind == KindSweep {
			cols = sweepColumns
		}
		vals := make([]string, len(cols))
		for i, k := range cols {
			vals[i] = "-"
			if v, ok := r.Metrics[k]; ok {
				vals[i] = Format(k, v)
			}
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", r.ID, r.Start.Local().Format("2006-01-02 15:04:05"), r.Kind,
			r.Name, orDash(targetText(r.Target)), orDash(r.Target.ServerVersion), strings.Join(vals, "\t"), orDash(labelText(r.Labels)))
	}
	return tw.Flush()
}

func targetText(t Target) string {
	parts := []string{}
	if t.URL != "" {
		parts = append(parts, t.URL)
	}
	if t.Model != "" {
		parts = append(parts, t.Model)
	}
	return strings.Join(parts, " ")
}

func labelText(m map[string]string) string {
	var parts []string
	for _, k := range sortedKeys(m) {
		parts = append(parts, k+"="+m[k])
	}
	return strings.Join(parts, ",")
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// WriteRun writes one run in full: what it was, what it is comparable
// with, and every metric.
func WriteRun(w io.Writer, r Run) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	row := func(k, v string) { fmt.Fprintf(tw, "%s\t%s\n", k, v) }
	row("Run:", fmt.Sprintf("%d (%s)", r.ID, r.Kind))
	row("Name:", r.Name)
	if r.ParentID != 0 {
		row("Sweep:", strconv.FormatInt(r.ParentID, 10))
	}
	row("Started:", r.Start.Local().Format(time.RFC3339))
	row("Stored:", r.Recorded.Local().Format(time.RFC3339))
	row("Tool:", orDash(r.Tool))
	row("Target:", orDash(r.Target.URL))
	row("Model:", orDash(r.Target.Model))
	row("Server version:", orDash(r.Target.ServerVersion))
	if r.Target.Description != "" {
		row("Description:", r.Target.Description)
	}
	row("Records:", orDash(r.RecordsPath))
	row("Labels:", orDash(labelText(r.Labels)))
	if r.Interrupted {
		row("Interrupted:", "yes: the numbers cover what was measured before it stopped")
	}
	row("Comparable with:", fmt.Sprintf("runs of key %s: %s", r.Key, orDash(Describe(r.Comparability))))
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w, "\nMetrics:")
	tw = tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, k := range MetricKeys(r.Metrics) {
		fmt.Fprintf(tw, "  %s\t%s\n", k, Format(k, r.Metrics[k]))
	}
	return tw.Flush()
}

// Format writes a metric's value for people: latencies in milliseconds,
// fractions as percentages, rates with two decimals.
func Format(key string, v float64) string {
	switch {
	case math.IsNaN(v):
		return "n/a"
	case IsLatency(key):
		return strconv.FormatFloat(1e3*v, 'f', 2, 64) + " ms"
	case key == "attainment" || key == "error_rate" || key == "littles_law_gap":
		return strconv.FormatFloat(100*v, 'f', 1, 64) + " %"
	case v == math.Trunc(v) && math.Abs(v) < 1e15:
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	return strconv.FormatFloat(v, 'f', 2, 64)
}

// WriteTrend writes t as a table: each run's value and its change from the
// run before.
func WriteTrend(w io.Writer, t Trend) error {
	fmt.Fprintf(w, "%s across %d comparable runs (%s)\n", t.Metric, len(t.Runs), orDash(t.Comparability))
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tSTARTED\tNAME\tSERVER\tVALUE\tCHANGE")
	prev := math.NaN()
	for i, r := range t.Runs {
		val, change := "-", ""
		if t.Has[i] {
			val = Format(t.Metric, t.Values[i])
			if !math.IsNaN(prev) && prev != 0 {
				change = fmt.Sprintf("%+.1f %%", 100*(t.Values[i]-prev)/math.Abs(prev))
			}
			prev = t.Values[i]
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\n", r.ID, r.Start.Local().Format("2006-01-02 15:04:05"), r.Name,
			orDash(r.Target.ServerVersion), val, change)
	}
	return tw.Flush()
}

// WriteCheck writes a check's findings and its verdict.
func WriteCheck(w io.Writer, c *CheckResult) error {
	fmt.Fprintf(w, "Run %d (%s) against ", c.Run.ID, c.Run.Name)
	if len(c.Baselines) == 0 {
		fmt.Fprintln(w, "no earlier comparable run")
	} else {
		ids := make([]string, len(c.Baselines))
		for i, b := range c.Baselines {
			ids[i] = strconv.FormatInt(b.ID, 10)
		}
		fmt.Fprintf(w, "the last %d comparable runs (%s), tolerance %s\n", len(c.Baselines), strings.Join(ids, ", "), tolText(c.Options.Tolerance))
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "METRIC\tRUN\tBASELINES\tLEAST CHANGE\tVERDICT")
	for _, f := range c.Findings {
		var bs []string
		for _, b := range f.Baselines {
			bs = append(bs, Format(f.Metric, b))
		}
		least := math.NaN()
		for _, ch := range f.Changes {
			if !math.IsNaN(ch.Worse) && (math.IsNaN(least) || ch.Worse < least) {
				least = ch.Worse
			}
		}
		change := "-"
		if !math.IsNaN(least) && !math.IsInf(least, 0) {
			change = fmt.Sprintf("%+.1f %% worse", 100*least)
			if least < 0 {
				change = fmt.Sprintf("%.1f %% better", -100*least)
			}
		}
		verdict := "ok: " + f.Why
		if f.Regressed {
			verdict = "REGRESSION: " + f.Why
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", f.Metric, Format(f.Metric, f.Value), orDash(strings.Join(bs, " ")), change, verdict)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, n := range c.Notes {
		fmt.Fprintf(w, "Note: %s\n", n)
	}
	verdict := "no regression"
	if c.Regressed {
		verdict = "regression"
	}
	if c.Run.Interrupted {
		verdict += ", of an interrupted run"
	}
	_, err := fmt.Fprintf(w, "Verdict: %s\n", verdict)
	return err
}
