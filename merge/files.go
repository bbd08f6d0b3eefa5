package merge

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/goodput-dev/goodput/internal/gunzip"
	"github.com/goodput-dev/goodput/record"
)

// Files expands the arguments of a merge: a directory stands for the
// goodput record files directly in it (NAME.jsonl, or NAME.jsonl.gz, that
// begin with a run header), less the merged ones (an earlier merge's output); a file is
// kept as given. The result is sorted within each directory. A record file
// in a directory that cannot be read is an error naming it.
func Files(args []string) ([]string, error) {
	var out []string
	for _, a := range args {
		fi, err := os.Stat(a)
		if a == "-" || (err == nil && !fi.IsDir()) {
			out = append(out, a)
			continue
		}
		if err != nil {
			return nil, err
		}
		entries, err := os.ReadDir(a)
		if err != nil {
			return nil, err
		}
		var found []string
		for _, e := range entries {
			if e.IsDir() || !isRecordsName(e.Name()) || strings.HasPrefix(e.Name(), ".") {
				continue
			}
			p := filepath.Join(a, e.Name())
			st, err := peek(p)
			if err != nil {
				// A damaged file (a gzip stream cut short) left out
				// would read as a shard that never ran.
				return nil, err
			}
			if st.header == nil || st.header.Merged() {
				continue
			}
			found = append(found, p)
		}
		slices.Sort(found)
		out = append(out, found...)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no record files in %s", strings.Join(args, ", "))
	}
	return out, nil
}

// isRecordsName reports whether a file's name is a record file's:
// NAME.jsonl, or NAME.jsonl.gz compressed.
func isRecordsName(name string) bool {
	return strings.HasSuffix(name, ".jsonl") || strings.HasSuffix(name, ".jsonl.gz")
}

// fileState is what the first and last lines of a record file say,
// without reading what is between.
type fileState struct {
	header  *record.Header  // nil when the first line is not a run header
	trailer *record.Trailer // nil when the file does not end with one
}

// tailBytes is how much of a file's end peek reads to find its trailer,
// more than any trailer line needs.
const tailBytes = 64 << 10

// peek reads a record file's header and, from its last bytes, its
// trailer: cheap enough to poll a directory of large files. A
// gzip-compressed file cannot be read from its end: it is decompressed
// through, keeping only its first line and last bytes.
func peek(path string) (fileState, error) {
	f, err := os.Open(path)
	if err != nil {
		return fileState{}, err
	}
	defer f.Close()
	magic := make([]byte, len(gunzip.Magic))
	if n, _ := f.ReadAt(magic, 0); n == len(magic) && bytes.Equal(magic, gunzip.Magic) {
		return peekGzip(f, path)
	}
	first, err := bufio.NewReader(io.LimitReader(f, record.MaxLineBytes)).ReadBytes('\n')
	if err != nil && err != io.EOF {
		return fileState{}, err
	}
	fi, err := f.Stat()
	if err != nil {
		return fileState{}, err
	}
	off := max(0, fi.Size()-tailBytes)
	tail := make([]byte, fi.Size()-off)
	if _, err := f.ReadAt(tail, off); err != nil && err != io.EOF {
		return fileState{}, err
	}
	return stateOf(first, tail), nil
}

// peekGzip is peek of a gzip-compressed file.
func peekGzip(r io.Reader, path string) (fileState, error) {
	zr, err := gunzip.NewReader(r)
	if err != nil {
		return fileState{}, fmt.Errorf("%s: %w", path, err)
	}
	var e ends
	if _, err := io.Copy(&e, zr); err != nil {
		return fileState{}, fmt.Errorf("%s: %w", path, err)
	}
	return stateOf(e.first, e.tail[max(0, len(e.tail)-tailBytes):]), nil
}

// ends keeps the first line (at most record.MaxLineBytes of it) and at
// least the last tailBytes of what is written to it, in bounded memory.
type ends struct {
	first     []byte
	firstDone bool
	tail      []byte
}

func (e *ends) Write(p []byte) (int, error) {
	if !e.firstDone {
		take := p
		if i := bytes.IndexByte(p, '\n'); i >= 0 {
			take, e.firstDone = p[:i+1], true
		}
		if room := record.MaxLineBytes - len(e.first); len(take) >= room {
			take, e.firstDone = take[:room], true
		}
		e.first = append(e.first, take...)
	}
	if len(p) >= tailBytes {
		e.tail = append(e.tail[:0], p[len(p)-tailBytes:]...)
		return len(p), nil
	}
	if len(e.tail)+len(p) > 2*tailBytes {
		n := copy(e.tail, e.tail[len(e.tail)-tailBytes:])
		e.tail = e.tail[:n]
	}
	e.tail = append(e.tail, p...)
	return len(p), nil
}

// stateOf reads a record file's state from its first line and its last
// bytes.
func stateOf(first, tail []byte) fileState {
	var st fileState
	var h record.Header
	if json.Unmarshal(bytes.TrimSpace(first), &h) == nil && h.Kind == record.KindHeader {
		st.header = &h
	}
	tail = bytes.TrimRight(tail, " \t\r\n")
	if !bytes.HasSuffix(tail, []byte("}")) {
		return st
	}
	last := tail[bytes.LastIndexByte(tail, '\n')+1:]
	var t record.Trailer
	if json.Unmarshal(last, &t) == nil && t.Kind == record.KindTrailer {
		st.trailer = &t
	}
	return st
}

// WithoutOutput returns files less the ones that are output, the file a
// merge is about to write: an earlier merge's output is no part of the
// run it merged. It refuses an output that is one of the run's own record
// files (a shard, or any file that is not a merge's output), which the
// merge would overwrite with the others' records.
func WithoutOutput(files []string, output string) ([]string, error) {
	out, err := os.Stat(output)
	if err != nil {
		return files, nil // a new file is none of the inputs
	}
	var kept []string
	for _, f := range files {
		fi, err := os.Stat(f)
		if f == "-" || err != nil || !os.SameFile(fi, out) {
			kept = append(kept, f)
			continue
		}
		if st, err := peek(f); err != nil || st.header == nil || !st.header.Merged() {
			return nil, fmt.Errorf("--output %s is one of the files being merged, and writing the merge there would destroy its records: choose another file", output)
		}
	}
	return kept, nil
}
