package record

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

func fileOf(n int) *bytes.Buffer {
	var b bytes.Buffer
	w, _ := NewWriter(&b, Header{})
	for i := range n {
		r := Record{Seq: int64(i), Sent: int64(i), End: int64(i) + 5, Chunks: []Chunk{{At: int64(i) + 5, Tokens: 1}}}
		w.Write(&r)
	}
	return &b
}

// decoding is a Reader over a Decoder, for files without a header.
type decoding struct{ *Decoder }

func (decoding) Header() Header { return Header{} }

func TestReadBatchesDeliversEveryRecordInOrder(t *testing.T) {
	for _, n := range []int{0, 1, batchSize, batchSize + 1, 3*batchSize + 17} {
		d := NewDecoder(fileOf(n), "f")
		next := int64(0)
		got, err := ReadBatches(decoding{d}, func(b []Record) error {
			for _, r := range b {
				if r.Seq != next || r.Chunks[0].At != next+5 {
					t.Fatalf("n=%d: got seq %d (chunk at %d), want %d", n, r.Seq, r.Chunks[0].At, next)
				}
				next++
			}
			return nil
		})
		if err != nil || got != int64(n) || next != int64(n) {
			t.Errorf("n=%d: read %d, saw %d, err %v", n, got, next, err)
		}
	}
}

func TestReadBatchesStopsOnErrors(t *testing.T) {
	// A decode error after some good records.
	b := fileOf(300)
	b.WriteString("{\"seq\":x}\n")
	_, err := ReadBatches(decoding{NewDecoder(b, "f.jsonl")}, func([]Record) error { return nil })
	if err == nil || !strings.Contains(err.Error(), "f.jsonl:302") {
		t.Errorf("decode error = %v", err)
	}
	// The callback's error stops the reading.
	stop := errors.New("enough")
	calls := 0
	_, err = ReadBatches(decoding{NewDecoder(fileOf(5000), "f")}, func([]Record) error { calls++; return stop })
	if !errors.Is(err, stop) || calls != 1 {
		t.Errorf("err = %v after %d calls", err, calls)
	}
}
