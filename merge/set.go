package merge

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/goodput-dev/goodput/record"
	"github.com/goodput-dev/goodput/runfile"
)

// Part is one file of the run, as read: its description for the merged
// header, and what was measured in it.
type Part struct {
	record.Part
	Header record.Header
	Format string // the input's format, as runfile.File.Format names it
	// Notes are what reading the file found worth saying (a cut-off last
	// line, no end marker, an interrupted run; see runfile.File.Notes).
	Notes []string

	measured   int64 // records outside warm-up
	start, end int64 // their window on the merged clock: min Scheduled, max End
	foreign    int64 // records whose sequence number is not the shard's
}

// Window returns the measured window of the part on the merged clock, ns
// from the merged epoch, and false when it measured nothing.
func (p *Part) Window() (start, end int64, ok bool) { return p.start, p.end, p.measured > 0 }

// Set is the files of one run, open for merging. Build it with Open, read
// its records once with Each, then ask for Report; Close it in any case.
type Set struct {
	files []*runfile.File
	parts []Part
	epoch time.Time // the earliest header start; zero when no file has one
	count int       // shards in the run (Shard.Count), 0 when no file is a shard
	total int64     // requests in the whole schedule, 0 when unknown

	read    bool
	shards  map[int]*seqSet // per shard index, the sequence numbers its files hold
	all     seqSet          // every sequence number seen in a shard file
	dups    int64           // records of shard files whose number was seen before
	records int64
}

// Open opens every path ("-" reads stdin) and reads the headers. Files
// that carry a wall-clock start are placed on the clock of the earliest.
// It fails when a file cannot be read or when the files are not of one
// run: shard files that contradict each other (different shard counts,
// or one attempt of a shard twice), goodput files that are no shard yet
// are not the clients of one run (see checkClients), or a copy of one
// file under another name. o.MaxStartSpread bounds how far apart such
// clients may have begun; Report takes the same Options.
func Open(paths []string, stdin io.Reader, o Options) (*Set, error) {
	if len(paths) == 0 {
		return nil, errors.New("no record files")
	}
	if err := distinctFiles(paths); err != nil {
		return nil, err
	}
	s := &Set{shards: map[int]*seqSet{}}
	for _, p := range paths {
		f, err := runfile.Open(p, stdin)
		if err != nil {
			s.Close()
			return nil, err
		}
		s.files = append(s.files, f)
		h := f.Header()
		part := Part{Header: h, Format: f.Format}
		part.File, part.Host, part.Node, part.Clock, part.Shard = p, h.Host, h.Node, h.Clock, h.Shard
		s.parts = append(s.parts, part)
		if !h.Start.IsZero() && (s.epoch.IsZero() || h.Start.Before(s.epoch)) {
			s.epoch = h.Start
		}
	}
	if err := s.checkMergedBeside(); err != nil {
		s.Close()
		return nil, err
	}
	if err := s.checkShards(); err != nil {
		s.Close()
		return nil, err
	}
	if err := s.checkClients(o.maxStartSpread()); err != nil {
		s.Close()
		return nil, err
	}
	for i := range s.parts {
		if h := s.parts[i].Header; !h.Start.IsZero() {
			s.parts[i].Shift = h.Start.Sub(s.epoch).Nanoseconds()
		}
	}
	return s, nil
}

// checkMergedBeside fails when a merge's output is given with one of the
// files it was merged from (by name, as its header lists them): every
// record of that file would count twice.
func (s *Set) checkMergedBeside() error {
	for _, m := range s.parts {
		if !m.Header.Merged() {
			continue
		}
		from := map[string]bool{}
		for _, pt := range m.Header.Parts {
			from[filepath.Base(pt.File)] = true
		}
		for _, p := range s.parts {
			if p.File != m.File && p.File != "-" && from[filepath.Base(p.File)] {
				return fmt.Errorf("%s was merged from %s, which is given too: its records would count twice (give the merged file or its parts, not both)", m.File, p.File)
			}
		}
	}
	return nil
}

