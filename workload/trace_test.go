package workload

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/internal/tracefiles"
	"github.com/goodput-dev/goodput/tokenizer"
	"github.com/goodput-dev/goodput/trace"
)

// The trace package's test data: excerpts of real traces, with their
// licences and attribution (../trace/testdata/README.md).
const (
	mooncake40 = "../trace/testdata/mooncake_conversation_first40.jsonl"
	azure40    = "../trace/testdata/azure_code_first40.csv"
)

func traceConfig(path string, change func(*Config)) Config {
	c := DefaultConfig()
	c.Dataset, c.Path = DatasetTrace, path
	if change != nil {
		change(&c)
	}
	return c
}

func newTrace(t *testing.T, c Config) *Trace {
	t.Helper()
	src, err := New(c)
	if err != nil {
		t.Fatal(err)
	}
	return src.(*Trace)
}

// traceRows reads every row of the trace at path.
func traceRows(t *testing.T, path string) []trace.Row {
	t.Helper()
	rows, err := trace.ReadAll(path, trace.FormatAuto)
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

// leadingIDs is how many hash ids rows a and b begin with alike.
func leadingIDs(a, b trace.Row) int {
	k := 0
	for k < min(len(a.HashIDs), len(b.HashIDs)) && a.HashIDs[k] == b.HashIDs[k] {
		k++
	}
	return k
}

func TestTraceItemsFollowTheRows(t *testing.T) {
	src := newTrace(t, traceConfig(mooncake40, nil))
	rows := traceRows(t, mooncake40)
	if src.Len() != 40 || len(rows) != 40 {
		t.Fatalf("Len = %d, rows %d, want 40", src.Len(), len(rows))
	}
	reuse := trace.NewReuse(trace.DefaultBlockSize)
	items := make([]Item, len(rows))
	for i, row := range rows {
		it := src.Item(int64(i))
		items[i] = it
		if it.InputTokens != row.Input || len(it.PromptTokenIDs) != row.Input || it.OutputTokens != row.Output {
			t.Errorf("item %d: input %d (%d ids), output %d; want the row's %d and %d", i, it.InputTokens, len(it.PromptTokenIDs), it.OutputTokens, row.Input, row.Output)
		}
		if want := reuse.Add(row.HashIDs, row.Input); it.ReusableTokens != want {
			t.Errorf("item %d: %d reusable tokens, want %d", i, it.ReusableTokens, want)
		}
		// The text is the ids: a server that tokenizes it as the
		// simulator does gets them back.
		if got := tokenizer.Encode(it.Prompt); !slices.Equal(got, it.PromptTokenIDs) {
			t.Fatalf("item %d: the prompt text does not encode back to its ids", i)
		}
	}
	// Equal leading ids give equal leading tokens, block for block, and
	// the first different id a different block.
	compared := 0
	for i := range rows {
		for j := range i {
			a, b := rows[i], rows[j]
			k := leadingIDs(a, b)
			shared := min(k*512, a.Input, b.Input)
			if !slices.Equal(items[i].PromptTokenIDs[:shared], items[j].PromptTokenIDs[:shared]) {
				t.Errorf("rows %d and %d share %d ids but not their first %d tokens", j, i, k, shared)
			}
			if k > 0 {
				compared++
			}
			if k < len(a.HashIDs) && k < len(b.HashIDs) && shared == k*512 {
				end := min(shared+512, a.Input, b.Input)
				if slices.Equal(items[i].PromptTokenIDs[shared:end], items[j].PromptTokenIDs[shared:end]) {
					t.Errorf("rows %d and %d differ at id %d but their block %d is equal", j, i, k, k)
				}
			}
		}
	}
	if compared < 10 {
		t.Errorf("only %d pairs of rows share a prefix: the check proved little", compared)
	}
	if !strings.Contains(src.String(), "output enforced with max_tokens and ignore_eos") {
		t.Errorf("String %q does not say how output lengths are enforced", src.String())
	}
}

func TestTraceIsDeterministicInAnyOrder(t *testing.T) {
	c := traceConfig(mooncake40, func(c *Config) { c.Seed = 7 })
	ref := newTrace(t, c)
	want := make([]Item, ref.Len())
	for i := range want {
		want[i] = ref.Item(int64(i))
	}
	// Backwards, from many goroutines at once, and past the end (a
	// dataset cycles): the same items.
	src := newTrace(t, c)
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := len(want) - 1; i >= 0; i-- {
				seq := int64(i + g*len(want))
				if it := src.Item(seq); !slices.Equal(it.PromptTokenIDs, want[i].PromptTokenIDs) || it.OutputTokens != want[i].OutputTokens || it.ReusableTokens != want[i].ReusableTokens {
					t.Errorf("goroutine %d: item %d differs from the first reading", g, seq)
					return
				}
			}
		}()
	}
	wg.Wait()
	// Another seed gives other tokens for the same ids.
	other := newTrace(t, traceConfig(mooncake40, func(c *Config) { c.Seed = 8 }))
	if slices.Equal(other.Item(0).PromptTokenIDs, want[0].PromptTokenIDs) {
		t.Error("seeds 7 and 8 gave the same prompt")
	}
}

