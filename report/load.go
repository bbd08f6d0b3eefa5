package report

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/goodput-dev/goodput/internal/gunzip"
	"github.com/goodput-dev/goodput/internal/jsonerr"
	"github.com/goodput-dev/goodput/metrics"
	"github.com/goodput-dev/goodput/promscrape"
	"github.com/goodput-dev/goodput/record"
	"github.com/goodput-dev/goodput/runfile"
	"github.com/goodput-dev/goodput/serverview"
	"github.com/goodput-dev/goodput/slo"
	"github.com/goodput-dev/goodput/sweep"
	"github.com/goodput-dev/goodput/sweepserve"
)

// Input is what Load found: a run or a sweep (exactly one is set).
type Input struct {
	Run   *Run
	Sweep *Sweep
}

// Sweep is a sweep file ready to render.
type Sweep struct {
	Name    string // the file's stem
	Path    string
	Summary sweep.Summary
	// Records maps a load (its canonical form, Load.String) to the record
	// files of its measurements found beside the sweep file, by base name,
	// so that a report can say where each point's requests are.
	Records map[string][]string
	// Context is what the sweep measured, from the files beside it.
	Context SweepContext
	// Servers maps a load (Load.String) to the server's own account of
	// each of its measurements, from their summary files beside the sweep
	// file, in repeat order.
	Servers map[string][]MeasuredServer
}

// MeasuredServer is what one measurement's summary file says the server
// saw of it.
type MeasuredServer struct {
	Summary string // the summary file, by base name
	Repeat  int    // 1 for the first measurement of the load
	// Server is the server's account (of its endpoints together, for a
	// run spread over several: serverview.Fleet); nil when the summary
	// holds none (its /metrics were not scraped, as in virtual time).
	Server *serverview.Comparison
}

// repeatLabel is the record label a sweep sets to a measurement's repeat
// (sweeprun.LabelRepeat): 1 for the first.
const repeatLabel = "repeat"

// loadLabel is the record label a sweep sets to each measurement's load
// (sweeprun.LabelLoad), in the load's canonical form.
const loadLabel = "load"

// SummaryFile is the summary `goodput bench --save-result` writes beside a
// run's records (bench.SummaryFile), as far as a report reads it.
type SummaryFile struct {
	Kind        string          `json:"kind"` // SummaryKind
	Header      record.Header   `json:"run"`
	Records     string          `json:"records,omitempty"`
	Interrupted bool            `json:"interrupted,omitempty"`
	Result      *metrics.Result `json:"result"`
	Generator   struct {
		LagP99   float64  `json:"dispatch_lag_p99_seconds"`
		LagMax   float64  `json:"dispatch_lag_max_seconds"`
		Limited  bool     `json:"generator_limited"`
		Warnings []string `json:"warnings,omitempty"`
	} `json:"generator"`
	// Server is the server's own account of the run from its /metrics,
	// when it was scraped.
	Server *serverview.Comparison `json:"server,omitempty"`
	// Servers is each endpoint's account of a run spread over several
	// (Server is then nil).
	Servers []EndpointAccount `json:"servers,omitempty"`
	// Probes are the one-token probe requests sent beside the run
	// (bench --probe-request-rate), when there were any.
	Probes *ProbeRequests `json:"probes,omitempty"`
	// Findings are what the run found that bears on its numbers but is
	// no fault (answers that ended before their length); Warnings its
	// faults.
	Findings []string `json:"findings,omitempty"`
	Warnings []string `json:"warnings,omitempty"`
}

// EndpointAccount is one endpoint's own account of a run spread over
// several (bench.EndpointServer).
type EndpointAccount struct {
	Endpoint string                 `json:"endpoint"`
	Server   *serverview.Comparison `json:"server,omitempty"`
}

// ProbeRequests are the probes of a run as its summary keeps them
// (bench.Probes).
type ProbeRequests struct {
	Rate       float64   `json:"rate"`         // per second, as asked
	Latencies  []float64 `json:"e2el_seconds"` // of the successful ones, in the order sent
	Failed     int       `json:"failed"`
	FirstError string    `json:"first_error,omitempty"`
	Late       int       `json:"late,omitempty"` // sent late, the one before still in flight
}

