package workload

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/goodput-dev/goodput/tokenizer"
)

func vllmConfig(dataset, path string, limit int) Config {
	c := DefaultConfig()
	c.Dataset, c.Path, c.Limit, c.Seed = dataset, path, limit, 1
	return c
}

func TestSonnet(t *testing.T) {
	c := vllmConfig(DatasetSonnet, "testdata/sonnet_small.txt", 20)
	c.Sonnet = SonnetConfig{InputLen: 120, OutputLen: 30, PrefixLen: 40}
	src, err := New(c)
	if err != nil {
		t.Fatal(err)
	}
	if src.Len() != 20 {
		t.Fatalf("Len = %d, want one prompt per request", src.Len())
	}
	first := ""
	for i := range 20 {
		it := src.Item(int64(i))
		if !strings.HasPrefix(it.Prompt, sonnetBase+"Shall I compare thee to a summer's day?\n") {
			t.Errorf("prompt %d does not start with the instruction and the shared first lines: %q", i, it.Prompt[:60])
		}
		if it.InputTokens > 120 || it.InputTokens != tokenizer.Count(it.Prompt) || it.OutputTokens != 30 {
			t.Errorf("item %d: %d input tokens, %d output", i, it.InputTokens, it.OutputTokens)
		}
		if i == 0 {
			first = it.Prompt
		} else if it.Prompt == first && i == 1 {
			t.Error("the random lines do not differ between prompts")
		}
	}
	// The same seed draws the same prompts.
	again, _ := New(c)
	if again.Item(7).Prompt != src.Item(7).Prompt {
		t.Error("not reproducible")
	}
}

