package bench

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// The files of a run in --result-dir, named <stem><suffix>.
const (
	recordsSuffix = ".jsonl"
	summarySuffix = ".summary.json"
	vllmSuffix    = ".vllm.json"
	serverSuffix  = ".server.json"
)

// ErrResultExists is wrapped by Run's error when a file the run would
// write already exists and Config.Overwrite is not set: a second run with
// the same --result-dir and --run-name must not replace the first.
var ErrResultExists = errors.New("already exists")

// resultFiles are the paths a run writes in its result directory; empty
// paths are files it does not write.
type resultFiles struct {
	records, summary, vllm, server string
	// attempt counts the earlier runs of the same shard whose files the
	// directory holds: a retried shard's records go beside theirs.
	attempt int
}

func (f resultFiles) all() []string {
	return []string{f.records, f.summary, f.vllm, f.server}
}

// chooseFiles names the files of a run started at now and checks that
// none exists. With --run-name an existing file is refused (unless
// Overwrite); the default name, which only the clock chose, moves to a
// free one instead (…-2, …-3; a shard's to …-attempt1, …-attempt2, since
// there the earlier files are the same shard's failed attempts, kept for
// the merge).
func chooseFiles(cfg Config, now time.Time) (resultFiles, error) {
	stem := cfg.RunName
	shard := false
	if stem == "" {
		stem = "goodput-" + now.Format("20060102-150405")
		if a := cfg.Arrival; a.Shards > 1 {
			// Shards start in the same second and may share a directory.
			stem += fmt.Sprintf("-shard%d-of-%d", a.Shard, a.Shards)
			shard = true
		}
	}
	named := func(stem string) resultFiles {
		base := filepath.Join(cfg.ResultDir, stem)
		f := resultFiles{records: base + recordsSuffix}
		if cfg.SaveResult {
			f.summary = base + summarySuffix
		}
		if cfg.VLLMResult {
			f.vllm = base + vllmSuffix
		}
		if !cfg.NoServerMetrics {
			f.server = base + serverSuffix
		}
		return f
	}
	files := named(stem)
	if cfg.Overwrite {
		return files, nil
	}
	for n := 2; ; n++ {
		taken, err := firstExisting(files.all())
		if err != nil || taken == "" {
			return files, err
		}
		if cfg.RunName != "" {
			return resultFiles{}, fmt.Errorf("--result-dir: %s %w (an earlier run's): give another --run-name, or --overwrite to replace it", taken, ErrResultExists)
		}
		if shard {
			files = named(fmt.Sprintf("%s-attempt%d", stem, n-1)) // the first retry is attempt 1
			files.attempt = n - 1
		} else {
			files = named(fmt.Sprintf("%s-%d", stem, n))
		}
	}
}

// firstExisting returns the first of paths that exists, "" when none does.
func firstExisting(paths []string) (string, error) {
	for _, p := range paths {
		if p == "" {
			continue
		}
		_, err := os.Lstat(p)
		switch {
		case err == nil:
			return p, nil
		case !errors.Is(err, fs.ErrNotExist):
			return "", fmt.Errorf("--result-dir: %w", err)
		}
	}
	return "", nil
}

// recordFile is where a run writes its records.
type recordFile interface {
	io.Writer
	Sync() error
	Close() error
}

// openRecordFile creates the record file at path, refusing one that exists
// unless overwrite (another process may have taken the name since
// chooseFiles looked). Tests replace it to fill a disk mid-run.
var openRecordFile = func(path string, overwrite bool) (recordFile, error) {
	flag := os.O_WRONLY | os.O_CREATE | os.O_EXCL
	if overwrite {
		flag = os.O_WRONLY | os.O_CREATE | os.O_TRUNC
	}
	f, err := os.OpenFile(path, flag, 0o644)
	if errors.Is(err, fs.ErrExist) {
		return nil, fmt.Errorf("--result-dir: %s %w: give another --run-name, or --overwrite to replace it", path, ErrResultExists)
	}
	if err != nil {
		return nil, fmt.Errorf("--result-dir: %w", err)
	}
	return f, nil
}

// SaveError is Run's error when the run measured but could not keep all of
// it on disk: Run then still returns its Outcome, whose summary holds every
// measured request. For the record file it says how many records reached
// the file and where the last whole one is.
type SaveError struct {
	Path string // the file that could not be written
	Err  error

	// For the record file only:
	Records  bool  // Path is the record file
	Written  int64 // records in the file, each whole
	Measured int64 // records the run measured
	LastLine int   // the file's line holding the last whole record; 0 if none
	LastSeq  int64 // that record's sequence number
	Stopped  bool  // the run stopped because of it (no --ignore-write-errors)
}

func (e *SaveError) Error() string {
	if !e.Records {
		return fmt.Sprintf("%s was not written: %v", e.Path, e.Err)
	}
	if e.Written == e.Measured {
		return fmt.Sprintf("%s: %v: all %d records are in the file, but not its end marker, so readers will say it was cut off", e.Path, e.Err, e.Written)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %v: %d of %d measured records are in the file", e.Path, e.Err, e.Written, e.Measured)
	if e.LastLine > 0 {
		fmt.Fprintf(&b, ", the last whole one on line %d (seq %d)", e.LastLine, e.LastSeq)
	}
	if e.Stopped {
		b.WriteString("; the run stopped there (--ignore-write-errors goes on measuring without saving)")
	} else {
		b.WriteString("; the run went on without saving the rest")
	}
	b.WriteString("; the summary above holds every measured request")
	return b.String()
}

func (e *SaveError) Unwrap() error { return e.Err }

// writeJSON writes v, indented, to path, through a temporary file renamed
// into place, so that a failed write never leaves half a file where a
// reader would take it for a whole one.
func writeJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, append(b, '\n'), 0o644); err != nil {
		os.Remove(tmp)
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return err
	}
	return nil
}
