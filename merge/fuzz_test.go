package merge

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzPeek: any file's first and last lines are read without panicking,
// and a trailer is only ever found at the very end.
func FuzzPeek(f *testing.F) {
	f.Add([]byte("{\"kind\":\"goodput.run\",\"schema\":1,\"shard\":{\"index\":0,\"count\":2}}\n{\"seq\":0}\n{\"kind\":\"goodput.end\",\"records\":1}\n"))
	f.Add([]byte("{\"kind\":\"goodput.end\"}"))
	f.Add([]byte("\n\n\n}"))
	f.Add([]byte{})
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, b []byte) {
		path := filepath.Join(dir, "f.jsonl")
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		st, err := peek(path)
		if err != nil {
			t.Fatal(err)
		}
		if st.trailer != nil && st.trailer.Kind != "goodput.end" {
			t.Fatalf("trailer of kind %q", st.trailer.Kind)
		}
	})
}