// A poem saved with Windows line ends makes the prompts the same file
// with Unix ones makes, as Python's universal newlines read it for vLLM.
func TestSonnetReadsWindowsLineEnds(t *testing.T) {
	b, err := os.ReadFile("testdata/sonnet_small.txt")
	if err != nil {
		t.Fatal(err)
	}
	crlf := filepath.Join(t.TempDir(), "sonnet.txt")
	if err := os.WriteFile(crlf, []byte(strings.ReplaceAll(string(b), "\n", "\r\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	c := vllmConfig(DatasetSonnet, "testdata/sonnet_small.txt", 5)
	c.Sonnet = SonnetConfig{InputLen: 120, OutputLen: 30, PrefixLen: 40}
	unix, err := New(c)
	if err != nil {
		t.Fatal(err)
	}
	c.Path = crlf
	windows, err := New(c)
	if err != nil {
		t.Fatal(err)
	}
	for i := range int64(5) {
		if u, w := unix.Item(i), windows.Item(i); u.Prompt != w.Prompt || u.InputTokens != w.InputTokens {
			t.Errorf("prompt %d: %d tokens from CRLF lines, %d from LF; the texts differ: %v", i, w.InputTokens, u.InputTokens, u.Prompt != w.Prompt)
		}
	}
}

// A run of more prompts than 10,000 sends the 10,000 made again in turn,
// rather than making every one of them before it starts.
func TestSonnetMakesAtMostTenThousand(t *testing.T) {
	c := vllmConfig(DatasetSonnet, "testdata/sonnet_small.txt", 1_000_000)
	c.Sonnet = SonnetConfig{InputLen: 120, OutputLen: 4, PrefixLen: 40}
	src, err := New(c)
	if err != nil {
		t.Fatal(err)
	}
	if src.Len() != maxGeneratedItems || src.Item(maxGeneratedItems+5).Prompt != src.Item(5).Prompt {
		t.Errorf("%d prompts for a million requests, want %d sent in turn", src.Len(), maxGeneratedItems)
	}
}

func TestSonnetErrors(t *testing.T) {
	empty := filepath.Join(t.TempDir(), "empty.txt")
	os.WriteFile(empty, nil, 0o644)
	for _, tt := range []struct {
		name string
		edit func(*Config)
		want string
	}{
		{"no lines", func(c *Config) { c.Path = empty }, "no poem lines"},
		{"input below the instruction", func(c *Config) { c.Sonnet.InputLen = 5; c.Sonnet.PrefixLen = 0 }, "must be above the instruction's"},
		{"prefix above input", func(c *Config) { c.Sonnet.PrefixLen = 600 }, "--sonnet-prefix-len 600 exceeds --sonnet-input-len 550"},
		{"no output", func(c *Config) { c.Sonnet.OutputLen = 0 }, "--sonnet-output-len must be in [1,"},
		{"no path", func(c *Config) { c.Path = "" }, "--dataset-name sonnet needs --dataset-path"},
		{"endless", func(c *Config) { c.Path = "/dev/zero" }, "sonnet /dev/zero: larger than 16 MiB: not a file of poem lines"},
	} {
		c := vllmConfig(DatasetSonnet, "testdata/sonnet_small.txt", 3)
		tt.edit(&c)
		if _, err := New(c); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: err = %v, want %q", tt.name, err, tt.want)
		}
	}
}

func TestBurstGPT(t *testing.T) {
	c := vllmConfig(DatasetBurstGPT, "testdata/burstgpt_small.csv", 0)
	src, err := New(c)
	if err != nil {
		t.Fatal(err)
	}
	d := src.(*Dataset)
	// Of six rows, two GPT-4 rows with a response: 417→276 and 27→42 and 8→312.
	st := d.Stats()
	if st.Entries != 6 || st.Kept != 3 || st.Skipped["of another model than GPT-4"] != 2 || st.Skipped["without a response"] != 1 {
		t.Fatalf("stats %+v", st)
	}
	lens := map[int]int{}
	for i := range d.Len() {
		it := d.Item(int64(i))
		lens[it.InputTokens] = it.OutputTokens
		if len(it.PromptTokenIDs) != it.InputTokens || tokenizer.Count(it.Prompt) != it.InputTokens {
			t.Errorf("prompt of %d tokens has %d ids, counts %d", it.InputTokens, len(it.PromptTokenIDs), tokenizer.Count(it.Prompt))
		}
	}
	if lens[417] != 276 || lens[27] != 42 || lens[8] != 312 {
		t.Errorf("lengths %v", lens)
	}
}

// Counts that pandas wrote as floats ("30.0") read as the whole numbers
// they are.
func TestBurstGPTFloatCounts(t *testing.T) {
	p := filepath.Join(t.TempDir(), "floats.csv")
	os.WriteFile(p, []byte("Model,Request tokens,Response tokens\nGPT-4,30.0,12.0\n"), 0o644)
	src, err := New(vllmConfig(DatasetBurstGPT, p, 0))
	if err != nil || src.Len() != 1 || src.Item(0).InputTokens != 30 || src.Item(0).OutputTokens != 12 {
		t.Errorf("%v, %v; want one prompt of 30 tokens asking 12", src, err)
	}
}

func TestBurstGPTBadFiles(t *testing.T) {
	dir := t.TempDir()
	for _, tt := range []struct{ body, want string }{
		{"", "empty file"},
		{"Timestamp,Model\n1,GPT-4\n", `no "Request tokens" column`},
		{"Model,Request tokens,Response tokens\nGPT-4,ten,3\n", `bad.csv:2: "Request tokens" "ten" is not a whole number of tokens`},
		{"Model,Request tokens,Response tokens\nGPT-4,30,2.5\n", `bad.csv:2: "Response tokens" "2.5" is not a whole number of tokens`},
		{"Model,Request tokens,Response tokens\nGPT-3,1,3\n", "no usable entry among 1"},
		{"Model,Request tokens,Response tokens\nGPT-4,1,3\n" + strings.Repeat("x", 100<<10), "bad.csv: line 3 is longer than 64 KiB"},
	} {
		p := filepath.Join(dir, "bad.csv")
		os.WriteFile(p, []byte(tt.body), 0o644)
		if _, err := New(vllmConfig(DatasetBurstGPT, p, 0)); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: err = %v, want %q", tt.body, err, tt.want)
		}
	}
	if _, err := New(vllmConfig(DatasetBurstGPT, "/dev/zero", 0)); err == nil || !strings.Contains(err.Error(), "line 1 is longer than 64 KiB") {
		t.Errorf("/dev/zero: err = %v, want a line too long", err)
	}
}

func TestPrefixRepetition(t *testing.T) {
	c := vllmConfig(DatasetPrefixRepetition, "", 23)
	c.PrefixRepetition = PrefixRepetitionConfig{PrefixLen: 16, SuffixLen: 8, NumPrefixes: 5, OutputLen: 12}
	src, err := New(c)
	if err != nil {
		t.Fatal(err)
	}
	// 5 prefixes × ⌊23/5⌋ = 20 prompts, as vLLM makes.
	if src.Len() != 20 {
		t.Fatalf("Len = %d", src.Len())
	}
	prefixes := map[string]int{}
	for i := range 20 {
		it := src.Item(int64(i))
		if it.InputTokens != 24 || len(it.PromptTokenIDs) != 24 || it.OutputTokens != 12 {
			t.Fatalf("item %d: %d tokens (%d ids), output %d", i, it.InputTokens, len(it.PromptTokenIDs), it.OutputTokens)
		}
		prefixes[tokenizer.Decode(it.PromptTokenIDs[:16])]++
	}
	if len(prefixes) != 5 {
		t.Errorf("%d distinct prefixes", len(prefixes))
	}
	for p, n := range prefixes {
		if n != 4 {
			t.Errorf("prefix %q used %d times, want 4", p[:10], n)
		}
	}
	c.Limit = 4
	if _, err := New(c); err == nil || !strings.Contains(err.Error(), "--num-prompts 4 is below --prefix-repetition-num-prefixes 5") {
		t.Errorf("err = %v", err)
	}
	c.Limit, c.Path = 10, "x"
	if _, err := New(c); err == nil || !strings.Contains(err.Error(), "--dataset-path is not used by --dataset-name prefix_repetition") {
		t.Errorf("err = %v", err)
	}
}

func TestSpecBench(t *testing.T) {
	c := vllmConfig(DatasetSpecBench, "testdata/spec_bench_small.jsonl", 0)
	c.SpecBench.Category = "writing"
	src, err := New(c)
	if err != nil {
		t.Fatal(err)
	}
	d := src.(*Dataset)
	if d.Len() != 2 || d.Stats().Skipped["of another category"] != 2 {
		t.Fatalf("kept %d, stats %+v", d.Len(), d.Stats())
	}
	for i := range 2 {
		it := d.Item(int64(i))
		if it.OutputTokens != 256 || !(strings.HasPrefix(it.Prompt, "Compose") || strings.HasPrefix(it.Prompt, "Draft")) {
			t.Errorf("item %d: %q, %d", i, it.Prompt, it.OutputTokens)
		}
	}
	bad := filepath.Join(t.TempDir(), "q.jsonl")
	os.WriteFile(bad, []byte("{\"category\": \"x\", \"turns\": []}\n"), 0o644)
	if _, err := New(vllmConfig(DatasetSpecBench, bad, 0)); err == nil || !strings.Contains(err.Error(), `q.jsonl:1: no "turns"`) {
		t.Errorf("err = %v", err)
	}
}

// SPEED-Bench's --dataset-path is the directory of its subsets, as vLLM
// takes it, or one subset's file; each line's first message is a prompt
// asking for --speed-bench-output-len tokens.
func TestSpeedBench(t *testing.T) {
	c := vllmConfig(DatasetSpeedBench, "testdata/speed_bench", 0)
	c.SpeedBench.Category = "math"
	src, err := New(c)
	if err != nil {
		t.Fatal(err)
	}
	d := src.(*Dataset)
	// The multi-turn math line sends its first turn alone.
	if it := d.Item(0); d.Len() != 1 || d.Stats().Skipped["of another category"] != 5 ||
		it.Prompt != "Solve 2x + 3 = 11 and show each step." || it.OutputTokens != 4096 {
		t.Fatalf("kept %d (%+v), item %+v", d.Len(), d.Stats(), d.Item(0))
	}
	// Another subset, and its file named itself.
	for _, path := range []string{"testdata/speed_bench", "testdata/speed_bench/throughput_2k.jsonl"} {
		c := vllmConfig(DatasetSpeedBench, path, 0)
		c.SpeedBench = SpeedBenchConfig{Subset: "throughput_2k", OutputLen: 64}
		src, err := New(c)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if d := src.(*Dataset); d.Len() != 3 || d.Item(0).OutputTokens != 64 {
			t.Errorf("%s: kept %d, first %+v", path, d.Len(), d.Item(0))
		}
	}
	dir := t.TempDir()
	noMessages := filepath.Join(dir, "qualitative.jsonl")
	os.WriteFile(noMessages, []byte(`{"category": "qa", "turns": ["Why?"]}`+"\n"), 0o644)
	refusals := []struct {
		name string
		set  func(*Config)
		want string
	}{
		{"unknown category", func(c *Config) { c.SpeedBench.Category = "poetry" },
			"qualitative.jsonl: no line of --speed-bench-category poetry; its categories are coding, math, multilingual, summarization, writing"},
		{"unknown subset", func(c *Config) { c.SpeedBench.Subset = "throughput_4k" },
			`--speed-bench-dataset-subset "throughput_4k": want one of qualitative, throughput_1k, throughput_2k, throughput_8k, throughput_16k, throughput_32k`},
		{"subset not in the directory", func(c *Config) { c.SpeedBench.Subset = "throughput_8k" },
			"--dataset-path testdata/speed_bench: no throughput_8k.jsonl (--speed-bench-dataset-subset throughput_8k) in it"},
		{"no output", func(c *Config) { c.SpeedBench.OutputLen = 0 }, "--speed-bench-output-len must be in [1, "},
		{"no messages", func(c *Config) { c.Path = dir }, `qualitative.jsonl:1: no "messages"`},
	}
	for _, r := range refusals {
		c := vllmConfig(DatasetSpeedBench, "testdata/speed_bench", 0)
		r.set(&c)
		err := c.Validate()
		if err == nil {
			err = c.CheckPath()
		}
		if err == nil {
			_, err = New(c)
		}
		if err == nil || !strings.Contains(err.Error(), r.want) {
			t.Errorf("%s: err = %v, want %q", r.name, err, r.want)
		}
	}
}

func TestHFKnownAndGenericDatasets(t *testing.T) {
	tests := []struct {
		name, path, hfName string
		outputLen          int
		wantItems          int
		prefix             string
		wantOut            int // output tokens of the first item; -1: from the answer
	}{
		// MT-Bench: the first turn, 256 tokens.
		{"mt-bench", "testdata/hf_mtbench_small.jsonl", "philschmid/mt-bench", 0, 2, "", 256},
		// AIMO: the problem, the solution's length; a problem of one token is skipped as vLLM does.
		{"aimo", "testdata/hf_aimo_small.jsonl", "AI-MO/aimo-validation-aime", 0, 2, "", -1},
		// --hf-output-len replaces it.
		{"aimo with output", "testdata/hf_aimo_small.jsonl", "AI-MO/aimo-validation-aime", 64, 3, "", 64},
		// An unknown dataset: the "problem" column, 256 tokens.
		{"generic", "testdata/hf_aimo_small.jsonl", "", 0, 3, "", 256},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := vllmConfig(DatasetHF, tt.path, 0)
			c.HF = HFConfig{Name: tt.hfName, OutputLen: tt.outputLen}
			c.NoShuffle = true
			src, err := New(c)
			if err != nil {
				t.Fatal(err)
			}
			if src.Len() != tt.wantItems {
				t.Fatalf("Len = %d, want %d (%s)", src.Len(), tt.wantItems, src)
			}
			it := src.Item(0)
			want := tt.wantOut
			if want < 0 {
				want = tokenizer.Count("Write 360 = 2^3 3^2 5. A square divisor takes even exponents: 2 choices for 2, 2 for 3, 1 for 5, so 4 divisors: 1, 4, 9 and 36.")
			}
			if it.OutputTokens != want || it.Prompt == "" || it.InputTokens != tokenizer.Count(it.Prompt) {
				t.Errorf("item 0: %q, %d in, %d out (want %d)", it.Prompt, it.InputTokens, it.OutputTokens, want)
			}
		})
	}
}

