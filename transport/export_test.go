package transport

import (
	"testing"
	"time"
)

// WidenOrderedDial makes pools dial one connection at a time unless a dial
// takes d or more, for the rest of tb: a test of the order in which
// connections reach the server then holds on a loaded machine, whose
// loopback dials can take milliseconds. Call it before making transports.
func WidenOrderedDial(tb testing.TB, d time.Duration) {
	old := orderedDial
	orderedDial = d
	tb.Cleanup(func() { orderedDial = old })
}
