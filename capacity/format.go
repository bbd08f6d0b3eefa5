package capacity

import (
	"math"
	"strconv"

	"github.com/goodput-dev/goodput/internal/human"
)

// Human formatting for Explain beyond what package human gives: money, and
// a latency that stays in milliseconds below a second, as the --latency
// flag it echoes is usually written.

// seconds writes a latency: "4.20 s", "850 ms".
func seconds(s float64) string {
	if s < 1 {
		return human.Number(s*1e3) + " ms"
	}
	return human.Number(s) + " s"
}

// formatMoney writes an amount with cents, or three significant digits
// below one unit so that a cost per million tokens keeps its precision:
// "$40.00", "$1,234.50", "$0.347".
func formatMoney(currency string, v float64) string {
	if currency == "" {
		currency = "$"
	}
	if math.Abs(v) >= 1 {
		return currency + human.Thousands(strconv.FormatFloat(v, 'f', 2, 64))
	}
	return currency + human.Number(v)
}
