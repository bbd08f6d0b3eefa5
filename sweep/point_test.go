package sweep

import (
	"math"
	"strings"
	"testing"
)

func TestNewPointMeanAndSpread(t *testing.T) {
	a, b, c := synth(10, 1, 1), synth(12, 2, 0.8), synth(14, 3, 0.9)
	b.TPOT.P99 = math.NaN() // one repeat without a TPOT
	c.Requests = 1001
	p, err := NewPoint(Concurrency(8), a, b, c)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name         string
		got, want    float64
		gotSD, wantS float64
	}{
		// Mean of 10, 12, 14 is 12; sample SD is 2.
		{"req/s", p.Mean.RequestThroughput, 12, p.Spread.RequestThroughput, 2},
		// Mean of 1, 2, 3 is 2; SD 1.
		{"e2e mean", p.Mean.E2E.Mean, 2, p.Spread.E2E.Mean, 1},
		// Attainment 1, 0.8, 0.9: mean 0.9, SD 0.1.
		{"attainment", p.Mean.Attainment, 0.9, p.Spread.Attainment, 0.1},
		// TPOT p99 defined in two repeats: 1.5·1/100 and 1.5·3/100, mean
		// 0.03, SD √((0.015² + 0.015²)/1) = 0.0212132.
		{"tpot p99 skips NaN", p.Mean.TPOT.P99, 0.03, p.Spread.TPOT.P99, 0.015 * math.Sqrt2},
	}
	for _, tt := range tests {
		if !near(tt.got, tt.want, 1e-12) || !near(tt.gotSD, tt.wantS, 1e-12) {
			t.Errorf("%s: mean %v ± %v, want %v ± %v", tt.name, tt.got, tt.gotSD, tt.want, tt.wantS)
		}
	}
	// Requests 1000, 1000, 1001: mean 1000.33 rounds to 1000, SD 0.577 to 1.
	if p.Mean.Requests != 1000 || p.Spread.Requests != 1 {
		t.Errorf("requests %d ± %d, want 1000 ± 1", p.Mean.Requests, p.Spread.Requests)
	}
	if len(p.Repeats) != 3 {
		t.Errorf("%d repeats kept, want 3", len(p.Repeats))
	}
}

func TestNewPointSingleAndUndefined(t *testing.T) {
	s := synth(5, 1, 1)
	s.ITL = Dist{math.NaN(), math.NaN(), math.NaN(), math.NaN()}
	p, err := NewPoint(Rate(2), s)
	if err != nil {
		t.Fatal(err)
	}
	// One repeat: the mean is the repeat, the spread zero.
	if p.Mean.OutputThroughput != 500 || p.Spread.OutputThroughput != 0 {
		t.Errorf("single repeat: %v ± %v, want 500 ± 0", p.Mean.OutputThroughput, p.Spread.OutputThroughput)
	}
	// Undefined in every repeat: NaN in both.
	if !math.IsNaN(p.Mean.ITL.P50) || !math.IsNaN(p.Spread.ITL.P50) {
		t.Errorf("undefined ITL: %v ± %v, want NaN ± NaN", p.Mean.ITL.P50, p.Spread.ITL.P50)
	}
}

func TestNewPointErrors(t *testing.T) {
	if _, err := NewPoint(Concurrency(1)); err == nil || !strings.Contains(err.Error(), "no measurements") {
		t.Errorf("NewPoint with no repeats: %v", err)
	}
	if _, err := NewPoint(Concurrency(0), synth(1, 1, 1)); err == nil || !strings.Contains(err.Error(), "concurrency 0") {
		t.Errorf("NewPoint with concurrency 0: %v", err)
	}
}

func TestMerge(t *testing.T) {
	first, _ := NewPoint(Concurrency(4), synth(10, 1, 1))
	// A bare point (no Repeats) counts as one repeat equal to its Mean.
	bare := Point{Load: Concurrency(4), Mean: synth(20, 3, 1)}
	m, err := Merge(first, bare)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Repeats) != 2 || m.Mean.RequestThroughput != 15 || m.Mean.E2E.Mean != 2 {
		t.Errorf("Merge = %d repeats, %v req/s, e2e %v; want 2, 15, 2", len(m.Repeats), m.Mean.RequestThroughput, m.Mean.E2E.Mean)
	}
	other, _ := NewPoint(Concurrency(8), synth(10, 1, 1))
	if _, err := Merge(first, other); err == nil || !strings.Contains(err.Error(), "different loads") {
		t.Errorf("Merge of two loads: %v", err)
	}
	if _, err := Merge(); err == nil {
		t.Error("Merge of nothing succeeded")
	}
}

func TestStats(t *testing.T) {
	s := synth(4, 2, 0.5)
	tests := []struct {
		stat Stat
		want float64
	}{
		{StatE2EMean, 2},
		{StatTTFTP99, 0.6}, // 1.5 × 2/5
		{StatOutputThroughput, 400},
		{StatGoodput, 200},
		{"little_lambda_w", 8},
		{"no_such_stat", math.NaN()},
	}
	for _, tt := range tests {
		if got := tt.stat.Of(s); !near(got, tt.want, 1e-12) {
			t.Errorf("%s.Of = %v, want %v", tt.stat, got, tt.want)
		}
	}
	if st, err := ParseStat(" E2E_P50 "); err != nil || st != StatE2EP50 {
		t.Errorf("ParseStat(E2E_P50) = %q, %v", st, err)
	}
	if _, err := ParseStat("e2e_p42"); err == nil || !strings.Contains(err.Error(), `"e2e_p42": unknown`) {
		t.Errorf("ParseStat(e2e_p42) error = %v", err)
	}
	if n := len(Stats()); n != 7+4*4+3 {
		t.Errorf("%d stats, want 26", n)
	}
}

// FuzzParseStat checks that a name either resolves to a Stat that reads a
// number from a Sample, or is rejected.
func FuzzParseStat(f *testing.F) {
	for _, s := range []string{"e2e_mean", " TTFT_P99 ", "goodput", "", "e2e", "p99", "ttft_p99\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		st, err := ParseStat(s)
		if err != nil {
			return
		}
		if v := st.Of(synth(1, 1, 1)); math.IsNaN(v) {
			t.Fatalf("ParseStat(%q) = %q, which reads NaN", s, st)
		}
	})
}
