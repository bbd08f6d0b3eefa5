package runfile

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/big"
	"reflect"
	"strconv"
)

// decimal is a JSON number kept as the text it was written as, so that it
// converts to integer nanoseconds exactly: a float64 holds a Unix time in
// seconds (1767225610.25) to a quarter of a microsecond only, and a
// latency in milliseconds (1680.543782) not always to the nanosecond.
// It also reads null (unset) and the strings pythonNumbers makes of
// Python's NaN and infinities, which are refused when used.
type decimal struct {
	text string // the number's literal, or "NaN", "Infinity", "-Infinity"
	set  bool
}

func (d *decimal) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	switch string(b) {
	case "null":
		*d = decimal{}
		return nil
	case `"NaN"`, `"Infinity"`, `"-Infinity"`:
		*d = decimal{text: string(b[1 : len(b)-1]), set: true}
		return nil
	}
	if len(b) == 0 || b[0] != '-' && (b[0] < '0' || b[0] > '9') {
		return &json.UnmarshalTypeError{Value: jsonKind(b[0]), Type: reflect.TypeFor[float64]()}
	}
	*d = decimal{text: string(b), set: true}
	return nil
}

// present returns an error naming key when d is unset or one of the
// non-finite words Python writes (NaN, Infinity, -Infinity).
func (d decimal) present(key string) error {
	switch {
	case !d.set:
		return fmt.Errorf("%s is missing", key)
	case d.text == "NaN" || d.text == "Infinity" || d.text == "-Infinity":
		return fmt.Errorf("%s is %s", key, d.text)
	}
	return nil
}

// scaled returns d times unit, rounded to the nearest integer (halves away
// from zero): d in seconds with unit 1e9 gives nanoseconds. key names the
// value in errors. An unset d is an error; callers check set first where
// the value is optional.
func (d decimal) scaled(unit int64, key string) (int64, error) {
	if err := d.present(key); err != nil {
		return 0, err
	}
	f, err := strconv.ParseFloat(d.text, 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return 0, fmt.Errorf("%s: %q is not a number", key, d.text)
	}
	// Exactness matters within the range of times; far outside it the
	// float says enough, and a huge exponent would make big.Rat work
	// for ever.
	if v := math.Abs(f) * float64(unit); v > 1<<62 || math.IsInf(v, 0) {
		return 0, fmt.Errorf("%s = %s is out of range", key, d.text)
	} else if v < 1e-3 {
		return 0, nil
	} else if len(d.text) > 40 {
		// More digits than a nanosecond needs: the float is as good.
		return int64(math.Copysign(math.Round(v), f)), nil
	}
	r, ok := new(big.Rat).SetString(d.text)
	if !ok {
		return 0, fmt.Errorf("%s: %q is not a number", key, d.text)
	}
	r.Mul(r, new(big.Rat).SetInt64(unit))
	// Round half away from zero: (|num| + den/2) / den, signed.
	num, den := new(big.Int).Abs(r.Num()), r.Denom()
	q := new(big.Int).Add(num, new(big.Int).Rsh(den, 1))
	q.Quo(q, den)
	if r.Sign() < 0 {
		q.Neg(q)
	}
	if !q.IsInt64() || q.Int64() > 1<<62 || q.Int64() < -(1<<62) {
		return 0, fmt.Errorf("%s = %s is out of range", key, d.text)
	}
	return q.Int64(), nil
}

// float returns d as a float64, or an error naming key when it is unset
// or not finite.
func (d decimal) float(key string) (float64, error) {
	if err := d.present(key); err != nil {
		return 0, err
	}
	f, err := strconv.ParseFloat(d.text, 64)
	if err != nil || math.IsInf(f, 0) {
		return 0, fmt.Errorf("%s: %q is not a finite number", key, d.text)
	}
	return f, nil
}

// unitNanos is how many nanoseconds one of unit is, for the time units
// exports write; 0 for one that is not a time unit.
func unitNanos(unit string) int64 {
	switch unit {
	case "ns":
		return 1
	case "us", "µs", "μs":
		return 1e3
	case "ms":
		return 1e6
	case "s", "sec":
		return 1e9
	}
	return 0
}

// count returns d as a whole count of things (tokens), or an error naming
// key when it is not one.
func (d decimal) count(key string) (int, error) {
	f, err := d.float(key)
	if err != nil {
		return 0, err
	}
	if f < 0 || f > math.MaxInt32 || f != math.Trunc(f) {
		return 0, fmt.Errorf("%s = %s is not a count", key, d.text)
	}
	return int(f), nil
}
