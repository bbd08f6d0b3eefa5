package export

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"

	"github.com/goodput-dev/goodput/metrics"
	"github.com/goodput-dev/goodput/record"
	"github.com/goodput-dev/goodput/sim"
	"github.com/goodput-dev/goodput/slo"
)

// runRecords simulates 300 requests on the built-in model in virtual time
// and then marks a few as failures, warm-ups and multi-token chunks, so
// that every kind of row appears.
func runRecords(t *testing.T) []record.Record {
	t.Helper()
	reqs := make([]sim.VirtualRequest, 300)
	for i := range reqs {
		reqs[i] = sim.VirtualRequest{At: time.Duration(i) * 40 * time.Millisecond, PromptTokens: 100 + 7*(i%50), MaxTokens: 1 + (i*13)%60}
	}
	recs, err := sim.RunVirtual(sim.Options{Seed: 4}, reqs)
	if err != nil {
		t.Fatal(err)
	}
	for i := range recs {
		r := &recs[i]
		r.Labels = map[string]string{"point": "c4"}
		switch {
		case i < 5:
			r.Warmup = true
		case i%37 == 0:
			r.Error, r.Status, r.Msg, r.Chunks, r.OutputTokens = record.ErrHTTP, 500, "server error, with a comma", nil, 0
		case i%41 == 0:
			r.Error, r.Msg = record.ErrDropped, "no worker free"
			r.Chunks, r.OutputTokens, r.Sent = nil, 0, 0
		case i%11 == 0 && len(r.Chunks) >= 4:
			// Two tokens in one chunk, as a server that buffers sends.
			r.Chunks[2].Tokens++
			r.Chunks = append(r.Chunks[:3], r.Chunks[4:]...)
		case i%17 == 0:
			r.Labels = map[string]string{"point": "c4", "model": "m"}
		}
	}
	return recs
}

// summary is what analyze computes from records.
func summary(recs []record.Record, cs slo.Conditions) *metrics.Result {
	o := metrics.Options{Percentiles: []float64{50, 90, 99}}
	cs.Apply(&o)
	s := metrics.NewSummary(o)
	for i := range recs {
		s.Add(&recs[i])
	}
	return s.Close()
}

// cells is one row read back: column name to its text, absent for null.
type cells map[string]string

func (c cells) ns(t *testing.T, name string) int64 {
	t.Helper()
	v, err := strconv.ParseFloat(c[name], 64)
	if err != nil {
		t.Fatalf("%s %q: %v", name, c[name], err)
	}
	return int64(math.Round(v * 1e9))
}

func (c cells) int(t *testing.T, name string) int {
	t.Helper()
	if _, ok := c[name]; !ok {
		return 0
	}
	v, err := strconv.Atoi(c[name])
	if err != nil {
		t.Fatalf("%s %q: %v", name, c[name], err)
	}
	return v
}

