package runfile

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/goodput-dev/goodput/internal/jsonerr"
	"github.com/goodput-dev/goodput/record"
)

// vllmResult holds the per-request arrays of a `vllm bench serve
// --save-result --save-detailed` JSON. Times are seconds; start_times come
// from the client's perf_counter, so only their differences mean anything.
// scheduled_times is goodput's addition to the files it writes: when each
// request was due, on the clock of start_times.
type vllmResult struct {
	Date       string      `json:"date"`
	Backend    string      `json:"backend"`
	Model      string      `json:"model_id"`
	InputLens  []int       `json:"input_lens"`
	OutputLens []int       `json:"output_lens"`
	TTFTs      []pyFloat   `json:"ttfts"`
	ITLs       [][]pyFloat `json:"itls"`
	StartTimes []pyFloat   `json:"start_times"`
	Scheduled  []pyFloat   `json:"scheduled_times"`
	E2Es       []pyFloat   `json:"e2els"`
	Latencies  []pyFloat   `json:"latencies"`
	Errors     []string    `json:"errors"`
	// Duration is the run's length in seconds, which vLLM's throughputs
	// divide by.
	Duration *pyFloat `json:"duration"`
}

// openVLLM reads the result in b, whose bare NaN and Infinity words
// (Python writes them) pythonNumbers has made strings already: they are
// refused only where a request's numbers hold one (see record).
func openVLLM(b []byte, name string) (*File, error) {
	var v vllmResult
	dec := json.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("%s: not a goodput record file, request log or vLLM result: %w", name, jsonerr.Plain(err))
	}
	if err := jsonerr.Keys(b, &v); err != nil {
		return nil, fmt.Errorf("%s: vLLM result: %w", name, err)
	}
	if v.TTFTs == nil {
		return nil, fmt.Errorf(`%s: JSON object without "ttfts": save the vLLM result with --save-result --save-detailed`, name)
	}
	recs, short, err := v.records()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	cfg, _ := json.Marshal(map[string]string{"backend": v.Backend, "model": v.Model, "date": v.Date})
	h := record.Header{Kind: record.KindHeader, Schema: record.SchemaVersion, Tool: "import: vllm bench serve result", Config: cfg}
	window, notes, err := v.window(name)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	h.Window = window
	notes = append(notes, short.notes(name)...)
	return &File{Reader: &slice{h: h, recs: recs}, Format: "vllm", notes: notes}, nil
}

// window is the run's window for a result without "start_times", whose
// requests are all placed at the run's start: vLLM's duration, which its
// throughputs divide by (see record.Header.Window). A result with them
// spans its records, and needs none.
func (v *vllmResult) window(name string) (int64, []string, error) {
	if len(v.StartTimes) > 0 || len(v.TTFTs) == 0 {
		return 0, nil, nil
	}
	const placed = "vLLM's result keeps no request's send time (no \"start_times\"): every request is placed at the run's start, so TTFT, TPOT, ITL and e2e are exact but the client's queue and the run over time are not measured"
	if v.Duration == nil {
		return 0, []string{fmt.Sprintf("%s: %s; nor does it say its duration, so the window is the longest request and throughput and goodput are too high", name, placed)}, nil
	}
	d, err := v.Duration.finite(`"duration"`)
	if err != nil {
		return 0, nil, err
	}
	w, err := seconds(d)
	if err != nil || w <= 0 {
		return 0, nil, fmt.Errorf(`"duration" %v is not a run's length in seconds`, d)
	}
	return w, []string{fmt.Sprintf("%s: %s; the window is vLLM's duration, %s s, which throughput and goodput divide by, as vLLM's do", name, placed, strconv.FormatFloat(d, 'f', -1, 64))}, nil
}

// vllmShort tallies the successes whose output_lens is below the chunks
// vLLM timed (a first token and one more per "itls" entry).
type vllmShort struct {
	none, fewer int        // with no token counted, and with some
	noneAt      vllmCounts // the first of each
	fewerAt     vllmCounts
}

