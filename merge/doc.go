// Package merge reads the record files of one run, usually the shards of a
// sharded run sent from several machines, as one run: every record on the
// clock of the earliest file, so that percentiles over the whole run are
// exact (computed over all records, never averaged per shard).
//
// It also says what the files are worth together. Of a sharded run it
// names the shards that are missing, and those that are partial (cut off
// when their process was killed, interrupted, started late, or short of
// their planned requests), checks that the shards' sequence numbers
// together are the planned schedule, and compares the shards' start times
// and clocks: the merged window is reported with how long all shards were
// sending within it, and with how far the clocks may disagree.
//
// Use Open, then Each to stream the records (once), then Report.
package merge
