//go:build !unix

package cpuload

import "time"

// Self returns 0: this system's process times are not read here.
func Self() time.Duration { return 0 }
