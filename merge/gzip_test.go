package merge

import (
	"bytes"
	"compress/gzip"
	"context"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// gzipShard replaces the file at path with path.gz, compressed, and
// returns the new path.
func gzipShard(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	zw.Write(b)
	zw.Close()
	if err := os.WriteFile(path+".gz", z.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	return path + ".gz"
}

// A merge that waits for its shards counts those compressed after they
// finished (run-shard1-of-3.jsonl.gz) as finished, as it counts plain
// ones; a compressed shard cut short is not finished; and the server's
// series beside a compressed shard is the merged run's.
func TestWaiterSeesGzipCompressedShards(t *testing.T) {
	dir := t.TempDir()
	writeShard(t, dir, "run-shard0-of-3.jsonl", shardFile{k: 0, n: 3, seqs: []int64{0}})
	one := gzipShard(t, writeShard(t, dir, "run-shard1-of-3.jsonl", shardFile{k: 1, n: 3, seqs: []int64{1}}))
	cut := gzipShard(t, writeShard(t, dir, "run-shard2-of-3.jsonl", shardFile{k: 2, n: 3, seqs: []int64{2}}))
	b, _ := os.ReadFile(cut)
	if err := os.WriteFile(cut, b[:len(b)-10], 0o644); err != nil {
		t.Fatal(err)
	}
	w := &Waiter{Dir: dir, Count: 3, Timeout: 0}
	pending, err := w.Wait(context.Background())
	if err != nil || !slices.Equal(pending, []int{2}) {
		t.Errorf("pending %v, err %v; want shard 2 only, whose file is cut short", pending, err)
	}
	gzipShard(t, writeShard(t, dir, "run-shard2-of-3-attempt1.jsonl", shardFile{k: 2, n: 3, attempt: 1, seqs: []int64{2}}))
	if err := os.Remove(cut); err != nil {
		t.Fatal(err)
	}
	if pending, err := w.Wait(context.Background()); err != nil || len(pending) != 0 {
		t.Errorf("pending %v, err %v; want none", pending, err)
	}

	srv := filepath.Join(dir, "run-shard1-of-3.server.json")
	if err := os.WriteFile(srv, []byte(`{"samples":[]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	files, err := Files([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	set, err := Open(files, nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer set.Close()
	if got := set.ServerFile(); got != srv {
		t.Errorf("ServerFile() = %q, want %q, beside %s", got, srv, filepath.Base(one))
	}
}

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
	// A directory's damaged record file is an error naming it, not a
	// shard left out as if it never ran.
	if files, err := Files([]string{dir}); err == nil || err.Error() != cut+": corrupt gzip stream: unexpected EOF" {
		t.Errorf("Files with a cut shard = %v, %v; want the error naming it", files, err)
	}
	if err := os.Remove(cut); err != nil {
		t.Fatal(err)
	}
	// A directory's record files include the compressed ones.
	files, err := Files([]string{dir})
	if err != nil || len(files) != 2 || !strings.HasSuffix(files[1], ".gz") && !strings.HasSuffix(files[0], ".gz") {
		t.Errorf("Files = %v, %v; want the plain and the compressed shard", files, err)
	}
}