func TestHFParquet(t *testing.T) {
	type turn struct {
		From  string `parquet:"from"`
		Value string `parquet:"value"`
	}
	type row struct {
		ID            string `parquet:"id"`
		Conversations []turn `parquet:"conversations,list"`
	}
	path := filepath.Join(t.TempDir(), "train-00000-of-00001.parquet")
	rows := []row{
		{"a", []turn{{"human", "Tell me how tides come about, in plain words please."}, {"gpt", "The moon's pull raises the sea on the near side of the Earth and the far side too."}}},
		{"b", []turn{{"human", "Only a question with no answer here"}}}, // fewer than two turns
	}
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := parquet.Write(f, rows); err != nil {
		t.Fatal(err)
	}
	f.Close()
	c := vllmConfig(DatasetHF, path, 0)
	c.HF.Name = "Aeala/ShareGPT_Vicuna_unfiltered"
	src, err := New(c)
	if err != nil {
		t.Fatal(err)
	}
	if src.Len() != 1 {
		t.Fatalf("Len = %d: %s", src.Len(), src)
	}
	it := src.Item(0)
	if !strings.HasPrefix(it.Prompt, "Tell me how tides") || it.OutputTokens != tokenizer.Count(rows[0].Conversations[1].Value) {
		t.Errorf("item %+v", it)
	}
	// With a fixed output length the single turn is still left out, as
	// vLLM filters conversations of fewer than two turns first.
	c.HF.OutputLen = 2
	if src, err = New(c); err != nil || src.Len() != 1 || !strings.Contains(src.String(), "of fewer than two turns") {
		t.Errorf("--hf-output-len 2: %v, %d items (%s); want the one conversation, the other left out", err, src.Len(), src)
	}
	// A file that is not Parquet says so.
	bad := filepath.Join(t.TempDir(), "x.parquet")
	os.WriteFile(bad, []byte("PAR1 not really"), 0o644)
	if _, err := New(vllmConfig(DatasetHF, bad, 0)); err == nil || !strings.Contains(err.Error(), "not a Parquet file") {
		t.Errorf("err = %v", err)
	}
}

