// Package clockskew estimates how far this machine's wall clock is from a
// server's, from the Date headers of its HTTP responses, and reads the
// kernel's clock synchronisation status (NTP) where it can.
//
// The shards of one run, on several machines, each send their part of one
// schedule from an agreed wall-clock instant. Their records merge onto one
// clock only as well as those machines' clocks agree; each shard therefore
// measures its clock against the server they all load, a reference they
// share, and records the estimate in its run header for the merge to
// compare.
//
// A Date header has a resolution of one second, but where a server's second
// turns over can be found: a request sent so that the turn falls inside its
// round trip tells on which side the server read its clock. Probe places
// each request so, halving the range of possible offsets each time, down to
// about the round-trip time.
package clockskew
