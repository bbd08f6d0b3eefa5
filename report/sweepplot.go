package report

import (
	"cmp"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/goodput-dev/goodput/internal/gunzip"
	"github.com/goodput-dev/goodput/internal/human"
	"github.com/goodput-dev/goodput/internal/jsonerr"
	"github.com/goodput-dev/goodput/report/svgchart"
	"github.com/goodput-dev/goodput/sweepserve"
)

// PlotOptions is vllm bench sweep plot's command line: which figure of the
// runs of a sweep over server settings to draw.
type PlotOptions struct {
	VarX, VarY string   // the axes' figures (default request_throughput and p99_e2el_ms)
	FigBy      []string // a figure per combination of these keys' values
	RowBy      []string // a row of panels per combination
	ColBy      []string // a column of panels per combination
	CurveBy    []string // a curve per combination
	Filters    []PlotFilter
	Bins       []PlotBin
	LogX, LogY bool
	FigName    string // the files' name before the figure's group (default FIGURE)
}

// PlotFilter keeps the runs whose Key compares to Value by Op (==, !=, <,
// <=, >, >=): numerically when both are numbers, else as text (== and !=
// only).
type PlotFilter struct{ Key, Op, Value string }

// PlotBin rounds Key down to a multiple of Size, so that runs whose
// figure differs a little share a point.
type PlotBin struct {
	Key  string
	Size float64
}

// plotKey is what a key of a result looks like.
var plotKey = regexp.MustCompile(`^[A-Za-z0-9_.-]+$`)

// ParsePlotFilters reads vLLM's --filter-by: "max_concurrency<1000,…".
func ParsePlotFilters(s string) ([]PlotFilter, error) {
	var out []PlotFilter
	for _, part := range SplitKeys(s) {
		found := false
		for _, op := range []string{"==", "!=", "<=", ">=", "<", ">"} {
			if k, v, ok := strings.Cut(part, op); ok && plotKey.MatchString(strings.TrimSpace(k)) {
				v = strings.Trim(strings.TrimSpace(v), `'"`)
				out = append(out, PlotFilter{strings.TrimSpace(k), op, v})
				found = true
				break
			}
		}
		if !found {
			return nil, fmt.Errorf("%q: want key, an operator (==, !=, <, <=, >, >=) and a value, as max_concurrency<1000", part)
		}
	}
	return out, nil
}

// ParsePlotBins reads vLLM's --bin-by: "request_throughput%0.5,…".
func ParsePlotBins(s string) ([]PlotBin, error) {
	var out []PlotBin
	for _, part := range SplitKeys(s) {
		k, v, ok := strings.Cut(part, "%")
		size, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if !ok || !plotKey.MatchString(strings.TrimSpace(k)) || err != nil || !(size > 0) || math.IsInf(size, 0) {
			return nil, fmt.Errorf("%q: want key%%size with a size above 0, as request_throughput%%0.5", part)
		}
		out = append(out, PlotBin{strings.TrimSpace(k), size})
	}
	return out, nil
}

