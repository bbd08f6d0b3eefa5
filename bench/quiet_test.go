package bench

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/record"
)

// A server that answers a request's header and then sends nothing is said
// to be silent while the run waits on it, with what the run waits for;
// the run ends when the requests give up, and the summary counts them.
func TestRunSaysWhenTheServerFallsSilent(t *testing.T) {
	defer func(d time.Duration) { quietAfter = d }(quietAfter)
	quietAfter = 400 * time.Millisecond
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		if r.Method == http.MethodGet { // /health and the like answer
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}))
	t.Cleanup(ts.Close)
	cfg := DefaultConfig()
	cfg.BaseURL, cfg.Model, cfg.PromptFormat = ts.URL, "m", PromptIDs
	cfg.Arrival.NumPrompts, cfg.Arrival.MaxConcurrency = 2, 2
	cfg.RequestTimeout, cfg.NoServerMetrics = 1500*time.Millisecond, true
	var progress strings.Builder
	out, err := Run(t.Context(), cfg, &progress, false)
	if err != nil {
		t.Fatal(err)
	}
	if c := out.Result.Counts; c.Total != 2 || c.Errors[string(record.ErrTimeout)] != 2 {
		t.Errorf("counts %+v, want 2 requests that timed out", c)
	}
	want := "s while 2 requests wait for an answer: each gives up after 1.5s (--request-timeout); Ctrl-C ends the run and keeps what was measured"
	if n := strings.Count(progress.String(), "goodput: no byte from the server for"); n < 1 || n > 2 || !strings.Contains(progress.String(), want) {
		t.Errorf("progress said %d silences:\n%s", n, progress.String())
	}
}
