package workload

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/trace"
)

// timedFile is a timed trace written by a tool of its own: fields renamed,
// timestamps in milliseconds, one length written as a float, one hash id
// past int64, and rows without ids (one without the field, one null).
const timedFile = `{"t_ms": 0, "prompt_len": 40, "gen_len": 8, "ids": [981, 4412, 7]}
{"t_ms": 12.5, "prompt_len": 512.0, "gen_len": 3, "ids": [981, 4412, 18446744073709551615, 5]}
{"t_ms": 250, "prompt_len": 20, "gen_len": 1, "ids": [981, 77]}
{"t_ms": 1250, "prompt_len": 24, "gen_len": 2}
{"t_ms": 1250, "prompt_len": 24, "gen_len": 5, "ids": null}
`

// timedConfig is the timed_trace config that reads timedFile, written to a
// temporary directory.
func timedConfig(t *testing.T, change func(*Config)) Config {
	t.Helper()
	path := filepath.Join(t.TempDir(), "timed.jsonl")
	if err := os.WriteFile(path, []byte(timedFile), 0o644); err != nil {
		t.Fatal(err)
	}
	c := DefaultConfig()
	c.Dataset, c.Path, c.Seed = DatasetTimedTrace, path, 3
	c.TimedTrace.Fields = trace.Timed{Timestamp: "t_ms", InputLength: "prompt_len", OutputLength: "gen_len", HashIDs: "ids", SecMultiplier: 0.001}
	if change != nil {
		change(&c)
	}
	return c
}

// vLLM's timed_trace replays its rows in file order at timestamp ×
// multiplier seconds, each prompt exactly its row's length in token ids,
// built from 16-token chunks, one per hash id, the same wherever the id
// appears: two prompts that begin with the same ids begin with the same
// tokens, and a server's prefix cache sees the trace's reuse.
func TestTimedTraceReplaysItsRows(t *testing.T) {
	c := timedConfig(t, nil)
	src := newTrace(t, c)
	if src.Len() != 5 {
		t.Fatalf("Len = %d, want the file's 5 rows", src.Len())
	}
	times, err := c.Arrivals().Times(0, 0)
	if err != nil {
		t.Fatal(err)
	}
	ms := time.Millisecond
	if want := []time.Duration{0, 12500 * time.Microsecond, 250 * ms, 1250 * ms, 1250 * ms}; !slices.Equal(times, want) {
		t.Errorf("arrivals %v, want %v", times, want)
	}
	items := make([]Item, 5)
	for i, want := range []struct{ in, out int }{{40, 8}, {512, 3}, {20, 1}, {24, 2}, {24, 5}} {
		it := src.Item(int64(i))
		items[i] = it
		if it.InputTokens != want.in || len(it.PromptTokenIDs) != want.in || it.OutputTokens != want.out {
			t.Errorf("item %d: input %d (%d ids), output %d; want %d and %d", i, it.InputTokens, len(it.PromptTokenIDs), it.OutputTokens, want.in, want.out)
		}
	}
	a, b, other := items[0].PromptTokenIDs, items[1].PromptTokenIDs, items[2].PromptTokenIDs
	// Rows 0 and 1 begin with ids 981 and 4412: 32 equal tokens, and
	// their third ids differ, so do their third chunks.
	if !slices.Equal(a[:32], b[:32]) {
		t.Error("rows 0 and 1 share two ids but not their first 32 tokens")
	}
	if slices.Equal(a[32:40], b[32:40]) {
		t.Error("rows 0 and 1 differ at their third id but not in their third chunk")
	}
	// Row 2 begins with 981 too, then a new id: its first chunk is
	// theirs, its last 4 tokens its own.
	if !slices.Equal(other[:16], a[:16]) || slices.Equal(other[16:20], a[16:20]) {
		t.Error("row 2 does not share exactly its first chunk with row 0")
	}
	// The rows without ids are words of their own: equal lengths,
	// different prompts.
	if slices.Equal(items[3].PromptTokenIDs, items[4].PromptTokenIDs) {
		t.Error("rows 3 and 4, without ids, got the same prompt")
	}
	// The prefix cache's view: row 1 reuses row 0's two chunks, row 2
	// one.
	if items[0].ReusableTokens != 0 || items[1].ReusableTokens != 32 || items[2].ReusableTokens != 16 {
		t.Errorf("reusable tokens %d, %d, %d; want 0, 32, 16", items[0].ReusableTokens, items[1].ReusableTokens, items[2].ReusableTokens)
	}
	if !c.IgnoreEOS() || !c.TokenIDs() {
		t.Errorf("IgnoreEOS %v, TokenIDs %v: a timed trace's output lengths are enforced and its prompts are token ids", c.IgnoreEOS(), c.TokenIDs())
	}
	for _, want := range []string{
		"vLLM's timed_trace of " + c.Path + " (timestamps × 0.001 s, 16 prompt tokens per hash id): 5 rows over 1.25s",
		"output enforced with max_tokens and ignore_eos",
	} {
		if !strings.Contains(src.String(), want) {
			t.Errorf("String() = %q lacks %q", src.String(), want)
		}
	}
	if got := c.Arrivals().String(); got != "timed_trace "+c.Path {
		t.Errorf("Arrivals().String() = %q", got)
	}
}

