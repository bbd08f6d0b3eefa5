package autoscale

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/goodput-dev/goodput/sweep"
)

// testOp is one replica serving 5 req/s at 2 s: 10 in flight.
var testOp = Operating{Load: sweep.Load{Mode: sweep.ModeConcurrency, Value: 10}, QPS: 5, Latency: 2, Concurrency: 10}

func TestAdvise(t *testing.T) {
	nan := math.NaN()
	for _, tc := range []struct {
		name   string
		r      Reading
		p      Policy
		want   int
		basis  Basis
		reason string
	}{
		// 30 in the system over 3 s: 10 req/s arrive, two replicas' worth.
		{"arrivals need two", Reading{Replicas: 1, Running: 10, Waiting: 20, Latency: 3}, Policy{}, 2, BasisArrivals, "10 req/s arriving"},
		// A hair over one replica's worth needs a second.
		{"just over one", Reading{Replicas: 1, Running: 10.2, Latency: 2}, Policy{}, 2, BasisArrivals, "5.1 req/s"},
		// A thousandth over one replica's worth needs a second, and the
		// quotient says why, not "1.00 → 2".
		{"a thousandth over one", Reading{Replicas: 1, Running: 10.01, Latency: 2}, Policy{}, 2, BasisArrivals, "= 1.001 → 2 replicas"},
		// Exactly one replica's worth fits in one.
		{"exactly one", Reading{Replicas: 1, Running: 10, Latency: 2}, Policy{}, 1, BasisArrivals, "→ 1 replica"},
		// 20 % headroom on 10 req/s: 12 req/s, three replicas.
		{"headroom", Reading{Replicas: 2, Running: 30, Latency: 3}, Policy{Headroom: 0.2}, 3, BasisArrivals, "with 20 % headroom"},
		{"a cap", Reading{Replicas: 2, Running: 300, Latency: 3}, Policy{Max: 4}, 4, BasisArrivals, "capped at the maximum of 4"},
		{"a floor", Reading{Replicas: 1, Running: 1, Latency: 2}, Policy{Min: 2}, 2, BasisArrivals, "raised to the minimum of 2"},
		// No latency histogram: 35 in the system against 10 per replica.
		{"no latency", Reading{Replicas: 1, Running: 15, Waiting: 20, Latency: nan}, Policy{}, 4, BasisInSystem, "export no request latency"},
		{"idle", Reading{Replicas: 3, Latency: nan}, Policy{}, 1, BasisIdle, "idle"},
		{"idle with a floor", Reading{Replicas: 3, Latency: nan}, Policy{Min: 2}, 2, BasisIdle, "minimum of 2"},
	} {
		a, err := Advise(tc.r, testOp, tc.p)
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if a.Desired != tc.want || a.Basis != tc.basis || !strings.Contains(a.Reason, tc.reason) {
			t.Errorf("%s: %d replicas (%s), want %d (%s) with %q: %s", tc.name, a.Desired, a.Basis, tc.want, tc.basis, tc.reason, a.Reason)
		}
	}
	if _, err := Advise(Reading{Scraped: 2}, testOp, Policy{}); err != ErrNoMetrics {
		t.Errorf("no metrics: %v, want ErrNoMetrics", err)
	}
}

func TestPolicyValidate(t *testing.T) {
	for _, tc := range []struct {
		p    Policy
		want string
	}{
		{Policy{Headroom: -0.1}, "--headroom"},
		{Policy{Headroom: math.NaN()}, "--headroom"},
		{Policy{Min: -1}, "--min-replicas"},
		{Policy{Max: -1}, "--max-replicas"},
		{Policy{Min: 3, Max: 2}, "below --min-replicas 3"},
	} {
		if err := tc.p.Validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want %q", tc.p, err, tc.want)
		}
	}
	if err := (Policy{Min: 2, Max: 2, Headroom: 0.5}).Validate(); err != nil {
		t.Errorf("a fixed size: %v", err)
	}
}

func TestFromSweepErrors(t *testing.T) {
	if _, err := FromSweep(sweep.Summary{Operating: sweep.Operating{Pick: sweep.Pick{Note: "every load missed"}}}); err == nil || !strings.Contains(err.Error(), "every load missed") {
		t.Errorf("no operating point: %v", err)
	}
	p, err := sweep.NewPoint(sweep.Load{Mode: sweep.ModeConcurrency, Value: 4}, sweep.Sample{Requests: 10, RequestThroughput: math.NaN()})
	if err != nil {
		t.Fatal(err)
	}
	s := sweep.Summary{Points: []sweep.Point{p}, Operating: sweep.Operating{Pick: sweep.Pick{Found: true, Index: 0, Load: p.Load}}}
	if _, err := FromSweep(s); err == nil || !strings.Contains(err.Error(), "no usable throughput") {
		t.Errorf("an operating point without throughput: %v", err)
	}
}

