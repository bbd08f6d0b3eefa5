package trace

import "time"

// DefaultBlockSize is the number of prompt tokens one hash id stands for in
// Mooncake's traces.
const DefaultBlockSize = 512

// MaxRows bounds the rows one replay takes (the arrival package's limit on a
// schedule), so that a mistake cannot exhaust memory.
const MaxRows = 10_000_000

// Limits on one row, past which a value is a unit mistake or corruption.
const (
	MaxTokens  = 1 << 24                    // prompt or output tokens of one request
	maxHashIDs = MaxTokens                  // hash ids of one row
	maxTime    = 100 * 365 * 24 * time.Hour // latest arrival after the first
	maxLine    = 64 << 20                   // bytes of one JSON line
)

// Row is one request of a trace.
type Row struct {
	Line int           // 1-based line of the row in its file
	At   time.Duration // arrival time, from the trace's first row
	// Input and Output are the prompt and output lengths in tokens, both
	// at least 1 (rows without are skipped, see Reader).
	Input, Output int
	// HashIDs are the ids of the prompt's blocks of BlockSize tokens, in
	// order: equal ids at the start of two prompts mean an equal prefix.
	// nil when the trace has none. The slice is only valid until the next
	// call to Next: copy it to keep it.
	HashIDs []int64
	// Prompt is the prompt's text, which only goodput's JSON Lines carry;
	// "" otherwise.
	Prompt string
}
