package bench

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/goodput-dev/goodput/record"
	"github.com/goodput-dev/goodput/runfile"
	"github.com/goodput-dev/goodput/sim"
)

// fullDisk is a record file on a disk with room for limit more bytes: the
// write that crosses the limit stores what fits and fails with ENOSPC, as
// a write(2) on a full file system does.
type fullDisk struct {
	f     *os.File
	mu    sync.Mutex // guards limit
	limit int
}

func (d *fullDisk) Write(p []byte) (int, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if len(p) <= d.limit {
		d.limit -= len(p)
		return d.f.Write(p)
	}
	n, _ := d.f.Write(p[:d.limit])
	d.limit = 0
	return n, &os.PathError{Op: "write", Path: d.f.Name(), Err: syscall.ENOSPC}
}

func (d *fullDisk) Sync() error  { return d.f.Sync() }
func (d *fullDisk) Close() error { return d.f.Close() }

// withFullDisk makes record files of this test hold only limit bytes.
func withFullDisk(t *testing.T, limit int) {
	t.Helper()
	orig := openRecordFile
	openRecordFile = func(path string, overwrite bool) (recordFile, error) {
		f, err := orig(path, overwrite)
		if err != nil {
			return nil, err
		}
		return &fullDisk{f: f.(*os.File), limit: limit}, nil
	}
	t.Cleanup(func() { openRecordFile = orig })
}

// readWhole reads a record file as analyze would and returns its records.
func readWhole(t *testing.T, path string) ([]record.Record, *runfile.File) {
	t.Helper()
	f, err := runfile.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []record.Record
	for {
		var r record.Record
		err := f.Next(&r)
		if err == io.EOF {
			return out, f
		}
		if err != nil {
			t.Fatalf("%s after %d records: %v", path, len(out), err)
		}
		out = append(out, r)
	}
}

// A disk that fills during the run: the run stops at once, still returns
// its summary, and says how many records reached the file and where the
// last whole one is; every record before the failure reads back.
func TestRunStopsWhenTheDiskIsFullAndKeepsTheSummary(t *testing.T) {
	withFullDisk(t, 4000) // the header and about a dozen records
	url := startSim(t, sim.Options{Seed: 3})
	cfg := smallConfig(t, url)
	cfg.Arrival.NumPrompts = 400
	cfg.Arrival.MaxConcurrency = 4
	cfg.Warmups = 0
	out, err := Run(t.Context(), cfg, nil, false)
	var se *SaveError
	if !errors.As(err, &se) {
		t.Fatalf("err = %v, want a *SaveError", err)
	}
	if out == nil || out.Result == nil {
		t.Fatal("no outcome: the summary was thrown away")
	}
	if !se.Stopped || se.Path != out.RecordsPath || !errors.Is(err, syscall.ENOSPC) {
		t.Errorf("save error = %+v", se)
	}
	if out.Run.Sent >= 400 {
		t.Errorf("the run went on after the disk filled: %d sent", out.Run.Sent)
	}
	measured := out.Result.Counts.Total + out.Result.Counts.WarmupExcluded
	if se.Measured != measured || se.Written >= measured || se.Written < 5 {
		t.Errorf("written %d, measured %d (summary %d)", se.Written, se.Measured, measured)
	}
	recs, f := readWhole(t, out.RecordsPath)
	if int64(len(recs)) != se.Written || out.RecordsWritten != se.Written {
		t.Fatalf("the file holds %d records, the error says %d, the outcome %d", len(recs), se.Written, out.RecordsWritten)
	}
	if last := recs[len(recs)-1]; last.Seq != se.LastSeq || se.LastLine != len(recs)+1 {
		t.Errorf("last record seq %d on line %d; the error says seq %d, line %d", last.Seq, len(recs)+1, se.LastSeq, se.LastLine)
	}
	if notes := strings.Join(f.Notes(), "\n"); !strings.Contains(notes, "no end marker") {
		t.Errorf("the file's notes do not say it was cut off: %q", notes)
	}
	msg := err.Error()
	for _, want := range []string{
		out.RecordsPath, "no space left on device",
		fmt.Sprintf("%d of %d measured records", se.Written, se.Measured),
		fmt.Sprintf("line %d (seq %d)", se.LastLine, se.LastSeq),
		"the run stopped", "--ignore-write-errors",
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("error %q lacks %q", msg, want)
		}
	}
	// The summary file, on the same full disk, was not written, and the
	// outcome does not claim it was.
	if out.SummaryPath != "" {
		if _, err := os.Stat(out.SummaryPath); err != nil {
			t.Errorf("outcome names a summary file that is not there: %v", err)
		}
	}
}

