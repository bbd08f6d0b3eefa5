package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"
	"strings"

	"github.com/goodput-dev/goodput/internal/jsonerr"
	"github.com/goodput-dev/goodput/workload"
)

// rangeRatio is --random-range-ratio: one ratio for input and output
// lengths, or vLLM's JSON object {"input": r, "output": q}, both keys
// required as vLLM requires them. The range itself is checked with the
// workload.
type rangeRatio struct {
	dst *workload.RandomConfig
}

func (v rangeRatio) String() string {
	if o := v.dst.OutputRangeRatio; o != nil {
		return `{"input": ` + strconv.FormatFloat(v.dst.RangeRatio, 'g', -1, 64) + `, "output": ` + strconv.FormatFloat(*o, 'g', -1, 64) + `}`
	}
	return strconv.FormatFloat(v.dst.RangeRatio, 'g', -1, 64)
}

func (v rangeRatio) Type() string { return "ratio" }

func (v rangeRatio) Set(s string) error {
	if !strings.HasPrefix(strings.TrimSpace(s), "{") {
		r, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		if err != nil {
			return errors.New(`want a number in [0, 1), or {"input": r, "output": q}`)
		}
		v.dst.RangeRatio, v.dst.OutputRangeRatio = r, nil
		return nil
	}
	var m struct {
		Input, Output *float64
	}
	dec := json.NewDecoder(bytes.NewReader([]byte(s)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m); err != nil || m.Input == nil || m.Output == nil {
		return errors.New(`want {"input": r, "output": q}, each a number in [0, 1)`)
	}
	if err := jsonerr.Keys([]byte(s), &m); err != nil {
		return err
	}
	v.dst.RangeRatio, v.dst.OutputRangeRatio = *m.Input, m.Output
	return nil
}
