package serverview

import (
	"math"
	"reflect"
	"testing"

	"github.com/goodput-dev/goodput/promscrape"
)

// The window's spec_decode counters give vLLM's figures: 600 of 900 draft
// tokens accepted over 300 drafts is 66.67 % and 3 tokens a step; the
// accepted tokens by position, summed over engines, over the drafts.
func TestSpecDecode(t *testing.T) {
	w := promscrape.Window{
		Counters: map[promscrape.Counter]float64{promscrape.SpecDrafts: 300, promscrape.SpecDraftTokens: 900, promscrape.SpecAcceptedTokens: 600},
		CounterSeries: map[promscrape.Counter]map[string]float64{promscrape.SpecAcceptedByPosition: {
			`engine="0",model_name="m",position="1"`:  120,
			`engine="1",model_name="m",position="1"`:  80,
			`engine="0",model_name="m",position="0"`:  250,
			`engine="0",model_name="m",position="10"`: 3,
			`engine="0",model_name="m"`:               7, // no position: left out
		}},
	}
	got := SpecDecodeOf(w)
	want := &SpecDecode{Drafts: 300, DraftTokens: 900, AcceptedTokens: 600, AcceptanceRate: ptr(600.0 / 900), AcceptanceLength: 3,
		ByPosition: []PositionAcceptance{{0, 250.0 / 300}, {1, 200.0 / 300}, {10, 3.0 / 300}}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("specDecode = %+v\nwant %+v", got, want)
	}
	if math.Abs(100**got.AcceptanceRate-66.666666) > 1e-4 {
		t.Errorf("acceptance rate %v", *got.AcceptanceRate)
	}
	// No draft token in the window: nothing to report, as vLLM reports
	// nothing then.
	w.Counters[promscrape.SpecDraftTokens] = 0
	if sd := SpecDecodeOf(w); sd != nil {
		t.Errorf("without draft tokens: %+v", sd)
	}
	if sd := SpecDecodeOf(promscrape.Window{}); sd != nil {
		t.Errorf("without the counters: %+v", sd)
	}
	// More accepted than drafted is no acceptance rate to print.
	w.Counters[promscrape.SpecDraftTokens], w.Counters[promscrape.SpecAcceptedTokens] = 100, 120
	if sd := SpecDecodeOf(w); sd != nil {
		t.Errorf("120 accepted of 100 drafted: %+v", sd)
	}
	if n := specNote(w); n != "speculative decoding not shown: the server counted 120 accepted of 100 draft tokens" {
		t.Errorf("note %q", n)
	}
}

func TestLabelInt(t *testing.T) {
	for _, tc := range []struct {
		key  string
		want int
		ok   bool
	}{
		{`position="3"`, 3, true},
		{`a="x,position=\"9\"",position="4"`, 4, true}, // a comma and the name inside another value
		{`position="x"`, 0, false},
		{`engine="0"`, 0, false},
		{``, 0, false},
		{`position=3`, 0, false}, // not a quoted value
	} {
		if got, ok := labelInt(tc.key, "position"); got != tc.want || ok != tc.ok {
			t.Errorf("labelInt(%q) = %d, %v; want %d, %v", tc.key, got, ok, tc.want, tc.ok)
		}
	}
}

func TestSpecDecodeString(t *testing.T) {
	sd := &SpecDecode{DraftTokens: 900, AcceptanceRate: ptr(600.0 / 900), AcceptanceLength: 3,
		ByPosition: []PositionAcceptance{{0, 250.0 / 300}, {1, 200.0 / 300}}}
	if got, want := sd.String(), "66.67 % of 900 draft tokens accepted, 3.00 tokens per step; by position 0: 83.3 %, 1: 66.7 %"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
}

// SGLang's gauges stand in where there are no counters: its own accept
// length and rate, said to be gauges; no acceptance without a rate gauge.
func TestSpecDecodeFromGauges(t *testing.T) {
	w := promscrape.Window{Gauges: map[promscrape.Gauge]promscrape.GaugeStats{
		promscrape.SpecAcceptLength: {Mean: 2.9, Peak: 3.1, Samples: 5},
		promscrape.SpecAcceptRate:   {Mean: 0.27, Peak: 0.3, Samples: 5},
	}}
	sd := SpecDecodeOf(w)
	if sd == nil || !sd.FromGauges || sd.AcceptanceLength != 2.9 || sd.AcceptanceRate == nil || *sd.AcceptanceRate != 0.27 || sd.DraftTokens != 0 {
		t.Fatalf("SpecDecodeOf = %+v", sd)
	}
	if got, want := sd.String(), "27.00 % of draft tokens accepted, 2.90 tokens per step (the server's gauges, mean over the window's scrapes)"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
	delete(w.Gauges, promscrape.SpecAcceptRate)
	if sd := SpecDecodeOf(w); sd == nil || sd.AcceptanceRate != nil || sd.String() != "2.90 tokens per step (the server's gauges, mean over the window's scrapes)" {
		t.Errorf("without a rate gauge: %+v", sd)
	}
	// A length below one step's own token is no speculative decoding.
	w.Gauges[promscrape.SpecAcceptLength] = promscrape.GaugeStats{Mean: 0}
	if sd := SpecDecodeOf(w); sd != nil {
		t.Errorf("length 0: %+v", sd)
	}
}