// server returns the server's account of the run: its one server's, or
// for a run spread over several endpoints their account together
// (serverview.Fleet).
func (s *SummaryFile) server() *serverview.Comparison {
	if s.Server != nil || len(s.Servers) == 0 {
		return s.Server
	}
	cs := make([]*serverview.Comparison, len(s.Servers))
	for i, e := range s.Servers {
		cs[i] = e.Server
	}
	return serverview.Fleet(cs)
}

// SLO returns the per-request SLO the run was summarised with; nil when
// it had none.
func (s *SummaryFile) SLO() (slo.Conditions, error) {
	if s.Result == nil || s.Result.Goodput == nil || s.Result.Goodput.SLO == "" {
		return nil, nil
	}
	cs, err := slo.ParseConditions(s.Result.Goodput.SLO)
	if err != nil {
		return nil, fmt.Errorf("the run's SLO: %w", err)
	}
	return cs, nil
}

// SummaryBeside reads the summary file written beside a run's records
// (NAME.summary.json, or NAME.summary.json.gz compressed, for NAME.jsonl
// or NAME.jsonl.gz); nil without error when there is none.
func SummaryBeside(records string) (*SummaryFile, error) {
	path, ok := SummaryPath(records)
	if !ok {
		return nil, nil
	}
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadSummaryFile(f, path)
}

// recordsBase returns a run's records path less RecordsSuffix (and a
// gzip-compressed file's GzipSuffix), the base of the files beside them:
// "dir/run" for "dir/run.jsonl" or "dir/run.jsonl.gz". ok is false for
// standard input and a file not named as records.
func recordsBase(records string) (base string, ok bool) {
	if records == "-" {
		return "", false
	}
	return strings.CutSuffix(strings.TrimSuffix(records, GzipSuffix), RecordsSuffix)
}

// SummaryPath is where a run's summary lies beside its records
// (NAME.summary.json for NAME.jsonl or NAME.jsonl.gz, or
// NAME.summary.json.gz when only that compressed one is there); false for
// a file not named as records are, or standard input.
func SummaryPath(records string) (string, bool) {
	base, ok := recordsBase(records)
	if !ok {
		return "", false
	}
	return besidePath(base, SummarySuffix), true
}

// besidePath is the file beside a run's records of the given suffix
// (base+suffix), or that file compressed (base+suffix+GzipSuffix) when
// only it is there: gzip replaces the file it compresses.
func besidePath(base, suffix string) string {
	p := base + suffix
	if _, err := os.Stat(p); errors.Is(err, os.ErrNotExist) {
		if _, err := os.Stat(p + GzipSuffix); err == nil {
			return p + GzipSuffix
		}
	}
	return p
}

// named reports whether a file's name ends in suffix, or in suffix and
// GzipSuffix: whether it is that kind of file, compressed or not.
func named(name, suffix string) bool {
	return strings.HasSuffix(name, suffix) || strings.HasSuffix(name, suffix+GzipSuffix)
}

// SummaryKind marks a run summary file.
const SummaryKind = "goodput.summary"

// File name suffixes of the files a run leaves in its result directory.
const (
	RecordsSuffix = ".jsonl"
	SummarySuffix = ".summary.json"
	// ServerSuffix names the server's series (a promscrape.Series as
	// JSON) saved beside the records: run.jsonl, run.server.json.
	ServerSuffix = ".server.json"
	// GzipSuffix ends a gzip-compressed file's name (run.jsonl.gz), whose
	// summary and server series are those of the file it holds.
	GzipSuffix = ".gz"
)

// MaxSummaryBytes bounds what a gzip-compressed summary, server series or
// sweep file may decompress to. They are held in memory whole, and hold
// a run's figures, not its requests: megabytes at most, where a few
// megabytes of gzip can decompress to terabytes.
const MaxSummaryBytes = 64 << 20