// vllmCounts are one request's numbers, for a note.
type vllmCounts struct{ request, lens, itls int }

func (s *vllmShort) add(i, lens, itls int) {
	c := vllmCounts{i, lens, itls}
	if lens == 0 {
		if s.none == 0 {
			s.noneAt = c
		}
		s.none++
		return
	}
	if s.fewer == 0 {
		s.fewerAt = c
	}
	s.fewer++
}

// notes says what was assumed of the requests add counted.
func (s *vllmShort) notes(name string) []string {
	var out []string
	if s.none > 0 {
		c := s.noneAt
		out = append(out, fmt.Sprintf("%s: %s (the first, request %d: %d itls after its first chunk) succeeded with output_lens 0: vLLM counted no token in what they streamed (no usage, and their text retokenized to none), so they are read as successes with no output token, which have no TTFT and are never good, though vLLM's TTFT counts them",
			name, plural(s.none, "request"), c.request, c.itls))
	}
	if s.fewer > 0 {
		c := s.fewerAt
		out = append(out, fmt.Sprintf("%s: %s (the first, request %d: output_lens %d, but a first chunk and %d itls) counted fewer tokens than vLLM timed chunks, as a chat stream's role-only first chunk or text retokenized without usage gives: their first chunks are read as carrying no token, so TTFT is the first chunk that carried one, and each chunk after it one token",
			name, plural(s.fewer, "request"), c.request, c.lens, c.itls))
	}
	return out
}

func (v *vllmResult) records() ([]record.Record, vllmShort, error) {
	var short vllmShort
	n := len(v.TTFTs)
	for name, l := range map[string]int{"input_lens": len(v.InputLens), "output_lens": len(v.OutputLens), "itls": len(v.ITLs)} {
		if l != n {
			return nil, short, fmt.Errorf("%q has %d entries but \"ttfts\" has %d", name, l, n)
		}
	}
	for name, l := range map[string]int{"start_times": len(v.StartTimes), "scheduled_times": len(v.Scheduled), "errors": len(v.Errors), "e2els": len(v.E2Es), "latencies": len(v.Latencies)} {
		if l != 0 && l != n {
			return nil, short, fmt.Errorf("%q has %d entries but \"ttfts\" has %d", name, l, n)
		}
	}
	if len(v.Scheduled) > 0 && len(v.StartTimes) == 0 {
		return nil, short, errors.New(`"scheduled_times" without "start_times"`)
	}
	base := math.Inf(1)
	for i, s := range v.StartTimes {
		f, err := s.finite(`"start_times"`)
		if err != nil {
			return nil, short, fmt.Errorf("request %d: %w", i, err)
		}
		base = math.Min(base, f)
	}
	for i, s := range v.Scheduled {
		f, err := s.finite(`"scheduled_times"`)
		if err != nil {
			return nil, short, fmt.Errorf("request %d: %w", i, err)
		}
		base = math.Min(base, f)
	}
	recs := make([]record.Record, n)
	for i := range n {
		rec, err := v.record(i, base, &short)
		if err == nil {
			err = rec.Check()
		}
		if err != nil {
			return nil, short, fmt.Errorf("request %d: %w", i, err)
		}
		recs[i] = rec
	}
	return recs, short, nil
}

