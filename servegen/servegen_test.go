package servegen

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/arrival"
	"github.com/goodput-dev/goodput/internal/tracefiles"
)

func TestParsePMF(t *testing.T) {
	tests := []struct {
		in     string
		values []float64
		cum    []float64
	}{
		{"{224: 0.25, 225: 0.75}", []float64{224, 225}, []float64{0.25, 1}},
		// Unsorted keys, exponents, blanks and a trailing comma, as Python
		// writes or allows them; probabilities normalised.
		{" { 3 : 2e-1 ,1:0.2, 2.5:4E-1, } ", []float64{1, 2.5, 3}, []float64{0.25, 0.75, 1}},
		// Zero probabilities are dropped.
		{"{0.0: 0.0, 0.5: 1.0}", []float64{0.5}, []float64{1}},
		// ServeGen's idle windows: nothing to draw.
		{"{}", nil, nil},
		{"{7: 0}", nil, nil},
	}
	for _, tt := range tests {
		m, err := ParsePMF(tt.in)
		if err != nil {
			t.Errorf("ParsePMF(%q): %v", tt.in, err)
			continue
		}
		if !slices.Equal(m.values, tt.values) || len(m.cum) != len(tt.cum) || m.Empty() != (tt.values == nil) {
			t.Errorf("ParsePMF(%q) = %v %v, want %v %v", tt.in, m.values, m.cum, tt.values, tt.cum)
			continue
		}
		for i := range m.cum {
			if math.Abs(m.cum[i]-tt.cum[i]) > 1e-12 {
				t.Errorf("ParsePMF(%q): cum %v, want %v", tt.in, m.cum, tt.cum)
			}
		}
	}
	for _, bad := range []struct{ in, want string }{
		{"", "want '{'"},
		{"{1: 0.5", "want ',' or '}'"},
		{"{1 0.5}", "want ':'"},
		{"{-1: 0.5}", "want a finite number ≥ 0"},
		{"{1: -0.5}", "want a finite number ≥ 0"},
		{"{1: nan}", "want a finite number ≥ 0"},
		{"{1: 1e999}", "want a finite number ≥ 0"},
		{"{1: 0.5} x", "unexpected text after '}'"},
		{"{1: 0.5, 1: 0.5}", "value 1 appears twice"},
	} {
		if _, err := ParsePMF(bad.in); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("ParsePMF(%q) error %v, want %q", bad.in, err, bad.want)
		}
	}
}

func TestPMFDraw(t *testing.T) {
	m, err := ParsePMF("{1: 0.25, 3: 0.75}")
	if err != nil {
		t.Fatal(err)
	}
	if m.Mean() != 2.5 || m.Max() != 3 {
		t.Errorf("mean %v, max %v; want 2.5, 3", m.Mean(), m.Max())
	}
	rng := rand.New(rand.NewPCG(1, 2))
	const n = 100000
	ones := 0
	for range n {
		switch m.Draw(rng) {
		case 1:
			ones++
		case 3:
		default:
			t.Fatal("drew a value outside the PMF")
		}
	}
	// 25% ± 5 standard errors (0.14 points).
	if share := float64(ones) / n; math.Abs(share-0.25) > 5*math.Sqrt(0.25*0.75/n) {
		t.Errorf("drew 1 in %.4f of draws, want 0.25", share)
	}
}

func TestReadWindows(t *testing.T) {
	ws, err := ReadWindows(strings.NewReader("0,2.0,1.0,Gamma,1.0,0.5\n600,0,0,,0,0\n1200,0.5,2.0,Weibull,0.5,1.0\n1800,1.0,0.5,,0,0\n"), "t")
	if err != nil {
		t.Fatal(err)
	}
	want := []Window{
		{Start: 0, Rate: 2, CV: 1, Process: arrival.Gamma{Burstiness: 1}},
		{Start: 10 * time.Minute},
		{Start: 20 * time.Minute, Rate: 0.5, CV: 2, Process: arrival.Weibull{Shape: 0.5}},
		// No fitted pattern: a Gamma process of the measured CV 0.5, shape 4.
		{Start: 30 * time.Minute, Rate: 1, CV: 0.5, Process: arrival.Gamma{Burstiness: 4}},
	}
	if !slices.Equal(ws, want) {
		t.Errorf("windows %+v, want %+v", ws, want)
	}
	for _, bad := range []struct{ in, want string }{
		{"", "t: no window"},
		{"0,1,1,Gamma,1\n", "t:1: wrong number of fields"},
		{"0,-1,1,Gamma,1,1\n", `t:1: rate "-1": want a finite number ≥ 0`},
		{"0,1,1,Pareto,1,1\n", `t:1: pattern "Pareto"`},
		{"0,1,1,Gamma,0,1\n", "t:1: Gamma shape 0: want > 0"},
		{"0,1,0,,0,0\n", "t:1: a window with a rate needs a pattern or a cv"},
		{"600,1,1,Gamma,1,1\n0,1,1,Gamma,1,1\n", "t:2: window at 0s does not follow the one at 10m0s"},
		{"0,1,inf,Gamma,1,1\n", `cv "inf"`},
	} {
		if _, err := ReadWindows(strings.NewReader(bad.in), "t"); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("ReadWindows(%q) error %v, want %q", bad.in, err, bad.want)
		}
	}
}

