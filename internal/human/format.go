// Package human handles numbers as people write and read them. It writes
// figures with about three significant digits, which is all a load test can
// honestly claim, thousands separators so that 1,310 reads at a glance, and
// a unit that keeps a latency short; sweep verdicts, tables and plans and
// the capacity planner's explanations all use it, so a figure reads the
// same wherever it is printed. It also checks that a flag's number is a
// plain decimal (IsPlainDecimal) before strconv parses it.
package human

import (
	"math"
	"strconv"
	"strings"
)

// Number writes v with three significant digits and thousands separators:
// 1310 → "1,310", 52.34 → "52.3", 5.2 → "5.20", 0.5 → "0.500"; below 1e-7
// it switches to exponent form ("1.5e-12"), and from 1e15, where the integer
// digits would be float noise, too ("1e+30"). NaN and infinities read "n/a",
// "inf" and "-inf".
func Number(v float64) string {
	switch {
	case math.IsNaN(v):
		return "n/a"
	case math.IsInf(v, 1):
		return "inf"
	case math.IsInf(v, -1):
		return "-inf"
	}
	a := math.Abs(v)
	var s string
	switch {
	case a >= 1e15:
		return strconv.FormatFloat(v, 'g', 3, 64)
	case a >= 99.95:
		s = strconv.FormatFloat(v, 'f', 0, 64)
	case a >= 9.995:
		s = strconv.FormatFloat(v, 'f', 1, 64)
	case a >= 0.9995 || a == 0:
		s = strconv.FormatFloat(v, 'f', 2, 64)
	default:
		// Three significant digits, keeping trailing zeros ("0.500").
		dec := 2 - int(math.Floor(math.Log10(a)))
		if dec > 9 {
			return strconv.FormatFloat(v, 'g', 3, 64)
		}
		s = strconv.FormatFloat(v, 'f', dec, 64)
	}
	return Thousands(s)
}

// Brief writes v as a chart labels it: three significant digits with
// trailing zeros dropped, whole from 100 up, never in exponent form and
// without separators: 0.0123, 1.5, 123, 12346. NaN and infinities read
// "n/a". Tables and summaries use Number, which keeps the digits aligned.
func Brief(v float64) string {
	switch {
	case math.IsNaN(v) || math.IsInf(v, 0):
		return "n/a"
	case v == 0:
		return "0"
	case math.Abs(v) >= 100:
		return strconv.FormatFloat(math.Round(v), 'f', 0, 64)
	}
	return trimZeros(strconv.FormatFloat(v, 'f', max(0, 2-int(math.Floor(math.Log10(math.Abs(v))))), 64))
}

// trimZeros drops the trailing zeros of a decimal fraction, and its point
// when nothing is left after it: "1.50" → "1.5", "2.000" → "2".
func trimZeros(s string) string {
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s
}

// Thousands inserts a comma every three digits of the integer part of a
// number already formatted by strconv ("-1234567.5" → "-1,234,567.5").
// Exponent forms pass through unchanged. Callers that format with their
// own precision (money with cents) use it directly.
func Thousands(s string) string {
	if strings.ContainsAny(s, "eE") {
		return s
	}
	sign := ""
	if strings.HasPrefix(s, "-") {
		sign, s = "-", s[1:]
	}
	intPart, frac, hasFrac := strings.Cut(s, ".")
	var b strings.Builder
	b.WriteString(sign)
	for i, c := range intPart {
		if i > 0 && (len(intPart)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if hasFrac {
		b.WriteByte('.')
		b.WriteString(frac)
	}
	return b.String()
}

// Count writes v rounded to a whole number with thousands separators:
// 1024 → "1,024". NaN and infinities read as Number writes them.
func Count(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return Number(v)
	}
	return Thousands(strconv.FormatFloat(math.Round(v), 'f', 0, 64))
}

// Seconds writes a latency in the unit that keeps it readable: "850 µs",
// "420 ms", "38.2 ms", "4.20 s".
func Seconds(s float64) string {
	switch {
	case math.IsNaN(s):
		return "n/a"
	case math.IsInf(s, 0):
		return Number(s) + " s"
	}
	a := math.Abs(s)
	switch {
	case a == 0:
		return "0 s"
	case a < 0.0009995:
		return Number(s*1e6) + " µs"
	case a < 0.9995:
		return Number(s*1e3) + " ms"
	}
	return Number(s) + " s"
}

// Percent writes a fraction as a percentage with a space before the sign:
// 0.03 → "3 %", 0.026 → "2.6 %", 0.964 → "96 %". Below ten percent one
// decimal is kept unless it is zero; just below 100 % as many as show it
// is not 100 (0.995 → "99.5 %", 0.9999 → "99.9 %"). NaN and infinities
// read "n/a".
func Percent(f float64) string {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return "n/a"
	}
	p := f * 100
	if p >= 99.5 && p < 100 {
		// Never "100 %" for what fell short of it: 99.5 % of requests
		// meeting an SLO is not all of them. Truncated, not rounded,
		// to the first decimal that shows the gap.
		for d := 1; ; d++ {
			scale := math.Pow(10, float64(d))
			if t := math.Floor(p*scale) / scale; t < 100 || d == 6 {
				return strconv.FormatFloat(t, 'f', d, 64) + " %"
			}
		}
	}
	if math.Abs(p) >= 9.95 {
		return Thousands(strconv.FormatFloat(p, 'f', 0, 64)) + " %"
	}
	s := strconv.FormatFloat(p, 'f', 1, 64)
	s = strings.TrimSuffix(s, ".0")
	if s == "-0" {
		s = "0"
	}
	return s + " %"
}

// Factor writes a ratio as a multiplier: 4.06 → "4.1×", 12.4 → "12×". NaN
// and infinities read "n/a".
func Factor(r float64) string {
	if math.IsNaN(r) || math.IsInf(r, 0) {
		return "n/a"
	}
	if math.Abs(r) >= 9.95 {
		return Thousands(strconv.FormatFloat(r, 'f', 0, 64)) + "×"
	}
	return strconv.FormatFloat(r, 'f', 1, 64) + "×"
}
