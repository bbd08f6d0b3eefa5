package trace

import (
	"errors"
	"io"
	"time"
)

// azureTime is the layout of the Azure trace's TIMESTAMP, "2023-11-16
// 18:17:03.9799600": wall-clock time without a zone, read as UTC (only
// differences matter), with any number of fractional digits.
const azureTime = "2006-01-02 15:04:05.999999999"

// parseAzureTime reads a TIMESTAMP in azureTime's layout, or with a zone
// after it as pandas writes a zone-aware time ("2024-05-10
// 00:00:00.009930+00:00", the 2024 traces' form).
func parseAzureTime(s string) (time.Time, error) {
	if ts, err := time.Parse(azureTime, s); err == nil {
		return ts, nil
	}
	for _, layout := range []string{azureTime + "Z07:00", azureTime + "Z0700"} {
		if ts, err := time.Parse(layout, s); err == nil {
			return ts, nil
		}
	}
	return time.Time{}, errors.New("not an Azure trace time")
}

type azure struct{ t *table }

func newAzure(r io.Reader, name string) (*azure, error) {
	t, err := newTable(r, name, "TIMESTAMP", "ContextTokens", "GeneratedTokens")
	if err != nil {
		return nil, err
	}
	return &azure{t}, nil
}

func (a *azure) next() (Row, time.Duration, string, error) {
	t := a.t
	if err := t.next(); err != nil {
		return Row{}, 0, "", err
	}
	row := Row{Line: t.line}
	ts, err := parseAzureTime(t.field(0))
	if err != nil {
		return Row{}, 0, "", t.errorf("TIMESTAMP %q: want YYYY-MM-DD HH:MM:SS.fffffff, with or without a zone (+00:00)", t.field(0))
	}
	if row.Input, err = t.tokens(1, "ContextTokens"); err != nil {
		return Row{}, 0, "", err
	}
	if row.Output, err = t.tokens(2, "GeneratedTokens"); err != nil {
		return Row{}, 0, "", err
	}
	// Nanoseconds since 1970 fit a Duration until the year 2262.
	if ts.Year() < 1970 || ts.Year() > 2200 {
		return Row{}, 0, "", t.errorf("TIMESTAMP %q is outside the years 1970–2200", t.field(0))
	}
	return row, time.Duration(ts.UnixNano()), skipReason(row.Input, row.Output), nil
}
