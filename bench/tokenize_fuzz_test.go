package bench

import (
	"encoding/json"
	"testing"
)

// FuzzTokenCount feeds /tokenize answers of any shape to tokenCount: it
// never panics, and only valid JSON gives a count.
func FuzzTokenCount(f *testing.F) {
	for _, s := range []string{
		`{"count":5,"max_model_len":4096,"tokens":[1,2,3,4,5]}`, // vLLM
		`{"tokens":[15043,3186]}`,                               // llama.cpp
		`[{"id":1,"text":"a","start":0,"stop":1}]`,              // TGI
		`{"tokens":[]}`, `{}`, `[]`, `null`, `{"count":null}`, `{"count":-1}`, `{"count":1e9}`, ` [ ] `, `{"tokens":{}}`, `[`,
		"[]\v", // a vertical tab is white space to bytes.TrimSpace, not to JSON
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		n, ok := tokenCount(data)
		if !ok {
			if n != 0 {
				t.Errorf("no count, yet %d", n)
			}
			return
		}
		if !json.Valid(data) {
			t.Errorf("a count of %d from invalid JSON %q", n, data)
		}
	})
}