// ReadSummaryFile reads a run summary from r, gzip-compressed or not (see
// MaxSummaryBytes); name is used in errors.
func ReadSummaryFile(r io.Reader, name string) (*SummaryFile, error) {
	b, err := gunzip.ReadAll(r, MaxSummaryBytes)
	if err != nil {
		return nil, fmt.Errorf("%s: summary file: %w", name, err)
	}
	var s SummaryFile
	if err := decodeStrict(b, &s); err != nil {
		return nil, fmt.Errorf("%s: summary file: %w", name, err)
	}
	if s.Kind != SummaryKind {
		return nil, fmt.Errorf("%s: not a run summary: kind %q, want %q", name, s.Kind, SummaryKind)
	}
	if s.Result == nil {
		return nil, fmt.Errorf("%s: summary file has no result", name)
	}
	return &s, nil
}

// decodeStrict decodes the JSON document b into v, as a Decoder does,
// and refuses a key written twice in one object (see jsonerr.Keys), which
// encoding/json would read as the last of them.
func decodeStrict(b []byte, v any) error {
	if err := json.NewDecoder(bytes.NewReader(b)).Decode(v); err != nil {
		return err
	}
	return jsonerr.Keys(b, v)
}

// ReadServerSeries reads a server series saved as JSON, gzip-compressed
// or not (see MaxSummaryBytes); name is used in errors.
func ReadServerSeries(r io.Reader, name string) (*promscrape.Series, error) {
	b, err := gunzip.ReadAll(r, MaxSummaryBytes)
	if err != nil {
		return nil, fmt.Errorf("%s: server series: %w", name, err)
	}
	var s promscrape.Series
	if err := decodeStrict(b, &s); err != nil {
		return nil, fmt.Errorf("%s: server series: %w", name, err)
	}
	for i := 1; i < len(s.Samples); i++ {
		if s.Samples[i].At.Before(s.Samples[i-1].At) {
			return nil, fmt.Errorf("%s: server series: sample %d is earlier than sample %d", name, i+1, i)
		}
	}
	return &s, nil
}

// Load reads what path names for a report:
//
//   - a record file of any format runfile.Open reads ("-" reads stdin),
//     or one run of a file that holds several, as FILE#N;
//   - a run summary file, whose records it then reads;
//   - a sweep file;
//   - a directory holding one of those: a sweep file (sweep.json, or the
//     only JSON file that is one), or a single run's records (NAME.jsonl).
//
// Beside a run's records NAME.jsonl it also reads NAME.summary.json (for
// the generator's warnings, and the SLO when o asks for the run's own) and
// NAME.server.json (the server's series), when they exist.
func Load(path string, stdin io.Reader, o RunOptions) (Input, error) {
	kind, file, err := Locate(path)
	if err != nil {
		return Input{}, err
	}
	if kind == KindSweep {
		s, err := LoadSweep(file)
		return Input{Sweep: s}, err
	}
	run, err := LoadRun(file, stdin, o)
	return Input{Run: run}, err
}

// Kinds of input Locate finds.
const (
	KindRun   = "run"
	KindSweep = "sweep"
)

// Locate says what path holds, as Load reads it: KindRun with the records
// file to read ("-" stays "-"), or KindSweep with the sweep file. Only a
// regular file is read to see which; any other (a pipe) holds records.
func Locate(path string) (kind, file string, err error) {
	if path == "-" {
		return KindRun, path, nil
	}
	fi, err := os.Stat(path)
	if err != nil {
		// FILE#N names one run of a file that holds several.
		if file, n := runfile.SplitRun(path); n > 0 {
			if fi, serr := os.Stat(file); serr == nil && !fi.IsDir() {
				return KindRun, path, nil
			}
		}
		return "", "", err
	}
	switch {
	case fi.IsDir():
		return locateDir(path)
	case !fi.Mode().IsRegular():
		// A pipe, FIFO or device (/dev/stdin) can be read once: it is
		// read as records, not opened twice to see what it holds.
		return KindRun, path, nil
	}
	what, err := sniff(path)
	if err != nil {
		return "", "", err
	}
	switch what {
	case "sweep":
		return KindSweep, path, nil
	case "summary":
		recs, err := recordsOfSummary(path)
		return KindRun, recs, err
	}
	return KindRun, path, nil
}

