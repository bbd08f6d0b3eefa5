package record

import "time"

// Clock is what a run knew of its machine's wall clock when it started: its
// offset from a reference clock, and the kernel's own account of its
// synchronisation. Shards of one run on several machines compare these to
// say whether their record times can be put on one clock.
type Clock struct {
	// Source names how Offset was measured: "http-date" (the server's
	// Date headers); empty when it was not.
	Source string `json:"source,omitempty"`
	// Reference is what was read: the URL whose Date headers were used.
	Reference string `json:"reference,omitempty"`
	// Offset is the reference clock minus this machine's, in ns: the middle
	// of the range the samples allow. Uncertainty is half that range's
	// width: the true offset is within Offset ± Uncertainty.
	Offset      int64 `json:"offset_ns"`
	Uncertainty int64 `json:"uncertainty_ns"`
	Samples     int   `json:"samples,omitempty"`
	// NTP is the kernel's clock discipline status; nil where it cannot be
	// read (not Linux).
	NTP *NTP `json:"ntp,omitempty"`
}

// Measured reports whether c holds an offset estimate.
func (c *Clock) Measured() bool { return c != nil && c.Source != "" }

// NTP is the kernel's view of its clock's synchronisation (adjtimex).
type NTP struct {
	Synced   bool  `json:"synced"`       // a time daemon disciplines the clock
	EstError int64 `json:"est_error_ns"` // estimated error, ns
	MaxError int64 `json:"max_error_ns"` // maximum error, ns
}

// Shard describes the part of a sharded run one record file holds: shard
// Index of Count, sent from an agreed start.
type Shard struct {
	Index int `json:"index"`
	Count int `json:"count"`
	// Attempt counts runs of the same shard: 0 for the first, 1 for its
	// first retry (another file of the same run, named apart).
	Attempt int `json:"attempt,omitempty"`
	// StartAt is the agreed start of the run (--start-at), the epoch every
	// shard counts its schedule from; zero when none was agreed.
	StartAt time.Time `json:"start_at,omitzero"`
	// Ready is when this process was ready to send, before it waited for
	// StartAt: later than StartAt means the shard started late.
	Ready time.Time `json:"ready"`
	// Planned is how many requests this shard's schedule holds, and Total
	// how many the whole run's does; 0 when the run is bounded by time
	// alone and the counts are not known in advance.
	Planned int64 `json:"planned,omitempty"`
	Total   int64 `json:"total,omitempty"`
	// Skipped counts the requests of this shard's schedule that were not
	// sent because their time had passed when the shard started (a late
	// start, such as a retry after a failure): those scheduled before
	// SkippedBefore, in ns from the epoch.
	Skipped       int64 `json:"skipped,omitempty"`
	SkippedBefore int64 `json:"skipped_before_ns,omitempty"`
}

// Part describes one record file merged into another: where it came from,
// how it ended, and how far its times were moved to the merged epoch.
type Part struct {
	File    string `json:"file"`
	Records int64  `json:"records"`
	// Ended says how the part's run ended: "complete" (a trailer),
	// "interrupted" (a trailer marked so) or "cut off" (no trailer: the
	// writer was killed).
	Ended string `json:"ended"`
	Shift int64  `json:"shift_ns,omitempty"`
	Host  string `json:"host,omitempty"`
	Node  string `json:"node,omitempty"`
	Clock *Clock `json:"clock,omitempty"`
	Shard *Shard `json:"shard,omitempty"`
}

// Ways a part ended (Part.Ended).
const (
	EndedComplete    = "complete"
	EndedInterrupted = "interrupted"
	EndedCutOff      = "cut off"
)