func (v *vllmResult) record(i int, base float64, short *vllmShort) (record.Record, error) {
	for _, c := range []struct {
		key string
		v   float64
	}{{"input_lens", float64(v.InputLens[i])}, {"output_lens", float64(v.OutputLens[i])}} {
		if c.v < 0 {
			return record.Record{}, fmt.Errorf("%q %v is negative", c.key, c.v)
		}
	}
	rec := record.Record{Seq: int64(i), InputTokens: v.InputLens[i], OutputTokens: v.OutputLens[i], TokenSource: record.SourceUsage, Status: 200}
	if len(v.StartTimes) > 0 {
		s, err := seconds(float64(v.StartTimes[i]) - base)
		if err != nil {
			return record.Record{}, fmt.Errorf("start_times: %w", err)
		}
		rec.Scheduled, rec.Sent = s, s
	}
	if len(v.Scheduled) > 0 {
		s, err := seconds(float64(v.Scheduled[i]) - base)
		if err != nil || s > rec.Sent {
			return record.Record{}, fmt.Errorf("scheduled_times: %v is not a time before the send", float64(v.Scheduled[i]))
		}
		rec.Scheduled = s
	}
	rec.End = rec.Sent
	if len(v.Errors) > 0 && v.Errors[i] != "" {
		rec.Error, rec.Msg, rec.Status = record.ErrOther, v.Errors[i], 0
		rec.OutputTokens = 0
		return rec, nil
	}
	// A failed request's TTFT means nothing (vLLM writes 0), so it is
	// read only now.
	ttft, err := v.TTFTs[i].finite(`"ttfts"`)
	if err != nil {
		return record.Record{}, err
	}
	if ttft < 0 {
		return record.Record{}, fmt.Errorf(`"ttfts" %v is negative`, ttft)
	}
	if ttft == 0 && len(v.ITLs[i]) == 0 {
		rec.Error, rec.Msg, rec.Status = record.ErrOther, "no first token", 0
		return rec, nil
	}
	first, err := seconds(ttft)
	if err != nil {
		return record.Record{}, fmt.Errorf("ttfts: %w", err)
	}
	at := rec.Sent + first
	rec.Chunks = append(rec.Chunks, record.Chunk{At: at, Tokens: 1})
	for j, g := range v.ITLs[i] {
		gap, err := g.finite(fmt.Sprintf(`"itls"[%d]`, j))
		if err != nil {
			return record.Record{}, err
		}
		d, err := seconds(gap)
		if err != nil || d < 0 {
			return record.Record{}, fmt.Errorf("itls[%d] = %v is not a valid gap", j, g)
		}
		at += d
		rec.Chunks = append(rec.Chunks, record.Chunk{At: at, Tokens: 1})
	}
	rec.End = at
	for _, lat := range []struct {
		key string
		v   []pyFloat
	}{{`"e2els"`, v.E2Es}, {`"latencies"`, v.Latencies}} {
		if len(lat.v) > 0 {
			f, err := lat.v[i].finite(lat.key)
			if err != nil {
				return record.Record{}, err
			}
			e, err := seconds(f)
			if err != nil || e < 0 {
				return record.Record{}, fmt.Errorf("%s %v is not a latency", lat.key, f)
			}
			// The latency spans the tokens; rounding each gap to a
			// nanosecond may put their sum a little past it.
			if slack := int64(time.Microsecond) + int64(len(rec.Chunks)); rec.Sent+e < at-slack {
				return record.Record{}, fmt.Errorf("%s %v s is shorter than its tokens took (ttft and itls: %v s)",
					lat.key, f, float64(at-rec.Sent)/1e9)
			}
			rec.End = max(rec.Sent+e, at)
			break
		}
	}
	// vLLM appends an "itls" entry for every chunk after the first that
	// holds a choice, so the chunks are exact. Its output_lens is the
	// server's usage, which counts at least a token per chunk but for a
	// chat stream's role-only first one; or, without usage, the text
	// retokenized, which may count fewer. Tokens are not made up to
	// match the chunks: the first chunks get none.
	if k := len(rec.Chunks); rec.OutputTokens < k {
		short.add(i, rec.OutputTokens, len(v.ITLs[i]))
		for j := range k - rec.OutputTokens {
			rec.Chunks[j].Tokens = 0
		}
		return rec, nil
	}
	if err := record.SpreadTokens(rec.Chunks, rec.OutputTokens); err != nil {
		return record.Record{}, err
	}
	return rec, nil
}
