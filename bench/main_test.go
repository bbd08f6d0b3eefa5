//go:build unix

package bench

import (
	"os"
	"testing"

	"github.com/goodput-dev/goodput/internal/canned"
)

// TestMain lets the benchmarks run a canned server in a child process:
// this test binary again, serving instead of testing.
func TestMain(m *testing.M) {
	if code, ran := canned.ServeChild(); ran {
		os.Exit(code)
	}
	os.Exit(m.Run())
}
