package sweep

import (
	"math"
	"strconv"
	"strings"
)

// Human formatting for verdicts, tables and plans. Figures keep about three
// significant digits, which is all a load test can honestly claim, and large
// ones get thousands separators so that 1,310 reads at a glance.

// formatNumber writes v with three significant digits and thousands
// separators: 1310 → "1,310", 52.34 → "52.3", 5.2 → "5.20", 0.5 →
// "0.500". NaN and infinities read "n/a" and "inf".
func formatNumber(v float64) string {
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
	return thousands(s)
}

// thousands inserts a comma every three digits of the integer part of a
// formatted number ("-1234567.5" → "-1,234,567.5"). Exponent forms pass
// through unchanged.
func thousands(s string) string {
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

// formatCount writes a whole number with thousands separators: 1024 →
// "1,024".
func formatCount(v float64) string {
	if !usable(v) {
		return formatNumber(v)
	}
	return thousands(strconv.FormatFloat(math.Round(v), 'f', 0, 64))
}

// formatSeconds writes a latency in the unit that keeps it readable:
// "850 µs", "420 ms", "38.2 ms", "4.20 s".
func formatSeconds(s float64) string {
	switch {
	case math.IsNaN(s):
		return "n/a"
	case math.IsInf(s, 0):
		return formatNumber(s) + " s"
	}
	a := math.Abs(s)
	switch {
	case a == 0:
		return "0 s"
	case a < 0.0009995:
		return formatNumber(s*1e6) + " µs"
	case a < 0.9995:
		return formatNumber(s*1e3) + " ms"
	}
	return formatNumber(s) + " s"
}

// formatPercent writes a fraction as a percentage with a space before the
// sign: 0.03 → "3 %", 0.026 → "2.6 %", 0.964 → "96 %". Below ten percent
// one decimal is kept unless it is zero.
func formatPercent(f float64) string {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return "n/a"
	}
	p := f * 100
	if math.Abs(p) >= 9.95 {
		return thousands(strconv.FormatFloat(p, 'f', 0, 64)) + " %"
	}
	s := strconv.FormatFloat(p, 'f', 1, 64)
	s = strings.TrimSuffix(s, ".0")
	if s == "-0" {
		s = "0"
	}
	return s + " %"
}

// formatFactor writes a ratio as a multiplier: 4.06 → "4.1×", 12.4 → "12×".
func formatFactor(r float64) string {
	if math.IsNaN(r) || math.IsInf(r, 0) {
		return "n/a"
	}
	if math.Abs(r) >= 9.95 {
		return thousands(strconv.FormatFloat(r, 'f', 0, 64)) + "×"
	}
	return strconv.FormatFloat(r, 'f', 1, 64) + "×"
}
