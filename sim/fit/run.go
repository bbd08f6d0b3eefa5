package fit

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/goodput-dev/goodput/bench"
	"github.com/goodput-dev/goodput/internal/gunzip"
	"github.com/goodput-dev/goodput/record"
	"github.com/goodput-dev/goodput/runfile"
	"github.com/goodput-dev/goodput/sim"
)

// Replay is one record file as the simulator can run it again: its
// successful requests, with the lengths the server produced, sent as they
// were sent.
type Replay struct {
	Path     string
	Requests []sim.VirtualRequest
	// Concurrency is the closed loop's size; 0 for an open loop, whose
	// requests arrive at their recorded scheduled times.
	Concurrency int
	Failed      int // requests that failed on the server, left out
	// MaxRunning is the most requests the server's own metrics showed
	// running while others waited (its batch limit); 0 when unknown.
	MaxRunning int

	measured tally
}

// Load is the replays of one load, one file or several (repeats of the same
// load, pooled: a shared machine measures a load more steadily over
// several runs).
type Load struct {
	Name     string // "c=4" or "rate=2"
	Replays  []*Replay
	Measured Metrics
}

// Metrics are what a load measured: output tokens per second over its
// runs, and the mean TTFT and TPOT (excluding the first token) of their
// requests, in milliseconds.
type Metrics struct {
	OutputTokS float64
	TTFT       float64
	TPOT       float64
}

// tally accumulates Metrics over records.
type tally struct {
	tokens         int
	seconds        float64
	ttftSum, ttftN float64
	tpotSum, tpotN float64
}

func (t *tally) addRun(recs []record.Record) {
	first, last := int64(math.MaxInt64), int64(math.MinInt64)
	for i := range recs {
		r := &recs[i]
		first, last = min(first, r.Sent), max(last, r.End)
		t.tokens += r.OutputTokens
		c1, ok := r.FirstToken()
		if !ok || r.Warmup {
			continue
		}
		t.ttftSum += float64(c1-r.Scheduled) / 1e6
		t.ttftN++
		if r.OutputTokens > 1 {
			t.tpotSum += float64(r.End-c1) / 1e6 / float64(r.OutputTokens-1)
			t.tpotN++
		}
	}
	if last > first {
		t.seconds += float64(last-first) / 1e9
	}
}

func (t *tally) add(o tally) {
	t.tokens += o.tokens
	t.seconds += o.seconds
	t.ttftSum += o.ttftSum
	t.ttftN += o.ttftN
	t.tpotSum += o.tpotSum
	t.tpotN += o.tpotN
}

func (t tally) metrics() Metrics {
	var m Metrics
	if t.seconds > 0 {
		m.OutputTokS = float64(t.tokens) / t.seconds
	}
	if t.ttftN > 0 {
		m.TTFT = t.ttftSum / t.ttftN
	}
	if t.tpotN > 0 {
		m.TPOT = t.tpotSum / t.tpotN
	}
	return m
}

