package workload

import (
	"math"
	"strings"
	"testing"
)

// Each of genai-bench's text scenarios sets the random dataset's lengths;
// the others are refused with what goodput takes.
func TestApplyScenario(t *testing.T) {
	tests := []struct {
		scenario        string
		in, out, prefix int
		inDist, outDist *Dist
		err             string // in the error; "" for none
	}{
		{"D(100,1000)", 100, 1000, 0, nil, nil, ""},
		{"N(480,240)/(300,150)", 480, 300, 0, &Dist{Normal: true, Mean: 480, SD: 240, Lo: 1}, &Dist{Normal: true, Mean: 300, SD: 150, Lo: 2}, ""},
		{"U(50,100)/(200,250)", 75, 225, 0, &Dist{Lo: 50, Hi: 100}, &Dist{Lo: 200, Hi: 250}, ""},
		{"U(1024,128)", 512, 64, 0, &Dist{Lo: 1, Hi: 1024}, &Dist{Lo: 1, Hi: 128}, ""},
		{"P(2000,500)/200", 500, 200, 2000, nil, nil, ""},

		{"U(100,50)/(1,2)", 0, 0, 0, nil, nil, "a uniform range is (least,most), least first"},
		{"E(1024)", 0, 0, 0, nil, nil, "embedding and rerank scenarios are not supported"},
		{"R(1024,100)", 0, 0, 0, nil, nil, "embedding and rerank scenarios are not supported"},
		{"I(512,512)", 0, 0, 0, nil, nil, "multimodal scenarios are not supported"},
		{"D(100, 1000)", 0, 0, 0, nil, nil, "want D(in,out), N(mean,sd)/(mean,sd)"},
		{"N(480,240)", 0, 0, 0, nil, nil, "want D(in,out)"},
		{"d(1,1)", 0, 0, 0, nil, nil, "want D(in,out)"},
		{"D(99999999999999999999,10)", 0, 0, 0, nil, nil, "99999999999999999999 tokens is more than any run sends"},
		{"D(10,20000000)", 0, 0, 0, nil, nil, "20000000 tokens is more than any run sends"},
	}
	same := func(a, b *Dist) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }
	for _, tt := range tests {
		c := DefaultConfig()
		c.Dataset = DatasetShareGPT
		err := c.ApplyScenario(tt.scenario)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) || !strings.Contains(err.Error(), tt.scenario) {
				t.Errorf("%s: error %v, want one naming it and saying %q", tt.scenario, err, tt.err)
			}
			continue
		}
		r := c.Random
		if err != nil || c.Dataset != DatasetRandom || c.Scenario != tt.scenario || r.InputLen != tt.in || r.OutputLen != tt.out ||
			r.PrefixLen != tt.prefix || r.RangeRatio != 0 || !same(r.InputDist, tt.inDist) || !same(r.OutputDist, tt.outDist) {
			t.Errorf("%s: %v, dataset %s, random %+v (dists %+v, %+v)", tt.scenario, err, c.Dataset, r, r.InputDist, r.OutputDist)
		}
		if err := c.Validate(); err != nil {
			t.Errorf("%s: %v", tt.scenario, err)
		}
	}
}

// Lengths a scenario asks for are outside what a run can send: refused
// with the scenario's flag.
func TestScenarioLengthsAreChecked(t *testing.T) {
	for s, want := range map[string]string{
		"U(0,10)/(1,5)":      "--traffic-scenario: prompt lengths want 1 to",
		"U(1,10)/(0,5)":      "--traffic-scenario: answer lengths want 1 to",
		"U(1,9999999)/(1,5)": "--traffic-scenario: prompt lengths want 1 to 1048576 tokens, got 1 to 9999999",
		"N(0,5)/(10,5)":      "--traffic-scenario: prompt lengths want a mean of 1 or more",
		"N(10,5)/(0,5)":      "--traffic-scenario: answer lengths want a mean of 1 or more",
	} {
		c := DefaultConfig()
		if err := c.ApplyScenario(s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
		if err := c.Validate(); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", s, err, want)
		}
	}
}