// distinctFiles fails when two paths name one file (or "-" comes twice):
// its records would count twice.
func distinctFiles(paths []string) error {
	type seen struct {
		path string
		fi   os.FileInfo
	}
	var files []seen
	stdin := ""
	for _, p := range paths {
		if p == "-" {
			if stdin != "" {
				return errors.New(`standard input ("-") is given twice: its records would count twice`)
			}
			stdin = p
			continue
		}
		fi, err := os.Stat(p)
		if err != nil {
			continue // runfile.Open says what is wrong with it
		}
		for _, f := range files {
			if os.SameFile(f.fi, fi) {
				return fmt.Errorf("%s and %s are the same file: its records would count twice", f.path, p)
			}
		}
		files = append(files, seen{p, fi})
	}
	return nil
}

// checkShards sets the run's shard count and total from the shard files
// and fails when they disagree.
func (s *Set) checkShards() error {
	type held struct {
		file   string
		header []byte // the file's header as JSON
	}
	seen := map[[2]int]held{}
	var settings firstSettings // the first shard's, which the others must share
	var agreed time.Time       // the first agreed start (--start-at), which the others must share
	var agreedBy string        // the file that named it
	for _, p := range s.parts {
		sh := p.Shard
		if sh == nil {
			continue
		}
		switch {
		case sh.Count < 1 || sh.Index < 0 || sh.Index >= sh.Count:
			return fmt.Errorf("%s: shard %d of %d is not a shard", p.File, sh.Index, sh.Count)
		case s.count == 0:
			s.count, s.total = sh.Count, sh.Total
		case sh.Count != s.count:
			return fmt.Errorf("%s is shard %d of %d, but other files are shards of %d: files of different runs", p.File, sh.Index, sh.Count, s.count)
		case sh.Total != s.total:
			return fmt.Errorf("%s plans %d requests in all, other shards %d: files of different runs", p.File, sh.Total, s.total)
		}
		if err := settings.check(p, "merge each run's files apart"); err != nil {
			return err
		}
		// Every shard of a run, retries too, counts its schedule from one
		// agreed start; another start is the same arguments run again,
		// whose records would sit minutes away on the merged clock.
		if !sh.StartAt.IsZero() {
			switch {
			case agreed.IsZero():
				agreed, agreedBy = sh.StartAt, p.File
			case !sh.StartAt.Equal(agreed):
				return fmt.Errorf("%s was agreed to start at %s, %s at %s: files of different runs (merge each run's files apart)",
					p.File, sh.StartAt.UTC().Format(time.RFC3339Nano), agreedBy, agreed.UTC().Format(time.RFC3339Nano))
			}
		}
		key := [2]int{sh.Index, sh.Attempt}
		h, err := json.Marshal(p.Header)
		if err != nil {
			return fmt.Errorf("%s: header: %w", p.File, err)
		}
		if other, dup := seen[key]; dup {
			// One header (start, host, the shard's ready time, the
			// configuration): a copy of the same file, not another run.
			if bytes.Equal(other.header, h) {
				return fmt.Errorf("%s is a duplicate of %s: both hold attempt %d of shard %d of the same run, and its records would count twice: leave one out", p.File, other.file, sh.Attempt, sh.Index)
			}
			return fmt.Errorf("%s and %s both hold attempt %d of shard %d: files of different runs (merge each run's files apart)", other.file, p.File, sh.Attempt, sh.Index)
		}
		seen[key] = held{p.File, h}
	}
	return nil
}

// runKeys are the keys of a header's configuration (bench's run
// settings) that every shard of one run shares: what was asked of the
// server and how the load was planned. Others may differ between shards
// of one run: the URL each sent to, its part of the arrival plan.
var runKeys = []string{"model", "backend", "endpoint", "dataset", "workload", "traffic_scenario",
	"request_rate", "burstiness", "max_concurrency", "num_prompts", "duration_seconds", "seed",
	"ignore_eos", "min_tokens", "random_input_len", "random_output_len", "random_range_ratio",
	"random_output_range_ratio", "random_prefix_len"}

