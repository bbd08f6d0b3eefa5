package workload

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goodput-dev/goodput/tokenizer"
)

// writeRows writes rows as a JSON Lines file and returns its path.
func writeRows(t *testing.T, rows ...map[string]any) string {
	t.Helper()
	var b strings.Builder
	for _, r := range rows {
		line, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	path := filepath.Join(t.TempDir(), "train.jsonl")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// Blazedit's prompt is vLLM's change-request wording around the row's
// code and change; rows outside the edit-distance bounds are left out;
// each asks for 4,000 tokens unless --hf-output-len says otherwise.
func TestHFBlazedit(t *testing.T) {
	row := func(code, change string, d float64) map[string]any {
		return map[string]any{"code": code, "change_request": change, "norm_distance": d}
	}
	path := writeRows(t,
		row("def f():\n    return 1\n", "Return 2 instead.", 0.005),
		row("x = 1\n", "Rename x to count.", 0.5),
		row("print('hi')\n", "Print bye.", 0.995),
		map[string]any{"code": "y = 2\n", "change_request": "Double y."}, // no distance
	)
	c := vllmConfig(DatasetHF, path, 0)
	c.HF.Name, c.HF.BlazeditMinDistance, c.HF.BlazeditMaxDistance = "vdaita/edit_5k_char", 0.01, 0.99
	src, err := New(c)
	if err != nil {
		t.Fatal(err)
	}
	d := src.(*Dataset)
	want := "Given a code file, please apply the change requests and generate the new file.\n\nOriginal file:\n```python\nx = 1\n\n```\n\nChange request:\nRename x to count.\n\nPlease generate the new code file in the \"New file\" section below."
	if it := d.Item(0); d.Len() != 1 || it.Prompt != want || it.OutputTokens != 4000 || it.InputTokens != tokenizer.Count(want) {
		t.Fatalf("kept %d (%+v); item 0 %q asks for %d", d.Len(), d.Stats(), it.Prompt, it.OutputTokens)
	}
	if s := d.Stats().Skipped; s["outside --blazedit-min-distance and --blazedit-max-distance"] != 2 || s[`without a numeric "norm_distance"`] != 1 {
		t.Errorf("skipped %v", s)
	}
	// The defaults, 0 and 1, keep every row with a distance.
	c = vllmConfig(DatasetHF, path, 0)
	c.HF.Name, c.HF.OutputLen = "vdaita/edit_10k_char", 300
	if src, err := New(c); err != nil || src.Len() != 3 || src.Item(0).OutputTokens != 300 {
		t.Fatalf("defaults: %v, %v", err, src)
	}
	c.HF.BlazeditMinDistance = 1.5
	if err := c.Validate(); err == nil || !strings.Contains(err.Error(), "--blazedit-min-distance 1.5 is above --blazedit-max-distance 1") {
		t.Errorf("Validate = %v", err)
	}
	c.HF.BlazeditMinDistance = math.NaN()
	if err := c.Validate(); err == nil || !strings.Contains(err.Error(), "--blazedit-min-distance NaN: want a number") {
		t.Errorf("Validate = %v", err)
	}
	c.HF.BlazeditMinDistance = 0
	c.Dataset, c.HF.Name = DatasetHF, "vdaita/edit_5k_char"
	if got := c.ChatTemplate("openai"); !got.Apply {
		t.Errorf("Blazedit is not rendered with the chat template: %+v", got)
	}
}

// Zeta's prompt is vLLM's next-edit instruction around the row's events
// and excerpt; its output length is the expected rewrite's from the
// editable-region marker on, whatever --hf-output-len says, and the last
// character's where there is no marker, as vLLM's str.find makes it.
func TestHFZeta(t *testing.T) {
	rewrite := "<|editable_region_start|>\nfn main() {\n    println!(\"hello, world\");\n}\n<|editable_region_end|>"
	path := writeRows(t,
		map[string]any{"events": "User edited main.rs", "input": "fn main() {\n    println!(\"hi\");\n}", "output": "preamble " + rewrite},
		map[string]any{"events": "", "input": "let x = 1;", "output": "no marker at all"},
	)
	c := vllmConfig(DatasetHF, path, 0)
	c.HF.Name, c.HF.OutputLen, c.NoShuffle = "zed-industries/zeta", 999, true
	src, err := New(c)
	if err != nil {
		t.Fatal(err)
	}
	want := "### Instruction:\nYou are a code completion assistant and your task is to analyze user edits and then rewrite an excerpt that the user provides, suggesting the appropriate edits within the excerpt, taking into account the cursor location.\n\n### User Edits:\n\nUser edited main.rs\n\n### User Excerpt:\n\nfn main() {\n    println!(\"hi\");\n}\n\n### Response:\n\n"
	first, second := src.Item(0), src.Item(1)
	if src.Len() != 2 || first.Prompt != want || first.OutputTokens != tokenizer.Count(rewrite) {
		t.Fatalf("item 0: %q asks for %d, want %d", first.Prompt, first.OutputTokens, tokenizer.Count(rewrite))
	}
	if second.OutputTokens != tokenizer.Count("l") {
		t.Errorf("item 1 asks for %d, want the last character's %d", second.OutputTokens, tokenizer.Count("l"))
	}
	if got := c.ChatTemplate("openai"); got.Apply {
		t.Errorf("zeta is rendered with the chat template: %+v", got)
	}
}
