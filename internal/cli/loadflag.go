package cli

import (
	"fmt"
	"strconv"
	"strings"
)

// oneLoad is the value of bench's --max-concurrency: one whole number. A
// list, the habit of a sweep, is pointed at goodput sweep instead of
// failing with a parse error.
type oneLoad struct {
	dst *int
}

func (v oneLoad) String() string { return strconv.Itoa(*v.dst) }

func (v oneLoad) Type() string { return "int" }

func (v oneLoad) Set(s string) error {
	if strings.Contains(s, ",") {
		return fmt.Errorf("bench runs one load; to measure several, run goodput sweep --concurrency %s", s)
	}
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil {
		return fmt.Errorf("want a whole number of requests")
	}
	*v.dst = n
	return nil
}
