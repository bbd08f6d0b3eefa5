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

// negated is a boolean flag that sets the opposite of its value into dst:
// --self-timed beside --no-self-timed, both writing one setting, so that the
// last one given wins, as with vLLM's argparse.
type negated struct{ dst *bool }

func (v negated) String() string { return strconv.FormatBool(!*v.dst) }

func (v negated) Type() string { return "bool" }

func (v negated) IsBoolFlag() bool { return true }

func (v negated) Set(s string) error {
	b, err := strconv.ParseBool(s)
	if err != nil {
		return errors.New("want true or false")
	}
	*v.dst = !b
	return nil
}

// positive is a float flag that takes a positive finite number only: for
// a factor whose 0 would otherwise read as "the default".
type positive struct{ dst *float64 }

func (v positive) String() string { return strconv.FormatFloat(*v.dst, 'g', -1, 64) }

func (v positive) Type() string { return "float" }

func (v positive) Set(s string) error {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) || f <= 0 {
		return errors.New("want a positive finite number")
	}
	*v.dst = f
	return nil
}
