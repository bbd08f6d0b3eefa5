package tokenizer

import (
	"encoding/binary"
	"slices"
	"testing"
)

// FuzzEncode feeds arbitrary bytes, including invalid UTF-8, to Encode and
// Count: neither may panic, every id must be valid, the encoding must be
// lossless, and Count must agree with Encode.
func FuzzEncode(f *testing.F) {
	for _, s := range []string{
		"", " ", "  ", " the", "the", " The cache, the queue.", " serving",
		"\xff\xfe\x00", "é日本", " don't", "\n\n Title\n", " aaaaaaaaaaaaaaaaaaaa",
		" Zq", "ing ing", " 3.14159",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		ids := Encode(text)
		for _, id := range ids {
			if !Valid(id) {
				t.Fatalf("Encode(%q) produced invalid id %d", text, id)
			}
		}
		if got := Decode(ids); got != text {
			t.Fatalf("Decode(Encode(%q)) = %q", text, got)
		}
		if n := Count(text); n != len(ids) {
			t.Fatalf("Count(%q) = %d, len(Encode) = %d", text, n, len(ids))
		}
		// Encoding is canonical: re-encoding the decoded text is stable.
		if again := Encode(Decode(ids)); !slices.Equal(again, ids) {
			t.Fatalf("re-encoding %q changed ids %v → %v", text, ids, again)
		}
	})
}

// FuzzDecode reads the input as little-endian 16-bit ids (folded into the
// vocabulary) and checks the round-trip property on Decode output: composable
// ids come back unchanged, and AppendText agrees with Decode for any ids.
func FuzzDecode(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{' ', 0, 0x00, 0x09}) // a space, then the first word piece
	f.Add([]byte{0x00, 0x09, 'n', 0}) // " the" then the letter n: not composable
	f.Add([]byte{0xff, 0xff, ',', 0, '.', 0})
	f.Fuzz(func(t *testing.T, raw []byte) {
		ids := make([]int, 0, len(raw)/2)
		for i := 0; i+1 < len(raw); i += 2 {
			ids = append(ids, int(binary.LittleEndian.Uint16(raw[i:]))%VocabSize)
		}
		text := Decode(ids)
		var streamed []byte
		for _, id := range ids {
			streamed = AppendText(streamed, id)
		}
		if string(streamed) != text {
			t.Fatalf("AppendText concatenation %q != Decode %q", streamed, text)
		}
		if got := Decode(Encode(text)); got != text {
			t.Fatalf("Decode(Encode(%q)) = %q", text, got)
		}
		composable := slices.DeleteFunc(slices.Clone(ids), func(id int) bool { return !Composable(id) })
		ctext := Decode(composable)
		if got := Encode(ctext); !slices.Equal(got, composable) {
			t.Fatalf("Encode(Decode(%v)) = %v (text %q)", composable, got, ctext)
		}
		if n := Count(ctext); n != len(composable) {
			t.Fatalf("Count(Decode(%v)) = %d, want %d", composable, n, len(composable))
		}
	})
}