// firstSettings holds the settings of the first file that has any, which
// the files after it must share.
type firstSettings struct {
	file string
	cfg  map[string]json.RawMessage
}

// check fails when p's settings differ from the first file's (see
// sameRun, whose advice it passes on); the first file with settings
// becomes the first.
func (f *firstSettings) check(p Part, advice string) error {
	cfg, err := runConfig(p)
	switch {
	case err != nil:
		return err
	case cfg == nil:
	case f.cfg == nil:
		f.file, f.cfg = p.File, cfg
	default:
		return sameRun(f.file, f.cfg, p.File, cfg, advice)
	}
	return nil
}

// sameRun fails when the settings of the run in file b differ from
// those of the run in file a in one of runKeys: shards of two runs that
// happen to have as many shards and planned requests, or two runs of a
// sweep. advice says what to do instead.
func sameRun(a string, theirs map[string]json.RawMessage, b string, mine map[string]json.RawMessage, advice string) error {
	for _, k := range runKeys {
		x, inA := theirs[k]
		y, inB := mine[k]
		if inA && inB && !bytes.Equal(x, y) {
			return fmt.Errorf("%s and %s were run with different %s (%s, %s): files of different runs (%s)", a, b, k, x, y, advice)
		}
	}
	return nil
}

// apartAdvice is what to do with goodput files that are not one run.
const apartAdvice = "analyze each run apart, or compare them with goodput compare"

// checkClients fails when goodput files that carry a run header but no
// shard, given together, are not the concurrent clients of one run: such
// files say nothing else of belonging together, so they must have been
// run with the same settings (runKeys) and have begun within limit of
// each other, as the shards of a run are expected to. Two whose headers
// name one start instant, host and tool are one file copied (a merge's
// output too): every request would count twice. A file without a header
// and another tool's import are left out, and a merge's output is held
// to no other's settings or start: they say nothing of a run's clients.
func (s *Set) checkClients(limit time.Duration) error {
	type runID struct {
		start      int64
		host, tool string
	}
	seen := map[runID]string{}
	var settings firstSettings
	var earliest, latest *Part
	for i := range s.parts {
		p := &s.parts[i]
		h := p.Header
		if p.Format != "goodput" || h.Kind != record.KindHeader || h.Start.IsZero() || p.Shard != nil {
			continue
		}
		id := runID{h.Start.UnixNano(), h.Host, h.Tool}
		if other, dup := seen[id]; dup {
			on := ""
			if h.Host != "" {
				on = " on " + h.Host
			}
			return fmt.Errorf("%s is a copy of %s: both hold the run that %s began at %s%s, and its records would count twice: leave one out",
				p.File, other, h.Tool, h.Start.UTC().Format(time.RFC3339Nano), on)
		}
		seen[id] = p.File
		if h.Merged() {
			continue
		}
		if err := settings.check(*p, apartAdvice); err != nil {
			return err
		}
		if earliest == nil || h.Start.Before(earliest.Header.Start) {
			earliest = p
		}
		if latest == nil || h.Start.After(latest.Header.Start) {
			latest = p
		}
	}
	if earliest == nil {
		return nil
	}
	if d := latest.Header.Start.Sub(earliest.Header.Start); d > limit {
		return fmt.Errorf("%s and %s began %v apart (at %s and %s), more than the %v the clients of one run may be apart: files of different runs (%s; clients of one run that began further apart merge with goodput merge --max-start-spread)",
			earliest.File, latest.File, d.Round(time.Millisecond), earliest.Header.Start.UTC().Format(time.RFC3339Nano), latest.Header.Start.UTC().Format(time.RFC3339Nano), limit, apartAdvice)
	}
	return nil
}

