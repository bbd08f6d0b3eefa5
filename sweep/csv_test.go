package sweep

import (
	"encoding/csv"
	"math"
	"strings"
	"testing"
)

func TestWriteCSV(t *testing.T) {
	a, _ := NewPoint(Concurrency(4), synth(2, 1, 1), synth(4, 1, 1))
	b := synth(8.5, 30, 0)
	b.TPOT.P99 = math.NaN()
	flood, _ := NewPoint(Rate(math.Inf(1)), b)
	var out strings.Builder
	if err := WriteCSV(&out, []Point{a, flood}); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(strings.NewReader(out.String())).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 3 {
		t.Fatalf("%d rows, want a header and 2 points", len(rows))
	}
	// 5 leading columns, then every stat's mean and its spread.
	if n := len(rows[0]); n != 5+2*len(Stats()) {
		t.Fatalf("%d columns, want %d", n, 5+2*len(Stats()))
	}
	col := map[string]int{}
	for i, h := range rows[0] {
		col[h] = i
	}
	tests := []struct {
		row  int
		col  string
		want string
	}{
		{1, "load", "concurrency=4"},
		{1, "mode", "concurrency"},
		{1, "value", "4"},
		{1, "repeats", "2"},
		{1, "requests", "1000"},
		{1, "request_throughput", "3"},                     // mean of 2 and 4
		{1, "request_throughput_sd", "1.4142135623730951"}, // √2
		{1, "output_throughput", "300"},
		{2, "load", "request_rate=inf"},
		{2, "value", "inf"},
		{2, "tpot_p99", ""}, // undefined: empty
		{2, "tpot_p99_sd", ""},
		{2, "e2e_mean", "30"},
		{2, "e2e_mean_sd", "0"}, // one repeat
		{2, "attainment", "0"},
	}
	for _, tt := range tests {
		i, ok := col[tt.col]
		if !ok {
			t.Fatalf("no column %q", tt.col)
		}
		if got := rows[tt.row][i]; got != tt.want {
			t.Errorf("row %d %s = %q, want %q", tt.row, tt.col, got, tt.want)
		}
	}
}
