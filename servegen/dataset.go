package servegen

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"sort"
	"strconv"
	"time"

	"github.com/goodput-dev/goodput/internal/jsonerr"
)

// Lengths are a client's length distributions over one dataset window.
// Those of a window without requests are empty (see Empty).
type Lengths struct {
	Start time.Duration // from the start of the period
	// Input holds the distributions whose draws add up to a prompt's
	// length: input_tokens alone, or a multimodal model's text, image,
	// audio and video tokens (which goodput sends as text of that length).
	Input  []PMF
	Output PMF
}

// inputFields are the fields whose draws make a prompt's length, in the
// order they are drawn: a text model's, else a multimodal model's.
var (
	textInput       = []string{"input_tokens"}
	multimodalInput = []string{"text_tokens", "image_tokens", "audio_tokens", "video_tokens"}
)

// Empty reports whether the window had no request to draw lengths from.
func (l Lengths) Empty() bool {
	if l.Output.Empty() {
		return true
	}
	for _, p := range l.Input {
		if p.Empty() {
			return true
		}
	}
	return false
}

// Draw draws a prompt and an output length, each at least 1 token; l must
// not be empty.
func (l Lengths) Draw(rng *rand.Rand) (input, output int) {
	var in float64
	for _, p := range l.Input {
		in += math.Round(p.Draw(rng))
	}
	return max(1, int(in)), max(1, int(math.Round(l.Output.Draw(rng))))
}

// ReadLengths reads a chunk-N-dataset.json: an object keyed by each
// window's start in seconds, each value an object of fields whose values
// are PMFs as Python dict literals (see ParsePMF). It returns the windows
// in time order. name labels errors.
func ReadLengths(r io.Reader, name string) ([]Lengths, error) {
	var raw map[string]map[string]string
	dec := json.NewDecoder(r)
	if err := dec.Decode(&raw); err != nil {
		return nil, fmt.Errorf("%s: %w", name, jsonerr.Plain(err))
	}
	if len(raw) == 0 {
		return nil, fmt.Errorf("%s: no window: want an object of windows keyed by their start in seconds", name)
	}
	out := make([]Lengths, 0, len(raw))
	for key, fields := range raw {
		secs, err := strconv.ParseFloat(key, 64)
		if err != nil || secs < 0 || secs > maxPeriod.Seconds() {
			return nil, fmt.Errorf("%s: window %q: want its start in seconds", name, key)
		}
		l := Lengths{Start: time.Duration(math.Round(secs * 1e9))}
		pmf := func(field string) (PMF, error) {
			p, err := ParsePMF(fields[field])
			if err != nil {
				return PMF{}, fmt.Errorf("%s: window %s, %q: %w", name, key, field, err)
			}
			return p, nil
		}
		in := textInput
		if _, ok := fields["input_tokens"]; !ok {
			in = nil
			for _, f := range multimodalInput {
				if _, ok := fields[f]; ok {
					in = append(in, f)
				}
			}
		}
		if len(in) == 0 {
			return nil, fmt.Errorf("%s: window %s has neither \"input_tokens\" nor a multimodal model's \"text_tokens\"", name, key)
		}
		if _, ok := fields["output_tokens"]; !ok {
			return nil, fmt.Errorf("%s: window %s has no \"output_tokens\"", name, key)
		}
		for _, f := range in {
			p, err := pmf(f)
			if err != nil {
				return nil, err
			}
			l.Input = append(l.Input, p)
		}
		if l.Output, err = pmf("output_tokens"); err != nil {
			return nil, err
		}
		out = append(out, l)
	}
	full := 0
	for _, l := range out {
		if !l.Empty() {
			full++
		}
	}
	if full == 0 {
		return nil, fmt.Errorf("%s: every window's distributions are empty: no length to draw", name)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Start < out[j].Start })
	for i := 1; i < len(out); i++ {
		if out[i].Start == out[i-1].Start {
			return nil, fmt.Errorf("%s: two windows start at %v", name, out[i].Start)
		}
	}
	return out, nil
}

// lengthsAt returns the dataset window in force at t: the last to start at
// or before it that had requests, or else the first after it that had
// some. ls must hold one that is not empty.
func lengthsAt(ls []Lengths, t time.Duration) Lengths {
	i := sort.Search(len(ls), func(i int) bool { return ls[i].Start > t })
	for j := i - 1; j >= 0; j-- {
		if !ls[j].Empty() {
			return ls[j]
		}
	}
	for j := max(i, 0); j < len(ls); j++ {
		if !ls[j].Empty() {
			return ls[j]
		}
	}
	return ls[0]
}

var errNoDataset = errors.New("no dataset file beside it")
