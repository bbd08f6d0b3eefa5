package sweeprun

import (
	"math"
	"strings"
	"testing"

	"github.com/goodput-dev/goodput/sweep"
)

func TestMeasurementNames(t *testing.T) {
	tests := []struct {
		m     Measurement
		point string
		name  string
	}{
		// A concurrency is a whole number.
		{Measurement{sweep.Concurrency(16), 1}, "c16", "c16"},
		// Later repeats get a suffix; the first keeps the bare name, so
		// a one-repeat sweep's files read like bench's.
		{Measurement{sweep.Concurrency(16), 2}, "c16", "c16-r2"},
		// Rates keep their digits, without an exponent.
		{Measurement{sweep.Rate(2.5), 1}, "r2.5", "r2.5"},
		{Measurement{sweep.Rate(0.001), 3}, "r0.001", "r0.001-r3"},
		{Measurement{sweep.Rate(1e6), 1}, "r1000000", "r1000000"},
		// An unbounded rate.
		{Measurement{sweep.Rate(math.Inf(1)), 1}, "rinf", "rinf"},
		// Repeat 0 (unset) reads as the first.
		{Measurement{sweep.Concurrency(1), 0}, "c1", "c1"},
	}
	for _, tt := range tests {
		if got := PointName(tt.m.Load); got != tt.point {
			t.Errorf("PointName(%v) = %q, want %q", tt.m.Load, got, tt.point)
		}
		if got := tt.m.Name(); got != tt.name {
			t.Errorf("%+v.Name() = %q, want %q", tt.m, got, tt.name)
		}
	}
}

func TestMeasurementSeed(t *testing.T) {
	tests := []struct {
		base   uint64
		repeat int
		want   uint64
	}{
		{0, 1, 0},              // the first repeat sends what bench --seed 0 sends
		{7, 1, 7},              // whatever the seed
		{7, 3, 9},              // repeat k: seed + k − 1
		{7, 0, 7},              // unset repeat: the first
		{7, -2, 7},             // a negative repeat cannot reach below the seed
		{math.MaxUint64, 2, 0}, // wraps rather than failing: any seed is valid
	}
	for _, tt := range tests {
		m := Measurement{Load: sweep.Concurrency(1), Repeat: tt.repeat}
		if got := m.Seed(tt.base); got != tt.want {
			t.Errorf("repeat %d of seed %d: seed %d, want %d", tt.repeat, tt.base, got, tt.want)
		}
	}
}

func TestMeasurementLabelsRoundTrip(t *testing.T) {
	m := Measurement{Load: sweep.Rate(2.5), Repeat: 4}
	extra := map[string]string{"team": "serving"}
	labels := m.Labels(extra)
	want := map[string]string{"team": "serving", "point": "r2.5", "load": "request_rate=2.5", "repeat": "4"}
	if len(labels) != len(want) {
		t.Fatalf("labels = %v, want %v", labels, want)
	}
	for k, v := range want {
		if labels[k] != v {
			t.Errorf("label %s = %q, want %q", k, labels[k], v)
		}
	}
	if len(extra) != 1 {
		t.Errorf("Labels changed its argument: %v", extra)
	}
	got, err := parseMeasurement(labels)
	if err != nil || got != m {
		t.Errorf("parseMeasurement = %+v, %v; want %+v", got, err, m)
	}
}

func TestParseMeasurementErrors(t *testing.T) {
	tests := []struct {
		name   string
		labels map[string]string
		want   string // fragment of the error
	}{
		// A benchmark saved beside a sweep has no load label.
		{"no load", map[string]string{"point": "c1"}, `no "load" label`},
		{"nil labels", nil, `no "load" label`},
		{"bad load", map[string]string{"load": "concurrency=0"}, `label load="concurrency=0"`},
		{"garbage load", map[string]string{"load": "lots"}, `label load="lots"`},
		{"zero repeat", map[string]string{"load": "c=4", "repeat": "0"}, `label repeat="0"`},
		{"negative repeat", map[string]string{"load": "c=4", "repeat": "-1"}, `label repeat="-1"`},
		{"word repeat", map[string]string{"load": "c=4", "repeat": "two"}, `label repeat="two"`},
		{"huge repeat", map[string]string{"load": "c=4", "repeat": "101"}, "from 1 to 100"},
		{"overflowing repeat", map[string]string{"load": "c=4", "repeat": "99999999999999999999"}, "whole number"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parseMeasurement(tt.labels)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want one containing %q", err, tt.want)
			}
		})
	}
	// Without a repeat label a measurement is the first.
	m, err := parseMeasurement(map[string]string{"load": "rate=inf"})
	if err != nil || m.Repeat != 1 || !m.Load.Unbounded() {
		t.Errorf("got %+v, %v", m, err)
	}
}

// FuzzParseMeasurement checks that any labels either fail with an error or
// give a measurement whose own labels read back as the same measurement.
func FuzzParseMeasurement(f *testing.F) {
	f.Add("concurrency=16", "1")
	f.Add("c=4", "3")
	f.Add("rate=inf", "")
	f.Add("request_rate=0.25", "100")
	f.Add("rate=-1", "1")
	f.Add("c=1.5", "x")
	f.Add("", "0")
	f.Fuzz(func(t *testing.T, load, repeat string) {
		labels := map[string]string{"load": load}
		if repeat != "" {
			labels["repeat"] = repeat
		}
		m, err := parseMeasurement(labels)
		if err != nil {
			return
		}
		if m.Repeat < 1 || m.Repeat > sweep.MaxRepeats || m.Load.Validate() != nil {
			t.Fatalf("accepted %q %q as %+v", load, repeat, m)
		}
		back, err := parseMeasurement(m.Labels(nil))
		if err != nil || back != m {
			t.Fatalf("%+v reads back as %+v, %v", m, back, err)
		}
	})
}