// Asked to go on, the run measures everything it planned and still says
// what the file lacks.
func TestRunGoesOnAfterAWriteErrorWhenAsked(t *testing.T) {
	withFullDisk(t, 3000)
	url := startSim(t, sim.Options{Seed: 4})
	cfg := smallConfig(t, url)
	cfg.Arrival.NumPrompts = 40
	cfg.IgnoreWriteErrors = true
	out, err := Run(t.Context(), cfg, nil, false)
	var se *SaveError
	if !errors.As(err, &se) || se.Stopped {
		t.Fatalf("err = %v, want a *SaveError that did not stop the run", err)
	}
	if out.Run.Sent != 40 || se.Measured != 40 || se.Written >= 40 {
		t.Errorf("sent %d, measured %d, written %d", out.Run.Sent, se.Measured, se.Written)
	}
	if recs, _ := readWhole(t, out.RecordsPath); int64(len(recs)) != se.Written {
		t.Errorf("file has %d records, error says %d", len(recs), se.Written)
	}
	if !strings.Contains(err.Error(), "the run went on without saving") {
		t.Errorf("error: %v", err)
	}
}

// When only the summary file cannot be written, the records are whole,
// the summary is still returned, and the error names the file.
func TestRunKeepsTheSummaryWhenItsFileCannotBeWritten(t *testing.T) {
	url := startSim(t, sim.Options{Seed: 5})
	cfg := smallConfig(t, url)
	cfg.Overwrite = true
	summary := filepath.Join(cfg.ResultDir, "run.summary.json")
	// A directory in the summary's place, not empty: nothing can replace it.
	if err := os.MkdirAll(filepath.Join(summary, "x"), 0o755); err != nil {
		t.Fatal(err)
	}
	out, err := Run(t.Context(), cfg, nil, false)
	var se *SaveError
	if !errors.As(err, &se) || se.Path != summary {
		t.Fatalf("err = %v, want a *SaveError for %s", err, summary)
	}
	if out == nil || out.Result == nil || out.Result.Counts.Completed != 20 {
		t.Fatalf("outcome = %+v", out)
	}
	if out.SummaryPath != "" {
		t.Errorf("outcome claims the summary %s was written", out.SummaryPath)
	}
	recs, _, tr := readRecords(t, out.RecordsPath)
	if len(recs) != 24 || tr == nil || out.RecordsWritten != 24 {
		t.Errorf("%d records, trailer %+v, written %d", len(recs), tr, out.RecordsWritten)
	}
	// The other files were still written.
	if out.VLLMPath == "" {
		t.Error("the vLLM result was not written")
	}
	if _, err := os.Stat(summary + ".tmp"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a temporary file is left behind: %v", err)
	}
}