// runConfig returns the keys of p's header configuration, nil when it has
// none.
func runConfig(p Part) (map[string]json.RawMessage, error) {
	if len(p.Header.Config) == 0 {
		return nil, nil
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(p.Header.Config, &m); err != nil {
		return nil, fmt.Errorf("%s: the run header's config: %w", p.File, err)
	}
	return m, nil
}

// Epoch returns the instant the merged record times count from: the
// earliest file's start (zero when no file has one).
func (s *Set) Epoch() time.Time { return s.epoch }

// Parts returns the files, in the order given. Their counts and ends are
// known once Each has run.
func (s *Set) Parts() []Part { return s.parts }

// Window is the measured window that the set's one file carries in its
// header (record.Header.Window: genai-bench's, whose records do not say
// when their requests were sent), or 0 when no file carries one. Such a
// file among others is an error that names it: its requests would be put
// at times no one measured.
func (s *Set) Window() (time.Duration, error) {
	for _, p := range s.parts {
		if p.Header.Window <= 0 {
			continue
		}
		if len(s.parts) > 1 {
			return 0, fmt.Errorf("%s (%s) holds no request's send time, so its requests cannot be put among another file's: read it alone", p.File, p.Header.Tool)
		}
		return time.Duration(p.Header.Window), nil
	}
	return 0, nil
}

// Each reads every file's records once, in the order the files were given,
// moves them onto the merged clock and calls fn with them in batches,
// with the index of their file in Parts. fn must not keep the slice or
// the records' Chunks (see record.ReadBatches). Each can be called once.
func (s *Set) Each(fn func(part int, recs []record.Record) error) error {
	if s.read {
		return errors.New("merge: the records were read already")
	}
	s.read = true
	var empty error // the first file that held no record
	for i, f := range s.files {
		p := &s.parts[i]
		sh := p.Shard
		var seqs *seqSet
		if sh != nil {
			if seqs = s.shards[sh.Index]; seqs == nil {
				seqs = &seqSet{}
				s.shards[sh.Index] = seqs
			}
		}
		n, err := record.ReadBatches(f, func(b []record.Record) error {
			for j := range b {
				r := &b[j]
				if p.Shift != 0 {
					r.Shift(p.Shift)
				}
				if !r.Warmup {
					if p.measured == 0 || r.Scheduled < p.start {
						p.start = r.Scheduled
					}
					if p.measured == 0 || r.End > p.end {
						p.end = r.End
					}
					p.measured++
				}
				if sh != nil {
					if r.Seq%int64(sh.Count) != int64(sh.Index) || (s.total > 0 && (r.Seq < 0 || r.Seq >= s.total)) {
						p.foreign++
					}
					seqs.add(r.Seq)
					if !s.all.add(r.Seq) {
						s.dups++
					}
				}
			}
			return fn(i, b)
		})
		p.Records = n
		s.records += n
		if errors.Is(err, runfile.ErrNoRecords) && p.Header.Kind == record.KindHeader {
			// A shard killed before its first answer left its header only:
			// part of the run, measured nothing, and reported so.
			if empty == nil {
				empty = err
			}
			err = nil
		}
		if err != nil {
			return err
		}
		p.Notes = f.Notes()
		switch t, ok := f.Trailer(); {
		case !ok && p.Format != "goodput":
			p.Ended = record.EndedComplete // imports have no trailers
		case !ok:
			p.Ended = record.EndedCutOff
		case t.Interrupted:
			p.Ended = record.EndedInterrupted
		default:
			p.Ended = record.EndedComplete
		}
	}
	if s.records == 0 && len(s.parts) == 1 {
		return empty
	}
	if s.records == 0 {
		names := make([]string, len(s.parts))
		for i, p := range s.parts {
			names[i] = p.File
		}
		return fmt.Errorf("%w in any of %s", runfile.ErrNoRecords, strings.Join(names, ", "))
	}
	return nil
}

// Close closes every file.
func (s *Set) Close() error {
	var errs []error
	for _, f := range s.files {
		errs = append(errs, f.Close())
	}
	s.files = nil
	return errors.Join(errs...)
}
