package sweep

import (
	"encoding/csv"
	"io"
	"strconv"
)

// WriteCSV writes one row per point, in the order given: the load (as
// String writes it, then its mode and value), the number of repeats, the
// mean requests, every Stat's mean under its own name, and every Stat's
// spread under the name with "_sd" appended. An undefined number is an
// empty cell; an unbounded rate's value is "inf".
func WriteCSV(w io.Writer, points []Point) error {
	cw := csv.NewWriter(w)
	header := []string{"load", "mode", "value", "repeats", "requests"}
	for _, f := range fields {
		header = append(header, string(f.name))
	}
	for _, f := range fields {
		header = append(header, string(f.name)+"_sd")
	}
	if err := cw.Write(header); err != nil {
		return err
	}
	for _, p := range points {
		row := []string{p.Load.String(), string(p.Load.Mode), p.Load.value(),
			strconv.Itoa(len(p.samples())), strconv.Itoa(p.Mean.Requests)}
		for _, f := range fields {
			row = append(row, csvNum(*f.ptr(&p.Mean)))
		}
		for _, f := range fields {
			row = append(row, csvNum(*f.ptr(&p.Spread)))
		}
		if err := cw.Write(row); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

func csvNum(v float64) string {
	if !usable(v) {
		return ""
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}
