package grafana

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/autoscale"
	"github.com/goodput-dev/goodput/bench"
	"github.com/goodput-dev/goodput/clientmetrics"
	"github.com/goodput-dev/goodput/internal/simtest"
	"github.com/goodput-dev/goodput/promserve"
	"github.com/goodput-dev/goodput/sim"
	"github.com/goodput-dev/goodput/slo"
	"github.com/goodput-dev/goodput/sweep"
)

// prometheusBinary finds Prometheus: it fails the test under CI (which
// installs Debian's prometheus package) and skips it elsewhere.
func prometheusBinary(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("prometheus")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("prometheus not found: .ci/run installs Debian's prometheus package: %v", err)
		}
		t.Skip("prometheus not installed (apt-get install prometheus)")
	}
	return p
}

// freeAddr returns a loopback address no one listens on now.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// startPrometheus runs Prometheus on loopback, scraping each job's target
// every second, until the test ends; it returns its base URL.
func startPrometheus(t *testing.T, bin string, jobs map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	var cfg strings.Builder
	cfg.WriteString("global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\nscrape_configs:\n")
	for job, target := range jobs {
		fmt.Fprintf(&cfg, "  - job_name: %s\n    static_configs:\n      - targets: [%q]\n", job, target)
	}
	conf := filepath.Join(dir, "prometheus.yml")
	if err := os.WriteFile(conf, []byte(cfg.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	for attempt := 0; attempt < 3; attempt++ {
		addr := freeAddr(t)
		log, err := os.Create(filepath.Join(dir, fmt.Sprintf("prometheus-%d.log", attempt)))
		if err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(bin, "--config.file="+conf, "--storage.tsdb.path="+filepath.Join(dir, fmt.Sprintf("data-%d", attempt)),
			"--web.listen-address="+addr, "--log.level=warn")
		cmd.Stdout, cmd.Stderr = log, log
		if err := cmd.Start(); err != nil {
			t.Fatalf("start prometheus: %v", err)
		}
		exited := make(chan error, 1)
		go func() { exited <- cmd.Wait() }()
		base := "http://" + addr
		deadline := time.Now().Add(20 * time.Second)
		for time.Now().Before(deadline) {
			select {
			case err := <-exited:
				b, _ := os.ReadFile(log.Name())
				t.Logf("prometheus exited (%v), trying another port:\n%s", err, b)
				deadline = time.Time{}
				continue
			default:
			}
			if resp, err := http.Get(base + "/-/ready"); err == nil {
				resp.Body.Close()
				if resp.StatusCode == http.StatusOK {
					t.Cleanup(func() {
						cmd.Process.Signal(os.Interrupt)
						select {
						case <-exited:
						case <-time.After(10 * time.Second):
							cmd.Process.Kill()
							<-exited
						}
					})
					return base
				}
			}
			time.Sleep(50 * time.Millisecond)
		}
		if !deadline.IsZero() {
			cmd.Process.Kill()
			<-exited
			t.Fatal("prometheus was not ready in 20 s")
		}
	}
	t.Fatal("prometheus did not start on any of three ports")
	return ""
}

// instantQuery asks Prometheus for expr now and returns how many series
// (or whether a scalar) came back.
func instantQuery(base, expr string) (int, error) {
	resp, err := http.Get(base + "/api/v1/query?query=" + url.QueryEscape(expr))
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	var r struct {
		Status string `json:"status"`
		Error  string `json:"error"`
		Data   struct {
			ResultType string          `json:"resultType"`
			Result     json.RawMessage `json:"result"`
		} `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
		return 0, err
	}
	if r.Status != "success" {
		return 0, fmt.Errorf("%s: %s", r.Status, r.Error)
	}
	if r.Data.ResultType == "scalar" {
		return 1, nil
	}
	var series []json.RawMessage
	if err := json.Unmarshal(r.Data.Result, &series); err != nil {
		return 0, err
	}
	return len(series), nil
}

// TestDashboardQueriesOnPrometheus runs the whole chain for real: a real
// Prometheus scrapes the simulator (vLLM's metrics), goodput's client
// metrics while bench runs against it, and goodput watch --advise; then
// every query of the dashboard, its variables at "All", must return data
// through Prometheus's HTTP API.
func TestDashboardQueriesOnPrometheus(t *testing.T) {
	bin := prometheusBinary(t)
	d, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	_, simURL := simtest.Serve(t, sim.Options{Seed: 1})

	client := clientmetrics.New("test")
	cs, err := promserve.Listen("client", "127.0.0.1:0", client.Registry(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()

	f, err := os.Open("../autoscale/testdata/sweep.json")
	if err != nil {
		t.Fatal(err)
	}
	sum, err := sweep.ReadJSON(f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	op, err := autoscale.FromSweep(sum)
	if err != nil {
		t.Fatal(err)
	}
	adv := autoscale.NewExporter()
	as, err := promserve.Listen("advise", "127.0.0.1:0", adv.Registry(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer as.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	advised := make(chan struct{})
	go func() {
		defer close(advised)
		autoscale.Run(ctx, autoscale.Config{Targets: []string{simURL + "/metrics"}, Interval: 500 * time.Millisecond, Window: 5 * time.Second, Operating: op},
			func(a autoscale.Advice, err error) bool { adv.Set(a, err); return true })
	}()
	defer func() { cancel(); <-advised }()

	simHost := strings.TrimPrefix(simURL, "http://")
	prom := startPrometheus(t, bin, map[string]string{"vllm": simHost, "goodput": cs.Addr(), "goodput-advise": as.Addr()})

	cfg := bench.DefaultConfig()
	cfg.BaseURL = simURL
	cfg.Arrival.RequestRate = 12
	cfg.Arrival.NumPrompts = 0
	cfg.Arrival.Duration = 8 * time.Second
	cfg.Workload.Random.InputLen = 256
	cfg.Workload.Random.OutputLen = 32
	cfg.Workload.Request.IgnoreEOS = true
	cfg.NoServerMetrics = true
	cfg.RunName = "prom"
	conds, err := slo.ParseConditions("ttft<=500ms,tpot<=50ms")
	if err != nil {
		t.Fatal(err)
	}
	conds.Apply(&cfg.Metrics)
	cfg.Observer = client
	out, err := bench.Run(ctx, cfg, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	if out.Result.Counts.Completed < 50 {
		t.Fatalf("the run completed %d requests, want 50 or more", out.Result.Counts.Completed)
	}
	// Let Prometheus scrape the final counts.
	want := fmt.Sprint(out.Result.Counts.Total)
	deadline := time.Now().Add(15 * time.Second)
	for {
		n, err := instantQuery(prom, `sum(goodput_requests_total) == `+want)
		if err == nil && n == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("prometheus never saw goodput_requests_total reach %s (%d, %v)", want, n, err)
		}
		time.Sleep(200 * time.Millisecond)
	}

	vars := d.TestVars()
	for _, q := range d.Queries() {
		expr, err := Expand(q.Expr, vars)
		if err != nil {
			t.Errorf("%s / %s: %v", q.Panel, q.RefID, err)
			continue
		}
		n, err := instantQuery(prom, expr)
		switch {
		case err != nil:
			t.Errorf("%s / %s: %v\n%s", q.Panel, q.RefID, err, expr)
		case n == 0 && withoutFeature[q.Panel] == "":
			t.Errorf("%s / %s: no data\n%s", q.Panel, q.RefID, expr)
		}
	}
}

// withoutFeature names the panels of a server feature the simulator does
// not have, and so shows no data against it: their queries must still run
// (above) and name only known metrics (TestDashboard).
var withoutFeature = map[string]string{
	"Speculative decoding: draft tokens accepted": "the simulator does not decode speculatively",
	"Speculative decoding: tokens per step":       "the simulator does not decode speculatively",
}
