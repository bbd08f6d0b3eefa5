package load

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/backend"
	"github.com/goodput-dev/goodput/record"
	"github.com/goodput-dev/goodput/transport"
)

func mustRouter(t *testing.T, n int, b Balance) *Router {
	t.Helper()
	urls := make([]string, n)
	for i := range urls {
		urls[i] = fmt.Sprintf("http://10.0.0.%d:8000", i+1)
	}
	r, err := NewRouter(urls, b)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestRoundRobinTakesTurns(t *testing.T) {
	r := mustRouter(t, 3, BalanceRoundRobin)
	var got []int
	for range 7 {
		i := r.Pick("s1") // the session is ignored
		got = append(got, i)
		r.Done(i)
	}
	if fmt.Sprint(got) != "[0 1 2 0 1 2 0]" {
		t.Errorf("picks %v", got)
	}
}

func TestLeastOutstandingAvoidsBusyEndpoints(t *testing.T) {
	r := mustRouter(t, 3, BalanceLeastOutstanding)
	a, b := r.Pick(""), r.Pick("")
	c := r.Pick("")
	if a == b || b == c || a == c {
		t.Fatalf("three picks on an idle fleet went to %d, %d, %d; want three endpoints", a, b, c)
	}
	r.Done(b)
	// b is the only endpoint with nothing in flight.
	if got := r.Pick(""); got != b {
		t.Errorf("picked %d with outstanding %d %d %d, want %d", got, r.Outstanding(0), r.Outstanding(1), r.Outstanding(2), b)
	}
	if r.Outstanding(a) != 1 || r.Outstanding(b) != 1 || r.Outstanding(c) != 1 {
		t.Errorf("outstanding %d %d %d, want 1 each", r.Outstanding(0), r.Outstanding(1), r.Outstanding(2))
	}
}

func TestSessionAffinityKeepsASessionTogether(t *testing.T) {
	r := mustRouter(t, 3, BalanceSession)
	counts := make([]int, 3)
	for k := range 3000 {
		key := fmt.Sprintf("s%d", k)
		first := r.Pick(key)
		r.Done(first)
		// Every later turn of the session goes to the same endpoint,
		// whatever the load elsewhere.
		busy := r.Pick(key)
		if again := r.Pick(key); busy != first || again != first {
			t.Fatalf("session %s went to %d, then %d and %d", key, first, busy, again)
		}
		r.Done(busy)
		r.Done(first)
		counts[first]++
	}
	// Rendezvous hashing spreads sessions evenly: each endpoint holds a
	// third of 3000, within 4 standard deviations (≈ 103).
	for i, n := range counts {
		if n < 900 || n > 1100 {
			t.Errorf("endpoint %d holds %d of 3000 sessions: %v", i, n, counts)
		}
	}
	// Another router over the same endpoints (another shard) agrees.
	other := mustRouter(t, 3, BalanceSession)
	if a, b := r.Pick("s42"), other.Pick("s42"); a != b {
		t.Errorf("two routers place s42 on %d and %d", a, b)
	}
	// A request outside any session is balanced by load.
	r2 := mustRouter(t, 2, BalanceSession)
	if a, b := r2.Pick(""), r2.Pick(""); a == b {
		t.Errorf("two requests without a session both went to %d", a)
	}
}

func TestParseBalanceAndNewRouter(t *testing.T) {
	tests := []struct {
		in   string
		want Balance
		err  bool
	}{
		{"round-robin", BalanceRoundRobin, false},
		{"least-outstanding", BalanceLeastOutstanding, false},
		{"least", BalanceLeastOutstanding, false}, // the short spelling
		{"session", BalanceSession, false},
		{"random", "", true}, // not a policy
		{"", "", true},       // nothing
	}
	for _, tt := range tests {
		got, err := ParseBalance(tt.in)
		if (err != nil) != tt.err || got != tt.want {
			t.Errorf("ParseBalance(%q) = %q, %v", tt.in, got, err)
		}
	}
	if _, err := NewRouter(nil, BalanceRoundRobin); err == nil {
		t.Error("a router over no endpoint")
	}
	if _, err := NewRouter([]string{"http://a"}, "fastest"); err == nil {
		t.Error("a router with an unknown policy")
	}
}

// TestHTTPSpreadsOverTwoServers: with a Router, load.HTTP sends each
// request to the endpoint it picks and names it in the record; the two
// servers see exactly the requests their records say. Connections opened
// ahead are spread over both.
func TestHTTPSpreadsOverTwoServers(t *testing.T) {
	eachTransport(t, func(t *testing.T, kind transport.Kind) {
		var hits, dials [2]atomic.Int64
		servers := make([]*httptest.Server, 2)
		urls := make([]string, 2)
		for i := range servers {
			script := scripted([]step{{tokens: 1}, {tokens: 1}}, nil)
			servers[i] = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				hits[i].Add(1)
				script(w, r)
			}))
			servers[i].Config.ConnState = func(_ net.Conn, s http.ConnState) {
				if s == http.StateNew {
					dials[i].Add(1)
				}
			}
			servers[i].Start()
			defer servers[i].Close()
			urls[i] = servers[i].URL
		}
		for _, policy := range []Balance{BalanceRoundRobin, BalanceSession} {
			t.Run(string(policy), func(t *testing.T) {
				for i := range hits {
					hits[i].Store(0)
					dials[i].Store(0)
				}
				router, err := NewRouter(urls, policy)
				if err != nil {
					t.Fatal(err)
				}
				a, _ := backend.Lookup("openai-chat")
				h := &HTTP{Transport: newTransport(t, kind, urls[0], ClientOptions{Conns: 4}), Adapter: a, Router: router,
					Request: func(seq int64) (backend.Request, int) {
						return backend.Request{Model: "m", Messages: []backend.Message{{Role: "user", Content: "hi"}}, MaxTokens: 2}, 1
					}}
				if err := h.Warm(context.Background(), 4); err != nil {
					t.Fatal(err)
				}
				// The server sees a connection when it accepts it, a
				// moment after the client's dial returned.
				for deadline := time.Now().Add(2 * time.Second); time.Now().Before(deadline) && (dials[0].Load() < 2 || dials[1].Load() < 2); {
					time.Sleep(time.Millisecond)
				}
				if dials[0].Load() < 2 || dials[1].Load() < 2 {
					t.Errorf("warming 4 connections dialled %d and %d", dials[0].Load(), dials[1].Load())
				}
				h.Prepare(0) // built for the first endpoint, sent where the router says
				per := map[string]int64{}
				bySession := map[string]string{}
				for seq := range int64(40) {
					rec := &record.Record{Seq: seq, Session: fmt.Sprintf("s%d", seq%5)}
					h.Do(context.Background(), seq, rec, func() int64 { return 0 })
					if !rec.OK() {
						t.Fatalf("request %d failed: %s %s", seq, rec.Error, rec.Msg)
					}
					per[rec.Endpoint]++
					if prev, ok := bySession[rec.Session]; ok && prev != rec.Endpoint && policy == BalanceSession {
						t.Errorf("session %s went to %s, then %s", rec.Session, prev, rec.Endpoint)
					}
					bySession[rec.Session] = rec.Endpoint
				}
				for i, u := range urls {
					if per[u] != hits[i].Load() {
						t.Errorf("records name %s %d times; it served %d", u, per[u], hits[i].Load())
					}
				}
				if policy == BalanceRoundRobin && (per[urls[0]] != 20 || per[urls[1]] != 20) {
					t.Errorf("round robin sent %v", per)
				}
				if router.Outstanding(0) != 0 || router.Outstanding(1) != 0 {
					t.Errorf("requests left outstanding: %d, %d", router.Outstanding(0), router.Outstanding(1))
				}
				if !strings.HasPrefix(urls[0], "http://127.0.0.1:") {
					t.Errorf("test servers off loopback: %s", urls[0])
				}
			})
		}
	})
}