// InputFiles returns the files that what Locate found (kind and file)
// is made of: for a run, its records (the file of a FILE#N) with the
// summary and the server series beside them, which LoadRun reads; for a
// sweep, the sweep file, the settings beside it, and every record file
// (with its summary and server series) and summary in its directory,
// which LoadSweep reads to find its points. A command that writes a file
// refuses any of them as its output: writing there would replace what it
// reads, or a file of the run it reads. Standard input ("-") is none.
func InputFiles(kind, file string) []string {
	if kind != KindSweep {
		return runInputFiles(file)
	}
	out := []string{file}
	dir := filepath.Dir(file)
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		name := e.Name()
		p := filepath.Join(dir, name)
		switch {
		case e.IsDir():
		case named(name, RecordsSuffix):
			out = append(out, runInputFiles(p)...)
		case name == sweepConfigFile || name == sweepConfigFile+GzipSuffix || named(name, SummarySuffix):
			out = append(out, p)
		}
	}
	return out
}

// runInputFiles is InputFiles of a run's records.
func runInputFiles(records string) []string {
	if records == "-" {
		return nil
	}
	file, _ := runfile.SplitRun(records)
	out := []string{file}
	base, ok := recordsBase(file)
	if !ok {
		return out
	}
	// The files beside the records are theirs compressed or not.
	out = append(out, base+SummarySuffix, base+SummarySuffix+GzipSuffix, base+ServerSuffix, base+ServerSuffix+GzipSuffix)
	// A run over several endpoints saved a series for each (see LoadRun).
	for i := 1; ; i++ {
		p := besidePath(base, fmt.Sprintf(".server-%d.json", i))
		if _, err := os.Stat(p); err != nil {
			break
		}
		out = append(out, p)
	}
	return out
}

// RunRecords returns the records file of the run that path names, as Load
// would read it: a record file ("-" for standard input), a run's summary
// file, or a result directory holding one run. A sweep is an error that
// says so, for the commands that read one run.
func RunRecords(path string) (string, error) {
	kind, file, err := Locate(path)
	if err != nil {
		return "", err
	}
	if kind == KindSweep {
		return "", fmt.Errorf("%s is a sweep: name one of its points' record files (the *%s files beside %s)", path, RecordsSuffix, filepath.Base(file))
	}
	return file, nil
}

// RunFiles is RunRecords for the commands that merge the shards of a run
// (analyze, export): a result directory that holds only the record files
// of one sharded run (bench's default names, NAME-shardK-of-N.jsonl and
// their retries' …-attemptA.jsonl) gives all of them.
func RunFiles(path string) ([]string, error) {
	file, err := RunRecords(path)
	if err == nil {
		return []string{file}, nil
	}
	if fi, serr := os.Stat(path); serr == nil && fi.IsDir() {
		entries, rerr := os.ReadDir(path)
		if rerr != nil {
			return nil, rerr
		}
		var records []string
		for _, e := range entries {
			if !e.IsDir() && named(e.Name(), RecordsSuffix) {
				records = append(records, filepath.Join(path, e.Name()))
			}
		}
		if shards := shardsOfOneRun(runRecordFiles(records)); len(shards) > 1 {
			return shards, nil
		}
	}
	return nil, err
}

// runRecordFiles returns those of a directory's record files that hold
// its run. A merge's output (its header lists the files it was merged
// from: record.Header.Merged, the rule merge.Files follows) is set apart
// from the rest, which are usually the very shards it was merged from:
// read together, every record would count twice.
//
// The merged file alone is the run when it is the only one and was merged
// from every other record file there (by name): it holds all they hold,
// on the clock and with the checks of the merge, and it is what the
// Kubernetes merge step leaves beside the shards. Otherwise it may be
// stale (a merge that gave up waiting for a shard, a shard retried after
// it), so the other files are the run, read as they are. A directory of
// merged files alone is left as it is, for the caller to say it holds
// several runs or one.
func runRecordFiles(records []string) []string {
	records = withoutCompressedCopies(records)
	if len(records) < 2 {
		return records
	}
	var merged, rest []string
	var parts []record.Part
	for _, p := range records {
		if h, ok := recordHeader(p); ok && h.Merged() {
			merged, parts = append(merged, p), h.Parts
		} else {
			rest = append(rest, p)
		}
	}
	if len(merged) == 0 || len(rest) == 0 {
		return records
	}
	if len(merged) > 1 {
		return rest
	}
	from := map[string]bool{}
	for _, pt := range parts {
		from[filepath.Base(pt.File)] = true
	}
	for _, p := range rest {
		if !from[filepath.Base(p)] {
			return rest
		}
	}
	return merged
}

