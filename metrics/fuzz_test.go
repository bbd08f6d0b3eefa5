package metrics

import (
	"encoding/binary"
	"encoding/json"
	"math"
	"testing"

	"github.com/goodput-dev/goodput/record"
)

// FuzzSummary feeds arbitrary records (times, token counts, errors, any
// order) to a Summary: it must never panic, its result must encode as JSON
// (no NaN or Inf) and its counts must add up.
func FuzzSummary(f *testing.F) {
	f.Add([]byte{})
	f.Add(make([]byte, 64))
	seed := make([]byte, 0, 256)
	for _, v := range []int64{0, 0, 400e6, 200e6, 1, 250e6, 1, 400e6, 1, math.MaxInt64, math.MinInt64, -1, 1 << 40, 5} {
		seed = binary.LittleEndian.AppendUint64(seed, uint64(v))
	}
	f.Add(seed)
	f.Fuzz(func(t *testing.T, data []byte) {
		next := func() int64 {
			if len(data) < 8 {
				data = nil
				return 0
			}
			v := int64(binary.LittleEndian.Uint64(data))
			data = data[8:]
			return v
		}
		kinds := []record.ErrorKind{record.ErrNone, record.ErrNone, record.ErrTimeout, record.ErrDropped}
		s := NewSummary(Options{Good: func(q Request) bool { return q.TTFT < 1e9 }, SeriesStep: 1e6})
		var n int64
		for len(data) > 0 && n < 64 {
			r := &record.Record{Scheduled: next(), Sent: next(), End: next()}
			flags := next()
			r.Error = kinds[uint64(flags)%uint64(len(kinds))]
			r.Warmup = flags&0x100 != 0
			r.OutputTokens = int(int32(flags >> 16))
			for i := range uint64(flags>>8) % 9 {
				r.Chunks = append(r.Chunks, record.Chunk{At: next(), Tokens: int32(next()), Reasoning: flags>>(48+i)&1 != 0})
			}
			r.ReasoningTokens = int(int8(flags >> 56)) // negative and above the output included
			s.Add(r)
			if n%8 == 0 {
				s.Snapshot()
			}
			n++
		}
		res := s.Close()
		if _, err := json.Marshal(res); err != nil {
			t.Fatalf("result does not encode: %v", err)
		}
		c := res.Counts
		if c.Total+c.WarmupExcluded != n || c.Completed+c.Failed != c.Total {
			t.Fatalf("counts %+v do not add up to %d records", c, n)
		}
		if g := res.Goodput; g.GoodRequests > c.Completed || g.Attainment < 0 || g.Attainment > 1 {
			t.Fatalf("goodput %+v out of bounds", g)
		}
		if rs := res.Reasoning; rs != nil && (rs.Requests > c.Completed || rs.Unanswered > rs.Requests) {
			t.Fatalf("reasoning %+v out of bounds for %d completed", rs, c.Completed)
		}
		for _, m := range append(Metrics(), ReasoningMetrics()...) {
			d := res.Distribution(m)
			if d.Count > 0 && (d.Min > d.Median || d.Median > d.Max) {
				t.Fatalf("%s: min %v, median %v, max %v out of order", m, d.Min, d.Median, d.Max)
			}
		}
	})
}
