package runfile

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/goodput-dev/goodput/internal/gunzip"
	"github.com/goodput-dev/goodput/record"
)

// File is a Reader over an opened file of any format goodput reads.
// The caller must call Close.
type File struct {
	record.Reader
	Format   string   // "goodput", "seeds", "vllm", "aiperf", "guidellm", "genai-bench", "inference-perf" or "genai-perf"
	name     string   // the path given to Open
	notes    []string // what an importer found worth saying (times it spread evenly, a sample of the requests)
	closer   io.Closer
	count    int64 // records Next has returned
	canceled int64 // of them, requests canceled by the interruption
	ended    bool  // Next has reached the end
}

// ErrNoRecords is what File.Next returns, wrapped with the file's name,
// at the end of a file that held no record at all: an empty file, empty
// standard input, or a run that measured nothing. Nothing can be
// analysed from it, and a summary of zero requests would pass for one.
var ErrNoRecords = errors.New("no requests")

// Next reads the next record into r; see Reader. At the end of a file
// that yielded no record it returns an error wrapping ErrNoRecords
// instead of io.EOF.
func (f *File) Next(r *record.Record) error {
	err := f.Reader.Next(r)
	switch {
	case err == nil:
		f.count++
		if r.Error == record.ErrCanceled {
			f.canceled++
		}
	case err == io.EOF:
		f.ended = true
		if f.count == 0 {
			if c, ok := f.Reader.(interface{ Cut() int }); ok && c.Cut() != 0 {
				return fmt.Errorf("%w in %s: its only record line was cut off (its writer stopped mid-record)", ErrNoRecords, f.display())
			}
			return fmt.Errorf("%w in %s", ErrNoRecords, f.display())
		}
	}
	return err
}

// display names the file in messages.
func (f *File) display() string {
	if f.name == "-" {
		return "standard input"
	}
	return f.name
}

// EndedEarly reports, once Next has reached the end, whether the goodput
// run the file holds did not finish: it was interrupted, or its writer was
// cut off before the end marker. Files of other tools' formats, which
// promise no end marker, did not end early.
func (f *File) EndedEarly() bool {
	dr, ok := f.Reader.(*decoderReader)
	if !ok || !f.ended || dr.h.Kind != record.KindHeader {
		return false
	}
	t, ok := dr.d.Trailer()
	return !ok || t.Interrupted
}

// Notes say, once Next has reached the end, how the file ended when that
// was not a clean finish of a goodput run: its last line cut short (see
// CutNote), no end marker (the writer was killed, or is still running),
// or a run that was interrupted; and, for another tool's file, what of
// it is not measured but approximated. A reader shows them beside its
// results.
func (f *File) Notes() []string {
	notes := slices.Clone(f.notes)
	if n := f.CutNote(); n != "" {
		notes = append(notes, n)
	}
	dr, ok := f.Reader.(*decoderReader)
	if !ok || !f.ended || dr.h.Kind != record.KindHeader {
		// Only goodput's writer promises an end marker, and it always
		// writes a header first.
		return notes
	}
	t, ok := dr.d.Trailer()
	switch {
	case !ok:
		notes = append(notes, fmt.Sprintf("%s has no end marker: the run that wrote it was cut off (killed, or still running); its %d records are read", f.display(), f.count))
	case t.Interrupted:
		reason := t.Reason
		if reason == "" {
			reason = "no reason given"
		}
		canceled := "none was still in flight"
		switch f.canceled {
		case 0:
		case 1:
			canceled = "1 request still in flight was canceled"
		default:
			canceled = fmt.Sprintf("%d requests still in flight were canceled", f.canceled)
		}
		notes = append(notes, fmt.Sprintf("%s: the run was interrupted (%s): %s", f.display(), reason, canceled))
	}
	return notes
}

