package workload

import (
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/goodput-dev/goodput/tokenizer"
)

const shareGPTFixture = "testdata/sharegpt_small.json"

func shareGPTConfig(change func(*Config)) Config {
	c := DefaultConfig()
	c.Dataset, c.Path = DatasetShareGPT, shareGPTFixture
	if change != nil {
		change(&c)
	}
	return c
}

func readShareGPTFile(t *testing.T, c Config) *Dataset {
	t.Helper()
	f, err := os.Open(shareGPTFixture)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	d, err := ReadShareGPT(f, shareGPTFixture, c)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestReadShareGPTFixture(t *testing.T) {
	d := readShareGPTFile(t, shareGPTConfig(func(c *Config) { c.NoShuffle = true }))
	want := []struct {
		prompt string // start of the prompt
		in     int    // built-in tokens of the prompt
		out    int    // built-in tokens of the reply
	}{
		// As vLLM reads them: the first turn is the prompt and the second
		// the reply, whoever spoke them; later turns are ignored.
		{"What does time to first token", 16, 39}, // human, gpt
		{"Hello, how can I help you", 21, 14},     // an opening gpt turn, then human
		{"Tell me about queueing", 14, 13},        // two human turns
		{"You are a concise assistant.", 12, 12},  // a system turn, then human
		{"What is a good percentile", 15, 26},     // user/assistant roles
		{"Can one replica serve", 14, 33},         // numeric id
	}
	if d.Len() != len(want) {
		t.Fatalf("kept %d items, want %d: %v", d.Len(), len(want), d)
	}
	for i, w := range want {
		it := d.Item(int64(i))
		if !strings.HasPrefix(it.Prompt, w.prompt) || it.InputTokens != w.in || it.OutputTokens != w.out {
			t.Errorf("item %d = %.30q in %d out %d, want %q… in %d out %d",
				i, it.Prompt, it.InputTokens, it.OutputTokens, w.prompt, w.in, w.out)
		}
		if got := tokenizer.Count(it.Prompt); got != it.InputTokens {
			t.Errorf("item %d: InputTokens %d, but the prompt counts %d", i, it.InputTokens, got)
		}
		if it.PromptTokenIDs != nil {
			t.Errorf("item %d: a text dataset must not carry token ids", i)
		}
	}
	st := d.Stats()
	wantSkipped := map[string]int{skipNoReply: 2, skipShortInput: 1, skipShortOutput: 1}
	if st.Entries != 10 || st.Usable != 6 || st.Kept != 6 || !mapsEqual(st.Skipped, wantSkipped) {
		t.Errorf("stats = %+v, want 10 entries, 6 usable, 6 kept, skipped %v", st, wantSkipped)
	}
	// Finite datasets cycle.
	if d.Item(6).Prompt != d.Item(0).Prompt || d.Item(14).Prompt != d.Item(2).Prompt || d.Item(-1).Prompt != d.Item(5).Prompt {
		t.Error("Item(seq) does not cycle with period Len()")
	}
	wantText := "sharegpt testdata/sharegpt_small.json: 6 items of 10 entries (skipped: 1 with a prompt below --sharegpt-min-input-len, 1 with a reply below --sharegpt-min-output-len, 2 with fewer than two turns); input tokens 12–21 (mean 15.3); output tokens 12–39 (mean 22.8)"
	if got := d.String(); got != wantText {
		t.Errorf("String =\n%s\nwant\n%s", got, wantText)
	}
}

func TestReadShareGPTBounds(t *testing.T) {
	tests := []struct {
		name    string
		change  func(*Config)
		kept    int
		skipped map[string]int
		outs    []int // output lengths in file order
	}{
		{"defaults", nil, 6,
			map[string]int{skipNoReply: 2, skipShortInput: 1, skipShortOutput: 1}, []int{39, 14, 13, 12, 26, 33}},
		// Prompts of 16, 21 and 15 tokens exceed 14.
		{"max input", func(c *Config) { c.ShareGPT.MaxInputLen = 14 }, 3,
			map[string]int{skipNoReply: 2, skipShortInput: 1, skipShortOutput: 1, skipLongInput: 3}, []int{13, 12, 33}},
		// 16+39 = 55 and 14+33 = 47 exceed 46; 15+26 = 41 fits.
		{"max total", func(c *Config) { c.ShareGPT.MaxTotalLen = 46 }, 4,
			map[string]int{skipNoReply: 2, skipShortInput: 1, skipShortOutput: 1, skipLongTotal: 2}, []int{14, 13, 12, 26}},
		// An override replaces reply lengths and their minimum check: the
		// one-word reply now counts.
		{"output override", func(c *Config) { c.ShareGPT.OutputLen = 100 }, 7,
			map[string]int{skipNoReply: 2, skipShortInput: 1}, []int{100, 100, 100, 100, 100, 100, 100}},
		// Lower minimums admit "Hi" (1 token) and "Yes." (3 tokens).
		{"low minimums", func(c *Config) { c.ShareGPT.MinInputLen, c.ShareGPT.MinOutputLen = 1, 0 }, 8,
			map[string]int{skipNoReply: 2}, []int{39, 14, 15, 13, 12, 3, 26, 33}},
		// --max-tokens caps what is asked, after filtering.
		{"max tokens", func(c *Config) { c.Request.MaxTokens = 30 }, 6,
			map[string]int{skipNoReply: 2, skipShortInput: 1, skipShortOutput: 1}, []int{30, 14, 13, 12, 26, 30}},
	}
	for _, tt := range tests {
		c := shareGPTConfig(tt.change)
		c.NoShuffle = true
		if err := c.Validate(); err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		d := readShareGPTFile(t, c)
		if d.Len() != tt.kept || !mapsEqual(d.Stats().Skipped, tt.skipped) {
			t.Errorf("%s: kept %d, skipped %v; want %d, %v", tt.name, d.Len(), d.Stats().Skipped, tt.kept, tt.skipped)
			continue
		}
		var outs []int
		for _, it := range Items(d, d.Len()) {
			outs = append(outs, it.OutputTokens)
		}
		if !slices.Equal(outs, tt.outs) {
			t.Errorf("%s: output lengths %v, want %v", tt.name, outs, tt.outs)
		}
	}
}

func TestReadShareGPTSampling(t *testing.T) {
	prompts := func(c Config) []string {
		var out []string
		d := readShareGPTFile(t, c)
		for _, it := range Items(d, d.Len()) {
			out = append(out, it.Prompt[:12])
		}
		return out
	}
	all := prompts(shareGPTConfig(func(c *Config) { c.NoShuffle = true }))
	shuffled := prompts(shareGPTConfig(func(c *Config) { c.Seed = 1 }))
	if slices.Equal(all, shuffled) || !slices.Equal(slices.Sorted(slices.Values(all)), slices.Sorted(slices.Values(shuffled))) {
		t.Errorf("shuffling must reorder the same items: file order %q, shuffled %q", all, shuffled)
	}
	if again := prompts(shareGPTConfig(func(c *Config) { c.Seed = 1 })); !slices.Equal(again, shuffled) {
		t.Errorf("same seed, different order: %q vs %q", again, shuffled)
	}
	// A limit keeps a sample of that size; file order keeps the first ones.
	first := prompts(shareGPTConfig(func(c *Config) { c.Limit, c.NoShuffle = 2, true }))
	if !slices.Equal(first, all[:2]) {
		t.Errorf("limit 2 in file order = %q, want %q", first, all[:2])
	}
	distinct := map[string]bool{}
	for seed := uint64(0); seed < 20; seed++ {
		s := prompts(shareGPTConfig(func(c *Config) { c.Limit, c.Seed = 2, seed }))
		if len(s) != 2 {
			t.Fatalf("limit 2 kept %d items", len(s))
		}
		distinct[strings.Join(s, "|")] = true
	}
	// 20 seeds over 20 ordered pairs of 5 items: a sampler that ignored
	// the seed or favoured early items would show few distinct samples.
	if len(distinct) < 8 {
		t.Errorf("20 seeds gave only %d distinct samples of 2", len(distinct))
	}
}

func TestReadShareGPTErrors(t *testing.T) {
	tests := []struct {
		name, data, want string
	}{
		{"empty file", "", "sharegpt in.json: empty file"},
		{"not JSON", "root:x:0:0:root:/root:/bin/bash\n", "sharegpt in.json: not JSON, want a JSON array of conversations (byte 1: invalid character 'r' looking for beginning of value)"},
		{"object instead of array", `{"conversations": []}`, "sharegpt in.json: want a JSON array of conversations, got {"},
		{"string instead of array", `"hello"`, `got the string "hello"`},
		{"entry not an object", `[1]`, "entry 0 (byte 2): want an object, got 1"},
		{"truncated second entry", `[{"conversations": []}, {"conversations": [`, "entry 1 (byte 43): conversations: unexpected EOF"},
		{"turns not an array", `[{"conversations": {"from": "human"}}]`, "entry 0 (byte 20): conversations: want an array of turns, got {"},
		{"value not a string", `[{"conversations": [{"from": "human", "value": 5}]}]`, `conversations: turn 0: "value": want a string, got a JSON number`},
		{"syntax error", `[{"conversations": [}]`, "entry 0 (byte 20): conversations: invalid character '}'"},
		{"unclosed array", `[{"conversations": []}`, "after entry 1 (byte 22): unexpected EOF"},
		{"trailing data", `[] []`, "byte 4: unexpected data after the array"},
		{"empty array", `[]`, "sharegpt in.json: no usable entry among 0 (the file holds no entries)"},
		{"nothing usable", `[{"id": 1}, {"conversations": [{"from": "human", "value": "Hi"}, {"from": "gpt", "value": "Hello there, how are you today?"}]}]`,
			"no usable entry among 2 (skipped: 1 with a prompt below --sharegpt-min-input-len, 1 with fewer than two turns)"},
	}
	for _, tt := range tests {
		_, err := ReadShareGPT(strings.NewReader(tt.data), "in.json", shareGPTConfig(nil))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: err = %v, want it to contain %q", tt.name, err, tt.want)
		}
	}
}