// toRecord rebuilds the record a row came from. Without the chunk columns
// a request's chunks are its first token and the rest at its last token:
// TTFT, TPOT and e2e come out the same, the ITLs do not.
func (c cells) toRecord(t *testing.T) record.Record {
	t.Helper()
	r := record.Record{
		Seq: int64(c.int(t, "seq")), Warmup: c["warmup"] == "true", Status: c.int(t, "status"), Finish: c["finish"],
		Msg: c["message"], Scheduled: c.ns(t, "scheduled_s"), End: c.ns(t, "end_s"),
		InputTokens: c.int(t, "input_tokens"), OutputTokens: c.int(t, "output_tokens"), TokenSource: record.Source(c["token_source"]),
	}
	if c["outcome"] != OutcomeOK {
		r.Error = record.ErrorKind(c["outcome"])
	}
	if _, ok := c["sent_s"]; ok {
		r.Sent = c.ns(t, "sent_s")
	}
	for k, v := range c {
		if l, ok := strings.CutPrefix(k, LabelPrefix); ok {
			if r.Labels == nil {
				r.Labels = map[string]string{}
			}
			r.Labels[l] = v
		}
	}
	if times, ok := c["chunk_times_s"]; ok {
		ts, ks := strings.Fields(times), strings.Fields(c["chunk_tokens"])
		if len(ts) != len(ks) {
			t.Fatalf("%d chunk times, %d token counts", len(ts), len(ks))
		}
		for i := range ts {
			at, _ := strconv.ParseFloat(ts[i], 64)
			k, _ := strconv.Atoi(ks[i])
			r.Chunks = append(r.Chunks, record.Chunk{At: int64(math.Round(at * 1e9)), Tokens: int32(k)})
		}
		return r
	}
	if c.int(t, "chunks") > 0 {
		first, last, n := c.ns(t, "first_token_s"), c.ns(t, "last_token_s"), int32(r.OutputTokens)
		if n <= 1 {
			r.Chunks = []record.Chunk{{At: first, Tokens: max(n, 1)}}
		} else {
			r.Chunks = []record.Chunk{{At: first, Tokens: 1}, {At: last, Tokens: n - 1}}
		}
	}
	return r
}

// readCSV reads a table written by WriteCSV.
func readCSV(t *testing.T, b []byte) []cells {
	t.Helper()
	all, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	var out []cells
	for _, line := range all[1:] {
		c := cells{}
		for i, v := range line {
			if v != "" {
				c[all[0][i]] = v
			}
		}
		out = append(out, c)
	}
	return out
}

// readParquet reads a table written by WriteParquet, each value written
// as the CSV would write it.
func readParquet(t *testing.T, b []byte) []cells {
	t.Helper()
	pr := parquet.NewReader(bytes.NewReader(b))
	defer pr.Close()
	var out []cells
	for {
		m := map[string]any{}
		err := pr.Read(&m)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		c := cells{}
		for k, v := range m {
			switch x := v.(type) {
			case nil:
				continue
			case []any:
				parts := make([]string, len(x))
				for i, e := range x {
					parts[i] = csvCell(e)
				}
				c[k] = strings.Join(parts, " ")
			default:
				c[k] = csvCell(x)
			}
		}
		out = append(out, c)
	}
	return out
}

// readJSONL reads a table written by WriteJSONL.
func readJSONL(t *testing.T, b []byte) []cells {
	t.Helper()
	var out []cells
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	for dec.More() {
		var m map[string]any
		if err := dec.Decode(&m); err != nil {
			t.Fatal(err)
		}
		c := cells{}
		for k, v := range m {
			switch x := v.(type) {
			case nil:
				continue
			case []any:
				parts := make([]string, len(x))
				for i, e := range x {
					parts[i] = fmt.Sprint(e)
				}
				c[k] = strings.Join(parts, " ")
			default:
				c[k] = fmt.Sprint(x)
			}
		}
		out = append(out, c)
	}
	return out
}

