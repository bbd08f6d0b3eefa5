package servegen

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// FuzzParsePMF: any text gives a PMF that draws only its own values, or an
// error; never a panic or a hang.
func FuzzParsePMF(f *testing.F) {
	for _, s := range []string{"{224: 0.25, 225: 0.75}", "{}", "{1: 0}", " {3:2e-1,1:0.2,}", "{1: 1e999}", "{1:", "{-1: 1}", "{1: 0.5, 1: 0.5}"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		m, err := ParsePMF(s)
		if err != nil || m.Empty() {
			return
		}
		rng := rand.New(rand.NewPCG(1, 1))
		for range 10 {
			v := m.Draw(rng)
			if v < 0 || v > m.Max() {
				t.Fatalf("drew %v from %q", v, s)
			}
		}
	})
}

// FuzzReadWindows: any bytes give windows in time order with a process
// for every busy one, or an error naming the file.
func FuzzReadWindows(f *testing.F) {
	for _, s := range []string{"0,2.0,1.0,Gamma,1.0,0.5\n600,0,0,,0,0\n", "0,1,0.5,,0,0", "0,1,1,Weibull,0.4,1\r\n600,1,1,Weibull,0.4,1\r\n", "\"", "0,1,1,Gamma,1e-320,1"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		ws, err := ReadWindows(strings.NewReader(string(data)), "f")
		if err != nil {
			if !strings.HasPrefix(err.Error(), "f:") {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		for i, w := range ws {
			if (w.Rate > 0) != (w.Process != nil) || i > 0 && w.Start <= ws[i-1].Start {
				t.Fatalf("window %d breaks the invariants: %+v", i, w)
			}
		}
		c := &Client{Windows: ws, Lengths: []Lengths{{Input: []PMF{{values: []float64{1}, cum: []float64{1}}}, Output: PMF{values: []float64{1}, cum: []float64{1}}}}}
		if _, err := Arrivals([]*Client{c}, 0, 0, 1000, 1); err != nil {
			t.Fatalf("windows it read cannot generate: %v", err)
		}
	})
}

// FuzzReadLengths: any bytes give length windows of which one at least can
// be drawn from, or an error naming the file.
func FuzzReadLengths(f *testing.F) {
	for _, s := range []string{
		`{"0": {"input_tokens": "{100: 0.5, 200: 0.5}", "output_tokens": "{10: 1.0}"}}`,
		`{"0": {"text_tokens": "{1: 1}", "image_tokens": "{}", "output_tokens": "{1: 1}"}}`,
		`{"0": {"input_tokens": "{}", "output_tokens": "{}"}}`,
		`{"1e400": {}}`, `[]`, ``,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		ls, err := ReadLengths(strings.NewReader(string(data)), "f")
		if err != nil {
			if !strings.HasPrefix(err.Error(), "f:") {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		l := lengthsAt(ls, 0)
		if l.Empty() {
			t.Fatal("no window to draw from")
		}
		if in, out := l.Draw(rand.New(rand.NewPCG(1, 1))); in < 1 || out < 1 {
			t.Fatalf("drew %d/%d", in, out)
		}
	})
}
