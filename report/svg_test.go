package report

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/goodput-dev/goodput/internal/human"
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
		if got := niceStep(tt.raw); math.Abs(got-tt.want) > 1e-12*math.Abs(tt.want) {
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
			lo, hi := niceRange(tt.lo, tt.hi, 5)
			if math.Abs(lo-tt.wantLo) > 1e-9 || math.Abs(hi-tt.wantHi) > 1e-9 {
				t.Errorf("niceRange(%v, %v) = %v, %v, want %v, %v", tt.lo, tt.hi, lo, hi, tt.wantLo, tt.wantHi)
			}
		})
	}
}

func TestScale(t *testing.T) {
	lin := scale{lo: 0, hi: 100, a: 0, b: 200}
	log := scale{lo: 1, hi: 1000, a: 0, b: 300, log: true}
	tests := []struct {
		name string
		s    scale
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
		{"degenerate puts values in the middle", scale{lo: 3, hi: 3, a: 0, b: 10}, 3, 5},
		{"y axis runs downwards", scale{lo: 0, hi: 10, a: 100, b: 0}, 10, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.s.pos(tt.v); math.Abs(got-tt.want) > 1e-9 {
				t.Errorf("pos(%v) = %v, want %v", tt.v, got, tt.want)
			}
		})
	}
}

func TestTicks(t *testing.T) {
	tests := []struct {
		name string
		s    scale
		want []float64
	}{
		// Round steps of 20 over [0, 100].
		{"linear", scale{lo: 0, hi: 100}, []float64{0, 20, 40, 60, 80, 100}},
		// Decades on a long logarithmic axis.
		{"log decades", scale{lo: 1, hi: 1e4, log: true}, []float64{1, 10, 100, 1000, 1e4}},
		// 1, 2 and 5 multiples on a short one.
		{"log short", scale{lo: 10, hi: 100, log: true}, []float64{10, 20, 50, 100}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, _ := tt.s.ticks(5)
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

func TestNumberFormats(t *testing.T) {
	tests := []struct {
		got, want string
	}{
		{human.Brief(0.012345), "0.0123"}, // three significant digits
		{human.Brief(1.5), "1.5"},         // trailing zeros dropped
		{human.Brief(123.4), "123"},       // whole above 100
		{human.Brief(12345.6), "12346"},   // never in exponent form
		{human.Brief(0), "0"},
		{human.Brief(math.NaN()), "n/a"},
		{human.Brief(math.Inf(-1)), "n/a"},
		{tickLabel(2500, 500), "2500"},
		{tickLabel(25000, 5000), "25k"},
		{tickLabel(2.5e6, 5e5), "2.5M"},
		{tickLabel(0.25, 0.05), "0.25"},
		{tickLabel(100, 0), "100"},
		{seconds(0.0123), "12.3 ms"},
		{seconds(2.5), "2.5 s"},
		{seconds(math.NaN()), "n/a"},
		{ms(0.0123456), "12.35"},
		{percent(0.9234), "92.3 %"},
		{signedPercent(0.1), "+10.0 %"},
		{signedPercent(-0.05), "-5.0 %"},
		{signedPercent(math.NaN()), "n/a"},
	}
	for i, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("case %d: got %q, want %q", i, tt.got, tt.want)
		}
	}
}

func TestEscaping(t *testing.T) {
	// Text from records (error messages, labels) reaches the page escaped.
	if got := esc(`<script>"&'`); got != "&lt;script&gt;&#34;&amp;&#39;" {
		t.Errorf("esc = %q", got)
	}
	// JSON embedded in the page cannot close its script element.
	if got := string(safeJSON([]byte(`{"m":"</script><b>&"}`))); strings.ContainsAny(got, "<>&") {
		t.Errorf("safeJSON left markup: %s", got)
	}
}

func TestFrameRendersAxesAndLegend(t *testing.T) {
	f := newFrame("Title <x>", "time (s)", "tok/s", scale{lo: 0, hi: 10}, scale{lo: 0, hi: 100})
	f.legend = []legendItem{{class: "s0", label: "output"}}
	f.hline(50, "target", "target", "the target")
	var b strings.Builder
	f.render(&b)
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
		if got := axisUnit(in); got != want {
			t.Errorf("axisUnit(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestFitAxis(t *testing.T) {
	tests := []struct {
		name   string
		a      axisSpec
		vs     []float64
		lo, hi float64
		log    bool
	}{
		{"fixed range wins", axisSpec{lo: 0, hi: 100}, []float64{5, 500}, 0, 100, false},
		{"zero-based", axisSpec{zero: true}, []float64{40, 95}, 0, 100, false},
		{"data range", axisSpec{}, []float64{40, 95}, 40, 100, false},
		{"log decades", axisSpec{log: true}, []float64{0, 3, 450}, 1, 1000, true},
		{"no values", axisSpec{}, nil, 0, 1, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := fitAxis(tt.a, tt.vs)
			if s.lo != tt.lo || s.hi != tt.hi || s.log != tt.log {
				t.Errorf("fitAxis = [%v, %v] log %v, want [%v, %v] log %v", s.lo, s.hi, s.log, tt.lo, tt.hi, tt.log)
			}
		})
	}
}

func TestTimeChartHoverBands(t *testing.T) {
	// Three buckets, one line with a gap: a band per bucket carries the
	// values, and the gap breaks the path rather than dropping to zero.
	f := timeChart("t", "tok/s", []float64{0, 1, 2}, 1, []line{{name: "out", class: "s0", ys: []float64{10, math.NaN(), 30}}})
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
	if !slices.Equal([]string{f.legend[0].label}, []string{"out"}) {
		t.Errorf("legend %+v", f.legend)
	}
	// Each side of the gap is a single value, which a path alone would
	// not draw: each gets a dot.
	if n := strings.Count(out, `<circle class="point s0"`); n != 2 {
		t.Errorf("%d dots for the two lone values, want 2:\n%s", n, out)
	}
	// A run of one bucket draws its value as a dot; a line of two
	// buckets needs none.
	one := timeChart("t", "tok/s", []float64{0}, 1, []line{{name: "out", class: "s0", ys: []float64{20}}}).b.String()
	two := timeChart("t", "tok/s", []float64{0, 1}, 1, []line{{name: "out", class: "s0", ys: []float64{20, 25}}}).b.String()
	if strings.Count(one, "<circle") != 1 || strings.Count(two, "<circle") != 0 {
		t.Errorf("one bucket: %d dots, want 1; two buckets: %d, want 0", strings.Count(one, "<circle"), strings.Count(two, "<circle"))
	}
}