func TestReadLengths(t *testing.T) {
	ls, err := ReadLengths(strings.NewReader(`{
		"21600": {"text_tokens": "{100: 1.0}", "image_tokens": "{500: 0.5, 700: 0.5}", "output_tokens": "{9: 1.0}"},
		"0": {"text_tokens": "{}", "image_tokens": "{}", "output_tokens": "{}"}
	}`), "d")
	if err != nil {
		t.Fatal(err)
	}
	if len(ls) != 2 || ls[0].Start != 0 || ls[1].Start != 6*time.Hour || !ls[0].Empty() || ls[1].Empty() || len(ls[1].Input) != 2 {
		t.Fatalf("lengths %+v", ls)
	}
	// A multimodal prompt is its text and image tokens together.
	rng := rand.New(rand.NewPCG(3, 4))
	for range 100 {
		in, out := ls[1].Draw(rng)
		if (in != 600 && in != 800) || out != 9 {
			t.Fatalf("drew %d/%d, want 600 or 800 and 9", in, out)
		}
	}
	// Before the first window with requests, and in an empty one, the
	// nearest window with requests is in force.
	if l := lengthsAt(ls, time.Hour); l.Start != 6*time.Hour {
		t.Errorf("at 1h the window of %v is in force, want 6h", l.Start)
	}
	for _, bad := range []struct{ in, want string }{
		{`[]`, "d: "},
		{`{}`, "d: no window"},
		{`{"x": {"input_tokens": "{1: 1}", "output_tokens": "{1: 1}"}}`, `window "x": want its start in seconds`},
		{`{"0": {"output_tokens": "{1: 1}"}}`, `window 0 has neither "input_tokens"`},
		{`{"0": {"input_tokens": "{1: 1}"}}`, `window 0 has no "output_tokens"`},
		{`{"0": {"input_tokens": "{1: 1", "output_tokens": "{1: 1}"}}`, `d: window 0, "input_tokens": dict literal`},
		{`{"0": {"input_tokens": "{}", "output_tokens": "{}"}}`, "every window's distributions are empty"},
		{`{"0": {"input_tokens": "{1: 1}", "output_tokens": "{1: 1}"}, "0.0": {"input_tokens": "{1: 1}", "output_tokens": "{1: 1}"}}`, "two windows start at 0s"},
	} {
		if _, err := ReadLengths(strings.NewReader(bad.in), "d"); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("ReadLengths(%s) error %v, want %q", bad.in, err, bad.want)
		}
	}
}

func TestLoad(t *testing.T) {
	one, err := Load("testdata/small/chunk-0-trace.csv")
	if err != nil {
		t.Fatal(err)
	}
	both, err := Load("testdata/small")
	if err != nil {
		t.Fatal(err)
	}
	if len(one) != 1 || len(both) != 2 || both[1].Name != "testdata/small/chunk-1-trace.csv" || one[0].End() != 40*time.Minute || one[0].Active() != 3 {
		t.Errorf("loaded %d and %d clients (%v), end %v, active %d", len(one), len(both), both, one[0].End(), one[0].Active())
	}
	for _, bad := range []struct{ path, want string }{
		{"testdata/none-trace.csv", "--dataset-path: stat testdata/none-trace.csv"},
		{"testdata/README.md", "want a ServeGen chunk-N-trace.csv"},
		{"testdata", "no chunk-N-trace.csv in the directory"},
	} {
		if _, err := Load(bad.path); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("Load(%s) error %v, want %q", bad.path, err, bad.want)
		}
	}
}

