package sweeprun

import (
	"bytes"
	"context"
	"net"
	"strings"
	"sync"
	"testing"

	"github.com/goodput-dev/goodput/bench"
	"github.com/goodput-dev/goodput/sim"
)

// virtualConfig is a small virtual-time sweep: short prompts, fixed
// 32-token answers, 64 requests a point, records kept in dir ("" for none).
func virtualConfig(dir string) Config {
	cfg := Config{Bench: bench.DefaultConfig(), Dir: dir, MinRounds: DefaultMinRounds, Virtual: &sim.Options{Seed: 1}}
	cfg.Bench.Arrival.NumPrompts = 64
	cfg.Bench.Workload.Random.InputLen = 64
	cfg.Bench.Workload.Random.OutputLen = 32
	cfg.Bench.Workload.Request.IgnoreEOS = true
	return cfg
}

// logBuf is a Log that tests can read while a sweep writes to it, and that
// can call a function when a line contains a marker.
type logBuf struct {
	mu     sync.Mutex // guards buf and the hook
	buf    bytes.Buffer
	marker string
	hook   func()
}

func (l *logBuf) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.buf.Write(p)
	if l.hook != nil && strings.Contains(string(p), l.marker) {
		l.hook()
		l.hook = nil
	}
	return len(p), nil
}

func (l *logBuf) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

// measuredPoints returns the names of the points the log says were
// measured, in order.
func measuredPoints(log string) []string {
	var out []string
	for _, line := range strings.Split(log, "\n") {
		rest, ok := strings.CutPrefix(line, "sweep: ")
		if !ok {
			continue
		}
		name, tail, ok := strings.Cut(rest, ": ")
		if ok && strings.Contains(tail, " requests, ") {
			out = append(out, name)
		}
	}
	return out
}

// serveSim serves a simulator on loopback for one test and returns its
// base URL and the server.
func serveSim(t *testing.T, opts sim.Options) (string, *sim.Server) {
	t.Helper()
	srv, err := sim.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	if err := srv.Start(ctx); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { defer close(done); srv.Serve(ctx, ln) }()
	t.Cleanup(func() { cancel(); srv.Close(); <-done })
	return "http://" + ln.Addr().String(), srv
}