// SplitKeys reads a comma-separated list of keys (--fig-by, --curve-by,
// --label-by, …), blanks dropped.
func SplitKeys(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// PlotFigure is one figure: a grid of panels of curves.
type PlotFigure struct {
	Name  string      // its file name, without the extension
	Group [][2]string // the --fig-by keys and values it shows
	Rows  []string    // row labels ("(All)" without --row-by)
	Cols  []string    // column labels
	Cells [][]*plotPanel
	Runs  int // runs drawn
	opts  PlotOptions
}

type plotPanel struct {
	curves []plotCurve
}

type plotCurve struct {
	label string
	pts   []plotPoint
}

// plotPoint is the mean of the runs that share an x value, with their
// spread.
type plotPoint struct {
	x, y, lo, hi float64
	n            int
}

// SweepPlot reads every summary.json under dir (a sweep's --output-dir, or
// one experiment) and groups their runs into figures as vllm bench sweep
// plot does: a figure per --fig-by group, panels by --row-by and --col-by,
// a curve per --curve-by group, after the filters and bins; runs that share
// an x value within a curve are drawn as their mean. A key that no run has
// is an error that lists the keys there are.
func SweepPlot(dir string, o PlotOptions) ([]*PlotFigure, error) {
	if o.VarX == "" {
		o.VarX = "request_throughput"
	}
	if o.VarY == "" {
		o.VarY = "p99_e2el_ms"
	}
	if o.FigName == "" {
		o.FigName = "FIGURE"
	}
	runs, _, err := readSummaries(dir)
	if err != nil {
		return nil, err
	}
	keys := map[string]bool{}
	var order []string
	for _, r := range runs {
		for _, f := range r {
			if !keys[f.Key] {
				keys[f.Key] = true
				order = append(order, f.Key)
			}
		}
	}
	check := func(what string, ks ...string) error {
		for _, k := range ks {
			if !keys[k] {
				return fmt.Errorf("%s %q is no key of the results under %s; they have: %s", what, k, dir, strings.Join(order, ", "))
			}
		}
		return nil
	}
	for _, c := range []struct {
		what string
		ks   []string
	}{{"--var-x", []string{o.VarX}}, {"--var-y", []string{o.VarY}}, {"--fig-by", o.FigBy}, {"--row-by", o.RowBy}, {"--col-by", o.ColBy}, {"--curve-by", o.CurveBy}} {
		if err := check(c.what, c.ks...); err != nil {
			return nil, err
		}
	}
	for _, f := range o.Filters {
		if err := check("--filter-by", f.Key); err != nil {
			return nil, err
		}
	}
	for _, b := range o.Bins {
		if err := check("--bin-by", b.Key); err != nil {
			return nil, err
		}
	}
	runs = slices.DeleteFunc(runs, func(r sweepserve.Object) bool { return !keep(r, o.Filters) })
	var figs []*PlotFigure
	byName := map[string]*PlotFigure{}
	for _, r := range runs {
		x, okx := binned(r, o.VarX, o.Bins)
		y, oky := binned(r, o.VarY, o.Bins)
		if !okx || !oky {
			continue
		}
		group := groupOf(r, o.FigBy)
		name := o.FigName
		for _, kv := range group {
			name += "-" + kv[0] + "=" + kv[1]
		}
		name = strings.ReplaceAll(strings.ReplaceAll(name, "/", "_"), "..", "__")
		fig := byName[name]
		if fig == nil {
			fig = &PlotFigure{Name: name, Group: group, opts: o}
			byName[name] = fig
			figs = append(figs, fig)
		}
		ri := fig.index(&fig.Rows, label(groupOf(r, o.RowBy)), true)
		ci := fig.index(&fig.Cols, label(groupOf(r, o.ColBy)), false)
		cell := fig.Cells[ri][ci]
		cl := label(groupOf(r, o.CurveBy))
		k := slices.IndexFunc(cell.curves, func(c plotCurve) bool { return c.label == cl })
		if k < 0 {
			cell.curves = append(cell.curves, plotCurve{label: cl})
			k = len(cell.curves) - 1
		}
		cell.curves[k].add(x, y)
		fig.Runs++
	}
	if len(figs) == 0 {
		return nil, fmt.Errorf("%s: no run has both %s and %s as numbers (after --filter-by)", dir, o.VarX, o.VarY)
	}
	for _, f := range figs {
		for _, row := range f.Cells {
			for _, c := range row {
				for i := range c.curves {
					slices.SortFunc(c.curves[i].pts, func(a, b plotPoint) int { return cmp.Compare(a.x, b.x) })
				}
				slices.SortStableFunc(c.curves, func(a, b plotCurve) int { return cmpLabels(a.label, b.label) })
			}
		}
	}
	return figs, nil
}

// cmpLabels orders group labels ("max_num_seqs=8, tp=2") by their values,
// numbers as numbers: 8 before 32.
func cmpLabels(a, b string) int {
	as, bs := strings.Split(a, ", "), strings.Split(b, ", ")
	for i := range min(len(as), len(bs)) {
		_, av, _ := strings.Cut(as[i], "=")
		_, bv, _ := strings.Cut(bs[i], "=")
		x, errx := strconv.ParseFloat(av, 64)
		y, erry := strconv.ParseFloat(bv, 64)
		if errx == nil && erry == nil {
			if c := cmp.Compare(x, y); c != 0 {
				return c
			}
			continue
		}
		if c := strings.Compare(as[i], bs[i]); c != 0 {
			return c
		}
	}
	return len(as) - len(bs)
}

// index finds or adds a row (or column) label, growing the grid.
func (f *PlotFigure) index(labels *[]string, l string, row bool) int {
	if i := slices.Index(*labels, l); i >= 0 {
		return i
	}
	*labels = append(*labels, l)
	if row {
		cells := make([]*plotPanel, len(f.Cols))
		for i := range cells {
			cells[i] = &plotPanel{}
		}
		f.Cells = append(f.Cells, cells)
	} else {
		for i := range f.Cells {
			f.Cells[i] = append(f.Cells[i], &plotPanel{})
		}
	}
	return len(*labels) - 1
}

func (c *plotCurve) add(x, y float64) {
	for i := range c.pts {
		if p := &c.pts[i]; p.x == x {
			p.y = (p.y*float64(p.n) + y) / float64(p.n+1)
			p.lo, p.hi, p.n = min(p.lo, y), max(p.hi, y), p.n+1
			return
		}
	}
	c.pts = append(c.pts, plotPoint{x, y, y, y, 1})
}

// readSummaries gathers the runs of every summary.json below dir (or
// summary.json.gz, compressed, where there is no summary.json beside it),
// and the file each came from.
func readSummaries(dir string) (runs []sweepserve.Object, from []string, err error) {
	if _, err := os.Stat(dir); err != nil {
		return nil, nil, err
	}
	err = filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		switch d.Name() {
		case "summary.json":
		case "summary.json" + GzipSuffix:
			if _, err := os.Stat(strings.TrimSuffix(path, GzipSuffix)); err == nil {
				return nil // the same runs, read from summary.json
			}
		default:
			return nil
		}
		b, err := gunzip.ReadFile(path, MaxSummaryBytes)
		if err != nil {
			return err
		}
		var list []sweepserve.Object
		if err := jsonerr.Unmarshal(b, &list); err != nil {
			return fmt.Errorf("%s: not the summary.json of a sweep over server settings (a JSON list of runs' results): %v", path, err)
		}
		runs = append(runs, list...)
		for range list {
			from = append(from, path)
		}
		return nil
	})
	if err == nil && len(runs) == 0 {
		err = fmt.Errorf("%s: no summary.json of a sweep over server settings (goodput sweep serve) below it", dir)
	}
	return runs, from, err
}