func TestHFRefusalsAndHubIDs(t *testing.T) {
	c := vllmConfig(DatasetHF, "testdata/hf_mtbench_small.jsonl", 0)
	c.HF.Name = "lmarena-ai/VisionArena-Chat"
	if _, err := New(c); err == nil || !strings.Contains(err.Error(), "--hf-name lmarena-ai/VisionArena-Chat: multimodal datasets are not supported") {
		t.Errorf("err = %v", err)
	}
	hub := vllmConfig(DatasetHF, "likaixin/InstructCoder", 0)
	err := hub.CheckPath()
	if err == nil || !strings.Contains(err.Error(), "huggingface-cli download --repo-type dataset likaixin/InstructCoder") {
		t.Errorf("err = %v", err)
	}
	for _, tt := range []struct {
		s    string
		want bool
	}{
		{"likaixin/InstructCoder", true},
		{"org/name.jsonl", false}, // a file
		{"./org/name", false},
		{"a/b/c", false},
		{"name", false},
	} {
		if got := hubID(tt.s); got != tt.want {
			t.Errorf("hubID(%q) = %v", tt.s, got)
		}
	}
}

func TestHFJSONArrayAndBadLines(t *testing.T) {
	dir := t.TempDir()
	arr := filepath.Join(dir, "a.json")
	os.WriteFile(arr, []byte(` [{"question": "How far is the moon?"}, {"other": 1}]`), 0o644)
	src, err := New(vllmConfig(DatasetHF, arr, 0))
	if err != nil || src.Len() != 1 || src.Item(0).Prompt != "How far is the moon?" {
		t.Fatalf("%v %v", err, src)
	}
	for _, tt := range []struct{ body, want string }{
		{"", "empty file"},
		{"{\"prompt\": \"ok\"}\n{not json\n", "b.jsonl:2:"},
		{"[{\"prompt\": 3}, ", "entry 1"},
		// An array cut short, or with more after it, is not whole.
		{`[{"prompt": "a"}, {"prompt": "b"}`, "after entry 2 (byte 33): unexpected EOF"},
		{`[{"prompt": "a"}] {"prompt": "x"}`, "unexpected data after the array"},
	} {
		p := filepath.Join(dir, "b.jsonl")
		os.WriteFile(p, []byte(tt.body), 0o644)
		if _, err := New(vllmConfig(DatasetHF, p, 0)); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: err = %v, want %q", tt.body, err, tt.want)
		}
	}
}

