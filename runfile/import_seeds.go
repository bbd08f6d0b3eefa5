package runfile

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/goodput-dev/goodput/internal/jsonerr"
	"github.com/goodput-dev/goodput/record"
)

// seedLog is one request of the seeds' simple log shape: when it was sent and
// when each output token arrived, in seconds.
type seedLog struct {
	Arrival    *float64  `json:"arrival"`
	TokenTimes []float64 `json:"token_times"`
}

func openSeedsArray(r io.Reader, name string) (*File, error) {
	// The array is read whole (limitDocument bounds it) so that its keys
	// can be checked.
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	var logs []seedLog
	if err := dec.Decode(&logs); err != nil {
		return nil, fmt.Errorf("%s: seeds request log: %w", name, jsonerr.Plain(err))
	}
	if err := jsonerr.Keys(b, &logs); err != nil {
		return nil, fmt.Errorf("%s: seeds request log: %w", name, err)
	}
	recs := make([]record.Record, 0, len(logs))
	for i, l := range logs {
		rec, err := seedRecord(int64(i), l)
		if err != nil {
			return nil, fmt.Errorf("%s: request %d: %w", name, i, err)
		}
		recs = append(recs, rec)
	}
	return seedsFile(recs), nil
}

func openSeedsLines(r io.Reader, name string) (*File, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 1<<16), record.MaxLineBytes)
	var recs []record.Record
	for line := 1; sc.Scan(); line++ {
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 {
			continue
		}
		var l seedLog
		if err := jsonerr.Unmarshal(b, &l); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", name, line, jsonerr.Plain(err))
		}
		rec, err := seedRecord(int64(len(recs)), l)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", name, line, err)
		}
		recs = append(recs, rec)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return seedsFile(recs), nil
}

func seedRecord(seq int64, l seedLog) (record.Record, error) {
	if l.Arrival == nil {
		return record.Record{}, errors.New(`missing "arrival"`)
	}
	s, err := seconds(*l.Arrival)
	if err != nil {
		return record.Record{}, fmt.Errorf("arrival: %w", err)
	}
	rec := record.Record{Seq: seq, Scheduled: s, Sent: s, End: s, Status: 200, TokenSource: record.SourceChunks}
	for j, t := range l.TokenTimes {
		at, err := seconds(t)
		if err != nil {
			return record.Record{}, fmt.Errorf("token_times[%d]: %w", j, err)
		}
		if at < s {
			return record.Record{}, fmt.Errorf("token_times[%d] = %v s is before the arrival %v s", j, t, *l.Arrival)
		}
		if j > 0 && at < rec.Chunks[j-1].At {
			return record.Record{}, fmt.Errorf("token_times[%d] = %v s goes back in time", j, t)
		}
		rec.Chunks = append(rec.Chunks, record.Chunk{At: at, Tokens: 1})
		rec.End = at
	}
	rec.OutputTokens = len(rec.Chunks)
	if len(rec.Chunks) == 0 {
		rec.Error, rec.Msg = record.ErrOther, "no tokens in the log"
	}
	return rec, rec.Check()
}

// seedsFile rebases the logs so the earliest arrival is the run epoch.
func seedsFile(recs []record.Record) *File {
	base := int64(math.MaxInt64)
	for i := range recs {
		base = min(base, recs[i].Scheduled)
	}
	for i := range recs {
		r := &recs[i]
		r.Scheduled -= base
		r.Sent -= base
		r.End -= base
		for j := range r.Chunks {
			r.Chunks[j].At -= base
		}
	}
	h := record.Header{Kind: record.KindHeader, Schema: record.SchemaVersion, Tool: "import: request log (arrival, token_times)"}
	return &File{Reader: &slice{h: h, recs: recs}, Format: "seeds"}
}
