package sim

import (
	"bytes"
	"io"
	"net/http"
	"strings"
	"testing"
)

// TestSessionHeadersOnMetrics: the simulator counts the requests that
// carry a session id and the distinct ids it served.
func TestSessionHeadersOnMetrics(t *testing.T) {
	_, ts := startServer(t, Options{Profile: fastProfile(t)})
	for _, id := range []string{"s1", "s2", "s1", ""} {
		req, err := http.NewRequest(http.MethodPost, ts.URL+"/v1/completions", bytes.NewReader([]byte(`{"prompt":[5,6],"max_tokens":1}`)))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		if id != "" {
			req.Header.Set("x-session-id", id)
		}
		resp, err := ts.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Fatalf("status %d", resp.StatusCode)
		}
	}
	resp, err := ts.Client().Get(ts.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	for _, want := range []string{"goodput_sim_session_requests_total 3\n", "goodput_sim_sessions 2\n"} {
		if !strings.Contains(string(body), want) {
			t.Errorf("/metrics lacks %q", want)
		}
	}
}