// TestExporter: the gauges follow the advice, and goodput_desired_replicas
// vanishes while there is none.
func TestExporter(t *testing.T) {
	e := NewExporter()
	a, err := Advise(Reading{Replicas: 1, Running: 10, Waiting: 20, Latency: 3}, testOp, Policy{})
	e.Set(a, err)
	if v := testutil.ToFloat64(e.desired.WithLabelValues()); v != 2 {
		t.Errorf("desired %v, want 2", v)
	}
	if v := testutil.ToFloat64(e.arrival.WithLabelValues()); v != 10 {
		t.Errorf("arrival rate %v, want 10", v)
	}
	rec := httptest.NewRecorder()
	e.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/advice", nil))
	var j map[string]any
	if err := json.Unmarshal(rec.Body.Bytes(), &j); err != nil || j["desired_replicas"] != 2.0 || !strings.Contains(fmt.Sprint(j["reason"]), "Little's Law") {
		t.Errorf("/advice: %v %s", err, rec.Body)
	}
	a, err = Advise(Reading{Scraped: 1}, testOp, Policy{})
	e.Set(a, err)
	if n := testutil.CollectAndCount(e.desired); n != 0 {
		t.Errorf("with no advice, %d desired-replica series; want none", n)
	}
}

// TestRunScrapesAndAdvises drives Run against a server whose metrics say
// 36 requests are in the system and each took 3 s: 12 req/s, three
// replicas of 5.
func TestRunScrapesAndAdvises(t *testing.T) {
	var scrapes atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := scrapes.Add(1)
		io.WriteString(w, fmt.Sprintf(`# TYPE vllm:num_requests_running gauge
vllm:num_requests_running{model_name="m"} 16
# TYPE vllm:num_requests_waiting gauge
vllm:num_requests_waiting{model_name="m"} 20
# TYPE vllm:e2e_request_latency_seconds histogram
vllm:e2e_request_latency_seconds_bucket{model_name="m",le="1"} 0
vllm:e2e_request_latency_seconds_bucket{model_name="m",le="+Inf"} %d
vllm:e2e_request_latency_seconds_sum{model_name="m"} %d
vllm:e2e_request_latency_seconds_count{model_name="m"} %d
`, 10*n, 30*n, 10*n))
	}))
	defer srv.Close()
	// The first readings may have one scrape, and so no latency yet: run
	// until an advice on the arrival rate, or 200 intervals.
	var got []Advice
	ticks := 0
	err := Run(context.Background(), Config{Targets: []string{srv.URL + "/metrics"}, Interval: 20 * time.Millisecond, Window: 2 * time.Second, Operating: testOp},
		func(a Advice, err error) bool {
			ticks++
			if err == nil {
				got = append(got, a)
			}
			return ticks < 200 && (len(got) == 0 || got[len(got)-1].Basis != BasisArrivals)
		})
	if err != nil {
		t.Fatal(err)
	}
	last := got[len(got)-1]
	if last.Desired != 3 || last.Basis != BasisArrivals || math.Abs(last.ArrivalRate-12) > 1e-9 || last.Current != 1 {
		t.Errorf("advice %d (%s), λ %v, %d replicas scraped; want 3 on arrivals, λ 12, 1: %s", last.Desired, last.Basis, last.ArrivalRate, last.Current, last.Reason)
	}
	if err := Run(context.Background(), Config{Interval: time.Second}, nil); err == nil {
		t.Error("Run without a server did not fail")
	}
}

// fakeResolver answers from a table the test changes.
type fakeResolver struct {
	addrs atomic.Value // []string
}

func (f *fakeResolver) LookupHost(ctx context.Context, host string) ([]string, error) {
	if host != "replicas.test" {
		return nil, fmt.Errorf("lookup %s: no such host", host)
	}
	return f.addrs.Load().([]string), nil
}

func TestExpand(t *testing.T) {
	r := &fakeResolver{}
	r.addrs.Store([]string{"127.0.0.2", "127.0.0.1", "::1"})
	got, errs := Expand(context.Background(), r, []string{"http://a:1/metrics", "dns+http://replicas.test:8000/metrics", "dns+http://gone.test:8000/metrics"})
	want := []string{"http://a:1/metrics", "http://127.0.0.1:8000/metrics", "http://127.0.0.2:8000/metrics", "http://[::1]:8000/metrics"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("Expand: %v, want %v", got, want)
	}
	if len(errs) != 1 || !strings.Contains(errs[0].Error(), "gone.test") {
		t.Errorf("errors %v, want one naming gone.test", errs)
	}
	for _, bad := range []string{"", "replicas:8000", "dns+ftp://x", "dns+"} {
		if CheckTarget(bad) == nil {
			t.Errorf("CheckTarget(%q) passed", bad)
		}
	}
}