func TestReadEndpoints(t *testing.T) {
	tests := []struct {
		name, in string
		want     []string
		err      string
	}{
		// URLs, comments, blank lines, a trailing slash
		{"file", "http://a:8000\n\n# replicas\nhttps://b:8443/  # the second\n", []string{"http://a:8000", "https://b:8443"}, ""},
		// nothing but comments
		{"empty", "# none\n\n", nil, "holds no URL"},
		// not a URL a client can send to, named by its line
		{"relative", "http://a\nlocalhost:9\n", nil, "urls:2"},
		{"scheme", "ftp://a\n", nil, "urls:1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ReadEndpoints(strings.NewReader(tt.in), "urls")
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Errorf("err = %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil || strings.Join(got, " ") != strings.Join(tt.want, " ") {
				t.Errorf("got %v, %v; want %v", got, err, tt.want)
			}
		})
	}
}

func FuzzReadEndpoints(f *testing.F) {
	for _, s := range []string{"http://a:1\n", "# c\nhttps://x/\n", "", "http://[::1]:80#x\nhttp://"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		urls, err := ReadEndpoints(strings.NewReader(s), "fuzz")
		if err != nil {
			return
		}
		if len(urls) == 0 {
			t.Fatal("no error and no URL")
		}
		if _, err := NewRouter(urls, BalanceSession); err != nil {
			t.Fatalf("endpoints %q make no router: %v", urls, err)
		}
	})
}