// A second run with the same --result-dir and --run-name refuses before
// sending anything, naming the file, unless --overwrite; without
// --run-name, a run whose default name is taken gets a fresh one.
func TestRunRefusesToOverwriteAnEarlierRun(t *testing.T) {
	url := startSim(t, sim.Options{Seed: 6})
	cfg := smallConfig(t, url)
	cfg.Arrival.NumPrompts = 6
	cfg.Warmups = 0
	first, err := Run(t.Context(), cfg, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(first.RecordsPath)

	for _, name := range []string{"run.jsonl", "run.summary.json", "run.vllm.json"} {
		t.Run(name, func(t *testing.T) {
			// Leave only this one of the first run's files.
			for _, other := range []string{"run.jsonl", "run.summary.json", "run.vllm.json"} {
				p := filepath.Join(cfg.ResultDir, other)
				if other == name {
					os.WriteFile(p, before, 0o644)
				} else {
					os.Remove(p)
				}
			}
			out, err := Run(t.Context(), cfg, nil, false)
			path := filepath.Join(cfg.ResultDir, name)
			if out != nil || !errors.Is(err, ErrResultExists) || !strings.Contains(err.Error(), path) ||
				!strings.Contains(err.Error(), "--overwrite") {
				t.Fatalf("second run: %v, %v; want a refusal naming %s", out, err, path)
			}
			if after, _ := os.ReadFile(path); string(after) != string(before) {
				t.Error("the refused run changed the earlier file")
			}
		})
	}
	cfg.Overwrite = true
	out, err := Run(t.Context(), cfg, nil, false)
	if err != nil || out.RecordsPath != first.RecordsPath {
		t.Fatalf("with --overwrite: %v", err)
	}

	// Default names: two runs in the same second do not collide.
	cfg.Overwrite, cfg.RunName = false, ""
	dir := cfg.ResultDir
	a, errA := Run(t.Context(), cfg, nil, false)
	b, errB := Run(t.Context(), cfg, nil, false)
	if errA != nil || errB != nil || a.RecordsPath == b.RecordsPath {
		t.Fatalf("default names: %v %v, %v %v", a, errA, b, errB)
	}
	for _, p := range []string{a.RecordsPath, b.RecordsPath} {
		if filepath.Dir(p) != dir {
			t.Errorf("%s is not in %s", p, dir)
		}
		if recs, _ := readWhole(t, p); len(recs) != 6 {
			t.Errorf("%s: %d records", p, len(recs))
		}
	}
}

// Runs started together in one directory (a CI matrix, a shell loop with
// &) may all choose the same default name before any has created it: the
// one that loses the race to create the record file takes the next free
// name, as it would have had it looked a moment later, instead of failing
// with a usage error about a --run-name it never gave.
func TestDefaultNameTakenBetweenChoosingAndCreating(t *testing.T) {
	url := startSim(t, sim.Options{Seed: 6})
	cfg := smallConfig(t, url)
	cfg.Arrival.NumPrompts = 4
	cfg.Warmups = 0
	cfg.RunName = ""
	cfg.SaveResult = true
	var rival string
	orig := openRecordFile
	openRecordFile = func(path string, overwrite bool) (recordFile, error) {
		if rival == "" {
			// The other run creates the file now, between this run's
			// choice of name and its own create.
			rival = path
			if err := os.WriteFile(path, []byte("the other run's records\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return orig(path, overwrite)
	}
	t.Cleanup(func() { openRecordFile = orig })
	out, err := Run(t.Context(), cfg, nil, false)
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	if out.RecordsPath == rival || out.RecordsPath != strings.TrimSuffix(rival, ".jsonl")+"-2.jsonl" {
		t.Errorf("records in %s, want the next free name after %s", out.RecordsPath, rival)
	}
	if want := strings.TrimSuffix(out.RecordsPath, ".jsonl") + ".summary.json"; out.SummaryPath != want {
		t.Errorf("summary in %s, want %s beside the records", out.SummaryPath, want)
	}
	if b, _ := os.ReadFile(rival); string(b) != "the other run's records\n" {
		t.Errorf("the other run's file was changed: %q", b)
	}
	if recs, _ := readWhole(t, out.RecordsPath); len(recs) != 4 {
		t.Errorf("%s: %d records, want 4", out.RecordsPath, len(recs))
	}
}

// What a SaveError says, for each way a file can fail.
func TestSaveErrorWords(t *testing.T) {
	full := syscall.ENOSPC
	tests := []struct {
		name string
		e    SaveError
		want string
	}{
		// the record file filled: the run stopped
		{"stopped", SaveError{Path: "r.jsonl", Err: full, Records: true, Written: 841, Measured: 850, LastLine: 842, LastSeq: 840, Stopped: true},
			"r.jsonl: no space left on device: 841 of 850 measured records are in the file, the last whole one on line 842 (seq 840); the run stopped there (--ignore-write-errors goes on measuring without saving); the summary above holds every measured request"},
		// asked to go on
		{"went on", SaveError{Path: "r.jsonl", Err: full, Records: true, Written: 3, Measured: 40, LastLine: 4, LastSeq: 2},
			"r.jsonl: no space left on device: 3 of 40 measured records are in the file, the last whole one on line 4 (seq 2); the run went on without saving the rest; the summary above holds every measured request"},
		// not even the first record
		{"none", SaveError{Path: "r.jsonl", Err: full, Records: true, Written: 0, Measured: 5, Stopped: true},
			"r.jsonl: no space left on device: 0 of 5 measured records are in the file; the run stopped there"},
		// every record, but not the end marker
		{"trailer", SaveError{Path: "r.jsonl", Err: full, Records: true, Written: 24, Measured: 24, LastLine: 25, LastSeq: 23},
			"r.jsonl: no space left on device: all 24 records are in the file, but not its end marker, so readers will say it was cut off"},
		// another file
		{"summary", SaveError{Path: "r.summary.json", Err: full}, "r.summary.json was not written: no space left on device"},
	}
	for _, tc := range tests {
		if got := tc.e.Error(); !strings.HasPrefix(got, tc.want) {
			t.Errorf("%s:\n got %s\nwant %s", tc.name, got, tc.want)
		}
	}
}
