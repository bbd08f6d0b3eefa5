package sweeprun

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"

	"github.com/goodput-dev/goodput/atomicfile"
	"github.com/goodput-dev/goodput/sweep"
)

// Names of the files in a sweep's result directory.
const (
	SweepJSON     = "sweep.json"
	SweepCSV      = "sweep.csv"
	ConfigFile    = "sweep-config.json"
	summarySuffix = ".summary.json"
	summaryKind   = "goodput.summary" // bench.SummaryFile's Kind
)

// UnreadableError is an error reading what a result directory holds (its
// sweep-config.json, the points' summaries or records): the data is at
// fault, not the flags, so it is the tool's failure (exit 1), not a usage
// error. It reads as the error it holds.
type UnreadableError struct{ Err error }

func (e *UnreadableError) Error() string { return e.Err.Error() }
func (e *UnreadableError) Unwrap() error { return e.Err }

// writeJSONFile writes v as indented JSON to path through a temporary file
// renamed into place, so that a reader (or a resumed sweep) never sees half
// a file.
func writeJSONFile(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return writeFileAtomic(path, append(b, '\n'))
}

// writeFileAtomic writes data to path through a file beside it renamed
// into place; errors name path, not the temporary file.
func writeFileAtomic(path string, data []byte) error {
	return atomicfile.Write(path, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// writeSweep writes the sweep summary of points as sweep.json and sweep.csv
// in dir and returns their paths.
func writeSweep(dir string, s sweep.Summary) (jsonPath, csvPath string, err error) {
	var jb, cb bytes.Buffer
	if err := sweep.WriteJSON(&jb, s); err != nil {
		return "", "", err
	}
	if err := sweep.WriteCSV(&cb, s.Points); err != nil {
		return "", "", err
	}
	jsonPath, csvPath = filepath.Join(dir, SweepJSON), filepath.Join(dir, SweepCSV)
	if err := writeFileAtomic(jsonPath, jb.Bytes()); err != nil {
		return "", "", err
	}
	if err := writeFileAtomic(csvPath, cb.Bytes()); err != nil {
		return "", "", err
	}
	return jsonPath, csvPath, nil
}
