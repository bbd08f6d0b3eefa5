// Package workedexample reads the hand-worked examples of multi-turn
// sessions and agent tasks kept in metrics/testdata
// (sessions_worked_example.txt, tasks_worked_example.txt), so that the
// tests of the metrics and of the load runner reproduce the same figures
// from the same file. Like net/http/httptest, it exists for tests.
//
// Each example holds a Python program in the seed documents' style whose
// data lines describe the requests, and the exact output it prints. Read
// takes the requests from the data lines and the expected output from the
// block after "Expected output".
package workedexample

import (
	"bufio"
	"fmt"
	"math"
	"os"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/goodput-dev/goodput/record"
)

// Request is one turn or call of an example.
type Request struct {
	Flow      string          // session or task name
	Call      string          // a task's call name; empty for a turn
	Turn      int             // a session turn's number; 0 for a call
	Scheduled time.Duration   // s
	Tokens    []time.Duration // the arrival time of each output token
	After     []string        // a call's dependencies
	// Wait is a turn's think time after the previous turn ended, or a
	// call's tool time after it ends.
	Wait time.Duration
}

// Example is one worked example.
type Example struct {
	Requests []Request
	Expected []string // the lines the program prints
}

var (
	turnLine = regexp.MustCompile(`^\s*Turn\("(\w+)", (\d+), ([\d.]+), \[([\d., ]+)\](?:, think=([\d.]+))?\),$`)
	callLine = regexp.MustCompile(`^\s*Call\("(\w+)", "(\w+)", ([\d.]+), \[([\d., ]+)\](?:, after=\[([^\]]*)\])?(?:, tool=([\d.]+))?\),$`)
)

// Read reads the example at path.
func Read(path string) (Example, error) {
	f, err := os.Open(path)
	if err != nil {
		return Example{}, err
	}
	defer f.Close()
	var ex Example
	expected := false
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "Expected output"):
			expected = true
		case expected && line != "":
			ex.Expected = append(ex.Expected, line)
		case turnLine.MatchString(line):
			m := turnLine.FindStringSubmatch(line)
			turn, _ := strconv.Atoi(m[2])
			r := Request{Flow: m[1], Turn: turn}
			if err := r.times(m[3], m[4], m[5]); err != nil {
				return Example{}, fmt.Errorf("%s:%d: %w", path, n, err)
			}
			ex.Requests = append(ex.Requests, r)
		case callLine.MatchString(line):
			m := callLine.FindStringSubmatch(line)
			r := Request{Flow: m[1], Call: m[2]}
			for _, a := range strings.Split(m[5], ",") {
				if a = strings.Trim(strings.TrimSpace(a), `"`); a != "" {
					r.After = append(r.After, a)
				}
			}
			if err := r.times(m[3], m[4], m[6]); err != nil {
				return Example{}, fmt.Errorf("%s:%d: %w", path, n, err)
			}
			ex.Requests = append(ex.Requests, r)
		}
	}
	if err := sc.Err(); err != nil {
		return Example{}, err
	}
	if len(ex.Requests) == 0 || len(ex.Expected) == 0 {
		return Example{}, fmt.Errorf("%s: no requests or no expected output", path)
	}
	return ex, nil
}

// times sets r's scheduled time, token times and wait from their text.
func (r *Request) times(s, tokens, wait string) error {
	var err error
	if r.Scheduled, err = seconds(s); err != nil {
		return err
	}
	for _, t := range strings.Split(tokens, ",") {
		d, err := seconds(strings.TrimSpace(t))
		if err != nil {
			return err
		}
		r.Tokens = append(r.Tokens, d)
	}
	if wait != "" {
		r.Wait, err = seconds(wait)
	}
	return err
}

// seconds reads a time in seconds exactly to the nanosecond.
func seconds(s string) (time.Duration, error) {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, err
	}
	return time.Duration(math.Round(v * 1e9)), nil
}

// Records returns the requests as the load generator records them: sent at
// s, one token per chunk, ending with the last token; a turn carries its
// session and number, a call its task and name.
func (ex Example) Records() []*record.Record {
	out := make([]*record.Record, len(ex.Requests))
	for i, q := range ex.Requests {
		r := &record.Record{
			Seq: int64(i), Scheduled: int64(q.Scheduled), Sent: int64(q.Scheduled),
			OutputTokens: len(q.Tokens), TokenSource: record.SourceChunks, Status: 200,
		}
		for _, t := range q.Tokens {
			r.Chunks = append(r.Chunks, record.Chunk{At: int64(t), Tokens: 1})
		}
		r.End = r.Chunks[len(r.Chunks)-1].At
		if q.Call != "" {
			r.Task, r.Call = q.Flow, q.Call
		} else {
			r.Session, r.Turn = q.Flow, q.Turn
		}
		out[i] = r
	}
	return out
}
