package workload

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// bfclDir writes BFCL category files (made-up rows in the dataset's
// layout) into a directory and returns it.
func bfclDir(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for cat, rows := range files {
		if err := os.WriteFile(filepath.Join(dir, bfclFile(cat)), []byte(rows), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

const (
	bfclSimple = `{"id": "simple_0", "question": [[{"role": "user", "content": "What is the weather in Oslo in celsius?"}]], "function": [{"name": "weather.get_current", "description": "Get the current weather for a city.", "parameters": {"type": "dict", "properties": {"city": {"type": "string", "description": "City name."}, "min_confidence": {"type": "float", "description": "Optional threshold."}, "window": {"type": "tuple", "items": {"type": "any"}}}, "required": ["city"]}}]}
{"id": "simple_1", "question": [[{"role": "user", "content": "Find the area of a circle of radius 3."}]], "function": {"name": "geometry.circle_area", "description": "Area of a circle.", "parameters": {"type": "dict", "properties": {"radius": {"type": "integer", "description": "The radius."}}, "required": ["radius"]}}}
{"id": "simple_2", "question": [], "function": [{"name": "nothing"}]}
`
	bfclLive = `{"id": "live_simple_0", "question": [[{"role": "system", "content": "You are a travel agent."}, {"role": "user", "content": "Book a table for two in Rome tonight."}]], "function": [{"name": "book_table", "description": "Book a table.", "parameters": {"type": "dict", "properties": {"city": {"type": "string"}, "people": {"type": "integer"}}, "required": ["city"]}}]}
{"id": "live_simple_1", "question": [[{"role": "user", "content": "Turn on the lights."}]]}
`
)

// The BFCL dataset, read as vLLM reads it: each row's first turn is the
// conversation, its functions the tools, their Python type names in JSON
// Schema's; the categories' rows are taken in turn; rows without a
// question or a function are skipped.
func TestBFCL(t *testing.T) {
	dir := bfclDir(t, map[string]string{"simple": bfclSimple, "live_simple": bfclLive})
	c := vllmConfig(DatasetHF, dir, 0)
	c.HF = HFConfig{Name: bfclID, BFCLCategories: []string{"simple", "live_simple"}, BlazeditMaxDistance: 1}
	c.NoShuffle = true
	if err := c.CheckPath(); err != nil {
		t.Fatal(err)
	}
	src, err := New(c)
	if err != nil {
		t.Fatal(err)
	}
	d := src.(*Dataset)
	if d.Len() != 3 || d.Stats().Skipped["without a question"] != 1 || d.Stats().Skipped["without a function"] != 1 {
		t.Fatalf("kept %d, stats %+v", d.Len(), d.Stats())
	}
	// simple_0, live_simple_0, simple_1: one of each category in turn.
	first, second, third := d.Item(0), d.Item(1), d.Item(2)
	if first.Prompt != "What is the weather in Oslo in celsius?" || second.Prompt != "Book a table for two in Rome tonight." || third.Prompt != "Find the area of a circle of radius 3." {
		t.Fatalf("order: %q, %q, %q", first.Prompt, second.Prompt, third.Prompt)
	}
	if m := second.Messages(); len(m) != 2 || m[0] != (Message{"system", "You are a travel agent."}) || m[1].Role != "user" {
		t.Errorf("messages %+v, want the system message and the user's", m)
	}
	var tools []struct {
		Type     string `json:"type"`
		Function struct {
			Name       string `json:"name"`
			Parameters struct {
				Type       string `json:"type"`
				Properties map[string]struct {
					Type  string `json:"type"`
					Items struct {
						Type string `json:"type"`
					} `json:"items"`
				} `json:"properties"`
			} `json:"parameters"`
		} `json:"function"`
	}
	if err := json.Unmarshal(first.Tools, &tools); err != nil || len(tools) != 1 {
		t.Fatalf("tools %s: %v", first.Tools, err)
	}
	fn := tools[0].Function
	p := fn.Parameters.Properties
	if tools[0].Type != "function" || fn.Name != "weather.get_current" || fn.Parameters.Type != "object" ||
		p["city"].Type != "string" || p["min_confidence"].Type != "number" || p["window"].Type != "array" || p["window"].Items.Type != "string" {
		t.Errorf("tools %s: want BFCL's types in JSON Schema's names", first.Tools)
	}
	// One function outside a list is a list of one.
	if err := json.Unmarshal(third.Tools, &tools); err != nil || len(tools) != 1 || tools[0].Function.Name != "geometry.circle_area" {
		t.Errorf("tools %s: %v", third.Tools, err)
	}
	if first.OutputTokens != 512 || first.InputTokens < 10 {
		t.Errorf("item 0 asks for %d with %d input tokens", first.OutputTokens, first.InputTokens)
	}
	c.HF.OutputLen = 64
	if src, err := New(c); err != nil || src.Item(0).OutputTokens != 64 {
		t.Errorf("--hf-output-len 64: %v", err)
	}
	if why := c.NeedsChat(); !strings.Contains(why, "openai-chat") {
		t.Errorf("NeedsChat = %q", why)
	}
}

// A category whose file is missing, a file where the directory is meant,
// and the dataset's hub id each name what to do.
func TestBFCLRefusals(t *testing.T) {
	dir := bfclDir(t, map[string]string{"simple": bfclSimple})
	tests := []struct {
		name string
		set  func(*Config)
		want string
	}{
		{"default categories", func(c *Config) {}, "--bfcl-categories live_simple: no BFCL_v3_live_simple.json in --dataset-path " + dir},
		{"a file", func(c *Config) { c.Path = filepath.Join(dir, "BFCL_v3_simple.json") }, "want the directory of " + bfclID},
		{"hub id", func(c *Config) { c.Path, c.HF.Name = bfclID, "" }, "--include 'BFCL_v3_*.json') and run this command again, or add --local-dir DIR and give DIR as --dataset-path"},
		{"a path as a category", func(c *Config) { c.HF.BFCLCategories = []string{"../x"} }, `--bfcl-categories "../x": want category names`},
	}
	for _, tt := range tests {
		c := vllmConfig(DatasetHF, dir, 0)
		c.HF = HFConfig{Name: bfclID, BlazeditMaxDistance: 1}
		tt.set(&c)
		err := c.Validate()
		if err == nil {
			err = c.CheckPath()
		}
		if err == nil {
			_, err = New(c)
		}
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: err = %v, want %q", tt.name, err, tt.want)
		}
	}
}

// FuzzBFCLItem feeds arbitrary lines to the BFCL row reader: it errs,
// skips, or gives an item with a conversation and tools that are a JSON
// array.
func FuzzBFCLItem(f *testing.F) {
	for _, s := range strings.Split(strings.TrimSpace(bfclSimple+bfclLive), "\n") {
		f.Add([]byte(s))
	}
	f.Add([]byte(`{"question": [[{"role": "user", "content": "x"}]], "function": 3}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		it, why, err := bfclItem(line)
		if err != nil || why != "" {
			return
		}
		var tools []any
		if len(it.Messages()) == 0 || json.Unmarshal(it.Tools, &tools) != nil || len(tools) == 0 {
			t.Fatalf("%s: item %+v", line, it)
		}
	})
}