// CutNote says, for a reader of the file, which last line was dropped as
// cut off by a writer killed mid-record (see Decoder.Cut); "" when none
// was. It is known once Next has returned io.EOF.
func (f *File) CutNote() string {
	c, ok := f.Reader.(interface{ Cut() int })
	if !ok || c.Cut() == 0 {
		return ""
	}
	return fmt.Sprintf("%s:%d: the last line is incomplete (its writer stopped in the middle of it) and was skipped", f.display(), c.Cut())
}

// Trailer returns the file's trailer and whether it had one. It is known
// once Next has returned io.EOF; a file without one was cut off mid-run.
// Files of other tools' formats have none.
func (f *File) Trailer() (record.Trailer, bool) {
	t, ok := f.Reader.(interface{ Trailer() (record.Trailer, bool) })
	if !ok {
		return record.Trailer{}, false
	}
	return t.Trailer()
}

// Close closes the underlying file.
func (f *File) Close() error {
	if f.closer == nil {
		return nil
	}
	return f.closer.Close()
}

// Open opens path ("-" reads standard input from stdin) and detects its
// format from the content:
//
//   - goodput record files (JSON Lines, optionally behind a run header);
//   - the seeds' simple request log: a JSON array, or JSON Lines, of
//     {"arrival": seconds, "token_times": [seconds, …]} objects, each token
//     time a one-token chunk, the arrival both scheduled and sent time;
//   - a `vllm bench serve --save-result --save-detailed` result JSON;
//   - AIPerf's per-request export, profile_export.jsonl;
//   - GuideLLM's report of a benchmark run (benchmarks.json, or YAML);
//   - genai-bench's result of one load, {scenario}_…_time_{T}s.json (see
//     genaiBenchResult: it holds no send times, and its header the run's
//     Window).
//   - inference-perf's per-request report, per_request_lifecycle_metrics.json;
//   - GenAI-Perf's per-request export, profile_export.json (see
//     genaiPerfExport: no due times; tokens from the server's usage, else
//     one per piece of streamed text). Its summaries
//     (profile_export_genai_perf.json, .csv) are refused.
//
// A gzip-compressed file (run.jsonl.gz, or any file that begins as gzip
// does) is read as the file it decompresses to, with the same bounds: a
// line of records at most record.MaxLineBytes, a document read whole at
// most MaxDocumentBytes; a corrupt stream is an error naming the file.
//
// Imported records are converted to goodput's model on the way in, so every
// analysis treats them alike. A GuideLLM report of a sweep holds a run per
// benchmark, an inference-perf report of several stages a run per stage
// (told apart by the stage reports beside it), a GenAI-Perf export a run
// per experiment: path names one as FILE#N, from 1 (see SplitRun).
func Open(path string, stdin io.Reader) (*File, error) {
	var rc io.ReadCloser
	run := 0
	if path == "-" {
		rc = io.NopCloser(stdin)
	} else {
		var file string
		file, run = SplitRun(path)
		f, err := os.Open(file)
		if err != nil {
			return nil, err
		}
		rc = f
	}
	src, err := gunzip.NewReader(rc)
	if err != nil {
		rc.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	f, err := open(src, path, run)
	if err == nil && run > 0 && f.Format != "guidellm" && f.Format != "inference-perf" && f.Format != "genai-perf" {
		err = fmt.Errorf("%s: #%d names one of the runs of a file that holds several (a GuideLLM report, an inference-perf run of several stages, a GenAI-Perf export of several experiments), but this %s file holds one run", path, run, f.Format)
	}
	if err != nil {
		rc.Close()
		return nil, err
	}
	f.closer, f.name = rc, path
	return f, nil
}

// MaxDocumentBytes bounds what a gzip-compressed file may decompress to
// when its format is read whole (a JSON document, an array, YAML): a
// record file is read line by line, each line bounded by
// record.MaxLineBytes, but a document is held in memory, and a few
// megabytes of gzip can decompress to terabytes.
const MaxDocumentBytes = 4 << 30

// limitDocument bounds r, when it decompresses a gzip stream, to
// MaxDocumentBytes: what is read whole must fit in memory.
func limitDocument(r io.Reader) {
	if g, ok := r.(*gunzip.Reader); ok {
		g.Limit(MaxDocumentBytes)
	}
}

// SplitRun splits a path that names one run of a file holding several, as
// FILE#N (N from 1: the benchmarks of a GuideLLM sweep), into the file and
// N. A path that names a file as it is, or does not end in # and digits,
// comes back whole with 0.
func SplitRun(path string) (file string, run int) {
	i := strings.LastIndexByte(path, '#')
	if i <= 0 || i == len(path)-1 || strings.Trim(path[i+1:], "0123456789") != "" {
		return path, 0
	}
	n, err := strconv.Atoi(path[i+1:])
	if err != nil || n < 1 {
		return path, 0
	}
	if _, err := os.Stat(path); err == nil {
		return path, 0
	}
	return path[:i], n
}

// yamlStart matches the first line of a YAML document that is a mapping,
// as GuideLLM's YAML report is ("args:", "benchmarks:"), or its marker.
var yamlStart = regexp.MustCompile(`^(---|[A-Za-z_][A-Za-z0-9_]*:(\s|$))`)

func open(r io.Reader, name string, run int) (*File, error) {
	br := bufio.NewReaderSize(r, 1<<20)
	// A UTF-8 byte-order mark, which editors and PowerShell put at the
	// start of a text file, is no part of the JSON.
	if b, _ := br.Peek(3); bytes.Equal(b, []byte("\xef\xbb\xbf")) {
		br.Discard(3)
	}
	first, err := peekLine(br)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	switch {
	case len(first) == 0:
		return &File{Reader: &slice{}, Format: "goodput"}, nil
	case first[0] == '[':
		limitDocument(r)
		return openArray(br, name, run)
	case bytes.HasPrefix(first, []byte("Metric,")):
		// GenAI-Perf's and AIPerf's summary CSV: "Metric,avg,min,max,p99,…".
		return nil, genaiPerfSummaryError(name, "summary CSV of GenAI-Perf or AIPerf (profile_export_genai_perf.csv)")
	case first[0] != '{' && yamlStart.Match(first):
		limitDocument(r)
		return openYAML(br, name, run)
	case first[0] != '{':
		return nil, fmt.Errorf("%s:1: not a record file: expected a JSON object or array", name)
	}
	if isExportRow(first) {
		return nil, fmt.Errorf("%s:1: a row of goodput export's table, not a record: give the record file the run wrote (the .jsonl that starts with a goodput.run header)", name)
	}
	// A corrupt first record must still be read as one, so that its error
	// names the line and column: goodput writers put "kind" or "seq" first,
	// AIPerf "metadata".
	if bytes.HasPrefix(first, []byte(`{"kind"`)) || bytes.HasPrefix(first, []byte(`{"seq"`)) {
		return openRecords(br, name)
	}
	if bytes.HasPrefix(first, []byte(`{"metadata"`)) {
		return openAIPerf(br, name)
	}
	var probe map[string]json.RawMessage
	if json.Unmarshal(first, &probe) == nil {
		_, kind := probe["kind"]
		_, seq := probe["seq"]
		_, arrival := probe["arrival"]
		_, tokens := probe["token_times"]
		_, metadata := probe["metadata"]
		_, metrics := probe["metrics"]
		switch {
		case kind || seq:
			return openRecords(br, name)
		case arrival || tokens:
			return openSeedsLines(br, name)
		case metadata && metrics:
			return openAIPerf(br, name)
		}
	}
	// Not one object per line: a single JSON document, vLLM's result or
	// GuideLLM's report.
	limitDocument(r)
	b, err := io.ReadAll(br)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return openDocument(pythonNumbers(b), name, run)
}

// isExportRow reports whether line is a row of goodput export's JSON
// Lines table, which has a "seq" as records do but none of their times:
// fed back as records, its requests would take no time and all succeed.
func isExportRow(line []byte) bool {
	var probe map[string]json.RawMessage
	if json.Unmarshal(line, &probe) != nil {
		return false
	}
	_, outcome := probe["outcome"]
	_, e2e := probe["e2e_ms"]
	_, end := probe["te"]
	return outcome && e2e && !end
}

// openDocument reads a single JSON document by its top-level keys: a
// GuideLLM report has "benchmarks", a genai-bench result
// "individual_request_metrics" and "aggregated_metrics", a GenAI-Perf
// profile export "experiments" that hold "requests"; an inference-perf
// summary report and a GenAI-Perf summary, which hold no requests, are
// refused; anything else is read as vLLM's result, which says what it
// lacks. A document that does not decode but names genai-bench's keys,
// or a profile export's, is one cut short or damaged, and its error says
// so.
func openDocument(b []byte, name string, run int) (*File, error) {
	var top map[string]json.RawMessage
	if json.Unmarshal(b, &top) == nil {
		if _, ok := top["benchmarks"]; ok {
			return openGuideLLM(b, name, run)
		}
		if isGenAIBench(top) {
			return openGenAIBench(b, name)
		}
		if top["load_summary"] != nil && top["successes"] != nil {
			return nil, ipSummaryError(name)
		}
		if isGenAIPerf(top) {
			return openGenAIPerf(b, name, run)
		}
		if isGenAIPerfSummary(top) {
			return nil, genaiPerfSummaryError(name, "GenAI-Perf summary (profile_export_genai_perf.json)")
		}
	} else if bytes.Contains(b, []byte(`"individual_request_metrics"`)) || bytes.Contains(b, []byte(`"aggregated_metrics"`)) {
		return openGenAIBench(b, name)
	} else if bytes.Contains(b, []byte(`"experiments"`)) && bytes.Contains(b, []byte(`"response_timestamps"`)) {
		return openGenAIPerf(b, name, run)
	}
	return openVLLM(b, name)
}

func openRecords(r io.Reader, name string) (*File, error) {
	d := record.NewDecoder(r, name)
	h, err := d.Header()
	if err != nil {
		return nil, err
	}
	return &File{Reader: &decoderReader{d: d, h: h}, Format: "goodput"}, nil
}

// peekLine returns the first non-blank line without consuming it.
func peekLine(br *bufio.Reader) ([]byte, error) {
	for n := 4096; ; n *= 2 {
		b, err := br.Peek(n)
		trimmed := bytes.TrimLeft(b, " \t\r\n\ufeff")
		if i := bytes.IndexByte(trimmed, '\n'); i >= 0 {
			return bytes.TrimSpace(trimmed[:i]), nil
		}
		if err == io.EOF || err == bufio.ErrBufferFull || n >= br.Size() {
			return bytes.TrimSpace(trimmed), nil
		}
		if err != nil {
			return nil, err
		}
	}
}

type decoderReader struct {
	d *record.Decoder
	h record.Header
}

func (r *decoderReader) Header() record.Header         { return r.h }
func (r *decoderReader) Next(rec *record.Record) error { return r.d.Next(rec) }
func (r *decoderReader) Cut() int                      { return r.d.Cut() }

func (r *decoderReader) Trailer() (record.Trailer, bool) { return r.d.Trailer() }

// slice is a Reader over records already in memory (imports are small).
type slice struct {
	h    record.Header
	recs []record.Record
	i    int
}

func (s *slice) Header() record.Header { return s.h }

func (s *slice) Next(r *record.Record) error {
	if s.i >= len(s.recs) {
		return io.EOF
	}
	src := &s.recs[s.i]
	s.i++
	chunks := append(r.Chunks[:0], src.Chunks...)
	*r = *src
	r.Chunks = chunks
	return nil
}
