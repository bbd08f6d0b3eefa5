package bench

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/goodput-dev/goodput/load"
	"github.com/goodput-dev/goodput/metrics"
	"github.com/goodput-dev/goodput/record"
)

// SummaryFile is the JSON written by --save-result: the run's header, its
// metrics, and the generator's account of itself.
type SummaryFile struct {
	Kind        string          `json:"kind"` // "goodput.summary"
	Header      record.Header   `json:"run"`
	Records     string          `json:"records,omitempty"`
	Interrupted bool            `json:"interrupted,omitempty"`
	Result      *metrics.Result `json:"result"`
	Generator   Generator       `json:"generator"`
	Tokens      load.TokenCheck `json:"token_check"`
	Warnings    []string        `json:"warnings,omitempty"`
}

func writeSummary(path string, h record.Header, cfg Config, o *Outcome) error {
	s := SummaryFile{Kind: "goodput.summary", Header: h, Records: o.RecordsPath, Interrupted: o.Run.Interrupted,
		Result: o.Result, Generator: o.Generator, Tokens: o.Tokens, Warnings: o.Warnings}
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("--save-result: %w", err)
	}
	return nil
}
