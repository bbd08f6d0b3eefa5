package sweep

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/goodput-dev/goodput/internal/human"
)

// Mode says how a load is offered: as a number of requests kept in flight
// (closed loop) or as a rate of arrivals (open loop).
type Mode string

// Load modes. Their names are the ones written to sweep files.
const (
	ModeConcurrency Mode = "concurrency"  // closed loop: Value requests in flight
	ModeRate        Mode = "request_rate" // open loop: Value arrivals per second
)

// MaxConcurrency is the largest concurrency a Load may ask for. It keeps
// every concurrency representable as an int on any platform and far above
// what one server can hold.
const MaxConcurrency = 1 << 20

// Load is one offered load level.
//
// For ModeConcurrency, Value is a whole number in [1, MaxConcurrency]. For
// ModeRate, Value is a positive number of requests per second, or +Inf for
// an unbounded rate (every request sent at once, as `vllm bench serve
// --request-rate inf` does).
type Load struct {
	Mode  Mode
	Value float64
}

// Concurrency returns a closed-loop load of n requests in flight.
func Concurrency(n int) Load { return Load{Mode: ModeConcurrency, Value: float64(n)} }

// Rate returns an open-loop load of r requests per second; math.Inf(1)
// means unbounded.
func Rate(r float64) Load { return Load{Mode: ModeRate, Value: r} }

// Unbounded reports whether l is an unbounded request rate.
func (l Load) Unbounded() bool { return l.Mode == ModeRate && math.IsInf(l.Value, 1) }

// IsZero reports whether l is the zero Load, which means "not set".
func (l Load) IsZero() bool { return l == Load{} }

// Validate reports why l is not a load that can be offered.
func (l Load) Validate() error {
	switch l.Mode {
	case ModeConcurrency:
		if math.IsNaN(l.Value) || l.Value < 1 || l.Value > MaxConcurrency || l.Value != math.Trunc(l.Value) {
			return fmt.Errorf("concurrency %v: must be a whole number from 1 to %d", l.Value, MaxConcurrency)
		}
	case ModeRate:
		if math.IsNaN(l.Value) || l.Value <= 0 {
			return fmt.Errorf("request rate %v: must be positive (or inf)", l.Value)
		}
	case "":
		return errors.New("load: no mode (want concurrency or request_rate)")
	default:
		return fmt.Errorf("load mode %q: unknown (want concurrency or request_rate)", string(l.Mode))
	}
	return nil
}

// String returns the canonical text form, "concurrency=16",
// "request_rate=2.5" or "request_rate=inf", which ParseLoad reads back.
func (l Load) String() string {
	return string(l.Mode) + "=" + l.value()
}

// value formats Value alone: "16", "2.5", "inf".
func (l Load) value() string {
	if math.IsInf(l.Value, 1) {
		return "inf"
	}
	return strconv.FormatFloat(l.Value, 'f', -1, 64)
}

// Short is the load as a bare figure for prose and tables: "16" for a
// concurrency, "2.5 req/s" for a rate, "inf req/s" when unbounded.
func (l Load) Short() string {
	if l.Mode == ModeRate {
		if l.Unbounded() {
			return "inf req/s"
		}
		return human.Number(l.Value) + " req/s"
	}
	return l.value()
}

// Phrase is the load as it reads in a sentence after "at": "16 concurrent
// requests", "an offered 2.5 req/s", "an unbounded request rate".
func (l Load) Phrase() string {
	switch {
	case l.Mode == ModeConcurrency && l.Value == 1:
		return "1 concurrent request"
	case l.Mode == ModeConcurrency:
		return human.Count(l.Value) + " concurrent requests"
	case l.Unbounded():
		return "an unbounded request rate"
	}
	return "an offered " + human.Number(l.Value) + " req/s"
}

// MarshalText writes the canonical form (String); it fails for an invalid
// load so that a sweep file never holds one.
func (l Load) MarshalText() ([]byte, error) {
	if err := l.Validate(); err != nil {
		return nil, err
	}
	return []byte(l.String()), nil
}

// UnmarshalText is the inverse of MarshalText.
func (l *Load) UnmarshalText(b []byte) error {
	v, err := ParseLoad(string(b))
	if err != nil {
		return err
	}
	*l = v
	return nil
}

