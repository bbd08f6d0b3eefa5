package metrics

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestParsePercentiles(t *testing.T) {
	tests := []struct {
		in      string
		want    []float64
		wantErr string // substring of the error; empty means success
	}{
		{"50,90,99", []float64{50, 90, 99}, ""},
		{" 99.9 , 50 ", []float64{99.9, 50}, ""}, // spaces, order kept
		{"0,100", []float64{0, 100}, ""},         // the ends are allowed
		{"", nil, "empty"},
		{"   ", nil, "empty"},
		{"50,,99", nil, "item 2: empty item"},
		{"50,abc", nil, `item 2: "abc" is not a number`},
		{"101", nil, "item 1: 101 is outside [0, 100]"},
		{"-1", nil, `item 1: "-1" is not a number`}, // no sign
		{"1e2", nil, "not a number"},                // no exponent
		{"inf", nil, "not a number"},
		{"NaN", nil, "not a number"},
		{"1.2.3", nil, "not a number"},
		{".", nil, "not a number"},
	}
	for _, tt := range tests {
		got, err := ParsePercentiles(tt.in)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("ParsePercentiles(%q) error = %v, want it to contain %q", tt.in, err, tt.wantErr)
			}
			continue
		}
		if err != nil || !slices.Equal(got, tt.want) {
			t.Errorf("ParsePercentiles(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
		}
	}
	_, err := ParsePercentiles("1,,2")
	if !errors.Is(err, errEmptyItem) {
		t.Errorf("empty item error %v does not wrap errEmptyItem", err)
	}
}

func FuzzParsePercentiles(f *testing.F) {
	for _, s := range []string{"50,90,99", "99.9", "", ",", "100,0", "1e3", "50, 60"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ps, err := ParsePercentiles(s)
		if err != nil {
			return
		}
		if len(ps) == 0 {
			t.Fatalf("%q parsed to no percentiles without error", s)
		}
		for _, p := range ps {
			if math.IsNaN(p) || p < 0 || p > 100 {
				t.Fatalf("%q gave %v", s, p)
			}
		}
		if err := (Options{Percentiles: ps}).Validate(); err != nil {
			t.Fatalf("%q parsed but does not validate: %v", s, err)
		}
	})
}

func TestOptionsValidate(t *testing.T) {
	tests := []struct {
		name    string
		o       Options
		wantErr string
	}{
		{"zero value is valid", Options{}, ""},
		{"explicit values", Options{Percentiles: []float64{0, 99.99, 100}, Method: NearestRank, SeriesStep: time.Millisecond}, ""},
		{"percentile above 100", Options{Percentiles: []float64{50, 100.5}}, "item 2"},
		{"negative percentile", Options{Percentiles: []float64{-1}}, "item 1"},
		{"NaN percentile", Options{Percentiles: []float64{math.NaN()}}, "outside"},
		{"unknown method", Options{Method: 9}, "method 9"},
		{"negative step", Options{SeriesStep: -time.Second}, "series step"},
		{"negative window", Options{Window: -time.Second}, "window -1s"},
	}
	for _, tt := range tests {
		err := tt.o.Validate()
		if tt.wantErr == "" && err != nil || tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
			t.Errorf("%s: Validate() = %v, want %q", tt.name, err, tt.wantErr)
		}
	}
}

func TestOptionsNormalized(t *testing.T) {
	tests := []struct {
		name string
		in   Options
		ps   []float64
		m    Method
		step time.Duration
	}{
		{"defaults", Options{}, []float64{50, 90, 99}, Linear, time.Second},
		{"empty list stays empty", Options{Percentiles: []float64{}}, []float64{}, Linear, time.Second},
		{"sorted, deduplicated, clamped, NaN dropped", Options{Percentiles: []float64{99, 50, 99, 120, -3, math.NaN()}}, []float64{0, 50, 99, 100}, Linear, time.Second},
		{"unknown method becomes linear", Options{Method: 5}, []float64{50, 90, 99}, Linear, time.Second},
		{"negative step becomes default", Options{SeriesStep: -1}, []float64{50, 90, 99}, Linear, time.Second},
		{"nearest rank and step kept", Options{Method: NearestRank, SeriesStep: 250 * time.Millisecond}, []float64{50, 90, 99}, NearestRank, 250 * time.Millisecond},
	}
	for _, tt := range tests {
		in := slices.Clone(tt.in.Percentiles)
		got := tt.in.normalized()
		if !slices.Equal(got.Percentiles, tt.ps) || got.Method != tt.m || got.SeriesStep != tt.step {
			t.Errorf("%s: normalized = %v %v %v; want %v %v %v", tt.name, got.Percentiles, got.Method, got.SeriesStep, tt.ps, tt.m, tt.step)
		}
		if !slices.EqualFunc(in, tt.in.Percentiles, func(a, b float64) bool { return a == b || math.IsNaN(a) && math.IsNaN(b) }) {
			t.Errorf("%s: normalized changed the caller's slice", tt.name)
		}
	}
}
