package arrival

import (
	"testing"
)

// BenchmarkSchedule measures drawing a 100,000-request schedule, what a
// long --dry-run or a large sharded run computes up front.
func BenchmarkSchedule(b *testing.B) {
	for _, bc := range []struct {
		name   string
		change func(*Config)
	}{
		{"poisson", nil},
		{"gamma0.5", func(c *Config) { c.Burstiness = 0.5 }},
		{"gamma4", func(c *Config) { c.Burstiness = 4 }},
		{"linear-ramp", func(c *Config) { c.Ramp = Ramp{RampLinear, 1, 60e9} }},
	} {
		c := cfg(bc.change)
		c.NumPrompts = 100000
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := c.Plan(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
