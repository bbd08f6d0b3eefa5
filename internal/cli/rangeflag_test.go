package cli

import (
	"testing"

	"github.com/goodput-dev/goodput/workload"
)

// --random-range-ratio takes one ratio, or vLLM's object with both keys.
func TestRangeRatioFlag(t *testing.T) {
	for _, tt := range []struct {
		arg       string
		input     float64
		output    float64
		separate  bool
		wantError bool
	}{
		{"0.25", 0.25, 0.25, false, false},
		{` {"input": 0.3, "output": 0.5}`, 0.3, 0.5, true, false},
		{`{"output": 0, "input": 0.9}`, 0.9, 0, true, false},
		{`{"input": 0.3}`, 0, 0, false, true},
		{`{"input": 0.3, "output": 0.5, "other": 1}`, 0, 0, false, true},
		{`{"input": "x", "output": 0.5}`, 0, 0, false, true},
		{"wide", 0, 0, false, true},
	} {
		var rc workload.RandomConfig
		err := rangeRatio{&rc}.Set(tt.arg)
		if (err != nil) != tt.wantError {
			t.Errorf("%s: error %v", tt.arg, err)
			continue
		}
		if err == nil && (rc.RangeRatio != tt.input || rc.OutputRatio() != tt.output || (rc.OutputRangeRatio != nil) != tt.separate) {
			t.Errorf("%s: input %v, output %v (apart %v)", tt.arg, rc.RangeRatio, rc.OutputRatio(), rc.OutputRangeRatio != nil)
		}
	}
}
