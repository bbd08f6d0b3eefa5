package slo

import "testing"

// FuzzParseConditions: no input panics, and whatever parses reads back from
// its String() to the same value.
func FuzzParseConditions(f *testing.F) {
	for _, s := range []string{
		"ttft<=500ms,tpot<=50ms,e2e<=10s,itl<=200ms",
		"ttft:500 tpot:50 e2el:2000",
		"ttft:0.5,tpot:12.25",
		"client_queue<1µs, ttft_sent>=1.5s inter_chunk>0ns",
		"ttft<=9223372036.854775807s",
		"ttft<=5xx", "", ",", "ttft<=", "ttft:", "e2e<=1.0000000001m", "TTFT <= 2m",
		"ttfa<=2s,tpot_reasoning<20ms,tpot_answer>=1ms", "ttfa:2000",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		cs, err := ParseConditions(s)
		if err != nil {
			return
		}
		if len(cs) == 0 {
			t.Fatalf("%q parsed to no conditions", s)
		}
		back, err := ParseConditions(cs.String())
		if err != nil {
			t.Fatalf("%q → %q: %v", s, cs.String(), err)
		}
		if !equalConditions(back, cs) {
			t.Fatalf("%q → %q → %v, want %v", s, cs.String(), back, cs)
		}
	})
}

// FuzzParseGate: no input panics, and whatever parses reads back from its
// String() to the same value.
func FuzzParseGate(f *testing.F) {
	for _, s := range []string{
		"p99(ttft)<=500ms", "p99.9(itl)<0.1s", "mean(tpot)<40ms", "max(e2e)<=10s",
		"attainment>=0.9", "attainment>=90%", "goodput>=1000", "error_rate<=0.01",
		"p0(e2el)>=1ns", "std(itl)<5us", "p101(ttft)<1s", "p(ttft)", "goodput>=1e3", "",
		"p90(ttfa)<=2s", "mean(tpot_reasoning)<20ms", "max(tpot_answer)<=1s",
		"session_goodput>=100", "session_attainment>=80%", "p99(session_duration)<=30s",
		"task_goodput>0.5", "task_attainment<=1", "median(task_completion)<1m",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		g, err := ParseGate(s)
		if err != nil {
			return
		}
		back, err := ParseGate(g.String())
		if err != nil {
			t.Fatalf("%q → %q: %v", s, g.String(), err)
		}
		if back != g {
			t.Fatalf("%q → %q → %+v, want %+v", s, g.String(), back, g)
		}
	})
}
