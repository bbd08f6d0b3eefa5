//go:build unix

package canned

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/backend"
	"github.com/goodput-dev/goodput/record"
)

func TestMain(m *testing.M) {
	if code, ran := ServeChild(); ran {
		os.Exit(code)
	}
	os.Exit(m.Run())
}

// post asks srv for a completion of maxTokens and returns the record
// goodput's reader makes of the answer.
func post(t *testing.T, url, seq string, maxTokens int) *record.Record {
	t.Helper()
	a, _ := backend.Lookup("openai")
	req, err := a.BuildRequest(context.Background(), url, "", &backend.Request{Model: "canned", Prompt: "hi", MaxTokens: maxTokens,
		Headers: http.Header{"X-Seq": {seq}}})
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	epoch := time.Now()
	rec := &record.Record{}
	a.ReadStream(resp, func() int64 { return int64(time.Since(epoch)) }, rec)
	return rec
}

// Tokens are written on absolute deadlines from the request's arrival,
// never early by more than the writer's slack, and the report says when;
// the stream is one a client counts exactly.
func TestTokensOnDeadlines(t *testing.T) {
	tests := []struct {
		name      string
		ttft, itl time.Duration
	}{
		{"paced", 30 * time.Millisecond, 10 * time.Millisecond},
		{"bulk", 20 * time.Millisecond, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Start(Options{TTFT: tt.ttft, ITL: tt.itl})
			if err != nil {
				t.Fatal(err)
			}
			rec := post(t, s.URL(), "7", 5)
			streams := s.Close()
			if !rec.OK() || rec.OutputTokens != 5 || len(rec.Chunks) != 5 && tt.itl > 0 || rec.TokenSource != record.SourceUsage || rec.Finish != "length" {
				t.Fatalf("record %s %s: %d tokens in %d chunks from %s, finish %q", rec.Error, rec.Msg, rec.OutputTokens, len(rec.Chunks), rec.TokenSource, rec.Finish)
			}
			if len(streams) != 1 || streams[0].Key != "7" || len(streams[0].Flushed) != 5 {
				t.Fatalf("report %+v", streams)
			}
			st := streams[0]
			for k, f := range st.Flushed {
				due := st.Arrived + int64(tt.ttft) + int64(k)*int64(tt.itl)
				if f < due-int64(slack) {
					t.Errorf("token %d written %v before its deadline", k, time.Duration(due-f))
				}
				if tt.itl == 0 && f != st.Flushed[0] {
					t.Errorf("bulk: token %d written at %d, not with the first at %d", k, f, st.Flushed[0])
				}
			}
		})
	}
}

// The server answers what a benchmark asks before it starts, keeps a
// connection for the next request, and a client that leaves mid-stream
// costs it nothing but that stream.
func TestServesABenchmarkClient(t *testing.T) {
	s, err := Start(Options{TTFT: time.Millisecond, ITL: time.Millisecond, Tokens: 3})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, path := range []string{"/health", "/v1/models"} {
		resp, err := http.Get(s.URL() + path)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || !strings.Contains(string(b), "ok") && !strings.Contains(string(b), `"id":"canned"`) {
			t.Errorf("GET %s: %d %s", path, resp.StatusCode, b)
		}
	}
	// A client that reads one event and leaves.
	req, _ := http.NewRequest(http.MethodPost, s.URL()+"/v1/completions", strings.NewReader(`{"max_tokens":1000}`))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := bufio.NewReader(resp.Body).ReadString('\n'); err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	for i := range 3 {
		if rec := post(t, s.URL(), fmt.Sprint(i), 0); !rec.OK() || rec.OutputTokens != 3 {
			t.Errorf("request %d: %s %s, %d tokens; want the default 3", i, rec.Error, rec.Msg, rec.OutputTokens)
		}
	}
}

// A child process serves the same streams and reports them back.
func TestChild(t *testing.T) {
	r := StartChild(t, Options{TTFT: 5 * time.Millisecond, ITL: time.Millisecond, Tokens: 4})
	rec := post(t, r.URL, "child-1", 0)
	streams, err := r.Stop()
	if err != nil {
		t.Fatal(err)
	}
	if !rec.OK() || rec.OutputTokens != 4 || len(streams) != 1 || streams[0].Key != "child-1" || len(streams[0].Flushed) != 4 ||
		streams[0].Flushed[0] < streams[0].Arrived+int64(5*time.Millisecond-slack) {
		t.Errorf("record %s %s %d tokens; report %+v", rec.Error, rec.Msg, rec.OutputTokens, streams)
	}
}

func TestParseOptions(t *testing.T) {
	o := Options{TTFT: 50 * time.Millisecond, ITL: 20 * time.Millisecond, Tokens: 128}
	if got, err := ParseOptions(o.String()); err != nil || got != o {
		t.Errorf("round trip of %v: %v, %v", o, got, err)
	}
	for _, bad := range []string{"", "ttft", "ttft=fast", "itl=1ms,color=red"} {
		if _, err := ParseOptions(bad); err == nil {
			t.Errorf("ParseOptions(%q) took it", bad)
		}
	}
	st, err := parseLine(`"a b" 10 20 30`)
	if err != nil || st.Key != "a b" || st.Arrived != 10 || len(st.Flushed) != 2 || st.Flushed[1] != 30 {
		t.Errorf("parseLine: %+v %v", st, err)
	}
	if _, err := parseLine(`unquoted 1`); err == nil {
		t.Error("parseLine took an unquoted key")
	}
}
