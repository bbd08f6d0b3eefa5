//go:build unix

package canned

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/internal/childproc"
)

// ChildEnv, set to a server's options as Options.String writes them,
// makes a test binary whose TestMain calls ServeChild serve canned
// streams instead of running its tests (StartChild sets it).
const ChildEnv = "GOODPUT_CANNED_SERVER"

// String writes o as ChildEnv takes it: "ttft=50ms,itl=20ms,tokens=128".
func (o Options) String() string {
	return fmt.Sprintf("ttft=%s,itl=%s,tokens=%d", o.TTFT, o.ITL, o.Tokens)
}

// ParseOptions reads Options from their String form.
func ParseOptions(s string) (Options, error) {
	var o Options
	for _, kv := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			return o, fmt.Errorf("canned options %q: %q is not key=value", s, kv)
		}
		var err error
		switch k {
		case "ttft":
			o.TTFT, err = time.ParseDuration(v)
		case "itl":
			o.ITL, err = time.ParseDuration(v)
		case "tokens":
			o.Tokens, err = strconv.Atoi(v)
		default:
			err = fmt.Errorf("unknown key %q", k)
		}
		if err != nil {
			return o, fmt.Errorf("canned options %q: %w", s, err)
		}
	}
	return o, nil
}

// ServeChild serves canned streams when ChildEnv is set, and reports
// whether it did and the exit code: it prints the server's URL on a
// line, serves until its standard input closes (the parent is done, or
// gone; an hour at most), then prints each finished stream on a line: its
// key, quoted, its arrival and its flush times, in wall-clock ns.
func ServeChild() (code int, ran bool) {
	spec := os.Getenv(ChildEnv)
	if spec == "" {
		return 0, false
	}
	o, err := ParseOptions(spec)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2, true
	}
	s, err := Start(o)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1, true
	}
	fmt.Println(s.URL())
	childproc.WaitForParent(time.Hour)
	w := bufio.NewWriter(os.Stdout)
	for _, st := range s.Close() {
		fmt.Fprintf(w, "%q %d", st.Key, st.Arrived)
		for _, f := range st.Flushed {
			fmt.Fprintf(w, " %d", f)
		}
		fmt.Fprintln(w)
	}
	if w.Flush() != nil {
		return 1, true
	}
	return 0, true
}

// Remote is a canned server in a child process.
type Remote struct {
	URL   string
	child *childproc.Child
}

// StartChild runs a canned server with o in a child process: this test
// binary again, whose TestMain must call ServeChild. Stop it when done.
func StartChild(tb testing.TB, o Options) *Remote {
	tb.Helper()
	c := childproc.Start(tb, ChildEnv+"="+o.String())
	return &Remote{URL: c.Addr, child: c}
}

// Stop ends the child and returns its report.
func (r *Remote) Stop() ([]Stream, error) {
	r.child.Close()
	var out []Stream
	sc := bufio.NewScanner(r.child.Out)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		st, err := parseLine(sc.Text())
		if err != nil {
			_ = r.child.Stop()
			return nil, err
		}
		out = append(out, st)
	}
	err := sc.Err()
	if werr := r.child.Stop(); err == nil {
		err = werr
	}
	return out, err
}

// parseLine reads one stream of ServeChild's report.
func parseLine(line string) (Stream, error) {
	key, rest, err := cutQuoted(line)
	if err != nil {
		return Stream{}, fmt.Errorf("canned server report %q: %w", line, err)
	}
	f := strings.Fields(rest)
	if len(f) == 0 {
		return Stream{}, fmt.Errorf("canned server report %q: no arrival", line)
	}
	st := Stream{Key: key}
	for i, v := range f {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return Stream{}, fmt.Errorf("canned server report %q: %w", line, err)
		}
		if i == 0 {
			st.Arrived = n
		} else {
			st.Flushed = append(st.Flushed, n)
		}
	}
	return st, nil
}

// cutQuoted splits a line that begins with a Go-quoted string.
func cutQuoted(line string) (string, string, error) {
	q, err := strconv.QuotedPrefix(line)
	if err != nil {
		return "", "", err
	}
	key, err := strconv.Unquote(q)
	return key, line[len(q):], err
}
