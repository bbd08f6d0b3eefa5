package bench

import (
	"strings"

	"github.com/goodput-dev/goodput/load"
	"github.com/goodput-dev/goodput/metrics"
	"github.com/goodput-dev/goodput/record"
	"github.com/goodput-dev/goodput/serverview"
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
	// Server is the server's own account from its /metrics; its series
	// are in ServerSeries (a promscrape.Series JSON file).
	Server       *serverview.Comparison `json:"server,omitempty"`
	ServerSeries string                 `json:"server_series,omitempty"`
	// Servers is each endpoint's account of a run spread over several.
	Servers []EndpointServer `json:"servers,omitempty"`
	// PrefixReuse is a replayed trace's theoretical prefix reuse.
	PrefixReuse *PrefixReuse `json:"trace_prefix_reuse,omitempty"`
	// Probes is what the probe requests beside the run measured
	// (--probe-request-rate).
	Probes *Probes `json:"probes,omitempty"`
	// Notes are the lines printed above the summary (Outcome.Notes), and
	// Findings what the run found that bears on its numbers but is no
	// fault (Outcome.Findings).
	Notes    []string `json:"notes,omitempty"`
	Findings []string `json:"findings,omitempty"`
	Warnings []string `json:"warnings,omitempty"`
}

func writeSummary(path string, h record.Header, o *Outcome) error {
	s := SummaryFile{Kind: "goodput.summary", Header: h, Records: o.RecordsPath, Interrupted: o.Run.Interrupted,
		Result: o.Result, Generator: o.Generator, Tokens: o.Tokens, Server: o.Server, ServerSeries: o.ServerPath, Servers: o.Servers,
		PrefixReuse: o.PrefixReuse, Probes: o.Probes, Notes: o.Notes, Findings: o.Findings, Warnings: o.Warnings}
	return writeJSON(path, s)
}

// SaveSummary writes the run's summary file beside its records
// (NAME.summary.json for NAME.jsonl), as --save-result does, unless it was
// written; it returns the file's path. A run without records has none.
func (o *Outcome) SaveSummary() (string, error) {
	if o.SummaryPath != "" || o.RecordsPath == "" {
		return o.SummaryPath, nil
	}
	path := strings.TrimSuffix(o.RecordsPath, recordsSuffix) + summarySuffix
	if err := writeSummary(path, o.Header, o); err != nil {
		return "", err
	}
	o.SummaryPath = path
	return path, nil
}
