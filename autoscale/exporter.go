package autoscale

import (
	"encoding/json"
	"math"
	"net/http"
	"sync"

	"github.com/prometheus/client_golang/prometheus"
)

// DesiredReplicas is the gauge an autoscaler reads: with a KEDA
// ScaledObject or an HPA external metric whose target is an average value
// of 1, the replica count follows it.
const DesiredReplicas = "goodput_desired_replicas"

// Names of the gauges that show the advice's inputs.
const (
	CurrentReplicas  = "goodput_advise_current_replicas"
	RequestsInSystem = "goodput_advise_requests_in_system"
	ArrivalRate      = "goodput_advise_arrival_rate_requests_per_second"
	ReplicaCapacity  = "goodput_advise_replica_capacity_requests_per_second"
	ServerLatency    = "goodput_advise_server_latency_seconds"
)

// Exporter holds the latest advice as Prometheus gauges on a registry of
// its own, and as JSON. While there is no advice (no server answered),
// goodput_desired_replicas is absent, so that an autoscaler keeps the
// replicas it has rather than act on a stale number. It is safe for
// concurrent use.
type Exporter struct {
	reg                                           *prometheus.Registry
	desired                                       *prometheus.GaugeVec // no labels: a vector so that it can be absent
	current, inSystem, arrival, capacity, latency *prometheus.GaugeVec

	mu   sync.Mutex // guards last
	last *adviceJSON
}

// NewExporter returns an Exporter with no advice yet.
func NewExporter() *Exporter {
	e := &Exporter{reg: prometheus.NewRegistry()}
	gauge := func(name, help string) *prometheus.GaugeVec {
		g := prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: name, Help: help}, nil)
		e.reg.MustRegister(g)
		return g
	}
	e.desired = gauge(DesiredReplicas, "Replicas the fleet needs: the arrival rate read at the servers (Little's Law) over what one replica serves at the sweep's operating point.")
	e.current = gauge(CurrentReplicas, "Servers that gave usable metrics in the window.")
	e.inSystem = gauge(RequestsInSystem, "Requests running plus waiting, summed over the servers, mean over the window.")
	e.arrival = gauge(ArrivalRate, "Arrival rate read at the servers: requests in the system over their mean latency (absent without a latency histogram).")
	e.capacity = gauge(ReplicaCapacity, "Requests per second one replica serves at the sweep's operating point.")
	e.latency = gauge(ServerLatency, "Mean end-to-end latency the servers measured over the window (absent when none finished).")
	return e
}

// Registry returns the registry to serve.
func (e *Exporter) Registry() *prometheus.Registry { return e.reg }

// adviceJSON is the advice as /advice serves it; undefined numbers are
// null.
type adviceJSON struct {
	Advice
	OK          bool     `json:"ok"`
	Latency     *float64 `json:"server_latency_seconds"`
	ArrivalRate *float64 `json:"arrival_rate"`
}

// Set publishes a, the result of Advise; err is its error.
func (e *Exporter) Set(a Advice, err error) {
	set := func(g *prometheus.GaugeVec, v float64) {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			g.Reset()
			return
		}
		g.WithLabelValues().Set(v)
	}
	j := &adviceJSON{Advice: a, OK: err == nil, Latency: finite(a.Latency), ArrivalRate: finite(a.ArrivalRate)}
	if err != nil {
		e.desired.Reset()
	} else {
		set(e.desired, float64(a.Desired))
	}
	set(e.current, float64(a.Current))
	set(e.inSystem, a.InSystem)
	set(e.arrival, a.ArrivalRate)
	set(e.capacity, a.PerReplica)
	set(e.latency, a.Latency)
	e.mu.Lock()
	e.last = j
	e.mu.Unlock()
}

func finite(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return &v
}

// Handler serves the latest advice as JSON; 503 before the first.
func (e *Exporter) Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		e.mu.Lock()
		last := e.last
		e.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		if last == nil {
			w.WriteHeader(http.StatusServiceUnavailable)
			w.Write([]byte(`{"ok":false,"reason":"no advice yet"}` + "\n"))
			return
		}
		json.NewEncoder(w).Encode(last)
	})
}

// MetricNames lists the gauges an Exporter exports.
func MetricNames() []string {
	return []string{DesiredReplicas, CurrentReplicas, RequestsInSystem, ArrivalRate, ReplicaCapacity, ServerLatency}
}
