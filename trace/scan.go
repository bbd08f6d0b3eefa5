package trace

import (
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"
)

// Config names a trace file and the part of it to replay. Each field names
// its flag.
type Config struct {
	Path   string // --dataset-path
	Format Format // --trace-format; FormatAuto sniffs it
	Window Window
	// BlockSize is how many prompt tokens one hash id stands for
	// (--trace-block-size, or --timed-trace-chunk-hash-size); 0 means
	// DefaultBlockSize, Mooncake's 512, or DefaultChunkSize, vLLM's 16, for
	// FormatTimed.
	BlockSize int
	// Timed gives the fields and time unit of a FormatTimed trace.
	Timed Timed
}

// Block returns the block size in use.
func (c Config) Block() int {
	switch {
	case c.BlockSize != 0:
		return c.BlockSize
	case c.Format == FormatTimed:
		return DefaultChunkSize
	}
	return DefaultBlockSize
}

// Validate reports every problem of the config, naming its flags.
func (c Config) Validate() error {
	var errs []error
	dataset, blockFlag := "trace", "--trace-block-size"
	if c.Format == FormatTimed {
		dataset, blockFlag = "timed_trace", "--timed-trace-chunk-hash-size"
	}
	if c.Path == "" {
		errs = append(errs, fmt.Errorf("--dataset-name %s needs --dataset-path, the trace file", dataset))
	}
	if c.Format == FormatTimed {
		if err := c.Timed.Validate(); err != nil {
			errs = append(errs, err)
		}
	} else if _, err := ParseFormat(string(c.Format)); err != nil {
		errs = append(errs, err)
	}
	if c.BlockSize < 0 || c.BlockSize > MaxTokens {
		errs = append(errs, fmt.Errorf("%s must be in [1, %d], got %d", blockFlag, MaxTokens, c.BlockSize))
	}
	if err := c.Window.Validate(); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// Open opens the trace and returns its window's rows; the caller must
// Close them.
func (c Config) Open() (*Rows, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	r, err := open(c.Path, c.Format, c.Timed)
	if err != nil {
		return nil, err
	}
	return c.Window.Rows(r), nil
}

// Lengths are the minimum, maximum and sum of token lengths.
type Lengths struct {
	Min, Max int
	Sum      int64
}

func (l *Lengths) add(n int, first bool) {
	if first || n < l.Min {
		l.Min = n
	}
	l.Max = max(l.Max, n)
	l.Sum += int64(n)
}

// Summary is what one pass over a trace's window found.
type Summary struct {
	Name    string // the file
	Format  Format
	Window  Window
	Rows    int            // rows in the window
	Skipped map[string]int // rows skipped before the window's end, by reason
	// First and Last are the trace times of the window's first and last rows.
	First, Last   time.Duration
	Input, Output Lengths
	// HashRows counts the rows with hash ids; PromptTokens and ReusedTokens
	// are the prompt tokens of those rows and how many of them a prefix
	// cache without bounds would serve (see Reuse), at BlockSize tokens an id.
	HashRows                   int
	BlockSize                  int
	PromptTokens, ReusedTokens int64
	// Timed is the fields and time unit a FormatTimed trace was read with.
	Timed Timed
	// Times holds each row's arrival from the window's first row, when Scan
	// was asked for them (8 bytes a row).
	Times []time.Duration
}

// Span returns the time from the window's first row to its last.
func (s *Summary) Span() time.Duration { return s.Last - s.First }

// MeanRate returns the window's mean arrival rate in requests per second,
// (rows − 1) over the span; 0 when the span is empty.
func (s *Summary) MeanRate() float64 {
	if sp := s.Span(); sp > 0 {
		return float64(s.Rows-1) / sp.Seconds()
	}
	return 0
}

// HitRate returns the theoretical prefix-cache hit rate: reusable prompt
// tokens over the prompt tokens of the rows with hash ids; 0 without any.
func (s *Summary) HitRate() float64 {
	if s.PromptTokens == 0 {
		return 0
	}
	return float64(s.ReusedTokens) / float64(s.PromptTokens)
}

// Scan reads the window of c once and summarises it, keeping each row's
// arrival time when times is set. It fails when the window holds no row.
func Scan(c Config, times bool) (*Summary, error) {
	rows, err := c.Open()
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	s := &Summary{Name: c.Path, Format: rows.Reader().Format(), Window: c.Window, BlockSize: c.Block()}
	if s.Format == FormatTimed {
		s.Timed = c.Timed.withDefaults()
	}
	reuse := NewReuse(s.BlockSize)
	for {
		row, err := rows.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		first := s.Rows == 0
		if first {
			s.First = row.At
		}
		s.Last = row.At
		s.Rows++
		s.Input.add(row.Input, first)
		s.Output.add(row.Output, first)
		if row.HashIDs != nil {
			s.HashRows++
			s.PromptTokens += int64(row.Input)
			s.ReusedTokens += int64(reuse.Add(row.HashIDs, row.Input))
		}
		if times {
			s.Times = append(s.Times, row.At-s.First)
		}
	}
	s.Skipped = rows.Reader().Skipped()
	if s.Rows == 0 {
		where := "the trace"
		if w := c.Window.String(); w != "" {
			where = "the window " + w
		}
		return nil, fmt.Errorf("%s: %s holds no row to replay%s", c.Path, where, skippedText(s.Skipped))
	}
	return s, nil
}

// String describes the window in one line: rows, span and rate, lengths,
// and the theoretical prefix reuse.
func (s *Summary) String() string {
	var b strings.Builder
	if s.Format == FormatTimed {
		fmt.Fprintf(&b, "vLLM's timed_trace of %s (%s, %d prompt tokens per hash id): %d rows", s.Name, s.Timed, s.BlockSize, s.Rows)
	} else {
		fmt.Fprintf(&b, "%s trace %s: %d rows", s.Format, s.Name, s.Rows)
	}
	if w := s.Window.String(); w != "" {
		fmt.Fprintf(&b, " %s", w)
	}
	fmt.Fprintf(&b, " over %v", s.Span())
	if r := s.MeanRate(); r > 0 {
		fmt.Fprintf(&b, " (mean %.3g req/s)", r)
	}
	b.WriteString(skippedText(s.Skipped))
	n := float64(s.Rows)
	fmt.Fprintf(&b, "; input tokens %d–%d (mean %.1f); output tokens %d–%d (mean %.1f)",
		s.Input.Min, s.Input.Max, float64(s.Input.Sum)/n, s.Output.Min, s.Output.Max, float64(s.Output.Sum)/n)
	if s.HashRows > 0 {
		fmt.Fprintf(&b, "; prompts share %d-token blocks by hash id: theoretical prefix hit rate %.1f%% over these rows at the trace's lengths", s.BlockSize, 100*s.HitRate())
	}
	return b.String()
}

// skippedText says which rows were skipped, "" when none.
func skippedText(skipped map[string]int) string {
	if len(skipped) == 0 {
		return ""
	}
	reasons := make([]string, 0, len(skipped))
	for r, n := range skipped {
		reasons = append(reasons, fmt.Sprintf("%d %s", n, r))
	}
	sort.Strings(reasons)
	return " (skipped: " + strings.Join(reasons, ", ") + ")"
}