// With a count of the formatted prompt, sonnet prompts are sized as
// vLLM's sampler sizes them: the formatted instruction's length comes off
// --sonnet-input-len and --sonnet-prefix-len before they are divided by a
// line's mean length, so each prompt gets fewer lines than the bare
// sizing gives it, and its length is the formatted count, at most
// --sonnet-input-len.
func TestSonnetSizedByTheFormattedPrompt(t *testing.T) {
	const markup = "<|user|>\n\n<|assistant|>\n" // a template's text around the message
	overhead := tokenizer.Count(markup)
	format := func(p string) string { return "<|user|>\n" + p + "\n<|assistant|>\n" }
	var calls sync.Map // prompt → true: which texts Formatted counted
	c := vllmConfig(DatasetSonnet, "testdata/sonnet_small.txt", 12)
	c.Sonnet = SonnetConfig{InputLen: 120, OutputLen: 30, PrefixLen: 40}
	c.SonnetCount = SonnetCount{
		Line: func(s string) (int, error) { return tokenizer.Count(s) + 1, nil }, // a BOS per line, as an HF tokenizer counts
		Formatted: func(p string) (int, error) {
			calls.Store(p, true)
			return tokenizer.Count(format(p)), nil
		},
	}
	src, err := New(c)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile("testdata/sonnet_small.txt")
	lines := strings.SplitAfter(strings.TrimSuffix(string(data), "\n"), "\n")
	total := 0
	for _, l := range lines {
		total += tokenizer.Count(l) + 1
	}
	avg := float64(total) / float64(len(lines))
	base := tokenizer.Count(format(sonnetBase))
	if base <= tokenizer.Count(sonnetBase) || overhead == 0 {
		t.Fatalf("the template adds nothing: %d vs %d", base, tokenizer.Count(sonnetBase))
	}
	wantLines := int(math.RoundToEven(float64(120-base) / avg))
	wantPrefix := int(math.RoundToEven(float64(40-base) / avg))
	bareLines := int(math.RoundToEven(float64(120-tokenizer.Count(sonnetBase)) / (avg - 1)))
	if wantLines >= bareLines {
		t.Fatalf("the case does not tell the sizings apart: %d lines formatted, %d bare", wantLines, bareLines)
	}
	if _, ok := calls.Load(sonnetBase); !ok {
		t.Error("the instruction's formatted length was not measured")
	}
	for i := range 12 {
		it := src.Item(int64(i))
		if got := strings.Count(it.Prompt, "\n") - 1; got != wantLines {
			t.Errorf("item %d: %d poem lines, want %d", i, got, wantLines)
		}
		if !strings.HasPrefix(it.Prompt, sonnetBase+strings.Join(lines[:wantPrefix], "")) {
			t.Errorf("item %d does not start with the %d shared lines", i, wantPrefix)
		}
		if want := tokenizer.Count(format(it.Prompt)); it.InputTokens != want || want > 120 {
			t.Errorf("item %d: %d input tokens, want the formatted count %d, at most 120", i, it.InputTokens, want)
		}
		if _, ok := calls.Load(it.Prompt); !ok {
			t.Errorf("item %d was not counted formatted", i)
		}
	}
	// The draws are the same whoever counts them first.
	again, _ := New(c)
	if again.Item(5).Prompt != src.Item(5).Prompt {
		t.Error("not reproducible")
	}
	// A count that fails stops the dataset with its error.
	c.SonnetCount.Formatted = func(string) (int, error) { return 0, errors.New("POST http://x/tokenize: 500") }
	if _, err := New(c); err == nil || !strings.Contains(err.Error(), "POST http://x/tokenize: 500") {
		t.Fatalf("err = %v", err)
	}
}
