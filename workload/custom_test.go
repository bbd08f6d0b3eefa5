package workload

import (
	"errors"
	"io"
	"io/fs"
	"slices"
	"strings"
	"testing"

	"github.com/goodput-dev/goodput/tokenizer"
)

func customConfig(change func(*Config)) Config {
	c := DefaultConfig()
	c.Dataset, c.Path, c.NoShuffle = DatasetCustom, "testdata/custom.jsonl", true
	if change != nil {
		change(&c)
	}
	return c
}

func TestReadCustomFixture(t *testing.T) {
	src, err := New(customConfig(nil))
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		prompt  string
		in, out int
	}{
		// output_len given; input counted by the built-in tokenizer.
		{"Summarise the benefits of continuous batching for a serving engine.", 26, 64},
		// input_len given: the file's own count wins.
		{"Write a haiku about a warm cache.", 9, 20},
		// No output_len: --custom-output-len (256); unknown fields ignored.
		{"List three causes of high tail latency.", 11, 256},
		// Surrounding blanks are trimmed; the blank line before is skipped.
		{"Explain preemption in a paged KV cache.", 15, 128},
	}
	if src.Len() != len(want) {
		t.Fatalf("Len = %d, want %d", src.Len(), len(want))
	}
	for i, w := range want {
		it := src.Item(int64(i))
		if it.Prompt != w.prompt || it.InputTokens != w.in || it.OutputTokens != w.out {
			t.Errorf("item %d = {%q in %d out %d}, want {%q in %d out %d}",
				i, it.Prompt, it.InputTokens, it.OutputTokens, w.prompt, w.in, w.out)
		}
	}
	if got := tokenizer.Count(want[0].prompt); got != 26 {
		t.Errorf("built-in count of the first prompt = %d, want 26", got)
	}
	st := src.(*Dataset).Stats()
	if st.Entries != 4 || st.Kept != 4 || len(st.Skipped) != 0 {
		t.Errorf("stats = %+v, want 4 entries kept, none skipped", st)
	}
}

func TestReadCustomBadLineNamesFileAndLine(t *testing.T) {
	_, err := New(customConfig(func(c *Config) { c.Path = "testdata/custom_bad.jsonl" }))
	want := "custom_bad.jsonl:3: unexpected end of JSON input"
	if err == nil || !strings.HasSuffix(err.Error(), want) {
		t.Fatalf("err = %v, want it to end with %q", err, want)
	}
}

func TestReadCustomErrors(t *testing.T) {
	tests := []struct {
		name, data, want string
	}{
		{"missing prompt", `{"output_len": 5}`, `f.jsonl:1: missing "prompt"`},
		{"null line", "{\"prompt\": \"ok\"}\nnull", `f.jsonl:2: missing "prompt"`},
		{"empty prompt", `{"prompt": ""}`, `f.jsonl:1: "prompt" is empty`},
		{"prompt not a string", `{"prompt": 7}`, `f.jsonl:1: "prompt": want a string, got a JSON number`},
		{"zero output", `{"prompt": "a", "output_len": 0}`, `f.jsonl:1: "output_len" must be in [1, 16777216], got 0`},
		{"negative output", `{"prompt": "a", "output_len": -4}`, `got -4`},
		{"huge output", `{"prompt": "a", "output_len": 99999999999}`, `"output_len" must be in [1, 16777216], got 99999999999`},
		{"overflowing output", `{"prompt": "a", "output_len": 1e40}`, `"output_len": want an integer, got a JSON number 1e40`},
		{"fractional output", `{"prompt": "a", "output_len": 1.5}`, `"output_len": want an integer, got a JSON number 1.5`},
		{"zero input", `{"prompt": "a", "input_len": 0}`, `f.jsonl:1: "input_len" must be ≥ 1, got 0`},
		{"array line", "\n\n[1, 2]", "f.jsonl:3: want a JSON object, got a JSON array"},
		{"string line", `"just text"`, "f.jsonl:1: want a JSON object, got a JSON string"},
		{"trailing garbage", `{"prompt": "a"} x`, "f.jsonl:1: invalid character 'x' after top-level value"},
		{"two objects on a line", `{"prompt": "a"}{"prompt": "b"}`, "f.jsonl:1: invalid character '{' after top-level value"},
		{"empty file", "", "custom f.jsonl: no usable entry among 0 (the file holds no entries)"},
		{"only blank lines", "\n  \n\t\n", "no usable entry among 0"},
	}
	for _, tt := range tests {
		_, err := ReadCustom(strings.NewReader(tt.data), "f.jsonl", customConfig(nil))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: err = %v, want it to contain %q", tt.name, err, tt.want)
		}
	}
}

