package capacity

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Human formatting for Explain: about three significant digits, thousands
// separators, money with cents.

// num writes v with three significant digits and thousands separators:
// 16 → "16.0", 15.238 → "15.2", 4000 → "4,000", 0.347 → "0.347".
func num(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return fmt.Sprint(v)
	}
	a := math.Abs(v)
	switch {
	case a >= 99.95:
		return thousands(strconv.FormatFloat(v, 'f', 0, 64))
	case a >= 9.995:
		return strconv.FormatFloat(v, 'f', 1, 64)
	case a >= 0.9995 || a == 0:
		return strconv.FormatFloat(v, 'f', 2, 64)
	}
	dec := min(9, 2-int(math.Floor(math.Log10(a))))
	return strconv.FormatFloat(v, 'f', dec, 64)
}

// count writes a whole number with thousands separators.
func count(v float64) string { return thousands(strconv.FormatFloat(math.Round(v), 'f', 0, 64)) }

// seconds writes a latency: "4.20 s", "850 ms".
func seconds(s float64) string {
	if s < 1 {
		return num(s*1e3) + " ms"
	}
	return num(s) + " s"
}

// pct writes a fraction as a percentage: 0.2 → "20 %", 0.026 → "2.6 %".
func pct(f float64) string {
	p := f * 100
	if math.Abs(p) >= 9.95 {
		return thousands(strconv.FormatFloat(p, 'f', 0, 64)) + " %"
	}
	return strings.TrimSuffix(strconv.FormatFloat(p, 'f', 1, 64), ".0") + " %"
}

// formatMoney writes an amount with cents, or three significant digits
// below one unit so that a cost per million tokens keeps its precision:
// "$40.00", "$1,234.50", "$0.347".
func formatMoney(currency string, v float64) string {
	if currency == "" {
		currency = "$"
	}
	if math.Abs(v) >= 1 {
		return currency + thousands(strconv.FormatFloat(v, 'f', 2, 64))
	}
	return currency + num(v)
}

// thousands inserts a comma every three digits of the integer part.
func thousands(s string) string {
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
