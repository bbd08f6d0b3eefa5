// Package gunzip reads a file that may be gzip-compressed as the file it
// holds. People compress finished runs to keep them (gzip run.jsonl,
// gzip run.summary.json), so every reader of goodput's files opens them
// through NewReader: a stream is known by its first bytes (Magic), not its
// name, and what it decompresses to can be bounded, since a few megabytes
// of gzip can decompress to terabytes.
package gunzip

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"os"
)

// Magic begins every gzip stream (RFC 1952): a file that begins with it
// is read as what it decompresses to, whatever its name.
var Magic = []byte{0x1f, 0x8b}

// Reader reads a file's bytes as it holds them: decompressed when the file
// is a gzip stream, as they are otherwise. Its errors name no file; the
// caller adds the name.
type Reader struct {
	src   io.Reader    // the buffered source
	zr    *gzip.Reader // nil when the source is not compressed
	n     int64        // bytes decompressed so far
	limit int64        // 0: none
}

// NewReader returns a Reader of r: one that decompresses r when r begins
// with Magic. A corrupt gzip header is an error here; a corrupt stream is
// one from Read.
func NewReader(r io.Reader) (*Reader, error) {
	br := bufio.NewReaderSize(r, 1<<20)
	if b, _ := br.Peek(len(Magic)); !bytes.Equal(b, Magic) {
		return &Reader{src: br}, nil
	}
	zr, err := gzip.NewReader(br)
	if err != nil {
		return nil, fmt.Errorf("gzip-compressed, but its gzip header is corrupt: %w", err)
	}
	// A file of several gzip members (cat a.gz b.gz) is read as gzip
	// reads it: the members one after the other.
	return &Reader{src: br, zr: zr}, nil
}

// Compressed reports whether r decompresses a gzip stream.
func (r *Reader) Compressed() bool { return r.zr != nil }

// Limit bounds what a compressed stream may decompress to: a Read past n
// bytes is an error that says so. A plain file is not bounded: its size
// on disk already is what it holds. Zero means no bound.
func (r *Reader) Limit(n int64) { r.limit = n }

// Read reads what the file holds. A damaged stream (cut off, or whose
// checksum does not match) is an error that says it is a corrupt gzip
// stream, never an early end.
func (r *Reader) Read(p []byte) (int, error) {
	if r.zr == nil {
		return r.src.Read(p)
	}
	n, err := r.zr.Read(p)
	r.n += int64(n)
	if r.limit > 0 && r.n > r.limit {
		return n, &TooLargeError{Limit: r.limit}
	}
	if err != nil && err != io.EOF {
		err = fmt.Errorf("corrupt gzip stream: %w", err)
	}
	return n, err
}

// TooLargeError is a compressed stream that decompresses to more than its
// Reader's limit.
type TooLargeError struct{ Limit int64 }

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("gzip-compressed, it decompresses to more than %d bytes, more than this file is read whole", e.Limit)
}

// ReadAll reads all that r holds, decompressed when it is a gzip stream,
// to the stream's end, so that its checksum is checked; a compressed
// stream may decompress to at most limit bytes (0: no bound).
func ReadAll(r io.Reader, limit int64) ([]byte, error) {
	zr, err := NewReader(r)
	if err != nil {
		return nil, err
	}
	zr.Limit(limit)
	return io.ReadAll(zr)
}

// ReadFile is ReadAll of the file at path; its errors name the file.
func ReadFile(path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := ReadAll(f, limit)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return b, nil
}
