package record

import (
	"bytes"
	"io"
	"testing"
)

// record128 is a typical long-output request: 128 one-token chunks about
// 11 ms apart, as a busy H100 serving an 8B model streams them.
func record128(seq int64) Record {
	r := Record{Seq: seq, Scheduled: seq * 50_000_000, Sent: seq*50_000_000 + 41_000, InputTokens: 512, OutputTokens: 128,
		TokenSource: SourceUsage, Status: 200, Finish: "length"}
	at := r.Sent + 140_000_000
	for range 128 {
		r.Chunks = append(r.Chunks, Chunk{At: at, Tokens: 1})
		at += 11_000_000 + (seq*7919)%1_000_000
	}
	r.End = at
	return r
}

func BenchmarkEncode128(b *testing.B) {
	r := record128(12345)
	var buf []byte
	b.ReportAllocs()
	for b.Loop() {
		buf = AppendJSON(buf[:0], &r)
	}
	b.SetBytes(int64(len(buf)))
}

func BenchmarkDecode128(b *testing.B) {
	var file bytes.Buffer
	const n = 1000
	for i := range n {
		r := record128(int64(i))
		file.Write(AppendJSON(nil, &r))
		file.WriteByte('\n')
	}
	data := file.Bytes()
	b.SetBytes(int64(len(data) / n))
	b.ReportAllocs()
	var r Record
	var d *Decoder
	for i := 0; b.Loop(); i++ {
		if i%n == 0 {
			d = NewDecoder(bytes.NewReader(data), "bench")
		}
		if err := d.Next(&r); err != nil && err != io.EOF {
			b.Fatal(err)
		}
	}
}