// TestExportRoundTrips writes the records in every format, reads the rows
// back into records, and checks that their summary is the records'
// summary: the exported times are the measured ones.
func TestExportRoundTrips(t *testing.T) {
	recs := runRecords(t)
	cs, err := slo.ParseConditions("ttft<=300ms,tpot<=30ms")
	if err != nil {
		t.Fatal(err)
	}
	want := summary(recs, cs)
	if want.Counts.Failed == 0 || want.Counts.WarmupExcluded == 0 || want.Goodput.Attainment == 1 || want.Goodput.Attainment == 0 {
		t.Fatalf("the run lacks a kind of request: %+v, attainment %v", want.Counts, want.Goodput.Attainment)
	}
	readers := map[string]func(*testing.T, []byte) []cells{FormatCSV: readCSV, FormatParquet: readParquet, FormatJSONL: readJSONL}
	for _, format := range Formats {
		for _, chunks := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s chunks=%v", format, chunks), func(t *testing.T) {
				tab := NewTable(Options{SLO: cs, Chunks: chunks})
				for i := range recs {
					tab.Add(&recs[i])
				}
				var b bytes.Buffer
				if err := tab.Write(&b, format); err != nil {
					t.Fatal(err)
				}
				rows := readers[format](t, b.Bytes())
				if len(rows) != len(recs) {
					t.Fatalf("%d rows, want %d", len(rows), len(recs))
				}
				back := make([]record.Record, len(rows))
				good := 0
				for i, c := range rows {
					back[i] = c.toRecord(t)
					if c["good"] == "true" && c["warmup"] == "false" {
						good++
					}
				}
				got := summary(back, cs)
				if good != int(want.Goodput.GoodRequests) {
					t.Errorf("good column: %d requests, the summary says %d", good, want.Goodput.GoodRequests)
				}
				if chunks {
					// With every chunk, the whole summary comes back.
					if !reflect.DeepEqual(got, want) {
						t.Errorf("summary of the rows differs:\n got %+v\nwant %+v", got, want)
					}
					return
				}
				// Without chunks, all but the ITLs.
				for _, m := range []metrics.Metric{metrics.MetricTTFT, metrics.MetricTPOT, metrics.MetricE2E, metrics.MetricClientQueue, metrics.MetricTTFTSent} {
					if g, w := got.Distribution(m), want.Distribution(m); !reflect.DeepEqual(g, w) {
						t.Errorf("%s: %+v, want %+v", m, g, w)
					}
				}
				if !reflect.DeepEqual(got.Counts, want.Counts) || !reflect.DeepEqual(got.Window, want.Window) ||
					got.Throughput != want.Throughput || !reflect.DeepEqual(got.Goodput, want.Goodput) || got.Tokens != want.Tokens {
					t.Errorf("summary differs:\n got %+v %+v %+v %+v\nwant %+v %+v %+v %+v",
						got.Counts, got.Window, got.Throughput, got.Goodput, want.Counts, want.Window, want.Throughput, want.Goodput)
				}
			})
		}
	}
}

// TestExportColumns checks the columns and the cells of a few rows.
func TestExportColumns(t *testing.T) {
	ok := record.Record{Seq: 3, Scheduled: 1_500_000_000, Sent: 1_500_250_000, End: 2_000_000_001, InputTokens: 12, OutputTokens: 3,
		TokenSource: record.SourceUsage, Status: 200, Finish: "length", Labels: map[string]string{"model": "m"},
		Chunks: []record.Chunk{{At: 1_600_000_000, Tokens: 1}, {At: 1_700_000_000, Tokens: 2}}}
	one := record.Record{Seq: 4, Scheduled: 2e9, Sent: 2e9, End: 2.5e9, OutputTokens: 1, Status: 200, Chunks: []record.Chunk{{At: 2.1e9, Tokens: 1}}}
	dropped := record.Record{Seq: 5, Scheduled: 3e9, Error: record.ErrDropped, Msg: "no worker, free"}
	tab := NewTable(Options{SLO: slo.Conditions{{Metric: metrics.MetricTTFT, Op: slo.LE, Bound: 200 * time.Millisecond}}})
	for _, r := range []*record.Record{&ok, &one, &dropped} {
		tab.Add(r)
	}
	var b bytes.Buffer
	if err := tab.WriteCSV(&b); err != nil {
		t.Fatal(err)
	}
	want := `seq,warmup,outcome,status,finish,scheduled_s,sent_s,first_token_s,last_token_s,end_s,input_tokens,output_tokens,chunks,token_source,client_queue_ms,ttft_ms,ttft_sent_ms,tpot_ms,itl_max_ms,e2e_ms,good,message,label_model
3,false,ok,200,length,1.5,1.50025,1.6,1.7,2.000000001,12,3,2,usage,0.25,100,99.75,50,50,200,true,,m
4,false,ok,200,,2,2,2.1,2.1,2.5,0,1,1,,0,100,100,,,100,true,,
5,false,dropped,,,3,,,,0,0,0,0,,,,,,,,false,"no worker, free",
`
	// Row 3: TTFT 1.6 − 1.5 s; TPOT (1.7 − 1.6) s ÷ 2; the second chunk's
	// two tokens make per-token gaps of 50 ms. Row 4 has one token: no
	// TPOT, no gaps. Row 5 was never sent: no sent time, no latencies.
	if b.String() != want {
		t.Errorf("CSV:\n%s\nwant:\n%s", b.String(), want)
	}
	b.Reset()
	if err := tab.WriteJSONL(&b); err != nil {
		t.Fatal(err)
	}
	first, _, _ := strings.Cut(b.String(), "\n")
	if wantJSON := `{"seq":3,"warmup":false,"outcome":"ok","status":200,"finish":"length","scheduled_s":1.5,"sent_s":1.50025,"first_token_s":1.6,"last_token_s":1.7,"end_s":2.000000001,"input_tokens":12,"output_tokens":3,"chunks":2,"token_source":"usage","client_queue_ms":0.25,"ttft_ms":100,"ttft_sent_ms":99.75,"tpot_ms":50,"itl_max_ms":50,"e2e_ms":200,"good":true,"message":null,"label_model":"m"}`; first != wantJSON {
		t.Errorf("JSON line:\n%s\nwant:\n%s", first, wantJSON)
	}
	if err := tab.Write(&b, "xlsx"); err == nil || !strings.Contains(err.Error(), `format "xlsx": want csv, parquet, jsonl`) {
		t.Errorf("unknown format: %v", err)
	}
}

