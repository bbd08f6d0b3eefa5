package merge

import (
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// A gzip-compressed shard is peeked as the file it holds: its header and
// end marker, though it cannot be read from its end; a damaged one is an
// error naming it.
func TestPeekReadsGzipCompressedShards(t *testing.T) {
	dir := t.TempDir()
	plain := writeShard(t, dir, "run-shard0-of-2.jsonl", shardFile{k: 0, n: 2, total: 4000, seqs: seqsOf(0, 2, 4000)})
	b, err := os.ReadFile(plain)
	if err != nil {
		t.Fatal(err)
	}
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	zw.Write(b)
	zw.Close()
	gz := filepath.Join(dir, "run-shard0-of-2.jsonl.gz")
	if err := os.WriteFile(gz, z.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	want, err := peek(plain)
	if err != nil || want.header == nil || want.trailer == nil {
		t.Fatalf("plain shard: %+v, %v", want, err)
	}
	got, err := peek(gz)
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("gzip shard: %+v, %v; want %+v", got, err, want)
	}
	cut := filepath.Join(dir, "cut.jsonl.gz")
	if err := os.WriteFile(cut, z.Bytes()[:z.Len()/2], 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := peek(cut); err == nil || err.Error() != cut+": corrupt gzip stream: unexpected EOF" {
		t.Errorf("cut gzip shard: %v", err)
	}
	// A directory's record files include the compressed ones.
	files, err := Files([]string{dir})
	if err != nil || len(files) != 2 || !strings.HasSuffix(files[1], ".gz") && !strings.HasSuffix(files[0], ".gz") {
		t.Errorf("Files = %v, %v; want the plain and the compressed shard", files, err)
	}
}
