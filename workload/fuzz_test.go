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

// FuzzApplyScenario feeds arbitrary strings as --traffic-scenario: each is
// refused with a message naming the flag, or sets lengths that a valid
// configuration draws within its bounds, never a panic.
func FuzzApplyScenario(f *testing.F) {
	for _, s := range []string{"D(100,1000)", "N(480,240)/(300,150)", "U(50,100)/(200,250)", "U(1024,128)", "P(2000,500)/200",
		"U(0,0)/(0,0)", "N(1,1000000)/(1,1000000)", "D(0,0)", "P(0,0)/0", "E(1)", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c := DefaultConfig()
		if err := c.ApplyScenario(s); err != nil {
			if !strings.Contains(err.Error(), "--traffic-scenario") {
				t.Fatalf("%q: error does not name the flag: %v", s, err)
			}
			return
		}
		if err := c.Validate(); err != nil {
			return // said by Validate, with the flags
		}
		r, err := NewRandom(c)
		if err != nil {
			t.Fatalf("%q: valid, yet %v", s, err)
		}
		for i := range 8 {
			it := r.Item(int64(i))
			if it.InputTokens < 1 || it.InputTokens > MaxPromptTokens || it.OutputTokens < 1 || it.OutputTokens > MaxOutputTokens ||
				len(it.PromptTokenIDs) != it.InputTokens {
				t.Fatalf("%q item %d: %d input tokens (%d ids), %d output", s, i, it.InputTokens, len(it.PromptTokenIDs), it.OutputTokens)
			}
		}
	})
}
