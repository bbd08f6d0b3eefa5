//go:build !linux

package finesleep

import "time"

// Sleeper sleeps on a Go timer (see the package doc).
type Sleeper struct{}

// New returns a Sleeper; Close releases it.
func New() *Sleeper { return &Sleeper{} }

// For blocks for d.
func (*Sleeper) For(d time.Duration) {
	if d > 0 {
		time.Sleep(d)
	}
}

// Close does nothing.
func (*Sleeper) Close() error { return nil }
