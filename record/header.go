package record

import (
	"encoding/json"
	"time"
)

// Line kinds that mark the non-record lines of a record file.
const (
	KindHeader  = "goodput.run"
	KindTrailer = "goodput.end"
)

// Header is the first line of a record file. It says how to read the records
// that follow: the schema, the wall-clock instant of the run epoch, and the
// configuration that produced them.
type Header struct {
	Kind   string            `json:"kind"`   // always KindHeader
	Schema int               `json:"schema"` // SchemaVersion of the writer
	Start  time.Time         `json:"start"`  // wall-clock time of the run epoch (record times are offsets from it)
	Tool   string            `json:"tool"`   // "goodput <version>", or the importer's description
	Config json.RawMessage   `json:"config,omitempty"`
	Labels map[string]string `json:"labels,omitempty"` // labels shared by every record of the run

	// Host is the machine that sent the load (its hostname; a pod's name
	// in Kubernetes), Node the machine under it where there is one (a
	// Kubernetes node). Clock is what the run knew of Host's clock.
	Host  string `json:"host,omitempty"`
	Node  string `json:"node,omitempty"`
	Clock *Clock `json:"clock,omitempty"`
	// Shard is set when the file holds one shard of a sharded run; Parts
	// when it was merged from several files (the shards of a run).
	Shard *Shard `json:"shard,omitempty"`
	Parts []Part `json:"parts,omitempty"`

	// Window, when positive, is how long the run measured, in ns, as the
	// tool that measured it reported, for a file whose records do not
	// say when their requests were sent (a genai-bench result keeps only
	// each request's latencies): its records all start at the run epoch,
	// and their span says nothing of the run's length. Whoever summarises
	// the records gives it as metrics.Options.Window. Zero: the records'
	// times place them, and the window spans them.
	Window int64 `json:"window_ns,omitempty"`
}

// Merged says the header is a merge's output's (goodput merge --output):
// it lists the files it was merged from. Whoever reads a directory as one
// run sets such a file apart from those files, which usually lie beside
// it: read together, every record would count twice.
func (h *Header) Merged() bool { return len(h.Parts) > 0 }

// Trailer is the optional last line of a record file, written when a run ends
// (normally or interrupted). A file without one was cut off mid-run; its
// records are still valid.
type Trailer struct {
	Kind        string `json:"kind"` // always KindTrailer
	Records     int64  `json:"records"`
	Interrupted bool   `json:"interrupted,omitempty"`
	Reason      string `json:"reason,omitempty"`
	End         int64  `json:"end"` // ns from the run epoch when the run stopped
}

// NewHeader returns a header for a run that starts now.
func NewHeader(tool string, config any) (Header, error) {
	h := Header{Kind: KindHeader, Schema: SchemaVersion, Start: time.Now(), Tool: tool}
	if config != nil {
		b, err := json.Marshal(config)
		if err != nil {
			return Header{}, err
		}
		h.Config = b
	}
	return h, nil
}
