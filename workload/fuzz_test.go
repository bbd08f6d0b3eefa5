package workload

import (
	"strings"
	"testing"

	"github.com/goodput-dev/goodput/tokenizer"
)

// checkDataset asserts what every dataset a reader accepts must satisfy.
func checkDataset(t *testing.T, d *Dataset, c Config) {
	t.Helper()
	if d.Len() == 0 {
		t.Fatal("reader returned an empty dataset without an error")
	}
	for i := 0; i < d.Len(); i++ {
		it := d.Item(int64(i))
		if it.Prompt == "" || it.InputTokens < 1 || it.OutputTokens < 1 || it.OutputTokens > MaxOutputTokens {
			t.Fatalf("item %d = {%q in %d out %d} breaks the item invariants", i, it.Prompt, it.InputTokens, it.OutputTokens)
		}
	}
	_ = d.String()
}

// FuzzReadCustom feeds arbitrary bytes to the JSONL reader: it must return
// a dataset of valid items or an error naming a line, never panic or hang.
func FuzzReadCustom(f *testing.F) {
	for _, s := range []string{
		`{"prompt": "hello there", "output_len": 5}`,
		"{\"prompt\": \"a\"}\n\n{\"prompt\": \"b\", \"input_len\": 3}\n",
		`{"prompt": "a", "output_len": 0}`,
		`{"prompt": null}`,
		"[1]\n",
		"{\"prompt\": \"\xff\xfe\"}",
		`{"prompt": "x", "output_len": 1e400}`,
		"",
	} {
		f.Add([]byte(s))
	}
	c := customConfig(nil)
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := ReadCustom(strings.NewReader(string(data)), "f.jsonl", c)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "f.jsonl:") && !strings.HasPrefix(err.Error(), "custom f.jsonl:") {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		checkDataset(t, d, c)
	})
}

// FuzzReadShareGPT feeds arbitrary bytes to the ShareGPT reader.
func FuzzReadShareGPT(f *testing.F) {
	for _, s := range []string{
		`[{"id": "a", "conversations": [{"from": "human", "value": "What is the queue length now?"}, {"from": "gpt", "value": "It is twelve requests long."}]}]`,
		`[{"conversations": null}, {"conversations": [{"from": "gpt", "value": "x"}]}]`,
		`[{"conversations": [{"from": "human", "value": 1}]}]`,
		`{"conversations": []}`,
		`[] trailing`,
		`[`,
		"",
	} {
		f.Add([]byte(s))
	}
	c := shareGPTConfig(func(c *Config) { c.ShareGPT.MinInputLen, c.ShareGPT.MinOutputLen = 1, 0 })
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := ReadShareGPT(strings.NewReader(string(data)), "in.json", c)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "sharegpt in.json: ") {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		checkDataset(t, d, c)
		for i := 0; i < d.Len(); i++ {
			if it := d.Item(int64(i)); it.InputTokens != tokenizer.Count(it.Prompt) {
				t.Fatalf("item %d: InputTokens %d, prompt counts %d", i, it.InputTokens, tokenizer.Count(it.Prompt))
			}
		}
	})
}