// metricsServer serves a replica's metrics: running requests, none
// waiting, and 10 requests of 2 s finished per scrape.
func metricsServer(running int) http.Handler {
	var scrapes atomic.Int64
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := scrapes.Add(1)
		fmt.Fprintf(w, "# TYPE vllm:num_requests_running gauge\nvllm:num_requests_running %d\n# TYPE vllm:num_requests_waiting gauge\nvllm:num_requests_waiting 0\n"+
			"# TYPE vllm:e2e_request_latency_seconds histogram\nvllm:e2e_request_latency_seconds_bucket{le=\"+Inf\"} %d\nvllm:e2e_request_latency_seconds_sum %d\nvllm:e2e_request_latency_seconds_count %d\n",
			running, 10*n, 20*n, 10*n)
	})
}

// TestRunFollowsTheFleet: a dns+ target gains a second replica and loses
// it again; the advice counts the replicas the name stands for.
func TestRunFollowsTheFleet(t *testing.T) {
	ln1, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	_, port, _ := net.SplitHostPort(ln1.Addr().String())
	ln2, err := net.Listen("tcp", "127.0.0.2:"+port)
	if err != nil {
		ln1.Close()
		t.Skipf("cannot listen on 127.0.0.2:%s beside 127.0.0.1: %v", port, err)
	}
	s1, s2 := &http.Server{Handler: metricsServer(20)}, &http.Server{Handler: metricsServer(20)}
	go s1.Serve(ln1)
	go s2.Serve(ln2)
	defer s1.Close()
	defer s2.Close()
	r := &fakeResolver{}
	r.addrs.Store([]string{"127.0.0.1"})
	var seen []int
	step := 0
	err = Run(context.Background(), Config{Targets: []string{"dns+http://replicas.test:" + port + "/metrics"}, Resolver: r,
		Interval: 20 * time.Millisecond, Window: 2 * time.Second, Operating: testOp},
		func(a Advice, err error) bool {
			step++
			if err == nil {
				seen = append(seen, a.Current)
			}
			switch step {
			case 10:
				r.addrs.Store([]string{"127.0.0.1", "127.0.0.2"})
			case 25:
				r.addrs.Store([]string{"127.0.0.2"})
			}
			return step < 40
		})
	if err != nil {
		t.Fatal(err)
	}
	// One replica, then two, then one again.
	phases := []int{}
	for _, c := range seen {
		if len(phases) == 0 || phases[len(phases)-1] != c {
			phases = append(phases, c)
		}
	}
	if fmt.Sprint(phases) != "[1 2 1]" {
		t.Errorf("replicas seen %v (phases %v), want 1, then 2, then 1", seen, phases)
	}
}

// The autoscaler sizes by what one replica sustains within the SLO, as
// goodput plan does: when a lower load met the SLO and finished more
// requests than the operating point (throughput falling past the knee),
// its rate is the one to divide by. Here 8 req/s at concurrency 8, not
// 7 req/s at 16: 16 req/s arriving needs ⌈16 ÷ 8⌉ = 2 replicas, not 3.
func TestFromSweepTakesTheMostThroughputWithinTheSLO(t *testing.T) {
	var pts []sweep.Point
	for _, p := range []struct {
		c             int
		rps, e2e, att float64
	}{{4, 4, 1, 1}, {8, 8, 1, 1}, {16, 7, 2.3, 0.95}, {32, 6, 5.3, 0.5}} {
		pt, err := sweep.NewPoint(sweep.Concurrency(p.c), sweep.Sample{Requests: 100, RequestThroughput: p.rps,
			OutputThroughput: 100 * p.rps, Goodput: 100 * p.rps * p.att, Attainment: p.att,
			E2E: sweep.Dist{Mean: p.e2e, P50: p.e2e, P90: p.e2e, P99: p.e2e}})
		if err != nil {
			t.Fatal(err)
		}
		pts = append(pts, pt)
	}
	s, err := sweep.Analyze(pts, sweep.Options{})
	if err != nil {
		t.Fatal(err)
	}
	op, err := FromSweep(s)
	if err != nil {
		t.Fatal(err)
	}
	if op.Load != sweep.Concurrency(8) || op.QPS != 8 || op.Latency != 1 || op.Concurrency != 8 || op.Attainment != 1 ||
		op.OperatingPoint != sweep.Concurrency(16) {
		t.Errorf("FromSweep = %+v, want concurrency 8 at 8 req/s", op)
	}
	a, err := Advise(Reading{Replicas: 2, Running: 16, Latency: 1}, op, Policy{})
	if err != nil || a.Desired != 2 || !strings.Contains(a.Reason, "one replica at 8 concurrent requests, which finished more requests within the SLO than the sweep's operating point (16 concurrent requests), serves 8 req/s") {
		t.Errorf("advice: %d replicas, %v; want 2: %s", a.Desired, err, a.Reason)
	}
}