// recordHeader returns the run header of the record file at path, false
// when it cannot be read as one.
// withoutCompressedCopies drops each X.gz of records that is a copy of
// the X beside it, as gzip -k leaves: the same header line, so the same
// run. The plain file is kept, which holds at least as much (a copy
// taken while the run went on holds less). An X.gz of another run stays,
// for the caller to say the directory holds several.
func withoutCompressedCopies(records []string) []string {
	plain := map[string]bool{}
	for _, p := range records {
		plain[p] = true
	}
	return slices.DeleteFunc(slices.Clone(records), func(p string) bool {
		orig, ok := strings.CutSuffix(p, GzipSuffix)
		if !ok || !plain[orig] {
			return false
		}
		a, aerr := firstLine(orig)
		b, berr := firstLine(p)
		return aerr == nil && berr == nil && a != "" && a == b
	})
}

// firstLine is the first line of the file at path, decompressed when the
// file is gzip-compressed; at most 1 MiB of it is read.
func firstLine(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	zr, err := gunzip.NewReader(f)
	if err != nil {
		return "", err
	}
	line, err := bufio.NewReaderSize(io.LimitReader(zr, 1<<20), 64<<10).ReadString('\n')
	if err != nil && err != io.EOF {
		return "", err
	}
	return line, nil
}

func recordHeader(path string) (record.Header, bool) {
	f, err := runfile.Open(path, nil)
	if err != nil {
		return record.Header{}, false
	}
	defer f.Close()
	return f.Header(), true
}

// shardName is bench's default name of a shard's records, gzip-
// compressed or not.
var shardName = regexp.MustCompile(`^(.+)-shard[0-9]+-of-([0-9]+)(-attempt[0-9]+)?\.jsonl(\.gz)?$`)

// shardsOfOneRun returns files when every one is named as a shard of the
// same run (one stem, one shard count), nil otherwise.
func shardsOfOneRun(files []string) []string {
	var stem, count string
	for i, f := range files {
		m := shardName.FindStringSubmatch(filepath.Base(f))
		if m == nil || i > 0 && (m[1] != stem || m[2] != count) {
			return nil
		}
		stem, count = m[1], m[2]
	}
	return files
}

// sniff says what the JSON file at path holds (see sniffJSON); a
// gzip-compressed file, what it decompresses to.
func sniff(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	zr, err := gunzip.NewReader(f)
	if err != nil {
		return "records", nil // runfile.Open says what is wrong with it
	}
	return sniffJSON(zr), nil
}

// sniffJSON says what a JSON document holds from its top-level keys:
// "sweep" (a sweep file has "schema" and "points"), "summary" (kind
// goodput.summary), or "records" for anything else, which runfile.Open then
// recognises or rejects. It reads at most the first MiB, skipping values
// without keeping them.
func sniffJSON(r io.Reader) string {
	dec := json.NewDecoder(bufio.NewReader(io.LimitReader(r, 1<<20)))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return "records"
	}
	schema, points := false, false
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return "records"
		}
		switch t {
		case "kind":
			var v string
			if dec.Decode(&v) == nil && v == SummaryKind {
				return "summary"
			}
			return "records"
		case "schema":
			schema = true
		case "points":
			points = true
		}
		if schema && points {
			return "sweep"
		}
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return "records"
		}
	}
	return "records"
}

