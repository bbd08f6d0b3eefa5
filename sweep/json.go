package sweep

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"

	"github.com/goodput-dev/goodput/internal/gunzip"
	"github.com/goodput-dev/goodput/internal/jsonerr"
)

// SchemaVersion is the version of the sweep file layout written by
// WriteJSON. ReadJSON accepts files whose schema is at most this version.
const SchemaVersion = 1

// The sweep file is the Summary in JSON with stable snake_case keys. Its
// wire types are kept apart from the Go API so that renaming a Go field
// cannot change the file. Numbers a measurement did not define are null.

type summaryJSON struct {
	Schema         int           `json:"schema"`
	Options        optionsJSON   `json:"options"`
	Verdict        string        `json:"verdict"`
	PowerKnee      pickJSON      `json:"power_knee"`
	CurvatureKnee  pickJSON      `json:"curvature_knee"`
	GoodputPeak    pickJSON      `json:"goodput_peak"`
	OperatingPoint operatingJSON `json:"operating_point"`
	Points         []pointJSON   `json:"points"`
}

type optionsJSON struct {
	Latency    Stat    `json:"latency"`
	Throughput Stat    `json:"throughput"`
	Target     float64 `json:"target"`
	MinBend    float64 `json:"min_bend"`
}

type pickJSON struct {
	Found bool    `json:"found"`
	Load  *Load   `json:"load,omitempty"`
	Index *int    `json:"index,omitempty"`
	Score jsonNum `json:"score"`
	Note  string  `json:"note,omitempty"`
}

type operatingJSON struct {
	pickJSON
	Target       float64 `json:"target"`
	FirstFailure *Load   `json:"first_failure,omitempty"`
	Strays       []Load  `json:"strays,omitempty"`
	Short        []Load  `json:"short,omitempty"`
}

type pointJSON struct {
	Load    Load     `json:"load"`
	Mean    Sample   `json:"mean"`
	Spread  Sample   `json:"spread"`
	Repeats []Sample `json:"repeats"`
}

// check checks every sample of the point as the file holds it.
func (p pointJSON) check() error {
	for i, r := range p.Repeats {
		if err := errors.Join(r.Check(), r.checkOrder()); err != nil {
			return fmt.Errorf("repeat %d: %w", i+1, err)
		}
	}
	if err := errors.Join(p.Mean.Check(), p.Mean.checkOrder()); err != nil {
		return fmt.Errorf("mean: %w", err)
	}
	if err := p.Spread.Check(); err != nil {
		return fmt.Errorf("spread: %w", err)
	}
	return nil
}

// jsonNum is a float64 written as null when it is NaN or infinite, which
// JSON cannot hold.
type jsonNum float64

func (n jsonNum) MarshalJSON() ([]byte, error) {
	if !usable(float64(n)) {
		return []byte("null"), nil
	}
	return strconv.AppendFloat(nil, float64(n), 'g', -1, 64), nil
}

func (n *jsonNum) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*n = jsonNum(math.NaN())
		return nil
	}
	var f float64
	if err := json.Unmarshal(b, &f); err != nil {
		return err
	}
	*n = jsonNum(f)
	return nil
}

// MarshalJSON writes s as an object whose keys are "requests" and the Stat
// names, in Stats order; undefined numbers are null.
func (s Sample) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteString(`{"requests":`)
	b.WriteString(strconv.Itoa(s.Requests))
	for _, f := range fields {
		b.WriteString(`,"` + string(f.name) + `":`)
		v, _ := jsonNum(*f.ptr(&s)).MarshalJSON()
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// UnmarshalJSON reads what MarshalJSON writes. A number that is missing or
// null is NaN; unknown keys are ignored, so that newer files still read.
func (s *Sample) UnmarshalJSON(b []byte) error {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return err
	}
	out := nanSample()
	if raw, ok := m["requests"]; ok && string(raw) != "null" {
		if err := json.Unmarshal(raw, &out.Requests); err != nil {
			return fmt.Errorf("requests: %w", err)
		}
		if out.Requests < 0 {
			return fmt.Errorf("requests %d: negative", out.Requests)
		}
	}
	for _, f := range fields {
		raw, ok := m[string(f.name)]
		if !ok {
			continue
		}
		var n jsonNum
		if err := n.UnmarshalJSON(raw); err != nil {
			return fmt.Errorf("%s: %w", f.name, err)
		}
		*f.ptr(&out) = float64(n)
	}
	*s = out
	return nil
}

