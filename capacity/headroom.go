package capacity

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/goodput-dev/goodput/internal/human"
)

// MaxHeadroom is the largest headroom ParseHeadroom accepts: ten times the
// peak. More is almost certainly a percentage typed without its sign.
const MaxHeadroom = 10

// ParseHeadroom parses the --headroom flag: a fraction ("0.2") or a
// percentage ("20%", "20 %"), from 0 to MaxHeadroom (1000 %).
func ParseHeadroom(s string) (float64, error) {
	t := strings.TrimSpace(s)
	percent := strings.HasSuffix(t, "%")
	if percent {
		t = strings.TrimSpace(strings.TrimSuffix(t, "%"))
	}
	if !human.IsPlainDecimal(t) {
		return 0, fmt.Errorf("headroom %q: %s (want a fraction such as 0.2 or a percentage such as 20%%)", s, notPlain(t))
	}
	v, err := strconv.ParseFloat(t, 64)
	if err != nil {
		return 0, fmt.Errorf("headroom %q: %w", s, err)
	}
	if percent {
		v /= 100
	}
	if v > MaxHeadroom {
		if percent {
			return 0, fmt.Errorf("headroom %q: more than 1000 %%", s)
		}
		return 0, fmt.Errorf("headroom %q: more than %v (1000 %%); did you mean %s%%?", s, MaxHeadroom, t)
	}
	return v, nil
}

// notPlain says why t, which is not a plain decimal, is refused: what
// strconv would read as a number is named for what it is, so that "-50%"
// is not called "not a number".
func notPlain(t string) string {
	v, err := strconv.ParseFloat(t, 64)
	switch {
	case strings.HasPrefix(t, "-") && human.IsPlainDecimal(t[1:]):
		return "negative: headroom adds demand, it cannot take any away"
	case err != nil && !errors.Is(err, strconv.ErrRange):
		return "not a number"
	case err == nil && (math.IsNaN(v) || math.IsInf(v, 0)):
		return "not a finite number"
	}
	return "write it in plain digits, without an exponent or a sign"
}
