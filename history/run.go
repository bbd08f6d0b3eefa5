package history

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"time"

	"github.com/goodput-dev/goodput/metrics"
	"github.com/goodput-dev/goodput/report"
)

// Kind says what a stored run is.
type Kind string

// Kinds of stored runs.
const (
	KindBench Kind = "bench" // one goodput bench run
	KindSweep Kind = "sweep" // a sweep as a whole: its summary, with its points as children
	KindPoint Kind = "point" // one measurement of a sweep, a run like a bench run
)

// Target is what a run measured.
type Target struct {
	URL   string `json:"url"`
	Model string `json:"model,omitempty"`
	// ServerVersion is what the server said of itself (vLLM's /version,
	// TGI's /info); empty when it did not say.
	ServerVersion string `json:"server_version,omitempty"`
	// Description is the run's own words for it ("built-in simulator:
	// Llama-3.1-8B on H100-SXM"); may be empty.
	Description string `json:"description,omitempty"`
}

// Run is one stored run: a bench run, a sweep or a sweep's point.
type Run struct {
	ID       int64 // assigned by Add
	Kind     Kind
	ParentID int64 // the sweep a point belongs to; 0 for none
	Name     string
	Start    time.Time // when the run started
	Recorded time.Time // when it was stored; Add sets it when zero
	Tool     string    // "goodput 1.2.0"
	Target   Target
	Labels   map[string]string
	// RecordsPath is the absolute path of the run's record file (a sweep's:
	// its sweep.json) when it was stored; the file may have moved since.
	RecordsPath string
	Interrupted bool

	// Comparability is what other runs must share to be compared with
	// this one; Key is its digest, the same for every comparable run.
	Comparability report.Comparability
	Key           string

	// Config is the run's configuration as its record header holds it.
	Config json.RawMessage
	// Summary is the run's result: a metrics.Result in JSON for a bench
	// run or a point, a sweep file's content for a sweep.
	Summary json.RawMessage
	// Metrics are the run's numbers by key ("ttft_p99", "goodput"), read
	// from Summary; see MetricKeys.
	Metrics map[string]float64
}

// Result decodes the run's summary as a bench result; nil for a sweep or
// a summary that does not decode.
func (r *Run) Result() *metrics.Result {
	if r.Kind == KindSweep || len(r.Summary) == 0 {
		return nil
	}
	var res metrics.Result
	if json.Unmarshal(r.Summary, &res) != nil {
		return nil
	}
	return &res
}

// KeyOf returns the digest that runs of kind k with comparability c share:
// bench runs and sweep points are one family (a bench run at 16 concurrent
// requests compares with a sweep's point c16), sweeps another.
func KeyOf(k Kind, c report.Comparability) string {
	family := "run"
	if k == KindSweep {
		family = "sweep"
	}
	b, _ := json.Marshal(struct {
		Family string               `json:"family"`
		C      report.Comparability `json:"c"`
	}{family, c})
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:8])
}
