package sim

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// fastProfile is a tiny model on a fast GPU with small overheads: steps of
// well under a millisecond keep HTTP tests quick.
func fastProfile(t testing.TB) Profile {
	return Profile{
		GPU:   mustGPU(t, "H200"),
		Model: mustModel(t, "Qwen2.5-0.5B"),
		Calibration: Calibration{
			MFU: 0.5, MBU: 0.8,
			StepOverhead: 100 * time.Microsecond, SeqOverhead: 10 * time.Microsecond,
			RequestOverhead: time.Millisecond,
		},
	}
}

// startServer builds, starts and serves a simulator for the test's duration.
func startServer(t testing.TB, opts Options) (*Server, *httptest.Server) {
	t.Helper()
	s, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s)
	t.Cleanup(func() {
		ts.Close()
		s.Close()
	})
	return s, ts
}

// event is one SSE data payload, the name its "event:" line gave it (""
// when none did), and when it arrived.
type event struct {
	name string
	data []byte
	at   time.Time
}

// streamResult is what a client saw of one streamed response.
type streamResult struct {
	status  int
	start   time.Time // when the request was sent
	events  []event   // data payloads, [DONE] included
	body    []byte    // the whole body when the status is not 200
	readErr error     // how reading the stream ended, nil at a clean EOF
}

// postStream posts body to url and reads the SSE response to its end,
// stamping each data line as it arrives.
func postStream(ctx context.Context, c *http.Client, url, body string) (streamResult, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		return streamResult{}, err
	}
	req.Header.Set("Content-Type", "application/json")
	res := streamResult{start: time.Now()}
	resp, err := c.Do(req)
	if err != nil {
		return res, err
	}
	defer resp.Body.Close()
	res.status = resp.StatusCode
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		res.body, res.readErr = io.ReadAll(resp.Body)
		return res, nil
	}
	br := bufio.NewReader(resp.Body)
	var name string
	for {
		line, err := br.ReadBytes('\n')
		line = bytes.TrimRight(line, "\r\n")
		if n, ok := bytes.CutPrefix(line, []byte("event: ")); ok && err == nil {
			name = string(n)
		}
		if data, ok := bytes.CutPrefix(line, []byte("data: ")); ok && err == nil {
			res.events = append(res.events, event{name: name, data: bytes.Clone(data), at: time.Now()})
			name = ""
		}
		if err != nil {
			if err != io.EOF {
				res.readErr = err
			}
			return res, nil
		}
	}
}

// done reports whether the stream ended with data: [DONE].
func (r streamResult) done() bool {
	return len(r.events) > 0 && string(r.events[len(r.events)-1].data) == "[DONE]"
}

// chunks decodes every event but [DONE] into generic JSON.
func (r streamResult) chunks(t testing.TB) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, e := range r.events {
		if string(e.data) == "[DONE]" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal(e.data, &m); err != nil {
			t.Fatalf("chunk %q: %v", e.data, err)
		}
		out = append(out, m)
	}
	return out
}

// postJSON posts body and decodes the JSON answer into out (when not nil).
func postJSON(t testing.TB, url, body string, out any) int {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if out != nil {
		if err := json.Unmarshal(b, out); err != nil {
			t.Fatalf("POST %s: answer %q is not JSON: %v", url, b, err)
		}
	}
	return resp.StatusCode
}

// getJSON gets url and decodes the JSON answer into out.
func getJSON(t testing.TB, url string, out any) int {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	return resp.StatusCode
}

// path walks generic JSON: path(m, "choices", 0, "text").
func path(v any, keys ...any) any {
	for _, k := range keys {
		switch k := k.(type) {
		case string:
			m, ok := v.(map[string]any)
			if !ok {
				return nil
			}
			v = m[k]
		case int:
			a, ok := v.([]any)
			if !ok || k >= len(a) {
				return nil
			}
			v = a[k]
		default:
			return nil
		}
	}
	return v
}

// num returns a generic JSON number as an int, -1 when it is not one.
func num(v any) int {
	f, ok := v.(float64)
	if !ok {
		return -1
	}
	return int(f)
}

// httptestServer serves s, started or not, for the test's duration and
// returns its URL.
func httptestServer(t testing.TB, s *Server) string {
	t.Helper()
	ts := httptest.NewServer(s)
	t.Cleanup(func() {
		ts.Close()
		s.Close()
	})
	return ts.URL
}

// scrape returns the text exposition of url's /metrics.
func scrape(t testing.TB, url string) string {
	t.Helper()
	resp, err := http.Get(url + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// grepLines returns the lines of text that contain any of words.
func grepLines(text string, words ...string) string {
	var out []string
	for _, line := range strings.Split(text, "\n") {
		for _, w := range words {
			if strings.Contains(line, w) && !strings.HasPrefix(line, "#") {
				out = append(out, line)
				break
			}
		}
	}
	return strings.Join(out, "\n")
}
