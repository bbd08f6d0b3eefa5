//go:build !linux

package clockskew

// NTP reports no status where the kernel's clock discipline cannot be read.
func NTP() (Status, bool) { return Status{}, false }
