package cli

import (
	"errors"
	"math"
	"strconv"
	"strings"
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

// nonEmpty is a string flag that refuses an empty value: a script's unset
// variable ("--slo $SLO") must not stand for the flag's default.
type nonEmpty struct {
	dst  *string
	want string // what to give instead, for the error
}

func (v nonEmpty) String() string { return *v.dst }

func (v nonEmpty) Type() string { return "string" }

func (v nonEmpty) Set(s string) error {
	if strings.TrimSpace(s) == "" {
		return errors.New("empty: " + v.want)
	}
	*v.dst = s
	return nil
}