// recordsOfSummary returns the records file a summary names: as written,
// or, when the run's directory has moved, the file of that name beside
// the summary.
func recordsOfSummary(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	s, err := ReadSummaryFile(f, path)
	if err != nil {
		return "", err
	}
	// The records are looked for beside the summary first: its
	// "records" path was written from where the run was started, and,
	// relative, names another run's file from anywhere else. A summary
	// or records compressed since are the run's all the same.
	name := strings.TrimSuffix(filepath.Base(path), GzipSuffix)
	beside := filepath.Join(filepath.Dir(path), strings.TrimSuffix(name, SummarySuffix)+RecordsSuffix)
	candidates := []string{beside}
	if s.Records != "" {
		candidates = []string{filepath.Join(filepath.Dir(path), filepath.Base(s.Records)), beside}
		if filepath.IsAbs(s.Records) {
			candidates = append(candidates, s.Records)
		}
	}
	for _, c := range candidates {
		for _, p := range []string{c, c + GzipSuffix} {
			if fi, err := os.Stat(p); err == nil && !fi.IsDir() {
				return p, nil
			}
		}
	}
	return "", fmt.Errorf("%s: the run's records (%s) were not found: a report needs them; name the records file instead", path, candidates[0])
}

func locateDir(dir string) (kind, file string, err error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return "", "", err
	}
	var records, sweeps []string
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		name := e.Name()
		p := filepath.Join(dir, name)
		switch {
		case named(name, RecordsSuffix):
			records = append(records, p)
		case named(name, ".json") && !named(name, SummarySuffix) && !named(name, ServerSuffix):
			if k, err := sniff(p); err == nil && k == "sweep" {
				sweeps = append(sweeps, p)
			}
		}
	}
	records = runRecordFiles(records)
	if i := slices.IndexFunc(sweeps, func(p string) bool { return stem(p) == "sweep" }); i >= 0 {
		sweeps = sweeps[i : i+1]
	}
	if combos, ok, _ := sweepserve.ReadExperiment(dir); ok && len(sweeps) == 0 {
		return "", "", fmt.Errorf("%s is a sweep over server settings (goodput sweep serve, %d settings): goodput compare %s -o compare.html sets them side by side; name a setting's run=N.jsonl to report on one run", dir, len(combos), dir)
	}
	switch {
	case len(sweeps) == 1:
		return KindSweep, sweeps[0], nil
	case len(sweeps) > 1:
		return "", "", fmt.Errorf("%s: several sweep files (%s): name one", dir, baseNames(sweeps))
	case len(records) == 1:
		return KindRun, records[0], nil
	case len(records) > 1 && len(shardsOfOneRun(records)) > 0:
		return "", "", fmt.Errorf("%s holds the shards of one run (%s): goodput merge %s --output FILE merges them into one file (goodput analyze and export read the directory as one run)", dir, baseNames(records), dir)
	case len(records) > 1:
		return "", "", fmt.Errorf("%s: several runs (%s): name one", dir, baseNames(records))
	}
	if file, ok, err := genaiBenchRun(dir); ok || err != nil {
		return KindRun, file, err
	}
	return "", "", fmt.Errorf("%s: no records (*%s) or sweep file found", dir, RecordsSuffix)
}

// genaiBenchRun is the run of a genai-bench experiment folder, which holds
// a result file per load: one load stands for the folder; several are
// several runs, as a GuideLLM report of several benchmarks is, and the
// error names them. ok is false for a folder that is not genai-bench's.
func genaiBenchRun(dir string) (file string, ok bool, err error) {
	runs, ok, err := runfile.GenAIBenchRuns(dir)
	switch {
	case err != nil || !ok:
		return "", ok, err
	case len(runs) == 0:
		return "", true, fmt.Errorf("%s: a genai-bench experiment folder without the result of any load ({scenario}_{task}_{iteration}_{value}_time_{T}s.json)", dir)
	case len(runs) == 1:
		return runs[0], true, nil
	}
	return "", true, fmt.Errorf("%s: several runs (a genai-bench experiment of %d loads: %s): name one, as %s", dir, len(runs), baseNames(runs), runs[0])
}

func baseNames(paths []string) string {
	out := make([]string, len(paths))
	for i, p := range paths {
		out[i] = filepath.Base(p)
	}
	return strings.Join(out, ", ")
}

