package servegen

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/goodput-dev/goodput/arrival"
)

// Window is one rate window of a client's chunk-N-trace.csv.
type Window struct {
	Start time.Duration // from the start of the period
	Rate  float64       // requests per second; 0 when the client was idle
	CV    float64       // coefficient of variation of the gaps, as measured
	// Process is the fitted inter-arrival distribution, reduced to its
	// shape (mean 1): arrival.Gamma or arrival.Weibull; nil when idle.
	Process arrival.Process
}

// maxPeriod bounds the span of a trace file: ServeGen's run to 14 days.
const maxPeriod = 10 * 365 * 24 * time.Hour

// ReadWindows reads a chunk-N-trace.csv: no header, six columns per line,
// windows in time order. A window with a rate but no pattern arrives as a
// Gamma process of its measured CV; one with neither is idle. name labels
// errors.
func ReadWindows(r io.Reader, name string) ([]Window, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = 6
	cr.ReuseRecord = true
	var out []Window
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			var pe *csv.ParseError
			if errors.As(err, &pe) {
				return nil, fmt.Errorf("%s:%d: %w", name, pe.Line, pe.Err)
			}
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		line, _ := cr.FieldPos(0)
		w, err := parseWindow(rec)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", name, line, err)
		}
		if n := len(out); n > 0 && w.Start <= out[n-1].Start {
			return nil, fmt.Errorf("%s:%d: window at %v does not follow the one at %v: windows must be in time order", name, line, w.Start, out[n-1].Start)
		}
		out = append(out, w)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no window: want lines of timestamp, rate, cv, pattern, shape, scale", name)
	}
	return out, nil
}

func parseWindow(rec []string) (Window, error) {
	num := func(i int, what string) (float64, error) {
		s := strings.TrimSpace(rec[i])
		v, err := strconv.ParseFloat(s, 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
			return 0, fmt.Errorf("%s %q: want a finite number ≥ 0", what, s)
		}
		return v, nil
	}
	start, err := num(0, "timestamp")
	if err != nil {
		return Window{}, err
	}
	if start > maxPeriod.Seconds() {
		return Window{}, fmt.Errorf("timestamp %v s is past %v", start, maxPeriod)
	}
	w := Window{Start: time.Duration(math.Round(start * 1e9))}
	if w.Rate, err = num(1, "rate"); err != nil {
		return Window{}, err
	}
	if w.CV, err = num(2, "cv"); err != nil {
		return Window{}, err
	}
	shape, err := num(4, "shape")
	if err != nil {
		return Window{}, err
	}
	if _, err := num(5, "scale"); err != nil {
		return Window{}, err
	}
	pattern := strings.TrimSpace(rec[3])
	switch {
	case w.Rate == 0:
		return w, nil // idle, whatever the other columns say
	case pattern == "" && w.CV == 0:
		return Window{}, errors.New("a window with a rate needs a pattern or a cv")
	case pattern == "":
		w.Process = arrival.Gamma{Burstiness: 1 / (w.CV * w.CV)}
		return w, nil
	case shape <= 0:
		return Window{}, fmt.Errorf("%s shape %v: want > 0", pattern, shape)
	}
	switch strings.ToLower(pattern) {
	case "gamma":
		w.Process = arrival.Gamma{Burstiness: shape}
	case "weibull":
		w.Process = arrival.Weibull{Shape: shape}
	default:
		return Window{}, fmt.Errorf("pattern %q: want Gamma, Weibull or empty", pattern)
	}
	return w, nil
}
