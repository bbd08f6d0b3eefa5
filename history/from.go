package history

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/goodput-dev/goodput/metrics"
	"github.com/goodput-dev/goodput/record"
	"github.com/goodput-dev/goodput/report"
	"github.com/goodput-dev/goodput/sweep"
)

// TargetOf reads what a run measured from its header's configuration: the
// base URL, the model and the run's description of its target. The
// server's version is not in a header; see ServerVersion.
func TargetOf(h record.Header) Target {
	var cfg map[string]any
	_ = json.Unmarshal(h.Config, &cfg)
	str := func(k string) string { s, _ := cfg[k].(string); return s }
	return Target{URL: str("base_url"), Model: str("model"), Description: str("target")}
}

// FromBench returns the stored form of a bench run: its header, its
// result, the path of its record file (made absolute; empty when the run
// wrote none) and whether it was interrupted. The caller sets the
// target's ServerVersion and may add labels.
func FromBench(h record.Header, res *metrics.Result, recordsPath string, interrupted bool) (Run, error) {
	if res == nil {
		return Run{}, fmt.Errorf("history: a run without a result")
	}
	summary, err := json.Marshal(res)
	if err != nil {
		return Run{}, fmt.Errorf("history: %w", err)
	}
	r := Run{
		Kind: KindBench, Start: h.Start, Tool: h.Tool, Target: TargetOf(h), Labels: cloneLabels(h.Labels),
		Interrupted: interrupted, Config: h.Config, Summary: summary, Metrics: ResultMetrics(res),
		Comparability: report.ComparabilityOf(h, res),
	}
	r.Name = "bench " + h.Start.UTC().Format(time.RFC3339)
	if recordsPath != "" {
		r.RecordsPath = absPath(recordsPath)
		r.Name = strings.TrimSuffix(strings.TrimSuffix(filepath.Base(recordsPath), report.GzipSuffix), report.RecordsSuffix)
	}
	r.Key = KeyOf(r.Kind, r.Comparability)
	return r, nil
}

func cloneLabels(m map[string]string) map[string]string {
	if len(m) == 0 {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

func absPath(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return p
}

// SweepRecording is what RecordSweep stored.
type SweepRecording struct {
	SweepID int64
	Points  int // point runs stored
	Skipped int // points already in the store (a resumed sweep's earlier measurements)
}

// RecordSweep stores a sweep: one run of kind KindSweep holding sum (as
// the sweep file at jsonPath has it), and one KindPoint run for each
// measurement summary (NAME.summary.json) in dir. A measurement already
// stored, by the path of its records and its start, is not stored again,
// so recording a resumed sweep adds only what it measured. version is the
// server's own version (see ServerVersion), labels are added to every
// run.
func RecordSweep(ctx context.Context, s *Store, dir, jsonPath string, sum sweep.Summary, version string, labels map[string]string) (SweepRecording, error) {
	var out SweepRecording
	points, err := readPointSummaries(dir)
	if err != nil {
		return out, err
	}
	var buf bytes.Buffer
	if err := sweep.WriteJSON(&buf, sum); err != nil {
		return out, fmt.Errorf("history: %w", err)
	}
	sw := Run{Kind: KindSweep, Name: filepath.Base(absPath(dir)), Summary: buf.Bytes(), Labels: cloneLabels(labels)}
	if jsonPath != "" {
		sw.RecordsPath = absPath(jsonPath)
	}
	if len(points) > 0 {
		first := points[0]
		sw.Start, sw.Tool, sw.Target, sw.Config = first.Header.Start, first.Header.Tool, TargetOf(first.Header), first.Header.Config
		for _, p := range points[1:] {
			if p.Header.Start.Before(sw.Start) {
				sw.Start = p.Header.Start
			}
		}
		c := report.ComparabilityOf(first.Header, first.Result)
		mode := "concurrency"
		if len(sum.Points) > 0 && sum.Points[0].Load.Mode == sweep.ModeRate {
			mode = "rate"
		}
		c.Load = fmt.Sprintf("sweep by %s, attainment target %g", mode, sum.Options.Target)
		sw.Comparability = c
	} else {
		sw.Start = time.Now()
	}
	sw.Target.ServerVersion = version
	sw.Key = KeyOf(KindSweep, sw.Comparability)
	if out.SweepID, err = s.Add(ctx, sw); err != nil {
		return out, err
	}
	for _, p := range points {
		run, err := FromBench(p.Header, p.Result, p.Records, p.Interrupted)
		if err != nil {
			return out, fmt.Errorf("%s: %w", p.path, err)
		}
		dup, err := s.has(ctx, run.RecordsPath, run.Start)
		if err != nil {
			return out, err
		}
		if dup {
			out.Skipped++
			continue
		}
		run.Kind, run.ParentID = KindPoint, out.SweepID
		run.Key = KeyOf(run.Kind, run.Comparability)
		run.Target.ServerVersion = version
		for k, v := range labels {
			if run.Labels == nil {
				run.Labels = map[string]string{}
			}
			if _, ok := run.Labels[k]; !ok {
				run.Labels[k] = v
			}
		}
		if _, err := s.Add(ctx, run); err != nil {
			return out, err
		}
		out.Points++
	}
	return out, nil
}

type pointSummary struct {
	report.SummaryFile
	path string
}

// readPointSummaries reads the measurement summaries in dir, oldest first:
// NAME.summary.json, or NAME.summary.json.gz compressed.
func readPointSummaries(dir string) ([]pointSummary, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*"+report.SummarySuffix))
	if err != nil {
		return nil, fmt.Errorf("history: %s: %w", dir, err)
	}
	compressed, _ := filepath.Glob(filepath.Join(dir, "*"+report.SummarySuffix+report.GzipSuffix))
	paths = append(paths, compressed...)
	var out []pointSummary
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			return nil, fmt.Errorf("history: %w", err)
		}
		sf, err := report.ReadSummaryFile(f, p)
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("history: %w", err)
		}
		if sf.Records == "" {
			sf.Records = strings.TrimSuffix(strings.TrimSuffix(p, report.GzipSuffix), report.SummarySuffix) + report.RecordsSuffix
		}
		out = append(out, pointSummary{SummaryFile: *sf, path: p})
	}
	slices.SortStableFunc(out, func(a, b pointSummary) int { return a.Header.Start.Compare(b.Header.Start) })
	return out, nil
}

