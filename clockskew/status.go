package clockskew

import "time"

// Status is the kernel's account of its clock's synchronisation.
type Status struct {
	Synced   bool          // a time daemon disciplines the clock
	EstError time.Duration // the kernel's estimated error
	MaxError time.Duration // the kernel's maximum error
}
