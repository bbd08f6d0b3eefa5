package runfile

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/goodput-dev/goodput/record"
)

// gzipped returns b compressed as gzip writes it.
func gzipped(t *testing.T, b []byte) []byte {
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

// A gzip-compressed file is read as the file it holds, by its content
// and not its name: records, and a document (vLLM's result) alike.
func TestOpenReadsGzipCompressedFiles(t *testing.T) {
	dir := t.TempDir()
	for _, src := range []string{"testdata/seeds_example.jsonl", "testdata/vllm_detailed.json"} {
		plain, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		wantFile, want := readAll(t, src)
		for _, name := range []string{filepath.Base(src) + ".gz", filepath.Base(src)} {
			path := filepath.Join(dir, name)
			if err := os.WriteFile(path, gzipped(t, plain), 0o644); err != nil {
				t.Fatal(err)
			}
			f, got := readAll(t, path)
			if f.Format != wantFile.Format || len(got) == 0 || !reflect.DeepEqual(got, want) {
				t.Errorf("%s (from %s): format %q, %d records; want %q and the %d records of the plain file", name, src, f.Format, len(got), wantFile.Format, len(want))
			}
		}
	}
	// Standard input, too.
	plain, _ := os.ReadFile("testdata/seeds_example.jsonl")
	f, err := Open("-", bytes.NewReader(gzipped(t, plain)))
	if err != nil || f.Format != "seeds" {
		t.Fatalf("gzip on standard input: %v", err)
	}
	f.Close()
}

// A damaged gzip stream is an error naming the file, never records
// read short as if the run had ended there.
func TestOpenRefusesCorruptGzip(t *testing.T) {
	dir := t.TempDir()
	plain, err := os.ReadFile("testdata/seeds_example.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	z := gzipped(t, plain)
	badSum := bytes.Clone(z)
	badSum[len(badSum)-8] ^= 0xff // the CRC-32 of the trailer
	tests := []struct {
		name string
		data []byte
		want string
	}{
		// cut off: the stream ends before its end
		{"cut.jsonl.gz", z[:len(z)-20], "cut.jsonl.gz"},
		// the data decompress, but not to what was compressed
		{"sum.jsonl.gz", badSum, ": corrupt gzip stream: gzip: invalid checksum"},
		// the magic bytes, and nothing a gzip header holds
		{"header.jsonl", []byte("\x1f\x8bnot gzip at all"), "header.jsonl: gzip-compressed, but its gzip header is corrupt: gzip: invalid header"},
	}
	for _, tt := range tests {
		path := filepath.Join(dir, tt.name)
		if err := os.WriteFile(path, tt.data, 0o644); err != nil {
			t.Fatal(err)
		}
		err := readErr(path)
		if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), path) {
			t.Errorf("%s: error %v, want one naming the file and saying %q", tt.name, err, tt.want)
		}
	}

	// goodput's own records, cut off mid-stream, say where and why.
	var buf bytes.Buffer
	w, err := record.NewWriter(&buf, record.Header{Tool: "goodput test"})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 200 {
		r := record.Record{Seq: int64(i), Sent: int64(i) * 1e6, End: int64(i)*1e6 + 5e5}
		if err := w.Write(&r); err != nil {
			t.Fatal(err)
		}
	}
	w.Close(record.Trailer{Records: 200})
	z = gzipped(t, buf.Bytes())
	path := filepath.Join(dir, "run.jsonl.gz")
	if err := os.WriteFile(path, z[:len(z)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	err = readErr(path)
	if err == nil || !strings.HasPrefix(err.Error(), path+":") || !strings.HasSuffix(err.Error(), ": corrupt gzip stream: unexpected EOF") {
		t.Errorf("cut records: %v, want %s:LINE: corrupt gzip stream: unexpected EOF", err, path)
	}
}

// readErr opens path and reads it to the end, returning the first error.
func readErr(path string) error {
	f, err := Open(path, nil)
	if err != nil {
		return err
	}
	defer f.Close()
	for {
		var r record.Record
		if err := f.Next(&r); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
	}
}