// LoadReplay reads the record file at path, and the summary bench wrote
// beside it (NAME.summary.json for NAME.jsonl) when there is one, for the
// server's metrics. The file must come from goodput bench (its header
// says the load); failed requests are left out.
func LoadReplay(path string) (*Replay, error) {
	f, err := runfile.Open(path, nil)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	rp := &Replay{Path: path}
	var cfg struct {
		MaxConcurrency int             `json:"max_concurrency"`
		RequestRate    json.RawMessage `json:"request_rate"`
		Backend        string          `json:"backend"`
		Endpoint       string          `json:"endpoint"`
	}
	h := f.Header()
	if len(h.Config) == 0 {
		return nil, fmt.Errorf("%s: no run header: record files from goodput bench say the load they ran", path)
	}
	if err := json.Unmarshal(h.Config, &cfg); err != nil {
		return nil, fmt.Errorf("%s: run header: %w", path, err)
	}
	closed := string(cfg.RequestRate) == `"inf"` && cfg.MaxConcurrency > 0
	if closed {
		rp.Concurrency = cfg.MaxConcurrency
	}
	chat := cfg.Backend == "openai-chat" || strings.HasSuffix(cfg.Endpoint, "/chat/completions")
	var recs []record.Record
	for {
		var r record.Record
		err := f.Next(&r)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		if !r.OK() || r.OutputTokens < 1 || r.InputTokens < 1 {
			rp.Failed++
			continue
		}
		recs = append(recs, r)
	}
	if len(recs) == 0 {
		return nil, fmt.Errorf("%s: no successful requests to fit", path)
	}
	// Requests go in the order they were sent, which a closed loop keeps.
	sort.SliceStable(recs, func(i, j int) bool { return recs[i].Scheduled < recs[j].Scheduled })
	start := recs[0].Scheduled
	for _, r := range recs {
		q := sim.VirtualRequest{PromptTokens: r.InputTokens, MaxTokens: r.OutputTokens, IgnoreEOS: true, Chat: chat}
		if !closed {
			q.At = time.Duration(r.Scheduled - start)
		}
		rp.Requests = append(rp.Requests, q)
	}
	rp.measured.addRun(recs)
	rp.MaxRunning = serverBatchLimit(summaryBeside(path))
	return rp, nil
}

// maxSummaryBytes bounds what a compressed summary may decompress to, as
// report.MaxSummaryBytes does.
const maxSummaryBytes = 64 << 20

// summaryBeside is the summary bench wrote beside the records at path:
// NAME.summary.json for NAME.jsonl, and for NAME.jsonl.gz, compressed
// since; or NAME.summary.json.gz, when the summary was compressed too.
func summaryBeside(path string) string {
	base := strings.TrimSuffix(path, ".gz")
	p := strings.TrimSuffix(base, filepath.Ext(base)) + ".summary.json"
	if _, err := os.Stat(p); err != nil {
		if _, err := os.Stat(p + ".gz"); err == nil {
			return p + ".gz"
		}
	}
	return p
}

// serverBatchLimit reads the peak of requests running from a bench summary
// file, when requests also waited (so the peak was the server's limit, not
// the load's); 0 when unknown.
func serverBatchLimit(path string) int {
	data, err := gunzip.ReadFile(path, maxSummaryBytes)
	if err != nil {
		return 0
	}
	var s bench.SummaryFile
	if json.Unmarshal(data, &s) != nil || s.Server == nil || s.Server.Running == nil || s.Server.Waiting == nil {
		return 0
	}
	if s.Server.Waiting.Peak < 1 || !(s.Server.Running.Peak >= 1) || s.Server.Running.Peak > 1e6 {
		return 0
	}
	return int(s.Server.Running.Peak)
}

// Group pools replays of the same load into Loads, in the order each load
// first appears.
func Group(replays []*Replay) []Load {
	var loads []Load
	index := map[string]int{}
	for _, rp := range replays {
		name := rp.loadName()
		i, ok := index[name]
		if !ok {
			i = len(loads)
			index[name] = i
			loads = append(loads, Load{Name: name})
		}
		loads[i].Replays = append(loads[i].Replays, rp)
	}
	for i := range loads {
		var t tally
		for _, rp := range loads[i].Replays {
			t.add(rp.measured)
		}
		loads[i].Measured = t.metrics()
	}
	return loads
}

// loadName names the replay's load: its concurrency, or its mean rate.
func (rp *Replay) loadName() string {
	if rp.Concurrency > 0 {
		return "c=" + strconv.Itoa(rp.Concurrency)
	}
	n := len(rp.Requests)
	if n < 2 || rp.Requests[n-1].At <= 0 {
		return "all at once"
	}
	rate := float64(n-1) / rp.Requests[n-1].At.Seconds()
	return "rate=" + strconv.FormatFloat(rate, 'g', 2, 64)
}