func TestTraceStreamsBeyondItsRing(t *testing.T) {
	// More rows than the cursor keeps: reading on costs no reread; going
	// back past the ring starts over, and gives the same item.
	path := filepath.Join(t.TempDir(), "long.jsonl")
	var b strings.Builder
	n := traceRing + 1000
	for i := range n {
		fmt.Fprintf(&b, `{"time": %d, "input_tokens": %d, "output_tokens": 2, "hash_ids": [%d]}`+"\n", i, 1+i%7, i%3)
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	src := newTrace(t, traceConfig(path, func(c *Config) { c.Trace.BlockSize = 8 }))
	first := src.Item(0)
	for i := range n {
		if it := src.Item(int64(i)); it.InputTokens != 1+i%7 {
			t.Fatalf("item %d: %d tokens, want %d", i, it.InputTokens, 1+i%7)
		}
	}
	if src.rereads != 0 {
		t.Errorf("reading in order reread the file %d times", src.rereads)
	}
	if it := src.Item(0); !slices.Equal(it.PromptTokenIDs, first.PromptTokenIDs) || src.rereads != 1 {
		t.Errorf("going back to row 0: same prompt %v, rereads %d; want true, 1", slices.Equal(it.PromptTokenIDs, first.PromptTokenIDs), src.rereads)
	}
	// Rows 0, 1, 2 have ids 0, 1, 2, and row 3 id 0 again: its whole
	// one-token prompt is reusable.
	if it := src.Item(3); it.ReusableTokens != 4 {
		t.Errorf("row 3 reuses %d tokens, want its 4", it.ReusableTokens)
	}
}

func TestTraceWindowScaleAndCaps(t *testing.T) {
	rows := traceRows(t, mooncake40)
	tests := []struct {
		name   string
		change func(*Config)
		first  int // the row item 0 is
		n      int
		scale  float64
		maxOut int
	}{
		// Rows from 3 s on: the first 10 arrive at 0 s.
		{"from 3 s", func(c *Config) { c.Trace.Start = 3 * time.Second }, 10, 30, 1, 0},
		{"first 10", func(c *Config) { c.Limit = 10 }, 0, 10, 1, 0},
		// The 16 rows at 3 s; those at 5.999 s are past the end.
		{"2 s from 3 s", func(c *Config) { c.Trace.Start, c.Trace.Duration = 3*time.Second, 2*time.Second }, 10, 16, 1, 0},
		{"scaled by 1/16", func(c *Config) { c.Trace.LengthScale = 1.0 / 16 }, 0, 40, 1.0 / 16, 0},
		{"capped by --max-tokens", func(c *Config) { c.Request.MaxTokens = 100 }, 0, 40, 1, 100},
	}
	for _, tt := range tests {
		src := newTrace(t, traceConfig(mooncake40, tt.change))
		if src.Len() != tt.n {
			t.Errorf("%s: Len = %d, want %d", tt.name, src.Len(), tt.n)
			continue
		}
		for i := range tt.n {
			row, it := rows[tt.first+i], src.Item(int64(i))
			in := max(1, int(float64(row.Input)*tt.scale+0.5))
			out := max(1, int(float64(row.Output)*tt.scale+0.5))
			if tt.maxOut > 0 {
				out = min(out, tt.maxOut)
			}
			if it.InputTokens != in || it.OutputTokens != out {
				t.Errorf("%s: item %d is %d/%d tokens, want %d/%d", tt.name, i, it.InputTokens, it.OutputTokens, in, out)
				break
			}
		}
	}
	// Scaled by 1/16, a 512-token block is 32 tokens: rows 0 and 1 share
	// their first id, so their first 32 tokens and no more.
	src := newTrace(t, traceConfig(mooncake40, func(c *Config) { c.Trace.LengthScale = 1.0 / 16 }))
	a, b := src.Item(0).PromptTokenIDs, src.Item(1).PromptTokenIDs
	if !slices.Equal(a[:32], b[:32]) || slices.Equal(a[32:64], b[32:64]) {
		t.Error("scaled blocks are not 32 tokens long")
	}
	if !strings.Contains(src.String(), "lengths scaled by 0.0625 (blocks of 32 tokens)") {
		t.Errorf("String %q does not say the scale", src.String())
	}
}

func TestTraceRejects(t *testing.T) {
	tests := []struct {
		name   string
		change func(*Config)
		want   string
	}{
		{"no path", func(c *Config) { c.Path = "" }, "--dataset-name trace needs --dataset-path"},
		{"unknown format", func(c *Config) { c.Trace.Format = "csv" }, `--trace-format "csv" is unknown`},
		{"negative scale", func(c *Config) { c.Trace.LengthScale = -1 }, "--trace-length-scale must be in (0, 1000]"},
		{"scale leaves no block", func(c *Config) { c.Trace.BlockSize, c.Trace.LengthScale = 16, 0.01 }, "leaves no token of a 16-token block"},
		{"missing file", func(c *Config) { c.Path = "testdata/nonesuch.jsonl" }, "--dataset-path: open testdata/nonesuch.jsonl"},
		{"empty window", func(c *Config) { c.Trace.Start = time.Hour }, "the window from 1h0m0s on holds no row"},
		{"prompts too long", func(c *Config) { c.Trace.LengthScale = 100 }, "exceeds the limit of 1048576: lower --trace-length-scale"},
		{"wrong format", func(c *Config) { c.Trace.Format = trace.FormatAzure }, `mooncake_conversation_first40.jsonl:1: bare " in non-quoted-field`},
	}
	for _, tt := range tests {
		_, err := New(traceConfig(mooncake40, tt.change))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want one containing %q", tt.name, err, tt.want)
		}
	}
}

