package workload

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
)

// FuzzReadBurstGPT feeds arbitrary bytes to the BurstGPT reader: a dataset
// of valid items or an error, never a panic.
func FuzzReadBurstGPT(f *testing.F) {
	for _, s := range []string{
		"Timestamp,Model,Request tokens,Response tokens\n1,GPT-4,10,3\n",
		"Model,Request tokens,Response tokens\nGPT-4,-1,3\nGPT-4,99999999999,2\n",
		"Model,Request tokens,Response tokens\nGPT-4,\"5\n",
		"",
	} {
		f.Add([]byte(s))
	}
	c := vllmConfig(DatasetBurstGPT, "f.csv", 3)
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := ReadBurstGPT(strings.NewReader(string(data)), "f.csv", c)
		if err != nil {
			if !strings.Contains(err.Error(), "f.csv") {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		checkDataset(t, d, c)
	})
}

// FuzzReadSpecBench feeds arbitrary bytes to the Spec-Bench reader.
func FuzzReadSpecBench(f *testing.F) {
	for _, s := range []string{
		`{"category": "math", "turns": ["What is two plus two?"]}`,
		`{"turns": [""]}` + "\n" + `{"turns": 3}`,
		"",
	} {
		f.Add([]byte(s))
	}
	c := vllmConfig(DatasetSpecBench, "q.jsonl", 0)
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := ReadSpecBench(strings.NewReader(string(data)), "q.jsonl", c)
		if err != nil {
			if !strings.Contains(err.Error(), "q.jsonl") {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		checkDataset(t, d, c)
	})
}

// FuzzReadSpeedBench feeds arbitrary bytes to the SPEED-Bench reader,
// with and without a category to keep.
func FuzzReadSpeedBench(f *testing.F) {
	for _, s := range []string{
		`{"category": "math", "messages": [{"role": "user", "content": "What is two plus two?"}]}`,
		`{"messages": [{"content": ""}]}` + "\n" + `{"messages": 3}`,
		`{"category": "qa", "messages": [{"role": "user", "content": "Why?"}], "category": "x"}`,
		"",
	} {
		f.Add([]byte(s), false)
	}
	f.Fuzz(func(t *testing.T, data []byte, math bool) {
		c := vllmConfig(DatasetSpeedBench, "q.jsonl", 0)
		if math {
			c.SpeedBench.Category = "math"
		}
		d, err := ReadSpeedBench(strings.NewReader(string(data)), "q.jsonl", c)
		if err != nil {
			if !strings.Contains(err.Error(), "q.jsonl") {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		checkDataset(t, d, c)
	})
}

// FuzzReadSonnet feeds arbitrary text to the sonnet generator.
func FuzzReadSonnet(f *testing.F) {
	f.Add([]byte("Shall I compare thee to a summer's day?\nThou art more lovely\n"), 60, 20)
	f.Add([]byte("\n\n\n"), 30, 0)
	f.Fuzz(func(t *testing.T, data []byte, in, prefix int) {
		c := vllmConfig(DatasetSonnet, "s.txt", 4)
		c.Sonnet = SonnetConfig{InputLen: in % 5000, PrefixLen: prefix % 5000, OutputLen: 10}
		if c.Validate() != nil {
			return
		}
		d, err := ReadSonnet(strings.NewReader(string(data)), "s.txt", c)
		if err != nil {
			return
		}
		checkDataset(t, d, c)
		for i := range d.Len() {
			if d.Item(int64(i)).InputTokens > c.Sonnet.InputLen {
				t.Fatalf("item %d longer than --sonnet-input-len", i)
			}
		}
	})
}

// FuzzReadHFRows feeds arbitrary bytes to the hf reader as a JSON file.
func FuzzReadHFRows(f *testing.F) {
	for _, s := range []string{
		`{"prompt": "Say hello to the harbour"}`,
		`[{"conversations": [{"from": "human", "value": "hi there friend"}, {"from": "gpt", "value": "hello back to you"}]}]`,
		`{"turns": [1, 2]}`,
		"",
	} {
		f.Add([]byte(s))
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		p := filepath.Join(dir, "rows.jsonl")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		c := vllmConfig(DatasetHF, p, 0)
		src, err := New(c)
		if err != nil {
			return
		}
		checkDataset(t, src.(*Dataset), c)
	})
}

// FuzzReadHFParquet feeds arbitrary bytes to the hf reader as a Parquet
// file: rows, or an error, never a panic.
func FuzzReadHFParquet(f *testing.F) {
	type row struct {
		Prompt string `parquet:"prompt"`
	}
	var buf strings.Builder
	if err := parquet.Write(&buf, []row{{"How far is the moon tonight?"}, {"Count the stars."}}); err != nil {
		f.Fatal(err)
	}
	f.Add([]byte(buf.String()))
	f.Add([]byte("PAR1PAR1"))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		p := filepath.Join(dir, "rows.parquet")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		before := totalAlloc()
		c := vllmConfig(DatasetHF, p, 0)
		src, err := New(c)
		// A size the file claims but does not hold must not be allocated:
		// on a CI machine a few such bytes are an out-of-memory crash.
		if got, limit := totalAlloc()-before, allocLimit(len(data)); got > limit {
			t.Fatalf("reading %d bytes allocated %d MiB, more than %d MiB (err %v)", len(data), got>>20, limit>>20, err)
		}
		if err != nil {
			return
		}
		checkDataset(t, src.(*Dataset), c)
	})
}

// totalAlloc is the bytes this process has allocated so far.
func totalAlloc() uint64 {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.TotalAlloc
}

// allocLimit is the most that reading an n-byte dataset file may
// allocate: room for the readers' buffers and for the pages the Parquet
// checks let a file claim in all (pageBudgetFloor), and for a compressed
// file to expand a thousandfold. What it catches are claims past that,
// which no small file can back.
func allocLimit(n int) uint64 {
	return 2<<30 + 1000*uint64(n)
}
