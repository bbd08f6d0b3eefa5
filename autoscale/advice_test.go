package autoscale

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
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
	var got []Advice
	err := Run(context.Background(), Config{URLs: []string{srv.URL + "/metrics"}, Interval: 20 * time.Millisecond, Window: 200 * time.Millisecond, Operating: testOp},
		func(a Advice, err error) bool {
			if err == nil {
				got = append(got, a)
			}
			return len(got) < 8
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
