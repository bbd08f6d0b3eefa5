package sweep

import (
	"math"
	"slices"
	"strings"
	"testing"
)

func TestOperatingPoint(t *testing.T) {
	loads := concurrencies(1, 6, 1)
	tests := []struct {
		name   string
		att    []float64 // attainment at concurrency 1..6
		target float64
		want   Load   // zero: none
		fail   Load   // first failure; zero: none
		strays []Load // loads passing above the first failure
		note   string // substring of Note; empty means Note is empty
	}{
		// Attainment falls with load: the last load at or above 0.9 is 4.
		{"monotone", []float64{1, 0.99, 0.95, 0.9, 0.7, 0.2}, 0, Concurrency(4), Concurrency(5), nil, ""},
		// A stricter target moves it down.
		{"target 0.99", []float64{1, 0.99, 0.95, 0.9, 0.7, 0.2}, 0.99, Concurrency(2), Concurrency(3), nil, ""},
		// Non-monotone: 3 fails, 4 and 6 pass again. The operating point
		// stays at 2, and 4 and 6 are reported as strays.
		{"non-monotone", []float64{1, 0.95, 0.85, 0.92, 0.5, 0.91}, 0, Concurrency(2), Concurrency(3),
			[]Load{Concurrency(4), Concurrency(6)}, "taken as noise"},
		// Every load passes: the highest is taken, with a caveat.
		{"all pass", []float64{1, 1, 1, 1, 1, 0.95}, 0, Concurrency(6), Load{}, nil, "limit lies above"},
		// The lowest load fails: nothing, even though 2 passes.
		{"lowest fails", []float64{0.5, 0.95, 0.2, 0.1, 0, 0}, 0, Load{}, Concurrency(1),
			[]Load{Concurrency(2)}, "the lowest load, 1, reached only 50 %"},
		// Unknown attainment fails.
		{"nan", []float64{1, math.NaN(), 1, 1, 1, 1}, 0, Concurrency(1), Concurrency(2),
			[]Load{Concurrency(3), Concurrency(4), Concurrency(5), Concurrency(6)}, "taken as noise"},
		// Exactly on the target passes.
		{"on target", []float64{0.9, 0.9, 0.89, 0, 0, 0}, 0.9, Concurrency(2), Concurrency(3), nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			i := 0
			points := curve(t, loads, always(1), always(1), func(float64) float64 { i++; return tt.att[i-1] })
			op := OperatingPoint(points, tt.target)
			if tt.want.IsZero() {
				if op.Found || op.Index != -1 {
					t.Errorf("found %s, want none", op.Load)
				}
			} else if !op.Found || op.Load != tt.want || op.Score != points[op.Index].Mean.Attainment {
				t.Errorf("operating point %+v, want %s", op.Pick, tt.want)
			}
			if op.FirstFailure != tt.fail {
				t.Errorf("first failure %v, want %v", op.FirstFailure, tt.fail)
			}
			if !slices.Equal(op.Strays, tt.strays) {
				t.Errorf("strays %v, want %v", op.Strays, tt.strays)
			}
			if (tt.note == "") != (op.Note == "") || !strings.Contains(op.Note, tt.note) {
				t.Errorf("note %q, want one containing %q", op.Note, tt.note)
			}
			wantTarget := tt.target
			if wantTarget == 0 {
				wantTarget = DefaultTarget
			}
			if op.Target != wantTarget {
				t.Errorf("target %v, want %v", op.Target, wantTarget)
			}
		})
	}
}

// Three repeats of 0.9 average to 0.9 within rounding, and must still
// meet a 0.9 target.
func TestOperatingPointRoundedMean(t *testing.T) {
	p, err := NewPoint(Concurrency(1), synth(1, 1, 0.9), synth(1, 1, 0.9), synth(1, 1, 0.9))
	if err != nil {
		t.Fatal(err)
	}
	p.Mean.Attainment = 0.9 - 1e-15 // what a less careful average might give
	if op := OperatingPoint([]Point{p}, 0.9); !op.Found {
		t.Fatalf("attainment 0.9 − 1e-15 missed target 0.9: %+v", op)
	}
}

func TestOperatingPointEmpty(t *testing.T) {
	op := OperatingPoint(nil, 0)
	if op.Found || op.Index != -1 || !op.FirstFailure.IsZero() || op.Strays != nil {
		t.Fatalf("OperatingPoint(nil) = %+v, want nothing", op)
	}
}
