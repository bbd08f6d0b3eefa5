package workload

import (
	"os"
	"path/filepath"
	"testing"
)

// A dataset file that begins with a UTF-8 byte-order mark, as editors on
// Windows write them, reads as the same file without it.
func TestDatasetFilesMayBeginWithABOM(t *testing.T) {
	for _, tt := range []struct {
		dataset, name, body string
	}{
		{DatasetCustom, "c.jsonl", `{"prompt": "hello there", "output_len": 4}` + "\n" + `{"prompt": "and again", "output_len": 4}` + "\n"},
		{DatasetShareGPT, "s.json", `[{"conversations": [{"from": "human", "value": "tell me a long story please"}, {"from": "gpt", "value": "once upon a time there was a story"}]}]`},
	} {
		for _, bom := range []string{"", "\xef\xbb\xbf"} {
			path := filepath.Join(t.TempDir(), tt.name)
			if err := os.WriteFile(path, []byte(bom+tt.body), 0o644); err != nil {
				t.Fatal(err)
			}
			c := DefaultConfig()
			c.Dataset, c.Path = tt.dataset, path
			src, err := New(c)
			if err != nil {
				t.Fatalf("%s (BOM %v): %v", tt.dataset, bom != "", err)
			}
			if d, ok := src.(*Dataset); !ok || d.Len() == 0 {
				t.Errorf("%s (BOM %v): %T with no item", tt.dataset, bom != "", src)
			}
		}
	}
}
