package sweepserve

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// Measured is one combination of a finished sweep, as found on disk.
type Measured struct {
	Name string   // its folder's name ("" for the experiment folder itself)
	Dir  string   // its folder
	Runs []string // goodput's records of its runs, run=0.jsonl first; none when another tool measured it
}

// ReadExperiment lists the combinations of a sweep's experiment folder:
// the folders beside its summary.csv that hold a run=N.json, or the folder
// itself when the sweep had no parameters. ok is false for a folder that
// is not a sweep's.
func ReadExperiment(dir string) (combos []Measured, ok bool, err error) {
	if _, err := os.Stat(filepath.Join(dir, "summary.csv")); err != nil {
		return nil, false, nil
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, true, err
	}
	if runs, found := runsIn(dir); found {
		return []Measured{{Dir: dir, Runs: runs}}, true, nil
	}
	for _, e := range entries {
		name := e.Name()
		if !e.IsDir() || !(strings.HasPrefix(name, "SERVE-") || strings.HasPrefix(name, "BENCH-")) {
			continue
		}
		sub := filepath.Join(dir, name)
		if runs, found := runsIn(sub); found {
			combos = append(combos, Measured{Name: name, Dir: sub, Runs: runs})
		}
	}
	if len(combos) == 0 {
		return nil, false, nil
	}
	return combos, true, nil
}

// runsIn finds the run=N.json results in dir (found) and goodput's records
// of them, in run order.
func runsIn(dir string) (records []string, found bool) {
	entries, _ := os.ReadDir(dir)
	type run struct {
		n    int
		path string
	}
	var runs []run
	for _, e := range entries {
		num, ok := strings.CutPrefix(strings.TrimSuffix(e.Name(), ".gz"), "run=")
		num, ok2 := strings.CutSuffix(num, ".json")
		n, err := strconv.Atoi(num)
		if !ok || !ok2 || err != nil {
			continue // run=0.failure.json, run=0.incomplete.json, records
		}
		if found && slices.ContainsFunc(runs, func(r run) bool { return r.n == n }) {
			continue // run=N.json beside its gzip -k copy
		}
		found = true
		// Records kept plain or gzip-compressed.
		for _, jl := range []string{filepath.Join(dir, "run="+num+".jsonl"), filepath.Join(dir, "run="+num+".jsonl.gz")} {
			if exists(jl) {
				runs = append(runs, run{n, jl})
				break
			}
		}
	}
	sort.Slice(runs, func(i, j int) bool { return runs[i].n < runs[j].n })
	for _, r := range runs {
		records = append(records, r.path)
	}
	return records, found
}

// FirstRuns is the first run's records of every combination, to compare
// the settings side by side; an error names a combination without records.
func FirstRuns(dir string, combos []Measured) ([]string, error) {
	var files []string
	for _, c := range combos {
		if len(c.Runs) == 0 {
			return nil, fmt.Errorf("%s: its runs have no goodput records (run=N.jsonl): the benchmark command was not goodput bench or vllm bench serve", c.Dir)
		}
		files = append(files, c.Runs[0])
	}
	return files, nil
}