func TestReadShareGPTSkipsUnneededTurns(t *testing.T) {
	// Turns after the first pair may hold anything valid JSON allows;
	// they are skipped without being decoded as turns.
	data := `[{"conversations": [
		{"from": "human", "value": "Why is the p99 so much higher than the median?"},
		{"from": "gpt", "value": "Because a few requests wait behind long prefills."},
		{"from": "human", "value": 12, "extra": [1, {"deep": null}]},
		"not even a turn"
	], "tags": {"a": [1, 2, 3]}}]`
	d, err := ReadShareGPT(strings.NewReader(data), "in.json", shareGPTConfig(nil))
	if err != nil {
		t.Fatal(err)
	}
	if d.Len() != 1 || !strings.HasPrefix(d.Item(0).Prompt, "Why is the p99") {
		t.Fatalf("got %v", d)
	}
}

func mapsEqual(a, b map[string]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

func TestReadShareGPTNeverAsksForZeroTokens(t *testing.T) {
	data := `[{"conversations": [{"from": "human", "value": "Is anyone there at all?"}, {"from": "gpt", "value": ""}]},
	          {"conversations": [{"from": "human", "value": "Is anyone there now?"}, {"from": "gpt", "value": "Yes, here."}]}]`
	d, err := ReadShareGPT(strings.NewReader(data), "in.json", shareGPTConfig(func(c *Config) { c.ShareGPT.MinOutputLen = 0 }))
	if err != nil {
		t.Fatal(err)
	}
	if d.Len() != 1 || d.Stats().Skipped[skipShortOutput] != 1 {
		t.Fatalf("an empty reply must be skipped even with --sharegpt-min-output-len 0: %v", d)
	}
}