// vLLM's --custom-output-len -1 takes each line's "output_tokens" (goodput's
// "output_len" first, where a line has both); with any other value vLLM's
// field is ignored, as vLLM ignores it, whatever it holds, and a line
// without a length gets the flag's.
func TestCustomOutputLengthFromTheLines(t *testing.T) {
	data := `{"prompt": "one", "output_tokens": 12}
{"prompt": "two", "output_len": 7, "output_tokens": "thirty"}
{"prompt": "three", "output_tokens": 5}`
	outputs := func(flag int) []int {
		t.Helper()
		d, err := ReadCustom(strings.NewReader(data), "f.jsonl", customConfig(func(c *Config) { c.Custom.OutputLen = flag }))
		if err != nil {
			t.Fatal(err)
		}
		var out []int
		for i := range int64(d.Len()) {
			out = append(out, d.Item(i).OutputTokens)
		}
		return out
	}
	if got, want := outputs(CustomOutputFromLines), []int{12, 7, 5}; !slices.Equal(got, want) {
		t.Errorf("--custom-output-len -1: outputs %v, want %v", got, want)
	}
	if got, want := outputs(64), []int{64, 7, 64}; !slices.Equal(got, want) {
		t.Errorf("--custom-output-len 64: outputs %v, want %v", got, want)
	}
	bad := []struct{ name, data, want string }{
		// vLLM refuses a file without the field too
		{"no length", "{\"prompt\": \"a\", \"output_tokens\": 3}\n{\"prompt\": \"b\"}",
			`f.jsonl:2: no output length: --custom-output-len -1 takes each line's "output_tokens" (or "output_len")`},
		{"zero", `{"prompt": "a", "output_tokens": 0}`, `f.jsonl:1: "output_tokens" must be in [1, 16777216], got 0`},
		{"null", `{"prompt": "a", "output_tokens": null}`, `f.jsonl:1: no output length`},
		{"fraction", `{"prompt": "a", "output_tokens": 2.5}`, `f.jsonl:1: "output_tokens": want an integer, got a JSON number 2.5`},
		{"text", `{"prompt": "a", "output_tokens": "many"}`, `f.jsonl:1: "output_tokens": want an integer, got a JSON string`},
	}
	for _, tt := range bad {
		_, err := ReadCustom(strings.NewReader(tt.data), "f.jsonl", customConfig(func(c *Config) { c.Custom.OutputLen = CustomOutputFromLines }))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: err = %v, want it to contain %q", tt.name, err, tt.want)
		}
	}
	for _, n := range []int{0, -2} {
		err := customConfig(func(c *Config) { c.Custom.OutputLen = n }).Validate()
		if err == nil || !strings.Contains(err.Error(), "--custom-output-len must be in [1, 16777216], or -1 for each line's own") {
			t.Errorf("--custom-output-len %d: err = %v", n, err)
		}
	}
}

func TestReadCustomLineTooLong(t *testing.T) {
	if testing.Short() {
		t.Skip("reads 64 MiB")
	}
	long := io.MultiReader(
		strings.NewReader("{\"prompt\": \"ok\"}\n{\"prompt\": \""),
		io.LimitReader(repeatReader('a'), MaxCustomLine),
		strings.NewReader("\"}\n"),
	)
	_, err := ReadCustom(long, "f.jsonl", customConfig(nil))
	if err == nil || !strings.Contains(err.Error(), "f.jsonl:2: line longer than 64 MiB") {
		t.Fatalf("err = %v, want a line-length error at line 2", err)
	}
}

func TestReadCustomMaxTokensAndLimit(t *testing.T) {
	data := strings.Repeat(`{"prompt": "a short prompt here", "output_len": 500}`+"\n", 10)
	d, err := ReadCustom(strings.NewReader(data), "f.jsonl", customConfig(func(c *Config) {
		c.Request.MaxTokens, c.Limit = 100, 3
	}))
	if err != nil {
		t.Fatal(err)
	}
	if d.Len() != 3 || d.Item(0).OutputTokens != 100 {
		t.Fatalf("Len %d, output %d; want 3 items capped at 100", d.Len(), d.Item(0).OutputTokens)
	}
	if st := d.Stats(); st.Entries != 10 || st.Usable != 10 || st.Kept != 3 {
		t.Fatalf("stats %+v, want 10 entries, 10 usable, 3 kept", st)
	}
	if !strings.Contains(d.String(), "3 items sampled from 10 usable of 10 entries") {
		t.Errorf("String = %q", d.String())
	}
}

type repeatReader byte

func (r repeatReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(r)
	}
	return len(p), nil
}

func TestOpenMissingFile(t *testing.T) {
	_, err := New(customConfig(func(c *Config) { c.Path = "testdata/no-such-file.jsonl" }))
	if err == nil || !strings.Contains(err.Error(), "--dataset-path: open testdata/no-such-file.jsonl") || !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("err = %v, want a not-exist error naming the path", err)
	}
}