// The random source draws a scenario's lengths from its distributions:
// uniform ones within their bounds and spread over them, normal ones with
// their mean and standard deviation, clamped at their least length.
func TestScenarioLengthsAreDrawn(t *testing.T) {
	const n = 4000
	draw := func(s string) (in, out []int, src *Random) {
		c := DefaultConfig()
		if err := c.ApplyScenario(s); err != nil {
			t.Fatal(err)
		}
		r, err := NewRandom(c)
		if err != nil {
			t.Fatal(err)
		}
		for i := range n {
			it := r.Item(int64(i))
			in, out = append(in, it.InputTokens), append(out, it.OutputTokens)
			if got := len(it.PromptTokenIDs); got != it.InputTokens {
				t.Fatalf("%s item %d: %d token ids for %d input tokens", s, i, got, it.InputTokens)
			}
		}
		return in, out, r
	}
	stats := func(v []int) (mean, sd float64, lo, hi int) {
		lo, hi = math.MaxInt, math.MinInt
		for _, x := range v {
			mean += float64(x)
			lo, hi = min(lo, x), max(hi, x)
		}
		mean /= float64(len(v))
		for _, x := range v {
			sd += (float64(x) - mean) * (float64(x) - mean)
		}
		return mean, math.Sqrt(sd / float64(len(v)-1)), lo, hi
	}

	in, out, r := draw("U(50,100)/(200,250)")
	if m, _, lo, hi := stats(in); lo != 50 || hi != 100 || math.Abs(m-75) > 1 {
		t.Errorf("uniform prompts: mean %.2f in [%d, %d], want about 75 in [50, 100]", m, lo, hi)
	}
	if m, _, lo, hi := stats(out); lo != 200 || hi != 250 || math.Abs(m-225) > 1 {
		t.Errorf("uniform answers: mean %.2f in [%d, %d], want about 225 in [200, 250]", m, lo, hi)
	}
	if got, want := r.String(), "random (traffic scenario U(50,100)/(200,250)): input 50–100 tokens, output 200–250 tokens, seed 0"; got != want {
		t.Errorf("described as %q, want %q", got, want)
	}

	// Rounding down takes half a token off the mean.
	in, out, r = draw("N(480,40)/(300,30)")
	if m, sd, _, _ := stats(in); math.Abs(m-479.5) > 2.5 || math.Abs(sd-40) > 2 {
		t.Errorf("normal prompts: mean %.2f sd %.2f, want 479.5 and 40", m, sd)
	}
	if m, sd, _, _ := stats(out); math.Abs(m-299.5) > 2 || math.Abs(sd-30) > 1.5 {
		t.Errorf("normal answers: mean %.2f sd %.2f, want 299.5 and 30", m, sd)
	}
	if got, want := r.String(), "random (traffic scenario N(480,40)/(300,30)): input normal (mean 480, sd 40, at least 1) tokens, output normal (mean 300, sd 30, at least 2) tokens, seed 0"; got != want {
		t.Errorf("described as %q, want %q", got, want)
	}
	// A spread as wide as the mean is clamped at the least length.
	in, out, _ = draw("N(10,20)/(4,8)")
	if _, _, lo, _ := stats(in); lo != 1 {
		t.Errorf("wide normal prompts: least %d, want 1", lo)
	}
	if _, _, lo, _ := stats(out); lo != 2 {
		t.Errorf("wide normal answers: least %d, want 2", lo)
	}

	in, out, _ = draw("P(200,50)/20")
	if _, _, lo, hi := stats(in); lo != 250 || hi != 250 {
		t.Errorf("prefix scenario prompts: %d to %d tokens, want 250", lo, hi)
	}
	if _, _, lo, hi := stats(out); lo != 20 || hi != 20 {
		t.Errorf("prefix scenario answers: %d to %d tokens, want 20", lo, hi)
	}
}
