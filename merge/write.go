package merge

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/goodput-dev/goodput/atomicfile"
	"github.com/goodput-dev/goodput/record"
)

// LabelShard is the label the merged file gives each record of a shard:
// its shard index, so that the merged run can still be split by shard.
const LabelShard = "shard"

// WriteFile reads the records (it calls Each) and writes the merged run to
// path: a header on the merged epoch that lists every part and how it
// ended, every record labelled with its shard, and a trailer that marks
// the run interrupted when the parts are not the whole planned run. Each
// batch is also handed to also (nil for none) before it is written, so
// that one pass both writes and summarises. tool names the program that
// merged, for the header. A path ending in .gz is written
// gzip-compressed, as every reader of records takes it. The file appears
// whole or not at all: it is written beside path first and renamed.
func (s *Set) WriteFile(path, tool string, o Options, also func([]record.Record)) (*Report, error) {
	window, err := s.Window()
	if err != nil {
		return nil, err
	}
	target, fi, err := atomicfile.Resolve(path)
	if err != nil {
		return nil, err
	}
	dir := filepath.Dir(target)
	if fi != nil && !fi.Mode().IsRegular() {
		dir = "" // a device or pipe: the records wait in the temporary directory
	}
	body, err := os.CreateTemp(dir, "."+filepath.Base(target)+".records-*")
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err // its path is the temporary file's
		}
		return nil, fmt.Errorf("create %s: %w", path, err)
	}
	defer func() {
		body.Close()
		os.Remove(body.Name())
	}()
	bw := bufio.NewWriterSize(body, 1<<20)
	var buf []byte
	var end int64
	var n int64
	labels := map[int]map[string]string{}
	err = s.Each(func(part int, recs []record.Record) error {
		if also != nil {
			also(recs)
		}
		sh := s.parts[part].Shard
		for i := range recs {
			r := &recs[i]
			if sh != nil {
				if r.Labels == nil {
					if labels[sh.Index] == nil {
						labels[sh.Index] = map[string]string{LabelShard: strconv.Itoa(sh.Index)}
					}
					r.Labels = labels[sh.Index] // shared: the encoder only reads it
				} else {
					r.Labels[LabelShard] = strconv.Itoa(sh.Index)
				}
			}
			end = max(end, r.End)
			buf = append(record.AppendJSON(buf[:0], r), '\n')
			if _, err := bw.Write(buf); err != nil {
				return fmt.Errorf("write %s: %w", path, err)
			}
			n++
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if err := bw.Flush(); err != nil {
		return nil, fmt.Errorf("write %s: %w", path, err)
	}
	rep, err := s.Report(o)
	if err != nil {
		return nil, err
	}
	if _, err := body.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	if err := atomicfile.Write(path, func(w io.Writer) error {
		if !strings.HasSuffix(path, ".gz") {
			return s.writeMerged(w, body, tool, rep, n, end, window)
		}
		zw := gzip.NewWriter(w)
		if err := s.writeMerged(zw, body, tool, rep, n, end, window); err != nil {
			return err
		}
		return zw.Close()
	}); err != nil {
		return nil, err
	}
	return rep, nil
}

// writeMerged writes the header, the records in body, and the trailer;
// the header keeps the window of a file that carried one (see Window).
func (s *Set) writeMerged(out io.Writer, body io.Reader, tool string, rep *Report, n, end int64, window time.Duration) error {
	h := record.Header{Kind: record.KindHeader, Schema: record.SchemaVersion, Start: s.epoch, Tool: tool, Window: int64(window)}
	if len(s.parts) > 0 {
		h.Config, h.Labels = s.parts[0].Header.Config, s.parts[0].Header.Labels
	}
	for _, p := range s.parts {
		h.Parts = append(h.Parts, p.Part)
	}
	t := record.Trailer{Kind: record.KindTrailer, Records: n, End: end}
	if !rep.Complete() {
		t.Interrupted, t.Reason = true, "merged from an incomplete run: "+rep.Gaps()
	}
	hb, err := json.Marshal(h)
	if err != nil {
		return err
	}
	tb, err := json.Marshal(t)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(out, 1<<20)
	w.Write(append(hb, '\n'))
	if _, err := io.Copy(w, body); err != nil {
		return err
	}
	w.Write(append(tb, '\n'))
	return w.Flush()
}

// Gaps says in a few words what the run lacks: "shard 3 missing; shard 1
// partial"; "" when it is complete.
func (r *Report) Gaps() string {
	var parts []string
	if len(r.Missing) > 0 {
		parts = append(parts, fmt.Sprintf("%s missing", shardList(r.Missing)))
	}
	if len(r.Partial) > 0 {
		parts = append(parts, fmt.Sprintf("%s partial", shardList(r.Partial)))
	}
	if r.Duplicates > 0 {
		parts = append(parts, fmt.Sprintf("%d requests measured twice", r.Duplicates))
	}
	if r.Foreign > 0 {
		parts = append(parts, fmt.Sprintf("%d records outside their shard's schedule", r.Foreign))
	}
	if r.Strays > 0 {
		parts = append(parts, fmt.Sprintf("%d files that are no shard", r.Strays))
	}
	if len(parts) == 0 && r.Total > 0 && r.Distinct != r.Total {
		parts = append(parts, fmt.Sprintf("%d of %d planned requests measured", r.Distinct, r.Total))
	}
	return strings.Join(parts, "; ")
}

// shardList names shard indices: "shard 3", "shards 1, 2".
func shardList(ks []int) string {
	s := make([]string, len(ks))
	for i, k := range ks {
		s[i] = strconv.Itoa(k)
	}
	if len(ks) == 1 {
		return "shard " + s[0]
	}
	return "shards " + strings.Join(s, ", ")
}

// ServerFile returns the server's series saved beside the records of the
// shard with the lowest index that has one (NAME.server.json, or
// NAME.server.json.gz, beside NAME.jsonl or NAME.jsonl.gz), for the merged run's report; "" when
// none has.
func (s *Set) ServerFile() string {
	best, bestK := "", -1
	for _, p := range s.parts {
		base, ok := strings.CutSuffix(strings.TrimSuffix(p.File, ".gz"), ".jsonl")
		if !ok {
			continue
		}
		f := base + ".server.json"
		if !exists(f) {
			f += ".gz"
		}
		if !exists(f) {
			continue
		}
		k := 0
		if p.Shard != nil {
			k = p.Shard.Index
		}
		if bestK < 0 || k < bestK {
			best, bestK = f, k
		}
	}
	return best
}

// exists says whether path names a file that can be seen.
func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