func toPickJSON(p Pick) pickJSON {
	j := pickJSON{Found: p.Found, Score: jsonNum(p.Score), Note: p.Note}
	if p.Found {
		l, i := p.Load, p.Index
		j.Load, j.Index = &l, &i
	}
	return j
}

// WriteJSON writes s as an indented sweep file.
func WriteJSON(w io.Writer, s Summary) error {
	out := summaryJSON{
		Schema: SchemaVersion,
		Options: optionsJSON{
			Latency: s.Options.Latency, Throughput: s.Options.Throughput,
			Target: s.Options.Target, MinBend: s.Options.MinBend,
		},
		Verdict:       s.Verdict,
		PowerKnee:     toPickJSON(s.Power),
		CurvatureKnee: toPickJSON(s.Curvature),
		GoodputPeak:   toPickJSON(s.GoodputPeak),
		OperatingPoint: operatingJSON{
			pickJSON: toPickJSON(s.Operating.Pick),
			Target:   s.Operating.Target,
			Strays:   s.Operating.Strays,
			Short:    s.Operating.Short,
		},
		Points: make([]pointJSON, len(s.Points)),
	}
	if f := s.Operating.FirstFailure; !f.IsZero() {
		out.OperatingPoint.FirstFailure = &f
	}
	for i, p := range s.Points {
		out.Points[i] = pointJSON{Load: p.Load, Mean: p.Mean, Spread: p.Spread, Repeats: p.samples()}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(out)
}

// ReadJSON reads a sweep file written by WriteJSON and analyses its points
// again with the options it records, so the Summary returned is consistent
// with this version of the analysis whatever the file's picks say. Each
// point's mean and spread are recomputed from its repeats (a point without
// repeats counts its mean as one).
//
// A gzip-compressed file is read as the file it holds, decompressed to at
// most MaxFileBytes.
func ReadJSON(r io.Reader) (Summary, error) {
	b, err := gunzip.ReadAll(r, MaxFileBytes)
	if err != nil {
		return Summary{}, fmt.Errorf("sweep file: %w", err)
	}
	var in summaryJSON
	if err := json.NewDecoder(bytes.NewReader(b)).Decode(&in); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return Summary{}, fmt.Errorf("sweep file: byte %d: %w", se.Offset, err)
		}
		return Summary{}, fmt.Errorf("sweep file: %w", err)
	}
	// encoding/json would read a key written twice as the last of them.
	if err := jsonerr.Keys(b, &in); err != nil {
		return Summary{}, fmt.Errorf("sweep file: %w", err)
	}
	if in.Schema < 1 || in.Schema > SchemaVersion {
		return Summary{}, fmt.Errorf("sweep file: schema %d: this version reads 1 to %d", in.Schema, SchemaVersion)
	}
	if len(in.Points) == 0 {
		return Summary{}, errors.New("sweep file: no points")
	}
	points := make([]Point, len(in.Points))
	for i, pj := range in.Points {
		if err := pj.check(); err != nil {
			return Summary{}, fmt.Errorf("sweep file: point %d: %w", i+1, err)
		}
		reps := pj.Repeats
		if len(reps) == 0 {
			reps = []Sample{pj.Mean}
		}
		p, err := NewPoint(pj.Load, reps...)
		if err != nil {
			return Summary{}, fmt.Errorf("sweep file: point %d: %w", i+1, err)
		}
		points[i] = p
	}
	o := Options{Latency: in.Options.Latency, Throughput: in.Options.Throughput, Target: in.Options.Target, MinBend: in.Options.MinBend}
	s, err := Analyze(points, o)
	if err != nil {
		return Summary{}, fmt.Errorf("sweep file: %w", err)
	}
	return s, nil
}

// MaxFileBytes bounds what a gzip-compressed sweep file may decompress
// to. It is held in memory whole and holds a figure or two per load:
// megabytes at most, where a few megabytes of gzip can decompress to
// terabytes.
const MaxFileBytes = 64 << 20

// ReadFile reads the sweep file at path; errors name the path.
func ReadFile(path string) (Summary, error) {
	f, err := os.Open(path)
	if err != nil {
		return Summary{}, err
	}
	defer f.Close()
	s, err := ReadJSON(f)
	if err != nil {
		return Summary{}, fmt.Errorf("%s: %w", path, err)
	}
	return s, nil
}