func TestArrivals(t *testing.T) {
	clients, err := Load("testdata/small/chunk-0-trace.csv")
	if err != nil {
		t.Fatal(err)
	}
	all, err := Arrivals(clients, 0, 0, 0, 7)
	if err != nil {
		t.Fatal(err)
	}
	again, _ := Arrivals(clients, 0, 0, 0, 7)
	other, _ := Arrivals(clients, 0, 0, 0, 8)
	if !slices.Equal(all, again) || slices.Equal(all, other) {
		t.Error("arrivals are not a function of the seed")
	}
	for i, a := range all {
		if i > 0 && a.At < all[i-1].At {
			t.Fatalf("arrival %d goes back in time", i)
		}
		// Nothing arrives in the idle window, nor after the last.
		if a.At >= 10*time.Minute && a.At < 20*time.Minute || a.At >= 40*time.Minute || a.Client != 0 {
			t.Fatalf("arrival %d at %v from client %d", i, a.At, a.Client)
		}
	}
	// The first n, and a window of the period.
	first, _ := Arrivals(clients, 0, 0, 10, 7)
	window, _ := Arrivals(clients, 25*time.Minute, 35*time.Minute, 0, 7)
	if !slices.Equal(first, all[:10]) {
		t.Error("the first 10 arrivals differ from the start of all of them")
	}
	for _, a := range window {
		if a.At < 25*time.Minute || a.At >= 35*time.Minute {
			t.Errorf("arrival at %v outside the window 25m–35m", a.At)
		}
	}
	// Two clients arrive together: the merge holds each one's own
	// arrivals, in time order.
	both, err := Load("testdata/small")
	if err != nil {
		t.Fatal(err)
	}
	merged, _ := Arrivals(both, 0, 0, 0, 7)
	var mine []Arrival
	for i, a := range merged {
		if i > 0 && a.At < merged[i-1].At {
			t.Fatalf("merged arrival %d goes back in time", i)
		}
		if a.Client == 0 {
			mine = append(mine, a)
		}
	}
	if !slices.Equal(mine, all) || len(merged) <= len(all) {
		t.Errorf("client 0's arrivals change when client 1 joins (%d of %d)", len(mine), len(merged))
	}
	if _, err := Arrivals(clients, -1, 0, 0, 7); err == nil {
		t.Error("a negative start is accepted")
	}
}

// TestShippedArrivalCounts generates every shipped client's whole period
// and counts its arrivals: over all windows they match the windows' rates,
// Σ rate × 600 s, within 3%. A fresh renewal process in every window adds
// about (CV² − 1)/2 arrivals to each, over 1% for the bursty m-large.
func TestShippedArrivalCounts(t *testing.T) {
	for _, name := range []string{tracefiles.ServeGenLanguage, tracefiles.ServeGenReason, tracefiles.ServeGenMultimodal} {
		clients, err := Load(tracefiles.Path(t, name))
		if err != nil {
			t.Fatal(err)
		}
		c := clients[0]
		var want float64
		for i, w := range c.Windows {
			want += w.Rate * (c.windowEnd(i) - w.Start).Seconds()
		}
		arr, err := Arrivals(clients, 0, 0, 0, 1)
		if err != nil {
			t.Fatal(err)
		}
		if r := float64(len(arr)) / want; math.Abs(r-1) > 0.03 {
			t.Errorf("%s: %d arrivals, the rates say %.0f (ratio %.4f)", name, len(arr), want, r)
		}
	}
}

// TestShippedWindowRates checks one window of mm-image closely, its first:
// Gamma of shape 3.08 at 0.805 req/s, the fit's CV (0.570) the measured
// one. Its arrivals over 20 seeds average its rate within 5%, and their
// gaps have its CV within 10%.
func TestShippedWindowRates(t *testing.T) {
	clients, err := Load(tracefiles.Path(t, tracefiles.ServeGenMultimodal))
	if err != nil {
		t.Fatal(err)
	}
	c := clients[0]
	w := c.Windows[0]
	if g, ok := w.Process.(arrival.Gamma); !ok || math.Abs(g.Burstiness-3.0811) > 1e-3 || w.Rate != 0.805 {
		t.Fatalf("mm-image's first window is %+v", w)
	}
	start, end := w.Start, c.windowEnd(0)
	var count int
	var gaps []float64
	for seed := range uint64(20) {
		arr, err := Arrivals(clients, start, end, 0, seed)
		if err != nil {
			t.Fatal(err)
		}
		count += len(arr)
		for i := 1; i < len(arr); i++ {
			gaps = append(gaps, (arr[i].At - arr[i-1].At).Seconds())
		}
	}
	rate := float64(count) / 20 / (end - start).Seconds()
	var sum, sq float64
	for _, g := range gaps {
		sum += g
		sq += g * g
	}
	mean := sum / float64(len(gaps))
	cv := math.Sqrt(sq/float64(len(gaps))-mean*mean) / mean
	if math.Abs(rate/w.Rate-1) > 0.05 || math.Abs(cv/w.CV-1) > 0.1 {
		t.Errorf("first window: %.3f req/s, CV %.3f; want its %.3f and %.3f", rate, cv, w.Rate, w.CV)
	}
}