// LoadSweep reads a sweep file, and beside it what the sweep left of each
// point: its record files, the settings and its summaries (the server's
// account of each measurement, Sweep.Servers).
func LoadSweep(path string) (*Sweep, error) {
	s, err := sweep.ReadFile(path)
	if err != nil {
		return nil, err
	}
	name := stem(path)
	if name == "sweep" {
		// sweep.json is every sweep's name: its directory names this one.
		if d := filepath.Base(filepath.Dir(mustAbs(path))); d != "." && d != "/" {
			name = d
		}
	}
	dir := filepath.Dir(path)
	return &Sweep{Name: name, Path: path, Summary: s, Records: pointRecords(dir), Context: readSweepContext(dir), Servers: pointServers(dir)}, nil
}

// pointServers reads the server's account of each sweep measurement from
// the summary files in dir, found by the load label of their run headers.
// A summary that cannot be read, or of a run that was interrupted (a sweep
// measures its load again), is left out.
func pointServers(dir string) map[string][]MeasuredServer {
	paths := globNamed(dir, SummarySuffix)
	out := map[string][]MeasuredServer{}
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			continue
		}
		s, err := ReadSummaryFile(f, p)
		f.Close()
		if err != nil || s.Interrupted {
			continue
		}
		ld, err := sweep.ParseLoad(s.Header.Labels[loadLabel])
		if err != nil {
			continue
		}
		rep, err := strconv.Atoi(s.Header.Labels[repeatLabel])
		if err != nil || rep < 1 {
			rep = 1
		}
		k := ld.String()
		out[k] = append(out[k], MeasuredServer{Summary: filepath.Base(p), Repeat: rep, Server: s.server()})
	}
	for _, ms := range out {
		slices.SortStableFunc(ms, func(a, b MeasuredServer) int { return a.Repeat - b.Repeat })
	}
	return out
}

// globNamed returns the files in dir named with suffix, compressed or not
// (see named), in the order of their names.
func globNamed(dir, suffix string) []string {
	plain, _ := filepath.Glob(filepath.Join(dir, "*"+suffix))
	compressed, _ := filepath.Glob(filepath.Join(dir, "*"+suffix+GzipSuffix))
	return slices.Sorted(slices.Values(append(plain, compressed...)))
}

// mustAbs returns path made absolute, or path when that fails.
func mustAbs(path string) string {
	if a, err := filepath.Abs(path); err == nil {
		return a
	}
	return path
}

// pointRecords finds the record files of a sweep's measurements in dir by
// the load label of their run headers (or first records).
func pointRecords(dir string) map[string][]string {
	paths := globNamed(dir, RecordsSuffix)
	out := map[string][]string{}
	var r record.Record
	for _, p := range paths {
		f, err := runfile.Open(p, nil)
		if err != nil {
			continue
		}
		l := f.Header().Labels[loadLabel]
		if l == "" && f.Next(&r) == nil {
			l = r.Labels[loadLabel]
		}
		f.Close()
		if ld, err := sweep.ParseLoad(l); err == nil {
			out[ld.String()] = append(out[ld.String()], filepath.Base(p))
		}
	}
	return out
}

// LoadRun reads the records at path ("-": from stdin) into a Run, with the
// summary and server series found beside them (see Load).
func LoadRun(path string, stdin io.Reader, o RunOptions) (*Run, error) {
	var notes []string
	base, beside := recordsBase(path)
	sum, err := SummaryBeside(path)
	if err != nil {
		notes = append(notes, err.Error())
		sum = nil
	}
	if o.RunSLO && sum != nil {
		cs, err := sum.SLO()
		switch {
		case err != nil:
			p, _ := SummaryPath(path)
			notes = append(notes, fmt.Sprintf("%s: %v", p, err))
		case cs != nil:
			o.SLO = cs
		}
	}
	f, err := runfile.Open(path, stdin)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if o.RunMethod {
		if m, ok := HeaderMethod(f.Header()); ok {
			o.Metrics.Method = m
		}
	}
	b := NewRunBuilder(f.Header(), o)
	var r record.Record
	for {
		err := f.Next(&r)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		b.Add(&r)
	}
	notes = append(notes, f.Notes()...)
	run := b.Close()
	run.EndedEarly = f.EndedEarly()
	run.Path, run.Format, run.Summary, run.Notes = path, f.Format, sum, notes
	run.Name = stem(path)
	if path == "-" {
		run.Name = "stdin"
	}
	if beside {
		if srv, ok := readSeries(run, besidePath(base, ServerSuffix)); ok {
			run.AttachServer(srv)
		} else {
			// A run over several endpoints saved a series for each.
			for i := 1; ; i++ {
				srv, ok := readSeries(run, besidePath(base, fmt.Sprintf(".server-%d.json", i)))
				if !ok {
					break
				}
				run.AttachEndpoint(srv)
			}
		}
	}
	return run, nil
}

