package cli

import (
	"errors"
	"math"
	"strconv"
	"time"
)

// secondsOrDuration is a duration flag that also takes a bare number as
// seconds, as vLLM's --ready-check-timeout-sec does: a vLLM line that
// shortens that flag to --ready-check-timeout, goodput's own, keeps its
// meaning.
type secondsOrDuration struct {
	dst *time.Duration
}

func (v secondsOrDuration) String() string { return v.dst.String() }

func (v secondsOrDuration) Type() string { return "duration" }

func (v secondsOrDuration) Set(s string) error {
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		if math.IsNaN(f) || f < 0 || f > math.MaxInt64/float64(time.Second) {
			return errors.New("want a duration such as 90s, or a number of seconds ≥ 0")
		}
		*v.dst = time.Duration(f * float64(time.Second))
		return nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return errors.New("want a duration such as 90s, or a number of seconds")
	}
	*v.dst = d
	return nil
}
