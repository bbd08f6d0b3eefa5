package serverview

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/promscrape"
)

// realSlots is what the real llama-server's GET /slots lists with
// --parallel 4, two of them busy (fields beyond is_processing trimmed).
const realSlots = `[{"id":0,"n_ctx":2048,"speculative":false,"is_processing":true},` +
	`{"id":1,"n_ctx":2048,"speculative":false,"is_processing":false},` +
	`{"id":2,"n_ctx":2048,"speculative":false,"is_processing":true,"id_task":765,"n_prompt_tokens":34},` +
	`{"id":3,"n_ctx":2048,"speculative":false,"is_processing":false}]`

// watch of a llama.cpp server reports its slots beside the busy and
// deferred counts of its /metrics.
func TestWatchReadsLlamaCppSlots(t *testing.T) {
	prom, err := os.ReadFile("../promscrape/testdata/llamacpp.prom")
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/metrics":
			w.Write(prom)
		case "/slots":
			io.WriteString(w, realSlots)
		default:
			http.NotFound(w, r)
		}
	}))
	defer ts.Close()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	sc := promscrape.Scraper{URL: ts.URL + "/metrics", Interval: 10 * time.Millisecond}
	v := Watch(ctx, sc, time.Second, func(View) bool { return false })
	if v.Slots == nil || *v.Slots != (Slots{Total: 4, Busy: 2}) {
		t.Fatalf("slots %+v, want 4 with 2 busy", v.Slots)
	}
	var b strings.Builder
	if err := ViewText(&b, v); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "Slots (/slots):                          4, 2 busy") {
		t.Errorf("view lacks the slots:\n%s", b.String())
	}
}

func TestReadSlotsFailures(t *testing.T) {
	for _, tt := range []struct {
		name, body string
		status     int
		want       string
	}{
		{"no such route", "", http.StatusNotFound, "404 Not Found"},
		{"not a list", `{"error":"x"}`, http.StatusOK, "cannot unmarshal"},
	} {
		ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(tt.status)
			io.WriteString(w, tt.body)
		}))
		_, err := ReadSlots(t.Context(), nil, ts.URL+"/metrics", 0, nil)
		ts.Close()
		if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), ts.URL+"/slots") {
			t.Errorf("%s: err = %v, want %q naming the URL", tt.name, err, tt.want)
		}
	}
}
