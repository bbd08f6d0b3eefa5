package promserve

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
)

func TestListenServesAndCloses(t *testing.T) {
	reg := prometheus.NewRegistry()
	c := prometheus.NewCounter(prometheus.CounterOpts{Name: "test_things_total", Help: "Things."})
	reg.MustRegister(c)
	c.Add(3)
	s, err := Listen("--metrics-listen", "127.0.0.1:0", reg, map[string]http.Handler{
		"/hello": http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "hi") }),
	})
	if err != nil {
		t.Fatal(err)
	}
	get := func(url string) string {
		resp, err := http.Get(url)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return string(b)
	}
	if body := get(s.URL()); !strings.Contains(body, "test_things_total 3") {
		t.Errorf("/metrics:\n%s", body)
	}
	if body := get("http://" + s.Addr() + "/hello"); body != "hi" {
		t.Errorf("/hello: %q", body)
	}
	if err := s.Close(); err != nil {
		t.Errorf("close: %v", err)
	}
	if _, err := http.Get(s.URL()); err == nil {
		t.Error("still serving after Close")
	}
}

func TestListenErrors(t *testing.T) {
	reg := prometheus.NewRegistry()
	for _, tc := range []struct{ addr, want string }{
		{"", "--listen: want an address"},
		{"127.0.0.1:99999", "--listen 127.0.0.1:99999"},
		{"not an address", "--listen not an address"},
	} {
		if _, err := Listen("--listen", tc.addr, reg, nil); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Listen(%q): %v, want %q", tc.addr, err, tc.want)
		}
	}
}
