package gunzip

import (
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func compressed(t *testing.T, b []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	if _, err := zw.Write(b); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestReadAll(t *testing.T) {
	doc := []byte(`{"kind":"goodput.summary","result":{}}` + "\n")
	z := compressed(t, doc)
	badSum := bytes.Clone(z)
	badSum[len(badSum)-8] ^= 0xff // the CRC-32 of the trailer
	bomb := compressed(t, bytes.Repeat([]byte(" "), 1<<20))
	tests := []struct {
		name  string
		in    []byte
		limit int64
		want  string // what it holds; "" for an error
		err   string
	}{
		// a plain file is read as it is
		{"plain", doc, 0, string(doc), ""},
		// a plain file is not bounded: its size on disk is what it holds
		{"plain over the limit", doc, 4, string(doc), ""},
		// a compressed one, decompressed
		{"compressed", z, 0, string(doc), ""},
		// within its bound, to the byte
		{"compressed at the limit", z, int64(len(doc)), string(doc), ""},
		// two gzip members one after the other, as cat a.gz b.gz makes
		{"two members", append(bytes.Clone(z), z...), 0, string(doc) + string(doc), ""},
		// empty is empty, not an error
		{"empty", nil, 0, "", ""},
		// one byte of the magic is plain data
		{"half the magic", []byte{0x1f}, 0, "\x1f", ""},
		// a gzip bomb stops at the bound, with an error that says so
		{"bomb", bomb, 1 << 16, "", "gzip-compressed, it decompresses to more than 65536 bytes, more than this file is read whole"},
		// cut off before its end
		{"cut", z[:len(z)-6], 0, "", "corrupt gzip stream: unexpected EOF"},
		// cut off in its header
		{"cut header", z[:5], 0, "", "gzip-compressed, but its gzip header is corrupt: unexpected EOF"},
		// whole, but not what was compressed
		{"checksum", badSum, 0, "", "corrupt gzip stream: gzip: invalid checksum"},
		// the magic, and no gzip header after it
		{"no header", []byte("\x1f\x8bnot gzip at all"), 0, "", "gzip-compressed, but its gzip header is corrupt: gzip: invalid header"},
	}
	for _, tt := range tests {
		got, err := ReadAll(bytes.NewReader(tt.in), tt.limit)
		switch {
		case tt.err != "" && (err == nil || err.Error() != tt.err):
			t.Errorf("%s: error %v, want %q", tt.name, err, tt.err)
		case tt.err == "" && (err != nil || string(got) != tt.want):
			t.Errorf("%s: %q, %v; want %q", tt.name, got, err, tt.want)
		}
	}
}

// ReadFile names the file in its errors, and reads a file named .gz that
// holds plain text as the text.
func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	plain := filepath.Join(dir, "run.summary.json.gz")
	if err := os.WriteFile(plain, []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if b, err := ReadFile(plain, 1); err != nil || string(b) != "{}\n" {
		t.Errorf("plain text named .gz: %q, %v", b, err)
	}
	cut := filepath.Join(dir, "cut.json.gz")
	z := compressed(t, []byte("{}\n"))
	if err := os.WriteFile(cut, z[:len(z)-4], 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadFile(cut, 0); err == nil || err.Error() != cut+": corrupt gzip stream: unexpected EOF" {
		t.Errorf("cut file: %v", err)
	}
	if _, err := ReadFile(filepath.Join(dir, "none.gz"), 0); !os.IsNotExist(err) || !strings.Contains(err.Error(), "none.gz") {
		t.Errorf("missing file: %v", err)
	}
}
