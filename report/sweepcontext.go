package report

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"

	"github.com/goodput-dev/goodput/internal/gunzip"
	"github.com/goodput-dev/goodput/slo"
)

// sweepConfigFile is the settings file a sweep writes beside its sweep
// file (sweeprun's sweep-config.json).
const sweepConfigFile = "sweep-config.json"

// SweepContext is what a sweep measured, read from the files beside the
// sweep file: the settings file and the first point's summary and run
// header. Fields it cannot find are empty.
type SweepContext struct {
	Target   string // the server, or the simulated GPU and model
	Model    string
	Workload string // "random: input 512 tokens, output 256 tokens, seed 0"
	Clock    string // "virtual" or "wall"
	SLO      string // the SLO the points were judged with
	Method   string // the percentile method
	// Settings are the sweep's settings, as the settings file names them.
	Settings map[string]string
}

// Conditions returns the context's SLO, nil when it has none or it does
// not parse.
func (c SweepContext) Conditions() slo.Conditions {
	if c.SLO == "" {
		return nil
	}
	cs, err := slo.ParseConditions(c.SLO)
	if err != nil {
		return nil
	}
	return cs
}

// readSweepContext reads what the sweep in dir measured. A missing or
// unreadable file leaves its fields empty: the sweep file alone still
// makes a report.
func readSweepContext(dir string) SweepContext {
	var c SweepContext
	if b, err := gunzip.ReadFile(besidePath(filepath.Join(dir, sweepConfigFile), ""), MaxSummaryBytes); err == nil {
		var m struct {
			Settings map[string]string `json:"settings"`
		}
		if json.Unmarshal(b, &m) == nil {
			c.Settings = m.Settings
			c.Target, c.Clock, c.Model = m.Settings["target"], m.Settings["clock"], m.Settings["model"]
		}
	}
	for _, p := range globNamed(dir, SummarySuffix) {
		f, err := os.Open(p)
		if err != nil {
			continue
		}
		s, err := ReadSummaryFile(f, p)
		f.Close()
		if err != nil {
			continue
		}
		if g := s.Result.Goodput; g != nil {
			c.SLO = g.SLO
		}
		c.Method = s.Result.Method.String()
		if v, ok := configString(s.Header, "workload"); ok {
			c.Workload = v
		}
		if v, ok := configString(s.Header, "model"); ok && c.Model == "" {
			c.Model = v
		}
		if v, ok := configString(s.Header, "target"); ok && c.Target == "" {
			c.Target = v
		}
		if v, ok := configString(s.Header, "base_url"); ok && c.Target == "" {
			c.Target = v
		}
		break
	}
	c.Target = strings.TrimSpace(c.Target)
	return c
}
