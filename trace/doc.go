// Package trace reads request traces of LLM serving one row at a time: when
// each request arrived, its prompt and output lengths in tokens, and, where
// the trace has them, the ids of its prompt's prefix blocks.
//
// Five formats are read (see Format): Mooncake's JSON Lines with hash_ids,
// vLLM's timed_trace (the same kind of file, its field names and time unit
// given, see Timed), the Azure LLM inference trace's CSV, BurstGPT's CSV,
// and goodput's own JSON Lines. A Reader streams a file of any length in constant memory; a
// Window selects the rows of a time span; Scan reads a window once for what
// a replay must know before it starts (the arrival times and the trace's
// own statistics), and Reuse computes the prefix reuse a cache without
// bounds would see, the trace's theoretical block hit rate.
//
// Times are measured from the trace's first row, whatever the format's own
// origin (Mooncake counts from 0, Azure has wall-clock times, BurstGPT
// counts from midnight of its first day; vLLM sends a timed_trace's rows at
// their timestamps from 0, which is the same for a file that starts at 0,
// as Mooncake's do), so that a window's start means
// the same in every format. Rows must be in time order: a row earlier than
// the one before it is an error, since a replay sends rows in file order.
package trace
