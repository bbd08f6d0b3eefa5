package sweeprun

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/goodput-dev/goodput/metrics"
	"github.com/goodput-dev/goodput/record"
	"github.com/goodput-dev/goodput/runfile"
	"github.com/goodput-dev/goodput/sweep"
)

// Saved is a finished measurement found in a result directory.
type Saved struct {
	Measurement
	Sample  sweep.Sample // recomputed from its records
	Summary string       // path of its summary file
}

// summaryHead is the part of a summary file a scan reads.
type summaryHead struct {
	Kind        string        `json:"kind"`
	Header      record.Header `json:"run"`
	Records     string        `json:"records"`
	Interrupted bool          `json:"interrupted"`
}

// listSummaries returns the summary files of sweep measurements in dir,
// sorted by name, with their heads. Summary files that cannot be read as
// finished sweep measurements are left out, each with a note saying why.
// A missing dir holds none.
func listSummaries(dir string) ([]string, []summaryHead, []string, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil, nil
	}
	if err != nil {
		return nil, nil, nil, fmt.Errorf("--result-dir: %w", err)
	}
	var paths, notes []string
	var heads []summaryHead
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, summarySuffix) || strings.HasPrefix(name, ".") {
			continue
		}
		path := filepath.Join(dir, name)
		b, err := os.ReadFile(path)
		if err != nil {
			return nil, nil, nil, fmt.Errorf("%s: %w", path, err)
		}
		var h summaryHead
		if err := json.Unmarshal(b, &h); err != nil {
			notes = append(notes, fmt.Sprintf("%s is unreadable (%v): its point is measured again", path, err))
			continue
		}
		if h.Kind != summaryKind {
			continue
		}
		if _, err := parseMeasurement(h.Header.Labels); err != nil {
			continue // a benchmark saved beside the sweep, not one of its points
		}
		if h.Interrupted {
			notes = append(notes, fmt.Sprintf("%s was interrupted: its point is measured again", path))
			continue
		}
		paths = append(paths, path)
		heads = append(heads, h)
	}
	return paths, heads, notes, nil
}

// Scan returns the finished measurements in dir, each one's numbers
// recomputed from its records with opts, sorted by load and repeat, and
// notes on the summary files it passed over. A measurement whose records
// are missing or unreadable is an error: its summary claims a point that
// cannot be read again.
func Scan(dir string, opts metrics.Options) ([]Saved, []string, error) {
	paths, heads, notes, err := listSummaries(dir)
	if err != nil {
		return nil, nil, err
	}
	opts.Percentiles = withSweepPercentiles(opts.Percentiles)
	var saved []Saved
	for i, h := range heads {
		m, _ := parseMeasurement(h.Header.Labels)
		recs := h.Records
		if recs == "" {
			recs = strings.TrimSuffix(paths[i], summarySuffix) + ".jsonl"
		}
		// The path was written as the sweep saw it; the directory may have
		// moved since, so look beside the summary.
		recs = filepath.Join(dir, filepath.Base(recs))
		res, err := summarize(recs, opts)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w (delete the summary to measure the point again)", paths[i], err)
		}
		for _, s := range saved {
			if s.Measurement == m {
				return nil, nil, fmt.Errorf("%s and %s both hold repeat %d of %s", s.Summary, paths[i], m.Repeat, m.Load)
			}
		}
		saved = append(saved, Saved{Measurement: m, Sample: sweep.FromResult(res), Summary: paths[i]})
	}
	slices.SortFunc(saved, func(a, b Saved) int {
		if c := cmp.Compare(a.Load.Mode, b.Load.Mode); c != 0 {
			return c
		}
		if c := cmp.Compare(a.Load.Value, b.Load.Value); c != 0 {
			return c
		}
		return cmp.Compare(a.Repeat, b.Repeat)
	})
	return saved, notes, nil
}

// summarize reads the record file at path into a metrics summary.
func summarize(path string, opts metrics.Options) (*metrics.Result, error) {
	f, err := runfile.Open(path, nil)
	if err != nil {
		return nil, fmt.Errorf("records: %w", err)
	}
	defer f.Close()
	sum := metrics.NewSummary(opts)
	_, err = record.ReadBatches(f, func(rs []record.Record) error {
		for i := range rs {
			sum.Add(&rs[i])
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("records: %w", err)
	}
	return sum.Close(), nil
}

// Points combines saved measurements, sorted as Scan returns them, into
// one Point per load with its repeats in repeat order.
func Points(saved []Saved) ([]sweep.Point, error) {
	var out []sweep.Point
	for i := 0; i < len(saved); {
		j := i
		var samples []sweep.Sample
		for ; j < len(saved) && saved[j].Load == saved[i].Load; j++ {
			samples = append(samples, saved[j].Sample)
		}
		p, err := sweep.NewPoint(saved[i].Load, samples...)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", saved[i].Summary, err)
		}
		out = append(out, p)
		i = j
	}
	sweep.SortPoints(out)
	return out, nil
}