// TestExportEmpty writes a table without rows: a header alone, nothing,
// and a Parquet file with the columns and no rows.
func TestExportEmpty(t *testing.T) {
	tab := NewTable(Options{})
	for _, format := range Formats {
		var b bytes.Buffer
		if err := tab.Write(&b, format); err != nil {
			t.Fatalf("%s: %v", format, err)
		}
		switch format {
		case FormatCSV:
			if !strings.HasPrefix(b.String(), "seq,warmup,outcome,") || strings.Count(b.String(), "\n") != 1 {
				t.Errorf("CSV %q", b.String())
			}
		case FormatJSONL:
			if b.Len() != 0 {
				t.Errorf("JSON Lines %q", b.String())
			}
		case FormatParquet:
			f, err := parquet.OpenFile(bytes.NewReader(b.Bytes()), int64(b.Len()))
			if err != nil || f.NumRows() != 0 || len(f.Schema().Fields()) != len(baseColumns) {
				t.Errorf("Parquet: %v, %v", err, f)
			}
		}
	}
}

// The reasoning columns read back alike from every format, Parquet
// included, and rebuild what metrics computes from the records.
func TestExportReasoningAcrossFormats(t *testing.T) {
	recs := reasoningRecords()
	tab := NewTable(Options{Chunks: true})
	for i := range recs {
		tab.Add(&recs[i])
	}
	read := map[string]func(*testing.T, []byte) []cells{FormatCSV: readCSV, FormatJSONL: readJSONL, FormatParquet: readParquet}
	for format, readBack := range read {
		var b bytes.Buffer
		if err := tab.Write(&b, format); err != nil {
			t.Fatal(err)
		}
		rows := readBack(t, b.Bytes())
		if len(rows) != len(recs) {
			t.Fatalf("%s: %d rows", format, len(rows))
		}
		for i, c := range rows {
			q := metrics.Compute(&recs[i])
			if c.int(t, "reasoning_tokens") != q.ReasoningTokens || c.int(t, "answer_tokens") != q.AnswerTokens {
				t.Errorf("%s row %d: reasoning %s, answer %s; want %d and %d", format, i, c["reasoning_tokens"], c["answer_tokens"], q.ReasoningTokens, q.AnswerTokens)
			}
			if _, has := c["ttfa_ms"]; has != q.HasTTFA {
				t.Errorf("%s row %d: ttfa_ms %q, want present %v", format, i, c["ttfa_ms"], q.HasTTFA)
			}
			var want []string
			for _, ch := range recs[i].Chunks {
				want = append(want, map[bool]string{true: "1", false: "0"}[ch.Reasoning])
			}
			if got := c["chunk_reasoning"]; got != strings.Join(want, " ") {
				t.Errorf("%s row %d: chunk_reasoning %q, want %q", format, i, got, strings.Join(want, " "))
			}
		}
	}
}

