package workload

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

func BenchmarkRandomItem(b *testing.B) {
	for _, n := range []int{128, 1024, 8192} {
		r, err := NewRandom(randomConfig(func(c *Config) { c.Random.InputLen = n }))
		if err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("input%d", n), func(b *testing.B) {
			b.ReportAllocs()
			seq := int64(0)
			for b.Loop() {
				r.Item(seq)
				seq++
			}
		})
	}
}

// shareGPTFile builds a ShareGPT file of n conversations of four turns.
func shareGPTFile(n int) []byte {
	var buf bytes.Buffer
	buf.WriteByte('[')
	turn := strings.Repeat("The scheduler admits requests while the cache has room, and the rest wait. ", 6)
	for i := 0; i < n; i++ {
		if i > 0 {
			buf.WriteByte(',')
		}
		fmt.Fprintf(&buf, `{"id": "c%d", "conversations": [{"from": "human", "value": %q}, {"from": "gpt", "value": %q}, {"from": "human", "value": %q}, {"from": "gpt", "value": %q}]}`,
			i, turn, turn, turn, turn)
	}
	buf.WriteByte(']')
	return buf.Bytes()
}

func BenchmarkReadShareGPT(b *testing.B) {
	data := shareGPTFile(2000)
	c := shareGPTConfig(func(c *Config) { c.Limit = 500 })
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ReadShareGPT(bytes.NewReader(data), "bench.json", c); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkReadCustom(b *testing.B) {
	var buf bytes.Buffer
	for i := 0; i < 2000; i++ {
		fmt.Fprintf(&buf, `{"prompt": "Request %d: explain how the batch size changes the time per output token.", "output_len": 128}`+"\n", i)
	}
	data := buf.Bytes()
	c := customConfig(nil)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ReadCustom(bytes.NewReader(data), "bench.jsonl", c); err != nil {
			b.Fatal(err)
		}
	}
}