func TestTraceArrivals(t *testing.T) {
	c := traceConfig(azure40, func(c *Config) { c.Trace.Start = time.Second })
	a := c.Arrivals()
	times, err := a.Times(3, 0)
	if err != nil {
		t.Fatal(err)
	}
	// Azure rows from 1 s after the first (18:17:03.9799600): 04.9960010
	// is the first, then 05.2792720 and 05.2792970, measured from it.
	want := []time.Duration{0, 283271 * time.Microsecond, 283296 * time.Microsecond}
	if !slices.Equal(times, want) {
		t.Errorf("Times(3) = %v, want %v", times, want)
	}
	if s := a.String(); s != "trace ../trace/testdata/azure_code_first40.csv from 1s on" {
		t.Errorf("String = %q", s)
	}
	if (Config{Dataset: DatasetRandom}).Arrivals() != nil {
		t.Error("the random dataset has arrivals of its own")
	}
	if !c.IgnoreEOS() || !c.RequestOptions().IgnoreEOS || DefaultConfig().IgnoreEOS() {
		t.Error("a trace replay must ask for ignore_eos, and only it")
	}
}

// TestShippedExcerptLengths replays every shipped excerpt's lengths: item i
// asks for exactly row i's prompt and output tokens.
func TestShippedExcerptLengths(t *testing.T) {
	for _, name := range []string{tracefiles.MooncakeConversation, tracefiles.MooncakeSynthetic, tracefiles.AzureCode, tracefiles.AzureConv} {
		path := tracefiles.Path(t, name)
		src := newTrace(t, traceConfig(path, nil))
		rows := traceRows(t, path)
		if src.Len() != len(rows) {
			t.Fatalf("%s: Len %d, %d rows", name, src.Len(), len(rows))
		}
		for i, row := range rows {
			if it := src.Item(int64(i)); it.InputTokens != row.Input || len(it.PromptTokenIDs) != row.Input || it.OutputTokens != row.Output {
				t.Fatalf("%s: item %d is %d/%d tokens, row %d (line %d) %d/%d", name, i, it.InputTokens, it.OutputTokens, i, row.Line, row.Input, row.Output)
			}
		}
	}
}

