package serverview

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/goodput-dev/goodput/internal/textblock"
	"github.com/goodput-dev/goodput/promscrape"
)

// ViewText writes v as a block of "key: value" lines for a terminal that is
// redrawn in place: a heading with the URL, engine and time, the numbers,
// and the status line last, where the eye lands. Latencies are in
// milliseconds; "-" marks a number the window does not have yet, and a
// quantity the server does not export has no line (v.NotExported names
// them).
func ViewText(w io.Writer, v View) error {
	p := textblock.New(w)
	head := "goodput watch " + v.URL
	if v.Engine != promscrape.Unknown {
		head += "  (" + strings.TrimSpace(engineTitle(v.Engine))
		if len(v.Models) > 0 {
			head += ", " + strings.Join(v.Models, ", ")
		}
		head += ")"
	}
	if !v.At.IsZero() {
		head += "  " + v.At.Format("15:04:05")
	}
	p.Line(head)
	p.Rule('-', "")
	win := seconds(secondsDuration(v.WindowSeconds))
	// A quantity the server does not export has no line: the "Not
	// exported" line names it, and the engine will not start to.
	kv := func(name, key, value string) {
		if !slices.Contains(v.NotExported, name) {
			p.KV(key, value)
		}
	}
	kv(string(promscrape.Running), "Running:", opt(v.Running, count))
	kv(string(promscrape.Waiting), "Waiting:", opt(v.Waiting, count))
	if v.Slots != nil {
		p.KV("Slots (/slots):", fmt.Sprintf("%d, %d busy", v.Slots.Total, v.Slots.Busy))
	}
	kv(string(promscrape.KVCacheUsage), "KV cache usage:", opt(v.KVCacheUsage, pct1))
	kv(string(promscrape.PromptTokens), "Prompt tokens (tok/s):", opt(v.PromptTokensPerSecond, f1))
	kv(string(promscrape.GenerationTokens), "Generation tokens (tok/s):", opt(v.GenerationTokensPerSecond, f1))
	kv(string(promscrape.TTFT), fmt.Sprintf("TTFT P50 / P99 (ms, last %s):", win), pair(v.TTFT))
	kv(string(promscrape.ITL), fmt.Sprintf("ITL P50 / P99 (ms, last %s):", win), pair(v.ITL))
	kv(string(promscrape.Preemptions), fmt.Sprintf("Preemptions (/s, last %s):", win), opt(v.PreemptionsPerSecond, f2))
	kv(prefixHitRate, fmt.Sprintf("Prefix cache hit rate (last %s):", win), opt(v.PrefixCacheHitRate, pct1))
	kv(string(promscrape.Queue), fmt.Sprintf("Latency share queued (last %s):", win), opt(v.QueueShare, pct1))
	p.KV(fmt.Sprintf("Scrapes (last %s):", win), fmt.Sprintf("%d (%d failed)", v.Scrapes, v.FailedScrapes))
	if len(v.NotExported) > 0 {
		p.KV("Not exported:", strings.Join(v.NotExported, ", "))
	}
	p.KV("Status:", v.Status.Text)
	return p.Err()
}

// viewColumns are the plain view's columns: heading and width.
var viewColumns = []struct {
	head  string
	width int
}{
	{"time", 8}, {"running", 7}, {"waiting", 7}, {"kv%", 5}, {"prompt/s", 9}, {"gen/s", 9},
	{"ttft50ms", 9}, {"ttft99ms", 9}, {"itl50ms", 8}, {"itl99ms", 8}, {"preempt/s", 9}, {"prefix%", 7}, {"queued%", 7},
}

// ViewHeader returns the heading line of the plain, append-only view that
// ViewRow fills, without a newline.
func ViewHeader() string {
	cells := make([]string, 0, len(viewColumns)+1)
	for i, c := range viewColumns {
		if i == 0 {
			cells = append(cells, fmt.Sprintf("%-*s", c.width, c.head))
			continue
		}
		cells = append(cells, fmt.Sprintf("%*s", c.width, c.head))
	}
	return strings.Join(append(cells, "status"), " ")
}

// ViewRow returns v as one line of the plain view, under ViewHeader's
// columns, ending with the status; "-" marks a number v does not have. It
// has no newline.
func ViewRow(v View) string {
	vals := []string{
		v.At.Format("15:04:05"),
		opt(v.Running, count), opt(v.Waiting, count), opt(v.KVCacheUsage, pct0),
		opt(v.PromptTokensPerSecond, f1), opt(v.GenerationTokensPerSecond, f1),
		est(v.TTFT.P50), est(v.TTFT.P99), est(v.ITL.P50), est(v.ITL.P99),
		opt(v.PreemptionsPerSecond, f2), opt(v.PrefixCacheHitRate, pct0), opt(v.QueueShare, pct0),
	}
	cells := make([]string, 0, len(vals)+1)
	for i, s := range vals {
		if i == 0 {
			cells = append(cells, fmt.Sprintf("%-*s", viewColumns[i].width, s))
			continue
		}
		cells = append(cells, fmt.Sprintf("%*s", viewColumns[i].width, s))
	}
	return strings.Join(append(cells, v.Status.Text), " ")
}

func opt(p *float64, f func(float64) string) string {
	if p == nil {
		return "-"
	}
	return f(*p)
}

func est(e *promscrape.Estimate) string {
	if e == nil {
		return "-"
	}
	if e.Overflow {
		return ">" + strings.TrimSuffix(f1(1e3*e.Upper), ".0")
	}
	return f2(1e3 * e.Value)
}

func pair(p Percentiles) string {
	if p.P50 == nil && p.P99 == nil {
		return "-"
	}
	return est(p.P50) + " / " + est(p.P99) + " (bucket estimates)"
}

func f1(v float64) string   { return fmt.Sprintf("%.1f", v) }
func pct1(f float64) string { return fmt.Sprintf("%.1f%%", 100*f) }
func pct0(f float64) string { return fmt.Sprintf("%.0f", 100*f) }
