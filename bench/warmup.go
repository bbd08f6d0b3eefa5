package bench

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/goodput-dev/goodput/arrival"
	"github.com/goodput-dev/goodput/backend"
	"github.com/goodput-dev/goodput/load"
	"github.com/goodput-dev/goodput/record"
	"github.com/goodput-dev/goodput/session"
	"github.com/goodput-dev/goodput/workload"
)

// warmUp sends cfg.WarmupRequests requests before the run, as vLLM's
// --num-warmups does: each the run's first request without its request
// id, at most --max-concurrency at once, their outcomes left out of the
// run. It returns a note saying what happened, and an error only when ctx
// ended.
func warmUp(ctx context.Context, cfg Config, run *load.HTTP, plan arrival.Plan) (string, error) {
	n := cfg.WarmupRequests
	if n == 0 {
		return "", nil
	}
	// A doer of its own, so that the run's token check counts the run only.
	doer := &load.HTTP{
		Transport: run.Transport, Router: run.Router, Adapter: run.Adapter, BaseURL: run.BaseURL, Endpoint: run.Endpoint, Timeout: run.Timeout,
		Request: func(int64) (backend.Request, int) {
			req, in := run.Request(0)
			req.RequestID = ""
			return req, in
		},
	}
	conc := n
	if c := cfg.Arrival.MaxConcurrency; c > 0 {
		conc = min(c, n)
	}
	start := time.Now()
	now := func() int64 { return int64(time.Since(start)) }
	slots := make(chan struct{}, conc)
	var wg sync.WaitGroup
	var mu sync.Mutex // guards failed and first
	failed, first := 0, ""
	for i := range n {
		select {
		case slots <- struct{}{}:
		case <-ctx.Done():
			wg.Wait()
			return "", ctx.Err()
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-slots }()
			var rec record.Record
			doer.Do(ctx, int64(i), &rec, now)
			if !rec.OK() {
				mu.Lock()
				if failed++; first == "" {
					first = fmt.Sprintf("%s: %s", rec.Error, rec.Msg)
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return "", err
	}
	note := fmt.Sprintf("Warm-up: %d requests sent before the run, left out of it (%s)", n, time.Since(start).Round(time.Millisecond))
	if failed > 0 {
		note += fmt.Sprintf("; %d failed, the first with %s", failed, first)
	}
	return note, nil
}

// fitToDataset reads a file dataset ahead of the plan when the run's size
// depends on it: every entry (--num-prompts -1), at most one request per
// entry (--no-oversample), prefix_repetition, which makes fewer prompts
// than asked when they do not divide evenly among its prefixes, and whose
// vLLM run then sends fewer, or a trace's rows sent by the arrival process
// (--no-self-timed), each once as vLLM sends them, however long --duration
// is. It lowers cfg.Arrival.NumPrompts to match and returns the source, or
// nil when the size does not depend on it.
func fitToDataset(cfg *Config) (workload.Source, error) {
	wl := cfg.Workload
	if cfg.flows() {
		return nil, fitFlowsToDataset(cfg)
	}
	rows := wl.Trace.NoSelfTimed && (wl.Dataset == workload.DatasetTrace || wl.Dataset == workload.DatasetTimedTrace)
	if wl.Dataset == workload.DatasetRandom || !cfg.AllEntries && !cfg.NoOversample && !rows && wl.Dataset != workload.DatasetPrefixRepetition {
		return nil, nil
	}
	wl.Limit = cfg.Arrival.NumPrompts
	if cfg.AllEntries {
		wl.Limit = 0
	}
	src, err := workload.New(wl)
	if err != nil {
		return nil, err
	}
	n := src.Len()
	switch {
	case cfg.AllEntries:
		cfg.Arrival.NumPrompts = n
	case n > 0 && cfg.Arrival.NumPrompts > n:
		cfg.Arrival.NumPrompts = n
	case rows && cfg.Arrival.NumPrompts == 0:
		cfg.Arrival.NumPrompts = n
	}
	return src, nil
}

// fitFlowsToDataset does fitToDataset's work for sessions and agent
// tasks read from a file: every one of them (--num-prompts -1), or at
// most that many (--no-oversample), where a longer run would send some
// twice. Made-up flows are not counted.
func fitFlowsToDataset(cfg *Config) error {
	if !cfg.AllEntries && !cfg.NoOversample {
		return nil
	}
	src, err := session.New(cfg.Workload, cfg.Sessions)
	if err != nil {
		return err
	}
	switch n := src.Len(); {
	case n == 0:
	case cfg.AllEntries:
		cfg.Arrival.NumPrompts = n
	case cfg.Arrival.NumPrompts > n:
		cfg.Arrival.NumPrompts = n
	}
	return nil
}

// FitToDataset lowers cfg.Arrival.NumPrompts to what the dataset holds
// when the run's size depends on it, as Run does before it plans: for
// --dry-run, whose plan must be the run's. It reads the dataset then.
func FitToDataset(cfg *Config) error {
	_, err := fitToDataset(cfg)
	return err
}

// countFromText counts a successful record's output tokens in its text
// with tok when the server reported no count (one token per chunk was the
// fallback), spreading them over the chunks. A count below the number of
// chunks, which each carried at least one token, is not taken. Nor is a
// reply with reasoning counted over its chunks: the text holds its answer
// only (as vLLM's generated text does), so it keeps one token per chunk.
func countFromText(r *record.Record, tok Tokenizer) {
	if !r.OK() || r.TokenSource != record.SourceChunks || r.Text == "" || r.ReasoningSource == record.SourceChunks {
		return
	}
	n := tok.Count(r.Text)
	if n < len(r.Chunks) || record.SpreadTokens(r.Chunks, n) != nil {
		return
	}
	r.OutputTokens, r.TokenSource = n, record.SourceTokenizer
}