// readSeries reads the server series at path for run; ok is false when
// there is none, or it cannot be read (a note on run then says why).
func readSeries(run *Run, path string) (*promscrape.Series, bool) {
	f, err := os.Open(path)
	if err != nil {
		return nil, false
	}
	defer f.Close()
	srv, err := ReadServerSeries(f, path)
	if err != nil {
		run.Notes = append(run.Notes, err.Error())
		return nil, false
	}
	return srv, true
}

// AttachServer sets the server's series of the run and reads its view of
// the measured window. A run without a wall-clock start (an import) cannot
// be aligned with the series; a note says so.
func (r *Run) AttachServer(s *promscrape.Series) {
	r.Server = s
	if s == nil {
		return
	}
	r.ServerWindow = r.windowOf(s, "server series")
}

// AttachEndpoint adds the series of the run's next endpoint, and reads
// its view of the measured window, as AttachServer does.
func (r *Run) AttachEndpoint(s *promscrape.Series) {
	if s == nil {
		return
	}
	what := fmt.Sprintf("server series of endpoint %d (%s)", len(r.Endpoints)+1, s.URL)
	r.Endpoints = append(r.Endpoints, EndpointSeries{Series: s, Window: r.windowOf(s, what)})
}

// windowOf returns s's view of the measured window; nil, with a note
// naming what s is, when it has none.
func (r *Run) windowOf(s *promscrape.Series, what string) *promscrape.Window {
	if r.Header.Start.IsZero() {
		r.Notes = append(r.Notes, "the "+what+" cannot be aligned with the records: the run header has no start time")
		return nil
	}
	w := r.Result.Window
	start := r.Header.Start.Add(time.Duration(w.Start))
	end := r.Header.Start.Add(time.Duration(w.End))
	win, err := s.Between(start, end)
	if err != nil {
		r.Notes = append(r.Notes, fmt.Sprintf("%s: %v", what, err))
		return nil
	}
	return &win
}

// stem returns a file's base name without its extensions: "run" for
// "dir/run.summary.json" or "dir/run.jsonl".
func stem(path string) string {
	if file, n := runfile.SplitRun(path); n > 0 {
		return fmt.Sprintf("%s#%d", stem(file), n)
	}
	b := strings.TrimSuffix(filepath.Base(path), GzipSuffix)
	for _, suf := range []string{SummarySuffix, ServerSuffix, RecordsSuffix, ".json"} {
		if strings.HasSuffix(b, suf) && len(b) > len(suf) {
			return strings.TrimSuffix(b, suf)
		}
	}
	return b
}

// HeaderMethod returns the percentile method a run header's configuration
// names (percentile_method), and false when it names none or one this
// version does not know.
func HeaderMethod(h record.Header) (metrics.Method, bool) {
	v, ok := configString(h, "percentile_method")
	if !ok {
		return 0, false
	}
	m, err := metrics.ParseMethod(v)
	return m, err == nil
}

// configString returns a string value of the header's configuration.
func configString(h record.Header, key string) (string, bool) {
	v, ok := configValue(h, key)
	s, isStr := v.(string)
	return s, ok && isStr
}

// configValue returns a value of the header's configuration, decoded from
// JSON, and false when the header has no configuration or not that key.
func configValue(h record.Header, key string) (any, bool) {
	if len(h.Config) == 0 {
		return nil, false
	}
	var m map[string]any
	if json.Unmarshal(h.Config, &m) != nil {
		return nil, false
	}
	v, ok := m[key]
	return v, ok
}
