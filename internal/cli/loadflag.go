package cli

import (
	"fmt"
	"strconv"
	"strings"
)

// oneLoad is the value of --max-concurrency: one whole number. A list,
// the habit of a sweep, gets advice instead of a parse error: bench's
// points at goodput sweep, sweep's at its --concurrency.
type oneLoad struct {
	dst *int
	// many is what a list of values is told; empty: bench's advice to
	// sweep them.
	many string
}

func (v oneLoad) String() string { return strconv.Itoa(*v.dst) }

func (v oneLoad) Type() string { return "int" }

func (v oneLoad) Set(s string) error {
	if strings.Contains(s, ",") {
		if v.many != "" {
			return fmt.Errorf(v.many, s)
		}
		return fmt.Errorf("bench runs one load; to measure several, run goodput sweep --concurrency %s", s)
	}
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil {
		return fmt.Errorf("want a whole number of requests")
	}
	*v.dst = n
	return nil
}