// has reports whether a run with these records and start is stored.
func (s *Store) has(ctx context.Context, recordsPath string, start time.Time) (bool, error) {
	_, ok, err := s.Recorded(ctx, recordsPath, start)
	return ok, err
}

// Recorded returns the id of the stored run (not a sweep) whose records
// are at recordsPath (absolute) and which started at start, and whether
// there is one.
func (s *Store) Recorded(ctx context.Context, recordsPath string, start time.Time) (int64, bool, error) {
	if recordsPath == "" {
		return 0, false, nil
	}
	var id int64
	err := s.db.QueryRowContext(ctx, s.rebind(`SELECT id FROM runs WHERE records_path = ? AND started_ns = ? AND kind <> ? ORDER BY id LIMIT 1`),
		recordsPath, start.UnixNano(), string(KindSweep)).Scan(&id)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return 0, false, nil
	case err != nil:
		return 0, false, fmt.Errorf("history %s: %w", s.where, err)
	}
	return id, true, nil
}

// RecordedRun returns the id and records path of the stored run (not a
// sweep) that r is a measurement of: the same start instant, tool and
// settings, whatever the path of its records. A run's header gives it
// these when it begins; a second run never shares all three, so such a
// run is r's records again (a copy under another path) and storing r would
// count the run twice in every baseline. ok is false when there is none.
func (s *Store) RecordedRun(ctx context.Context, r Run) (id int64, recordsPath string, ok bool, err error) {
	if r.Start.IsZero() {
		return 0, "", false, nil
	}
	err = s.db.QueryRowContext(ctx, s.rebind(`SELECT id, records_path FROM runs WHERE started_ns = ? AND tool = ? AND config = ? AND kind <> ? ORDER BY id LIMIT 1`),
		r.Start.UnixNano(), r.Tool, jsonText(r.Config), string(KindSweep)).Scan(&id, &recordsPath)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return 0, "", false, nil
	case err != nil:
		return 0, "", false, fmt.Errorf("history %s: %w", s.where, err)
	}
	return id, recordsPath, true, nil
}