// A request that failed after some tokens (a reset mid-stream, a reasoning
// reply cut off) keeps its raw times, but every latency column is null in
// each format: a summary counts no latency of a failure, so a query over
// ttft_ms must not mix it in.
func TestExportFailureHasNoLatencies(t *testing.T) {
	ms := int64(time.Millisecond)
	recs := []record.Record{
		{Seq: 0, Scheduled: 0, Sent: 1 * ms, End: 61 * ms, InputTokens: 10, OutputTokens: 3, Status: 200, Finish: "stop",
			Chunks: []record.Chunk{{At: 20 * ms, Tokens: 1}, {At: 40 * ms, Tokens: 1}, {At: 60 * ms, Tokens: 1}}},
		{Seq: 1, Scheduled: 100 * ms, Sent: 102 * ms, End: 180 * ms, InputTokens: 10, OutputTokens: 3, Status: 200,
			Error: record.ErrReset, Msg: "connection reset by peer", ReasoningTokens: 1, ReasoningSource: record.SourceChunks,
			Chunks: []record.Chunk{{At: 110 * ms, Tokens: 1, Reasoning: true}, {At: 130 * ms, Tokens: 1}, {At: 170 * ms, Tokens: 1}}},
	}
	latencies := []string{"client_queue_ms", "ttft_ms", "ttft_sent_ms", "tpot_ms", "itl_max_ms", "e2e_ms", "ttfa_ms", "tpot_answer_ms"}
	cs, err := slo.ParseConditions("ttft<=500ms")
	if err != nil {
		t.Fatal(err)
	}
	tab := NewTable(Options{SLO: cs})
	for i := range recs {
		tab.Add(&recs[i])
	}
	read := map[string]func(*testing.T, []byte) []cells{FormatCSV: readCSV, FormatJSONL: readJSONL, FormatParquet: readParquet}
	for _, format := range Formats {
		var b bytes.Buffer
		if err := tab.Write(&b, format); err != nil {
			t.Fatal(err)
		}
		rows := read[format](t, b.Bytes())
		if len(rows) != 2 {
			t.Fatalf("%s: %d rows", format, len(rows))
		}
		ok, failed := rows[0], rows[1]
		if _, has := failed["reasoning_tokens"]; !has {
			t.Fatalf("%s: no reasoning columns: %v", format, failed)
		}
		// The success has its latencies: TTFT 20 ms, TPOT 20 ms, e2e 60 ms.
		for name, want := range map[string]string{"ttft_ms": "20", "tpot_ms": "20", "e2e_ms": "60", "client_queue_ms": "1"} {
			if ok[name] != want {
				t.Errorf("%s success: %s = %q, want %s", format, name, ok[name], want)
			}
		}
		for _, name := range latencies {
			if v, has := failed[name]; has {
				t.Errorf("%s failure: %s = %q, want null", format, name, v)
			}
		}
		// Its raw times, outcome and tokens stay.
		for name, want := range map[string]string{"outcome": "reset", "good": "false", "sent_s": "0.102", "first_token_s": "0.11",
			"last_token_s": "0.17", "end_s": "0.18", "chunks": "3", "output_tokens": "3"} {
			if failed[name] != want {
				t.Errorf("%s failure: %s = %q, want %s", format, name, failed[name], want)
			}
		}
	}
}