// leadingTokens is how many tokens a and b begin with alike.
func leadingTokens(a, b []int) int {
	k := 0
	for k < min(len(a), len(b)) && a[k] == b[k] {
		k++
	}
	return k
}

// TestTracePromptsBelongToTheirRows checks that a row without hash ids has
// words of its own wherever its window starts: replays of two windows in
// turn would otherwise send row k of each with the same words, and the
// second would find its prompts in the server's prefix cache, which the
// trace does not imply (a llama-server served 69 % of the prompt tokens of
// a second Azure window from the first window's prompts).
func TestTracePromptsBelongToTheirRows(t *testing.T) {
	rows := traceRows(t, azure40)
	first := newTrace(t, traceConfig(azure40, func(c *Config) { c.Limit = 20 }))
	// The window that starts at row 20 (Azure's timestamps are distinct).
	second := newTrace(t, traceConfig(azure40, func(c *Config) { c.Trace.Start = rows[20].At }))
	if second.Len() != 20 {
		t.Fatalf("the second window holds %d rows, want 20", second.Len())
	}
	for i := range 20 {
		a, b := first.Item(int64(i)).PromptTokenIDs, second.Item(int64(i)).PromptTokenIDs
		// Independent words may begin alike by chance, for a word or two.
		if k := leadingTokens(a, b); k > 4 {
			t.Errorf("item %d of rows 1–20 and of rows 21–40 begin with the same %d tokens", i, k)
		}
	}
	// A row keeps its words in any window that holds it: rows 10 to 19
	// are items 10 to 19 of the first window and 0 to 9 of this one.
	third := newTrace(t, traceConfig(azure40, func(c *Config) { c.Trace.Start = rows[10].At }))
	for i := range 10 {
		if a, b := first.Item(int64(10+i)).PromptTokenIDs, third.Item(int64(i)).PromptTokenIDs; !slices.Equal(a, b) {
			t.Errorf("row %d (line %d) has other words from a window starting at it", 10+i, rows[10+i].Line)
		}
	}
}

// Hash ids stand for the same tokens within a file, in any window of it,
// and for other tokens in another file: Mooncake's files all number their
// ids from 0, and id 0 of one is no prefix of the other's prompts (a
// replay after another trace's found 1.5 % of its prompt tokens cached on
// a llama-server, where the traces share nothing).
func TestTraceBlocksBelongToTheirFile(t *testing.T) {
	b, err := os.ReadFile(mooncake40)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(b), "\n")
	// The same rows after another first row: another trace whose ids
	// are numbered alike.
	other := filepath.Join(t.TempDir(), "other.jsonl")
	if err := os.WriteFile(other, []byte(`{"timestamp": 0, "input_length": 600, "output_length": 5, "hash_ids": [900]}`+"\n"+strings.Join(lines[1:], "")), 0o644); err != nil {
		t.Fatal(err)
	}
	firstBlock := func(src *Trace, seq int64) []int {
		t.Helper()
		ids := src.Item(seq).PromptTokenIDs
		if len(ids) < 512 {
			t.Fatalf("item %d has %d token ids, want a block of 512", seq, len(ids))
		}
		return ids[:512]
	}
	// Row 2 of the file (ids 0, 14, …) in two replays of it, and row 2
	// of the other file.
	whole := newTrace(t, traceConfig(mooncake40, nil))
	again := newTrace(t, traceConfig(mooncake40, nil))
	theirs := newTrace(t, traceConfig(other, nil))
	if !slices.Equal(firstBlock(whole, 1), firstBlock(again, 1)) {
		t.Error("two replays of one file give id 0 different tokens")
	}
	if !slices.Equal(firstBlock(whole, 0), firstBlock(whole, 1)) {
		t.Error("rows 1 and 2 of one file begin with id 0 but not with the same tokens")
	}
	if slices.Equal(firstBlock(whole, 1), firstBlock(theirs, 1)) {
		t.Error("id 0 of another trace is the same tokens: a replay of it finds this one's prefixes cached")
	}
}
