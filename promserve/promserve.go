// Package promserve serves a Prometheus registry over HTTP for as long as
// a command runs: goodput's live client metrics during bench and sweep,
// and the autoscaling signal of watch --advise.
package promserve

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Server serves /metrics (and any extra handlers) on one address. Build it
// with Listen; the caller must call Close.
type Server struct {
	ln     net.Listener
	srv    *http.Server
	served chan error // written once, when Serve returns
}

// Listen opens addr ("127.0.0.1:9464"; port 0 picks a free one) and serves
// g's metrics at /metrics, in the protobuf format to scrapers that ask for
// it (so native histograms reach them), OpenMetrics or text otherwise, and
// each of extra at its path. flag names the flag that gave addr, for
// errors.
func Listen(flag, addr string, g prometheus.Gatherer, extra map[string]http.Handler) (*Server, error) {
	if addr == "" {
		return nil, fmt.Errorf("%s: want an address such as 127.0.0.1:9464", flag)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", flag, addr, err)
	}
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(g, promhttp.HandlerOpts{EnableOpenMetrics: true}))
	for path, h := range extra {
		mux.Handle(path, h)
	}
	s := &Server{ln: ln, served: make(chan error, 1),
		srv: &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}}
	go func() { s.served <- s.srv.Serve(ln) }()
	return s, nil
}

// Addr returns the address the server listens on.
func (s *Server) Addr() string { return s.ln.Addr().String() }

// URL returns the server's /metrics URL.
func (s *Server) URL() string { return "http://" + s.Addr() + "/metrics" }

// Close stops the server, letting scrapes in progress finish for up to a
// second.
func (s *Server) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	err := s.srv.Shutdown(ctx)
	if serr := <-s.served; !errors.Is(serr, http.ErrServerClosed) && err == nil {
		err = serr
	}
	return err
}
