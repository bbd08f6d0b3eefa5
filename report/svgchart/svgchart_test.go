package svgchart

import (
	"math"
	"slices"
	"strings"
	"testing"
)

func TestNiceStep(t *testing.T) {
	tests := []struct {
		raw, want float64
	}{
		{0.3, 0.5},      // rounds up to 5 × 10^k
		{1, 1},          // already round
		{1.0000001, 2},  // just above 1 needs 2
		{7, 10},         // above 5 needs the next decade
		{1.2e-5, 2e-5},  // tiny steps keep their decade
		{45000, 50000},  // large steps too
		{0, 0},          // zero: no step
		{-3, 0},         // negative: no step
		{math.NaN(), 0}, // NaN: no step
		{math.Inf(1), 0},
	}
	for _, tt := range tests {
		if got := NiceStep(tt.raw); math.Abs(got-tt.want) > 1e-12*math.Abs(tt.want) {
			t.Errorf("niceStep(%v) = %v, want %v", tt.raw, got, tt.want)
		}
	}
}

func TestNiceRange(t *testing.T) {
	tests := []struct {
		name           string
		lo, hi         float64
		wantLo, wantHi float64
	}{
		{"rounds outwards", 3, 97, 0, 100},
		{"negative low end", -13, 47, -20, 60},
		{"empty interval at zero", 0, 0, 0, 1},
		{"degenerate interval", 5, 5, 4.4, 5.6},
		{"NaN", math.NaN(), 1, 0, 1},
		{"infinite", 0, math.Inf(1), 0, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lo, hi := NiceRange(tt.lo, tt.hi, 5)
			if math.Abs(lo-tt.wantLo) > 1e-9 || math.Abs(hi-tt.wantHi) > 1e-9 {
				t.Errorf("niceRange(%v, %v) = %v, %v, want %v, %v", tt.lo, tt.hi, lo, hi, tt.wantLo, tt.wantHi)
			}
		})
	}
}

func TestScale(t *testing.T) {
	lin := Scale{Lo: 0, Hi: 100, A: 0, B: 200}
	log := Scale{Lo: 1, Hi: 1000, A: 0, B: 300, Log: true}
	tests := []struct {
		name string
		s    Scale
		v    float64
		want float64
	}{
		{"linear middle", lin, 50, 100},
		{"linear low end", lin, 0, 0},
		{"linear clamps far below", lin, -1000, -4},
		{"linear clamps far above", lin, 1e9, 204},
		{"log decade", log, 10, 100},
		{"log top", log, 1000, 300},
		{"log zero clamps", log, 0, -6},
		{"degenerate puts values in the middle", Scale{Lo: 3, Hi: 3, A: 0, B: 10}, 3, 5},
		{"y axis runs downwards", Scale{Lo: 0, Hi: 10, A: 100, B: 0}, 10, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.s.Pos(tt.v); math.Abs(got-tt.want) > 1e-9 {
				t.Errorf("pos(%v) = %v, want %v", tt.v, got, tt.want)
			}
		})
	}
}

func TestTicks(t *testing.T) {
	tests := []struct {
		name string
		s    Scale
		want []float64
	}{
		// Round steps of 20 over [0, 100].
		{"linear", Scale{Lo: 0, Hi: 100}, []float64{0, 20, 40, 60, 80, 100}},
		// Decades on a long logarithmic axis.
		{"log decades", Scale{Lo: 1, Hi: 1e4, Log: true}, []float64{1, 10, 100, 1000, 1e4}},
		// 1, 2 and 5 multiples on a short one.
		{"log short", Scale{Lo: 10, Hi: 100, Log: true}, []float64{10, 20, 50, 100}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, _ := tt.s.Ticks(5)
			if len(got) != len(tt.want) {
				t.Fatalf("ticks %v, want %v", got, tt.want)
			}
			for i := range got {
				if math.Abs(got[i]-tt.want[i]) > 1e-9*math.Max(1, tt.want[i]) {
					t.Fatalf("ticks %v, want %v", got, tt.want)
				}
			}
		})
	}
}

func TestTickLabel(t *testing.T) {
	tests := []struct {
		v, step float64
		want    string
	}{
		{2500, 500, "2500"},  // below 10k, as is
		{25000, 5000, "25k"}, // thousands
		{2.5e6, 5e5, "2.5M"}, // millions, one decimal kept
		{3e6, 1e6, "3M"},     // and dropped when zero
		{0.25, 0.05, "0.25"}, // as many decimals as the step has
		{100, 0, "100"},      // a log axis's tick, written briefly
		{0.002, 0, "0.002"},
	}
	for _, tt := range tests {
		if got := TickLabel(tt.v, tt.step); got != tt.want {
			t.Errorf("TickLabel(%v, %v) = %q, want %q", tt.v, tt.step, got, tt.want)
		}
	}
}

