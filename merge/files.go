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

	"github.com/goodput-dev/goodput/record"
)

// Files expands the arguments of a merge: a directory stands for the
// goodput record files directly in it (NAME.jsonl that begin with a run
// header), less the merged ones (an earlier merge's output); a file is
// kept as given. The result is sorted within each directory.
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
			if e.IsDir() || !strings.HasSuffix(e.Name(), ".jsonl") || strings.HasPrefix(e.Name(), ".") {
				continue
			}
			p := filepath.Join(a, e.Name())
			st, err := peek(p)
			if err != nil || st.header == nil || st.header.Merged() {
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
// trailer: cheap enough to poll a directory of large files.
func peek(path string) (fileState, error) {
	f, err := os.Open(path)
	if err != nil {
		return fileState{}, err
	}
	defer f.Close()
	var st fileState
	first, err := bufio.NewReader(io.LimitReader(f, record.MaxLineBytes)).ReadBytes('\n')
	if err != nil && err != io.EOF {
		return st, err
	}
	var h record.Header
	if json.Unmarshal(bytes.TrimSpace(first), &h) == nil && h.Kind == record.KindHeader {
		st.header = &h
	}
	fi, err := f.Stat()
	if err != nil {
		return st, err
	}
	off := max(0, fi.Size()-tailBytes)
	tail := make([]byte, fi.Size()-off)
	if _, err := f.ReadAt(tail, off); err != nil && err != io.EOF {
		return st, err
	}
	tail = bytes.TrimRight(tail, " \t\r\n")
	if !bytes.HasSuffix(tail, []byte("}")) {
		return st, nil
	}
	last := tail[bytes.LastIndexByte(tail, '\n')+1:]
	var t record.Trailer
	if json.Unmarshal(last, &t) == nil && t.Kind == record.KindTrailer {
		st.trailer = &t
	}
	return st, nil
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
