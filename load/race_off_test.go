//go:build !race

package load

// raceEnabled reports whether the race detector is on; timing comparisons
// skip under it, since it slows the HTTP path several times over.
const raceEnabled = false
