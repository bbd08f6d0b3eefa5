package bench

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// A server that names itself llama.cpp holds an HTTP worker for every
// open connection: an open loop then opens connections at most
// AheadWindow before their requests, and says so; any other server gets
// the start's second of connections and no such note.
func TestIdleConnectionsOfALlamaCppServer(t *testing.T) {
	for _, software := range []string{"llama.cpp", "uvicorn", ""} {
		t.Run(software, func(t *testing.T) {
			llm := &fakeLLM{name: "A"}
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if software != "" {
					w.Header().Set("Server", software)
				}
				llm.ServeHTTP(w, r)
			}))
			defer srv.Close()
			cfg := flowConfig(t, srv.URL)
			cfg.Sessions.MultiTurn = false
			cfg.Arrival.MaxConcurrency = 0
			cfg.Arrival.RequestRate = 50
			cfg.Arrival.NumPrompts = 20
			out, err := Run(t.Context(), cfg, nil, false)
			if err != nil {
				t.Fatal(err)
			}
			noted := false
			for _, n := range out.Notes {
				noted = noted || strings.HasPrefix(n, "Connections: llama.cpp gives every open connection one of its HTTP workers")
			}
			c := out.Generator.Connections
			if want := software == "llama.cpp"; noted != want || out.Result.Counts.Completed != 20 {
				t.Fatalf("note %v, want %v; counts %+v; notes %q", noted, want, out.Result.Counts, out.Notes)
			}
			// 50 requests a second: about 5 in the first 100 ms, 50 in
			// the first second.
			if software == "llama.cpp" && c.Warmed > 16 || software != "llama.cpp" && c.Warmed < 18 {
				t.Errorf("%s: %d connections opened before the start", software, c.Warmed)
			}
		})
	}
}

// A run of 20 requests dials for 20, whatever its cap: under
// --max-concurrency 10000 the pool's spares once scaled with the cap and
// opened 645 connections to the server before the start.
func TestAFewRequestsDialAFewConnections(t *testing.T) {
	srv := httptest.NewServer(&fakeLLM{name: "A"})
	defer srv.Close()
	cfg := flowConfig(t, srv.URL)
	cfg.Sessions.MultiTurn = false
	cfg.Arrival.MaxConcurrency = 10000
	cfg.Arrival.NumPrompts = 20
	out, err := Run(t.Context(), cfg, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	c := out.Generator.Connections
	if out.Result.Counts.Completed != 20 || c.Warmed < 20 || c.Warmed > 22 || c.Ahead != 0 {
		t.Errorf("%d completed, %d connections before the start and %d during the run; want 20 completed over 20 to 22 connections, 0 more", out.Result.Counts.Completed, c.Warmed, c.Ahead)
	}
}
