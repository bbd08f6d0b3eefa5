package bench

import (
	"encoding/json"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/serverview"
)

// probeServer answers the run's requests after runDelay and probes (the
// prompt "Hi") at once, and counts the probes that arrived while one of
// the run's requests was in flight.
type probeServer struct {
	runDelay time.Duration

	mu       sync.Mutex
	inFlight int      // the run's requests being answered
	probes   int      // probe requests received
	beside   int      // of them, received while a run request was in flight
	ids      []string // the probes' x-request-id
	bad      []string // what was wrong with a probe's body
}

func (s *probeServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch r.URL.Path {
	case "/v1/models":
		io.WriteString(w, `{"data":[{"id":"m"}]}`)
		return
	case "/v1/completions":
	default:
		http.NotFound(w, r)
		return
	}
	var body struct {
		Prompt    any `json:"prompt"`
		MaxTokens int `json:"max_tokens"`
	}
	json.NewDecoder(r.Body).Decode(&body)
	probe := body.Prompt == "Hi"
	s.mu.Lock()
	if probe {
		s.probes++
		if s.inFlight > 0 {
			s.beside++
		}
		s.ids = append(s.ids, r.Header.Get("X-Request-Id"))
		if body.MaxTokens != 1 {
			s.bad = append(s.bad, "max_tokens "+strconv.Itoa(body.MaxTokens))
		}
	} else if body.MaxTokens != 1 { // not the one-token check before the run
		s.inFlight++
	}
	s.mu.Unlock()
	n := 1
	if !probe && body.MaxTokens != 1 {
		defer func() { s.mu.Lock(); s.inFlight--; s.mu.Unlock() }()
		time.Sleep(s.runDelay)
		n = body.MaxTokens
	}
	w.Header().Set("Content-Type", "text/event-stream")
	for range n {
		io.WriteString(w, `data: {"choices":[{"index":0,"text":"a","finish_reason":null}]}`+"\n\n")
	}
	io.WriteString(w, `data: {"choices":[{"index":0,"text":"","finish_reason":"length"}],"usage":{"prompt_tokens":1,"completion_tokens":`+strconv.Itoa(n)+`}}`+"\n\ndata: [DONE]\n\n")
}

