// Package simtest serves goodput's simulator on loopback and drives a small
// closed-loop streaming load at it, for tests of code that reads a live
// server: its /metrics set beside what a client measured, or a live view of
// it. Like net/http/httptest, it exists for tests; the load generator is
// deliberately simple (one goroutine per concurrent request, no arrival
// process), and package load is what measures real runs.
package simtest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/record"
	"github.com/goodput-dev/goodput/sim"
)

// Serve builds a simulator from opts, starts its engine and serves it on
// 127.0.0.1 at a free port until the test ends, and returns it with its base
// URL ("http://127.0.0.1:port"). It fails the test if the simulator cannot
// be built or the port cannot be opened.
func Serve(t testing.TB, opts sim.Options) (*sim.Server, string) {
	t.Helper()
	s, err := sim.New(opts)
	if err != nil {
		t.Fatalf("simtest: new simulator: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	if err := s.Start(ctx); err != nil {
		cancel()
		t.Fatalf("simtest: start simulator: %v", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		cancel()
		s.Close()
		t.Fatalf("simtest: listen: %v", err)
	}
	served := make(chan error, 1) // written once by the serving goroutine
	go func() { served <- s.Serve(ctx, ln) }()
	t.Cleanup(func() {
		cancel()
		if err := <-served; err != nil {
			t.Errorf("simtest: serve: %v", err)
		}
		s.Close()
	})
	return s, "http://" + ln.Addr().String()
}

// Load is a closed-loop streaming load: Workers goroutines each send
// Requests completions one after another, each asking for exactly
// MaxTokens tokens (ignore_eos) of a continuation of Prompt.
type Load struct {
	Workers   int
	Requests  int    // per worker
	MaxTokens int    // tokens each request generates; 0 means 16
	Prompt    string // "" means a short fixed sentence
	// Pause is how long a worker waits between requests; zero sends the
	// next at once.
	Pause time.Duration
}

// Drive runs l against the server at base until every request has ended or
// ctx is done, and returns one record per request sent, times in
// nanoseconds from epoch (take epoch from time.Now so its monotonic reading
// orders it). Scheduled equals Sent: the load is closed-loop, so a request
// is due when its worker is free. TTFT therefore counts from the moment the
// request was sent. Failed requests are records with an error kind, as in
// a real run; Drive fails only when l is unusable.
func Drive(ctx context.Context, base string, l Load, epoch time.Time) ([]record.Record, error) {
	if l.Workers <= 0 || l.Requests <= 0 {
		return nil, fmt.Errorf("simtest: load of %d workers × %d requests: both must be positive", l.Workers, l.Requests)
	}
	if l.MaxTokens <= 0 {
		l.MaxTokens = 16
	}
	if l.Prompt == "" {
		l.Prompt = "The quick brown fox jumps over the lazy dog while the engine schedules its batch."
	}
	body, err := json.Marshal(map[string]any{
		"prompt": l.Prompt, "max_tokens": l.MaxTokens, "ignore_eos": true, "stream": true,
		"stream_options": map[string]bool{"include_usage": true, "continuous_usage_stats": true},
	})
	if err != nil {
		return nil, err
	}
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: l.Workers}}
	defer client.CloseIdleConnections()
	var (
		mu   sync.Mutex // guards recs
		recs []record.Record
		wg   sync.WaitGroup
	)
	for w := 0; w < l.Workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < l.Requests && ctx.Err() == nil; i++ {
				r := send(ctx, client, base+"/v1/completions", body, epoch)
				r.Seq = int64(w*l.Requests + i)
				mu.Lock()
				recs = append(recs, r)
				mu.Unlock()
				if l.Pause > 0 {
					select {
					case <-time.After(l.Pause):
					case <-ctx.Done():
					}
				}
			}
		}()
	}
	wg.Wait()
	return recs, nil
}

// chunk is the part of a completions stream chunk the driver reads.
type chunk struct {
	Choices []struct {
		Text string `json:"text"`
	} `json:"choices"`
	Usage *struct {
		CompletionTokens int `json:"completion_tokens"`
		PromptTokens     int `json:"prompt_tokens"`
	} `json:"usage"`
}

// send streams one completion and records it. Arrival times are taken as
// each line is read, before it is decoded.
func send(ctx context.Context, client *http.Client, url string, body []byte, epoch time.Time) record.Record {
	since := func() int64 { return int64(time.Since(epoch)) }
	r := record.Record{TokenSource: record.SourceUsage}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return failed(r, record.ErrOther, err, since())
	}
	req.Header.Set("Content-Type", "application/json")
	r.Scheduled = since()
	r.Sent = r.Scheduled
	resp, err := client.Do(req)
	if err != nil {
		return failed(r, kind(ctx, record.ErrConnect), err, since())
	}
	defer resp.Body.Close()
	r.Status = resp.StatusCode
	if resp.StatusCode != http.StatusOK {
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		return failed(r, record.ErrHTTP, fmt.Errorf("http %s: %s", resp.Status, strings.TrimSpace(string(msg))), since())
	}
	br := bufio.NewReader(resp.Body)
	seen := 0 // completion tokens reported so far
	for {
		line, err := br.ReadBytes('\n')
		at := since()
		data, ok := bytes.CutPrefix(bytes.TrimRight(line, "\r\n"), []byte("data: "))
		switch {
		case ok && string(data) == "[DONE]":
			r.End = at
			r.OutputTokens = seen
			return r
		case ok:
			var c chunk
			if jerr := json.Unmarshal(data, &c); jerr != nil {
				return failed(r, record.ErrMalformed, fmt.Errorf("chunk %q: %w", data, jerr), at)
			}
			if c.Usage != nil {
				r.InputTokens = c.Usage.PromptTokens
			}
			if len(c.Choices) > 0 && c.Choices[0].Text != "" {
				n := int32(1)
				if c.Usage != nil && c.Usage.CompletionTokens > seen {
					n = int32(c.Usage.CompletionTokens - seen)
				}
				r.Chunks = append(r.Chunks, record.Chunk{At: at, Tokens: n})
			}
			if c.Usage != nil && c.Usage.CompletionTokens > seen {
				seen = c.Usage.CompletionTokens
			}
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				return failed(r, record.ErrTruncated, errors.New("stream ended without [DONE]"), at)
			}
			return failed(r, kind(ctx, record.ErrReset), err, at)
		}
	}
}

// kind is ErrCanceled when ctx ended, else def.
func kind(ctx context.Context, def record.ErrorKind) record.ErrorKind {
	if ctx.Err() != nil {
		return record.ErrCanceled
	}
	return def
}

func failed(r record.Record, k record.ErrorKind, err error, at int64) record.Record {
	r.Error, r.Msg, r.End = k, err.Error(), at
	return r
}
