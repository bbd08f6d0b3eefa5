package sim

import (
	"net/http"
	"sync"

	"github.com/prometheus/client_golang/prometheus"
)

// SessionHeader is the header the simulator reads a request's session or
// agent task id from, as routers with session affinity do.
const SessionHeader = "X-Session-Id"

// maxSessions bounds the distinct session ids the simulator remembers;
// past it, new ids are counted as requests only.
const maxSessions = 1 << 20

// sessionLog is what the simulator saw of sessions, on its /metrics: the
// requests that carried a session id and how many distinct ids it served.
// With several replicas behind a router, each one's counts show where the
// sessions went and whether any was split.
type sessionLog struct {
	requests prometheus.Counter
	sessions prometheus.Gauge

	mu   sync.Mutex // guards seen
	seen map[string]struct{}
}

func newSessionLog(reg *prometheus.Registry) *sessionLog {
	l := &sessionLog{
		requests: prometheus.NewCounter(prometheus.CounterOpts{Name: "goodput_sim_session_requests_total",
			Help: "Requests that carried a session id in " + SessionHeader + "."}),
		sessions: prometheus.NewGauge(prometheus.GaugeOpts{Name: "goodput_sim_sessions",
			Help: "Distinct session ids seen in " + SessionHeader + " (at most 1048576 are remembered)."}),
		seen: map[string]struct{}{},
	}
	reg.MustRegister(l.requests, l.sessions)
	return l
}

// note records r's session id, if it has one.
func (l *sessionLog) note(r *http.Request) {
	id := r.Header.Get(SessionHeader)
	if l == nil || id == "" {
		return
	}
	l.requests.Inc()
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, ok := l.seen[id]; !ok && len(l.seen) < maxSessions {
		l.seen[id] = struct{}{}
		l.sessions.Set(float64(len(l.seen)))
	}
}