// Probes go at their rate beside the run, outside --max-concurrency, on
// their own connection, with one output token and the prompt "Hi"; they
// are reported apart and never counted among the run's requests.
func TestProbesBesideTheRun(t *testing.T) {
	srv := &probeServer{runDelay: 200 * time.Millisecond}
	ts := httptest.NewServer(srv)
	defer ts.Close()
	cfg := smallConfig(t, ts.URL)
	cfg.Arrival.NumPrompts, cfg.Arrival.MaxConcurrency, cfg.Warmups = 5, 1, 0
	cfg.Workload.Random.OutputLen = 4
	cfg.NoServerMetrics = true
	cfg.ProbeRate = 20
	cfg.Request.RequestIDPrefix = "pfx-"
	cfg.VLLMFile.Save, cfg.VLLMFile.Dir, cfg.VLLMFile.Name = true, cfg.ResultDir, "vllm.json"
	out, err := Run(t.Context(), cfg, nil, false)
	if err != nil {
		t.Fatal(err)
	}

	if c := out.Result.Counts; c.Completed != 5 || c.Failed != 0 {
		t.Errorf("the run counted %d completed, %d failed; want its own 5 requests only", c.Completed, c.Failed)
	}
	recs, _, _ := readRecords(t, out.RecordsPath)
	if len(recs) != 5 {
		t.Errorf("%d records, want the run's 5", len(recs))
	}
	p := out.Probes
	if p == nil {
		t.Fatal("no probes in the outcome")
	}
	// The run lasts 5 × 200 ms: about 20 probes at 20/s.
	want := out.Result.Window.Seconds * 20
	if sent := float64(p.Sent()); sent < 0.6*want || sent > 1.3*want+1 {
		t.Errorf("%d probes sent over %.2f s at 20/s, want about %.0f", p.Sent(), out.Result.Window.Seconds, want)
	}
	srv.mu.Lock()
	if srv.probes < p.Sent() || srv.beside < p.Sent()/2 {
		t.Errorf("server saw %d probes, %d of them while a run request was in flight; the outcome says %d sent: probes must not wait for the run's one slot",
			srv.probes, srv.beside, p.Sent())
	}
	for i, id := range srv.ids {
		if !strings.HasPrefix(id, "pfx-probe-") {
			t.Errorf("probe %d sent x-request-id %q, want pfx-probe-N", i, id)
			break
		}
	}
	if len(srv.bad) > 0 {
		t.Errorf("probe bodies: %q", srv.bad)
	}
	srv.mu.Unlock()
	if p.Failed != 0 || len(p.Latencies) != p.Sent() {
		t.Errorf("%d probes failed (%s)", p.Failed, p.FirstError)
	}
	for _, l := range p.Latencies {
		if l <= 0 || l > 0.15 {
			t.Errorf("a probe took %.3f s; the server answers them at once", l)
			break
		}
	}

	// vLLM's result file carries vLLM's probe keys, from the same
	// latencies.
	st, ok := p.Stats()
	if !ok || st.Completed != len(p.Latencies) {
		t.Fatalf("stats %+v, %v", st, ok)
	}
	var vf map[string]any
	b, err := os.ReadFile(filepath.Join(cfg.ResultDir, "vllm.json"))
	if err == nil {
		err = json.Unmarshal(b, &vf)
	}
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range map[string]float64{"probe_completed": float64(st.Completed), "probe_failed": 0,
		"probe_median_e2el_ms": st.Median, "probe_p99_e2el_ms": st.P99, "probe_max_e2el_ms": st.Max} {
		if got, ok := vf[k].(float64); !ok || math.Abs(got-v) > 1e-9 {
			t.Errorf("vLLM file %s = %v, want %v", k, vf[k], v)
		}
	}
	if vf["completed"] != 5.0 {
		t.Errorf("vLLM file completed = %v, want 5", vf["completed"])
	}

	// So does the summary JSON, and the notes say what was sent.
	var sf struct {
		Probes *Probes `json:"probes"`
	}
	if b, err := os.ReadFile(out.SummaryPath); err != nil || json.Unmarshal(b, &sf) != nil || sf.Probes == nil || len(sf.Probes.Latencies) != len(p.Latencies) || sf.Probes.Rate != 20 {
		t.Errorf("summary JSON probes %+v (%v)", sf.Probes, err)
	}
	if !strings.Contains(strings.Join(out.Notes, "\n"), `one-token requests ("Hi") at 20/s beside the run`) {
		t.Errorf("notes %q say nothing of the probes", out.Notes)
	}
}

func TestProbeRateValidated(t *testing.T) {
	for _, r := range []float64{-1, math.NaN(), math.Inf(1)} {
		cfg := DefaultConfig()
		cfg.BaseURL = "http://127.0.0.1:1"
		cfg.ProbeRate = r
		if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), "--probe-request-rate") {
			t.Errorf("rate %v: %v, want an error naming --probe-request-rate", r, err)
		}
	}
}

// The server counts the probes among its requests; its account says so.
func TestProbesNotedInTheServerView(t *testing.T) {
	out := &Outcome{Probes: &Probes{Latencies: []float64{0.01, 0.02}, Failed: 1}, Server: &serverview.Comparison{},
		Servers: []EndpointServer{{Server: &serverview.Comparison{}}, {}}}
	probesInServerView(out)
	want := "the server's figures include the 3 probe requests (one output token each), which the client's leave out"
	if !slices.Contains(out.Server.Notes, want) || !slices.Contains(out.Servers[0].Server.Notes, want) {
		t.Errorf("notes %q and %q, want %q in each", out.Server.Notes, out.Servers[0].Server.Notes, want)
	}
	out = &Outcome{Server: &serverview.Comparison{}}
	if probesInServerView(out); len(out.Server.Notes) != 0 {
		t.Errorf("a run without probes got notes %q", out.Server.Notes)
	}
}