// ParseLoad parses the canonical form "mode=value" written by String. The
// mode may also be spelt "c" or "rate" ("c=16", "rate=inf").
func ParseLoad(s string) (Load, error) {
	name, val, ok := strings.Cut(strings.TrimSpace(s), "=")
	if !ok {
		return Load{}, fmt.Errorf("load %q: want mode=value, e.g. concurrency=16 or request_rate=2.5", s)
	}
	var mode Mode
	switch strings.ToLower(strings.TrimSpace(name)) {
	case "concurrency", "c":
		mode = ModeConcurrency
	case "request_rate", "request-rate", "rate":
		mode = ModeRate
	default:
		return Load{}, fmt.Errorf("load %q: unknown mode %q (want concurrency or request_rate)", s, name)
	}
	l, err := parseValue(mode, strings.TrimSpace(val))
	if err != nil {
		return Load{}, fmt.Errorf("load %q: %w", s, err)
	}
	return l, nil
}

// ParseLoads parses the value of --concurrency ("1,2,4,8") or
// --request-rate ("0.5,1,2,inf"): comma-separated values of one mode. Errors
// name the offending item by position. The list is returned as written; a
// Plan sorts it.
func ParseLoads(mode Mode, s string) ([]Load, error) {
	if mode != ModeConcurrency && mode != ModeRate {
		return nil, fmt.Errorf("load mode %q: unknown (want concurrency or request_rate)", string(mode))
	}
	if strings.TrimSpace(s) == "" {
		return nil, fmt.Errorf("%s list %q: empty", mode, s)
	}
	items := strings.Split(s, ",")
	out := make([]Load, 0, len(items))
	for i, it := range items {
		l, err := parseValue(mode, strings.TrimSpace(it))
		if err != nil {
			return nil, fmt.Errorf("%s list %q: item %d: %w", mode, s, i+1, err)
		}
		for j, prev := range out {
			if sameLoad(prev, l) {
				return nil, fmt.Errorf("%s list %q: item %d: %s repeats item %d", mode, s, i+1, l.value(), j+1)
			}
		}
		out = append(out, l)
	}
	return out, nil
}

// parseValue reads one load value of the given mode.
func parseValue(mode Mode, v string) (Load, error) {
	if v == "" {
		return Load{}, errors.New("empty value")
	}
	if mode == ModeConcurrency {
		if !isDigits(v) {
			return Load{}, fmt.Errorf("concurrency %q: not a whole number", v)
		}
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 1 || n > MaxConcurrency {
			return Load{}, fmt.Errorf("concurrency %q: must be a whole number from 1 to %d", v, MaxConcurrency)
		}
		return Concurrency(int(n)), nil
	}
	if strings.EqualFold(v, "inf") {
		return Rate(math.Inf(1)), nil
	}
	// ParseFloat alone would also take "nan", "0x1p3" and "1_0"; a rate is
	// written as a plain decimal, optionally with an exponent.
	if !isDecimal(v) {
		return Load{}, fmt.Errorf("request rate %q: not a number (want e.g. 2.5 or inf)", v)
	}
	r, err := strconv.ParseFloat(v, 64)
	if err != nil || math.IsInf(r, 0) {
		return Load{}, fmt.Errorf("request rate %q: out of range", v)
	}
	l := Rate(r)
	if err := l.Validate(); err != nil {
		return Load{}, err
	}
	return l, nil
}

func isDigits(s string) bool {
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return s != ""
}

// isDecimal accepts an optional sign, digits with at most one point, and an
// optional exponent (e or E, optional sign, digits).
func isDecimal(s string) bool {
	if s != "" && (s[0] == '+' || s[0] == '-') {
		s = s[1:]
	}
	mant, exp, hasExp := strings.Cut(strings.ToLower(s), "e")
	if !human.IsPlainDecimal(mant) {
		return false
	}
	if hasExp {
		if exp != "" && (exp[0] == '+' || exp[0] == '-') {
			exp = exp[1:]
		}
		return isDigits(exp)
	}
	return true
}

// sameLoad reports whether a and b are the same load. Rates compare with a
// relative tolerance: a rate computed from a measured throughput and the
// same rate read back from a sweep file can differ in the last bits.
func sameLoad(a, b Load) bool {
	if a.Mode != b.Mode {
		return false
	}
	if a.Value == b.Value {
		return true
	}
	if math.IsInf(a.Value, 0) || math.IsInf(b.Value, 0) {
		return false
	}
	return math.Abs(a.Value-b.Value) <= 1e-9*math.Max(math.Abs(a.Value), math.Abs(b.Value))
}