func keep(r sweepserve.Object, fs []PlotFilter) bool {
	for _, f := range fs {
		raw, ok := r.Get(f.Key)
		if !ok {
			return false
		}
		text := plotText(raw)
		a, aok := r.Number(f.Key)
		b, err := strconv.ParseFloat(f.Value, 64)
		num := aok && err == nil
		var pass bool
		switch f.Op {
		case "==":
			pass = (num && a == b) || (!num && text == f.Value)
		case "!=":
			pass = (num && a != b) || (!num && text != f.Value)
		case "<":
			pass = num && a < b
		case "<=":
			pass = num && a <= b
		case ">":
			pass = num && a > b
		case ">=":
			pass = num && a >= b
		}
		if !pass {
			return false
		}
	}
	return true
}

func binned(r sweepserve.Object, key string, bins []PlotBin) (float64, bool) {
	x, ok := r.Number(key)
	if !ok || !usable(x) {
		return 0, false
	}
	for _, b := range bins {
		if b.Key == key {
			x = math.Floor(x/b.Size) * b.Size
		}
	}
	return x, true
}

// groupOf is the run's keys and values for a grouping.
func groupOf(r sweepserve.Object, keys []string) [][2]string {
	var g [][2]string
	for _, k := range keys {
		raw, _ := r.Get(k)
		g = append(g, [2]string{k, plotText(raw)})
	}
	return g
}

func label(g [][2]string) string {
	if len(g) == 0 {
		return "(All)"
	}
	parts := make([]string, len(g))
	for i, kv := range g {
		parts[i] = kv[0] + "=" + kv[1]
	}
	return strings.Join(parts, ", ")
}

// plotText is a value as a label: strings bare, others as their JSON.
func plotText(raw []byte) string {
	s := strings.TrimSpace(string(raw))
	if u, err := strconv.Unquote(s); err == nil && strings.HasPrefix(s, `"`) {
		return u
	}
	return s
}

// WritePlotHTML writes one figure as a self-contained page: a chart per
// panel, a curve per group, each point the mean of the runs at that x
// (their range on hover).
func WritePlotHTML(w io.Writer, f *PlotFigure, o HTMLOptions) error {
	title := o.Title
	if title == "" {
		title = "goodput sweep plot: " + f.opts.VarY + " against " + f.opts.VarX
		if len(f.Group) > 0 {
			title += " (" + label(f.Group) + ")"
		}
	}
	var p page
	p.head(title, fmt.Sprintf("%d runs · %d × %d panels · a point is the mean of the runs at its x", f.Runs, len(f.Rows), len(f.Cols)))
	p.section("figure", "Figure")
	p.gridStart()
	for ri, row := range f.Cells {
		for ci, cell := range row {
			if len(cell.curves) == 0 {
				continue
			}
			var curves []svgchart.Curve
			for k, c := range cell.curves {
				var pts []svgchart.Point
				for _, pt := range c.pts {
					hover := fmt.Sprintf("%s %s: %s %s (mean of %d", f.opts.VarX, human.Brief(pt.x), f.opts.VarY, human.Brief(pt.y), pt.n)
					if pt.n > 1 {
						hover += fmt.Sprintf(", %s to %s", human.Brief(pt.lo), human.Brief(pt.hi))
					}
					pts = append(pts, svgchart.Point{X: pt.x, Y: pt.y, Hover: hover + ")"})
				}
				curves = append(curves, svgchart.Curve{Name: c.label, Class: runClass(k), Points: pts})
			}
			panel := strings.TrimPrefix(strings.TrimPrefix(f.Rows[ri]+" · "+f.Cols[ci], "(All) · "), "(All)")
			if panel == "" {
				panel = f.opts.VarY
			}
			p.chart(svgchart.CurveChart(panel, svgchart.Axis{Label: f.opts.VarX, Log: f.opts.LogX}, svgchart.Axis{Label: f.opts.VarY, Log: f.opts.LogY, Zero: !f.opts.LogY}, curves, nil))
		}
	}
	p.gridEnd()
	p.sectionEnd()
	p.tail("plot", nil, o.Tool)
	_, err := p.finish(w)
	return err
}
