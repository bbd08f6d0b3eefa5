package gguf

import (
	"bytes"
	"reflect"
	"testing"
)

// FuzzRead feeds arbitrary bytes to Read: it must never panic, and whatever
// it accepts must survive Write and Read unchanged.
func FuzzRead(f *testing.F) {
	f.Add(encode(f, everyType()))
	f.Add(header(1).str("k").u32(uint32(Array)).u32(uint32(String)).u64(2).str("a").str("b").Bytes())
	f.Add(header(1).str("k").u32(uint32(Array)).u32(uint32(Array)).u64(1).u32(uint32(Uint8)).u64(1).b(9).Bytes())
	f.Add([]byte("GGUF\x02\x00\x00\x00"))
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := Read(bytes.NewReader(data))
		if err != nil {
			return
		}
		var buf bytes.Buffer
		if err := Write(&buf, got); err != nil {
			t.Fatalf("Write of a file Read accepted: %v", err)
		}
		again, err := Read(bytes.NewReader(buf.Bytes()))
		if err != nil {
			t.Fatalf("Read of written file: %v", err)
		}
		if !equalKVs(got.KVs, again.KVs) {
			t.Fatalf("round trip changed the metadata:\n%v\n%v", got.KVs, again.KVs)
		}
	})
}

// equalKVs compares metadata, treating NaN floats as equal to themselves
// (a NaN read back is the same bits, but DeepEqual says NaN != NaN).
func equalKVs(a, b []KV) bool {
	if len(a) != len(b) {
		return false
	}
	var x, y bytes.Buffer
	Write(&x, &File{KVs: a})
	Write(&y, &File{KVs: b})
	return bytes.Equal(x.Bytes(), y.Bytes()) && reflect.DeepEqual(keys(a), keys(b))
}

func keys(kvs []KV) []string {
	out := make([]string, len(kvs))
	for i, kv := range kvs {
		out[i] = kv.Key
	}
	return out
}