// --num-prompts N takes the first N rows, in file order: no shuffle, no
// sample; the chunk size is --timed-trace-chunk-hash-size.
func TestTimedTraceFirstRowsAndChunkSize(t *testing.T) {
	c := timedConfig(t, func(c *Config) { c.Limit, c.TimedTrace.ChunkSize = 2, 8 })
	src := newTrace(t, c)
	if src.Len() != 2 {
		t.Fatalf("Len = %d, want 2", src.Len())
	}
	if it := src.Item(1); it.InputTokens != 512 || it.OutputTokens != 3 {
		t.Errorf("item 1 is %d/%d tokens, want row 2's 512/3", it.InputTokens, it.OutputTokens)
	}
	if times, err := c.Arrivals().Times(2, 0); err != nil || !slices.Equal(times, []time.Duration{0, 12500 * time.Microsecond}) {
		t.Errorf("arrivals %v, %v", times, err)
	}
	// With 8-token chunks, rows 0 and 1 share 16 tokens, then differ.
	a, b := src.Item(0).PromptTokenIDs, src.Item(1).PromptTokenIDs
	if !slices.Equal(a[:16], b[:16]) || slices.Equal(a[16:24], b[16:24]) {
		t.Error("8-token chunks: rows 0 and 1 do not share exactly their first 16 tokens")
	}
	if !strings.Contains(src.String(), "8 prompt tokens per hash id") {
		t.Errorf("String() = %q", src.String())
	}
}

// --no-self-timed leaves the rows to the run's arrival process: the
// dataset brings no arrivals of its own. It means nothing to a dataset
// without timestamps.
func TestNoSelfTimed(t *testing.T) {
	c := timedConfig(t, func(c *Config) { c.Trace.NoSelfTimed = true })
	if c.Arrivals() != nil {
		t.Error("--no-self-timed: the timed trace still brings its arrivals")
	}
	if src := newTrace(t, c); src.Len() != 5 || !strings.Contains(src.String(), "; sent by the run's arrival process, not at their timestamps (--no-self-timed)") {
		t.Errorf("Len = %d, want 5; String() = %q", src.Len(), src.String())
	}
	tr := traceConfig(mooncake40, func(c *Config) { c.Trace.NoSelfTimed = true })
	if err := tr.Validate(); err != nil || tr.Arrivals() != nil {
		t.Errorf("--dataset-name trace --no-self-timed: %v, arrivals %v", err, tr.Arrivals())
	}
	r := DefaultConfig()
	r.Trace.NoSelfTimed = true
	if err := r.Validate(); err == nil || !strings.Contains(err.Error(), "--no-self-timed ignores a trace's timestamps: --dataset-name random has none") {
		t.Errorf("random --no-self-timed: %v", err)
	}
}

func TestTimedTraceConfigErrors(t *testing.T) {
	tests := []struct {
		name   string
		change func(*Config)
		want   string
	}{
		{"no file", func(c *Config) { c.Path = "" }, "--dataset-name timed_trace needs --dataset-path"},
		{"a trace format", func(c *Config) { c.Trace.Format = trace.FormatMooncake }, "--trace-format does not apply to --dataset-name timed_trace"},
		{"a trace block size", func(c *Config) { c.Trace.BlockSize = 512 }, "--trace-block-size does not apply to --dataset-name timed_trace: give --timed-trace-chunk-hash-size"},
		{"a negative chunk size", func(c *Config) { c.TimedTrace.ChunkSize = -16 }, "--timed-trace-chunk-hash-size must be in [1, 16777216], got -16"},
		{"a negative multiplier", func(c *Config) { c.TimedTrace.Fields.SecMultiplier = -0.001 }, "--timed-trace-sec-multiplier must be a positive finite number"},
		{"a scale that leaves no chunk", func(c *Config) { c.Trace.LengthScale = 0.01 }, "--trace-length-scale 0.01 leaves no token of a 16-token block"},
		{"system prompts", func(c *Config) { c.SystemPrompts.Count = 3 }, "--system-prompts: a trace's prompts and their shared blocks are the trace's own"},
	}
	for _, tt := range tests {
		err := timedConfig(t, tt.change).Validate()
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v, want %q", tt.name, err, tt.want)
		}
	}
	// A row without a field is refused at New, naming the file, the line,
	// the field and the flag that renames it.
	c := timedConfig(t, func(c *Config) { c.TimedTrace.Fields.OutputLength = "output_length" })
	_, err := New(c)
	if want := c.Path + `:1: missing "output_length" (--timed-trace-label-output-length names the field)`; err == nil || err.Error() != want {
		t.Errorf("New: %v, want %q", err, want)
	}
}