func TestFrameRendersAxesAndLegend(t *testing.T) {
	f := NewFrame("Title <x>", "time (s)", "tok/s", Scale{Lo: 0, Hi: 10}, Scale{Lo: 0, Hi: 100})
	f.Legend = []LegendItem{{Class: "s0", Label: "output"}}
	f.HLine(50, "target", "target", "the target")
	var b strings.Builder
	f.Render(&b)
	out := b.String()
	for _, want := range []string{`<figcaption>Title &lt;x&gt;</figcaption>`, `viewBox="0 0 640 280"`, `class="legend"`, `>output</text>`, `class="target"`, `<title>the target</title>`, `>time (s)</text>`} {
		if !strings.Contains(out, want) {
			t.Errorf("chart lacks %q", want)
		}
	}
	// Six ticks on each axis: 0..10 by 2 and 0..100 by 20.
	if n := strings.Count(out, `class="tick"`); n != 6 {
		t.Errorf("%d x ticks, want 6", n)
	}
	if n := strings.Count(out, `class="grid"`); n != 6 {
		t.Errorf("%d y grid lines, want 6", n)
	}
}

func TestAxisUnit(t *testing.T) {
	for in, want := range map[string]string{"TTFT (ms)": "ms", "requests": "", "a (b) (c)": "c", "bad )(": ""} {
		if got := AxisUnit(in); got != want {
			t.Errorf("axisUnit(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestFitAxis(t *testing.T) {
	tests := []struct {
		name   string
		a      Axis
		vs     []float64
		lo, hi float64
		log    bool
	}{
		{"fixed range wins", Axis{Lo: 0, Hi: 100}, []float64{5, 500}, 0, 100, false},
		{"zero-based", Axis{Zero: true}, []float64{40, 95}, 0, 100, false},
		{"data range", Axis{}, []float64{40, 95}, 40, 100, false},
		{"log decades", Axis{Log: true}, []float64{0, 3, 450}, 1, 1000, true},
		{"no values", Axis{}, nil, 0, 1, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := FitAxis(tt.a, tt.vs)
			if s.Lo != tt.lo || s.Hi != tt.hi || s.Log != tt.log {
				t.Errorf("fitAxis = [%v, %v] log %v, want [%v, %v] log %v", s.Lo, s.Hi, s.Log, tt.lo, tt.hi, tt.log)
			}
		})
	}
}

func TestTimeChartHoverBands(t *testing.T) {
	// Three buckets, one line with a gap: a band per bucket carries the
	// values, and the gap breaks the path rather than dropping to zero.
	f := TimeChart("t", "tok/s", []float64{0, 1, 2}, 1, []Line{{Name: "out", Class: "s0", Ys: []float64{10, math.NaN(), 30}}})
	out := f.b.String()
	if n := strings.Count(out, `class="hover"`); n != 3 {
		t.Errorf("%d hover bands, want 3", n)
	}
	if !strings.Contains(out, "<title>0–1 s\nout: 10</title>") {
		t.Errorf("first band's hover lacks its value:\n%s", out)
	}
	if strings.Count(out, "M") != 2 || strings.Contains(out, "L") {
		t.Errorf("path should be two separate moves around the gap: %s", out)
	}
	if !slices.Equal([]string{f.Legend[0].Label}, []string{"out"}) {
		t.Errorf("legend %+v", f.Legend)
	}
	// Each side of the gap is a single value, which a path alone would
	// not draw: each gets a dot.
	if n := strings.Count(out, `<circle class="point s0"`); n != 2 {
		t.Errorf("%d dots for the two lone values, want 2:\n%s", n, out)
	}
	// A run of one bucket draws its value as a dot; a line of two
	// buckets needs none.
	one := TimeChart("t", "tok/s", []float64{0}, 1, []Line{{Name: "out", Class: "s0", Ys: []float64{20}}}).b.String()
	two := TimeChart("t", "tok/s", []float64{0, 1}, 1, []Line{{Name: "out", Class: "s0", Ys: []float64{20, 25}}}).b.String()
	if strings.Count(one, "<circle") != 1 || strings.Count(two, "<circle") != 0 {
		t.Errorf("one bucket: %d dots, want 1; two buckets: %d, want 0", strings.Count(one, "<circle"), strings.Count(two, "<circle"))
	}
}
